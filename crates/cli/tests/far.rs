//! `meshcast cast` on a mesh far from the origin (an OBJ file at a UTM position): the rays
//! are read with every digit, carried into the mesh's frame in `f64`, and `T` is printed in
//! `f64`: the lines equal the library's `f64` queries bit for bit, on the CPU.

use std::path::{Path, PathBuf};

use crate::support::{arg, run, scratch};
use glam::{DVec3, Vec3};
use meshcast::{Aabb, DRay, Mesh, MeshFiles, PointQueries, RayQueries};
use meshcast_testkit::{icosphere, random_direction, random_point_in, rng};

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
        match mesh.cast(ray) {
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
        let hits = mesh.cast_all(ray);
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
        assert_eq!(line == "hit", mesh.occluded(ray), "{line}");
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
        let expected = mesh.contains(*point);
        inside += usize::from(expected);
        assert_eq!(line, if expected { "inside" } else { "outside" });
        let printed: f64 = distance_line.parse().unwrap();
        let expected = mesh.signed_distance(*point).unwrap();
        assert_eq!(printed.to_bits(), expected.to_bits(), "{point}");
    }
    assert_eq!(contains.stdout.lines().count(), points.len());
    assert!(inside > 20, "only {inside} points inside");
}

/// A point as `--eye` and `--target` take it, every digit kept.
fn world_arg(p: DVec3) -> String {
    format!("{:?},{:?},{:?}", p.x, p.y, p.z)
}

/// The world point of `meshcast pick`'s `point` line.
fn picked_point(stdout: &str) -> DVec3 {
    let line = stdout.lines().find(|l| l.starts_with("point")).unwrap();
    let numbers: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .map(|w| w.parse().unwrap())
        .collect();
    DVec3::new(numbers[0], numbers[1], numbers[2])
}

#[test]
fn pick_takes_and_prints_world_points_at_full_precision() {
    let dir = scratch("far-pick");
    let (obj, mesh) = far_sphere(&dir);
    // Straight down onto the sphere's top from 5 m above, the camera placed in world
    // coordinates: the image's centre pixel looks along the axis.
    let eye = OFFSET + DVec3::new(0.0, 0.0, 5.0);
    let (eye_arg, target_arg) = (world_arg(eye), world_arg(OFFSET));
    let out = run(&[
        "pick",
        arg(&obj),
        "--pixel",
        "400,300",
        "--eye",
        &eye_arg,
        "--target",
        &target_arg,
        "--up",
        "0,1,0",
    ]);
    assert!(out.success, "{}", out.stderr);
    let point = picked_point(&out.stdout);
    // The centre pixel's ray is the library's, through the same camera in the mesh's frame.
    let down = DRay::new(eye, DVec3::NEG_Z);
    let top = down.origin + down.dir * mesh.cast(&down).expect("the top").t;
    assert!(point.distance(top) < 0.01, "{point} against {top}");
    assert!((point - OFFSET).truncate().length() < 0.01, "{point}");
}

#[test]
fn a_georeferenced_gltf_scene_is_cast_and_picked_at_full_precision() {
    let dir = scratch("far-gltf");
    // The two triangles of the Khronos sample, their nodes moved to the UTM position.
    let text = std::fs::read_to_string(meshcast_testkit::asset("gltf/SimpleMeshes.gltf")).unwrap();
    let mut document: serde_json::Value = serde_json::from_str(&text).unwrap();
    document["nodes"][0]["translation"] = serde_json::json!(OFFSET.to_array());
    document["nodes"][1]["translation"] = serde_json::json!((OFFSET + DVec3::X).to_array());
    let path = dir.join("far.gltf");
    std::fs::write(&path, document.to_string()).unwrap();

    // Down onto each triangle, and 1 cm beside the first one's edge.
    let rays: Vec<DRay> = [(0.25, 0.25), (1.25, 0.25), (-0.01, 0.25)]
        .iter()
        .map(|&(x, y)| DRay::new(OFFSET + DVec3::new(x, y, 2.5), DVec3::NEG_Z))
        .collect();
    let lines: String = rays
        .iter()
        .map(|r| {
            format!(
                "{:?} {:?} {:?} 0 0 -1\n",
                r.origin.x, r.origin.y, r.origin.z
            )
        })
        .collect();
    let file = dir.join("rays.txt");
    std::fs::write(&file, lines).unwrap();
    let out = run(&["cast", arg(&path), "--rays", arg(&file)]);
    assert!(out.success, "{}", out.stderr);
    let answers: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(answers.len(), 3);
    for (line, instance) in answers[..2].iter().zip(["0", "1"]) {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            (words[0], words[1], words[5]),
            ("hit", "2.5", instance),
            "{line}"
        );
    }
    assert_eq!(answers[2], "miss");

    let eye = OFFSET + DVec3::new(0.25, 0.25, 5.0);
    let target = OFFSET + DVec3::new(0.25, 0.25, 0.0);
    let out = run(&[
        "pick",
        arg(&path),
        "--pixel",
        "400,300",
        "--eye",
        &world_arg(eye),
        "--target",
        &world_arg(target),
    ]);
    assert!(out.success, "{}", out.stderr);
    // The pixel's centre lies half a pixel (3 mm here) from the image's.
    let point = picked_point(&out.stdout);
    assert!(point.distance(target) < 0.01, "{point}");
    assert_eq!(point.z, OFFSET.z, "{point}");
}
