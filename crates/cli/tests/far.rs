//! `meshcast cast` on a mesh far from the origin (an OBJ file at a UTM position): the rays
//! are read with every digit, carried into the mesh's frame in `f64`, and `T` is printed in
//! `f64`: the lines equal the library's `f64` queries bit for bit, on the CPU.

mod support;

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};
use meshcast::{Aabb, DRay, Mesh, MeshFiles};
use meshcast_testkit::{icosphere, random_direction, random_point_in, rng};
use support::{arg, run, scratch};

/// The UTM position of the sphere.
const OFFSET: DVec3 = DVec3::new(500_123.37, 5_000_456.71, 100.0);

/// A sphere of radius 1 at [`OFFSET`], written in `dir` as an OBJ file with every digit of
/// its `f64` coordinates, and the mesh the library reads from it (which has an origin).
fn far_sphere(dir: &Path) -> (PathBuf, Mesh) {
    let sphere = icosphere(2);
    let obj = dir.join("far-sphere.obj");
    let mut text = String::new();
    for p in sphere.positions() {
        let p = p.as_dvec3() + OFFSET;
        text += &format!("v {:?} {:?} {:?}\n", p.x, p.y, p.z);
    }
    for [a, b, c] in sphere.indices() {
        text += &format!("f {} {} {}\n", a + 1, b + 1, c + 1);
    }
    std::fs::write(&obj, text).unwrap();
    let mesh = Mesh::from_path(&obj).unwrap();
    assert_ne!(mesh.origin(), DVec3::ZERO);
    (obj, mesh)
}

#[test]
fn cast_answers_a_far_mesh_at_full_precision() {
    let dir = scratch("far");
    let (obj, mesh) = far_sphere(&dir);

    let mut rng = rng(57);
    let rays: Vec<DRay> = (0..300)
        .map(|_| {
            let from = random_point_in(&mut rng, Aabb::new(Vec3::splat(-3.0), Vec3::splat(3.0)));
            let towards = random_direction(&mut rng) * 0.5;
            DRay::new(OFFSET + from.as_dvec3(), (towards - from).as_dvec3())
        })
        .collect();
    let mut lines = String::new();
    for ray in &rays {
        let (o, d) = (ray.origin, ray.dir);
        lines += &format!(
            "{:?} {:?} {:?} {:?} {:?} {:?}\n",
            o.x, o.y, o.z, d.x, d.y, d.z
        );
    }
    let file = dir.join("rays.txt");
    std::fs::write(&file, lines).unwrap();

    let closest = run(&["cast", arg(&obj), "--rays", arg(&file)]);
    assert!(closest.success, "{}", closest.stderr);
    let mut hits = 0;
    for (line, ray) in closest.stdout.lines().zip(&rays) {
        let words: Vec<&str> = line.split(' ').collect();
        match mesh.cast_f64(ray) {
            Some(hit) => {
                hits += 1;
                assert_eq!(words[0], "hit", "{line}");
                let t: f64 = words[1].parse().unwrap();
                assert_eq!(t.to_bits(), hit.t.to_bits(), "{line}: {hit:?}");
                assert_eq!(words[2].parse::<u32>().unwrap(), hit.triangle, "{line}");
            }
            None => assert_eq!(line, "miss"),
        }
    }
    assert_eq!(closest.stdout.lines().count(), rays.len());
    assert!(hits > 50, "only {hits} hits");

    let all = run(&["cast", arg(&obj), "--rays", arg(&file), "--all"]);
    assert!(all.success, "{}", all.stderr);
    for (line, ray) in all.stdout.lines().zip(&rays) {
        let hits = mesh.cast_all_f64(ray);
        if hits.is_empty() {
            assert_eq!(line, "miss");
            continue;
        }
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words[1].parse::<usize>().unwrap(), hits.len(), "{line}");
        for (i, hit) in hits.iter().enumerate() {
            let t: f64 = words[2 + 4 * i].parse().unwrap();
            assert_eq!(t.to_bits(), hit.t.to_bits(), "{line}");
        }
    }
    let any = run(&["cast", arg(&obj), "--rays", arg(&file), "--any"]);
    assert!(any.success, "{}", any.stderr);
    for (line, ray) in any.stdout.lines().zip(&rays) {
        assert_eq!(line == "hit", mesh.occluded_f64(ray), "{line}");
    }
}

#[test]
fn contains_and_distance_answer_a_far_mesh_at_full_precision() {
    let dir = scratch("far-points");
    let (obj, mesh) = far_sphere(&dir);
    let mut rng = rng(5757);
    let cube = Aabb::new(Vec3::splat(-1.5), Vec3::splat(1.5));
    let points: Vec<DVec3> = (0..200)
        .map(|_| OFFSET + random_point_in(&mut rng, cube).as_dvec3())
        .collect();
    let lines: String = points
        .iter()
        .map(|p| format!("{:?} {:?} {:?}\n", p.x, p.y, p.z))
        .collect();
    let file = dir.join("points.txt");
    std::fs::write(&file, lines).unwrap();

    let contains = run(&["contains", arg(&obj), "--points", arg(&file)]);
    assert!(contains.success, "{}", contains.stderr);
    let distance = run(&["distance", arg(&obj), "--points", arg(&file)]);
    assert!(distance.success, "{}", distance.stderr);
    let mut inside = 0;
    for ((point, line), distance_line) in points
        .iter()
        .zip(contains.stdout.lines())
        .zip(distance.stdout.lines())
    {
        let expected = mesh.contains_f64(*point);
        inside += usize::from(expected);
        assert_eq!(line, if expected { "inside" } else { "outside" });
        let printed: f64 = distance_line.parse().unwrap();
        let expected = mesh.signed_distance_f64(*point).unwrap();
        assert_eq!(printed.to_bits(), expected.to_bits(), "{point}");
    }
    assert_eq!(contains.stdout.lines().count(), points.len());
    assert!(inside > 20, "only {inside} points inside");
}
