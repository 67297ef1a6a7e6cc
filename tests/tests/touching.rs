//! Touching at any angle: closed meshes whose coordinates are small integers, and rays from
//! half-integer origins, inside and outside, aimed at oblique angles exactly at every vertex
//! and edge midpoint, and one ulp beside some vertices (`meshcast_testkit::lattice_solids`). Each ray is held to an exact integer reference: which closed
//! triangles its line meets at `t > 0`, and whether its origin is inside.
//!
//! What is checked, at the mesh, instance and scene levels, single rays and batches:
//! - with contacts hitting (the default), the ray hits exactly when it meets a closed
//!   triangle: `occluded` says so, and `cast` finds a triangle met at the least `t`;
//! - by the tie rule (and in every hit list, which counts crossings) every crossing counts
//!   once: the parity of `cast_all` is whether the origin is inside, each hit is a triangle
//!   the ray meets, and `cast` and `occluded` by the tie rule agree with the list.

use std::collections::HashMap;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Vec3};
use meshcast::{BuildOptions, Contacts, Instance, Mesh, QueryOptions, Ray, RayQueries, Scene};
use meshcast_testkit::{lattice_solids, LatticeSolid};

/// Coordinates times `2^20`: every coordinate below is a multiple of `2^-20`, at most 64.
type Point = [i128; 3];

fn exact(v: Vec3) -> Point {
    v.to_array().map(|x| {
        let scaled = f64::from(x) * f64::from(1u32 << 20);
        assert_eq!(scaled.fract(), 0.0, "{x} is not a multiple of 2^-20");
        scaled as i128
    })
}

fn sub(a: Point, b: Point) -> Point {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: Point, b: Point) -> Point {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: Point, b: Point) -> i128 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// What the exact reference says of one ray.
struct Met {
    /// The triangles whose closed set the ray meets at `t > 0`, with that `t` (rounded).
    triangles: Vec<(u32, f64)>,
    /// Whether the ray lies in the plane of a triangle (such rays are left out).
    in_a_face: bool,
}

impl Met {
    fn of(triangles: &[[Point; 3]], ray: &Ray) -> Self {
        let (o, d) = (exact(ray.origin), exact(ray.dir));
        let mut met = Vec::new();
        let mut in_a_face = false;
        for (index, &[a, b, c]) in triangles.iter().enumerate() {
            let normal = cross(sub(b, a), sub(c, a));
            let (along, height) = (dot(normal, d), dot(normal, sub(a, o)));
            if along == 0 {
                in_a_face |= height == 0;
                continue;
            }
            // The side of each edge the line passes, exactly.
            let side = |from: Point, to: Point| dot(d, cross(sub(to, o), sub(from, o))).signum();
            let sides = [side(b, c), side(c, a), side(a, b)];
            let inside = !(sides.contains(&-1) && sides.contains(&1));
            // t = height / along > 0.
            if inside && height.signum() == along.signum() && height != 0 {
                met.push((index as u32, height as f64 / along as f64));
            }
        }
        Self {
            triangles: met,
            in_a_face,
        }
    }

    fn first_t(&self) -> Option<f64> {
        self.triangles.iter().map(|&(_, t)| t).reduce(f64::min)
    }

    fn t_of(&self, triangle: u32) -> Option<f64> {
        self.triangles
            .iter()
            .find(|&&(i, _)| i == triangle)
            .map(|&(_, t)| t)
    }
}

/// The exact answers for `rays` (those in a face's plane left out), with the rays kept.
fn reference(solid: &LatticeSolid, rays: Vec<Ray>) -> Vec<(Ray, Met)> {
    let positions = solid.mesh.positions();
    let triangles: Vec<[Point; 3]> = solid
        .mesh
        .indices()
        .iter()
        .map(|t| t.map(|i| exact(positions[i as usize])))
        .collect();
    rays.into_iter()
        .map(|ray| {
            let met = Met::of(&triangles, &ray);
            (ray, met)
        })
        .filter(|(_, met)| !met.in_a_face)
        .collect()
}

/// Checks a closest hit (triangle, `t`) against the exact answer.
fn assert_closest(what: &str, found: Option<(u32, f32)>, met: &Met, ray: &Ray) {
    match (found, met.first_t()) {
        (None, None) => {}
        (Some((triangle, t)), Some(first)) => {
            let exact = met.t_of(triangle).unwrap_or_else(|| {
                panic!("{what}: {ray:?} hit triangle {triangle}, which it does not meet")
            });
            assert!(
                (exact - first).abs() <= 1e-9 * first.max(1.0),
                "{what}: {ray:?} hit at t = {exact}, but first meets the surface at {first}"
            );
            assert!(
                (f64::from(t) - exact).abs() <= 1e-5 * exact.max(1.0),
                "{what}: {ray:?}"
            );
        }
        (found, first) => panic!("{what}: {ray:?}: found {found:?}, exact first contact {first:?}"),
    }
}

#[test]
fn contacts_at_any_angle_hit_and_crossings_count_once() {
    let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
    for solid in lattice_solids() {
        let name = solid.name;
        let mesh = Arc::new(Mesh::from_tri_mesh(
            solid.mesh.clone(),
            &BuildOptions::default(),
        ));
        let shift = Vec3::new(8.0, -16.0, 4.0);
        let instance = Instance::new(Arc::clone(&mesh), Affine3A::from_translation(shift))
            .expect("a translation");
        let far = Instance::new(Arc::clone(&mesh), Affine3A::from_translation(Vec3::X * 1e3))
            .expect("a translation");
        let scene = Scene::from_instances([instance.clone(), far]);
        let cases = reference(&solid, solid.rays(2));
        let (mut touches, mut crossings) = (0, 0);
        for (ray, met) in &cases {
            let inside = (solid.inside)(ray.origin);
            // Contacts hit.
            assert_eq!(
                mesh.occluded(ray),
                !met.triangles.is_empty(),
                "{name}: {ray:?}"
            );
            let hit = mesh.cast(ray);
            assert_closest(name, hit.map(|h| (h.triangle, h.t)), met, ray);
            // The tie rule.
            let counted = mesh.cast_all(ray);
            assert_eq!(
                counted.len() % 2 == 1,
                inside,
                "{name}: parity of {ray:?}: {counted:?}"
            );
            for h in &counted {
                assert!(
                    met.t_of(h.triangle).is_some(),
                    "{name}: {ray:?} crossed {h:?}"
                );
            }
            assert_eq!(mesh.occluded_with(ray, &tie_rule), !counted.is_empty());
            assert_eq!(mesh.cast_with(ray, &tie_rule), counted.first().copied());
            touches += usize::from(!met.triangles.is_empty());
            crossings += counted.len();

            // The same ray moved by a translation, exact at these coordinates.
            let moved = Ray::new(ray.origin + shift, ray.dir);
            assert_eq!(instance.cast(&moved), hit, "{name}: instance, {ray:?}");
            assert_eq!(instance.occluded(&moved), hit.is_some());
            assert_eq!(
                instance.cast_all(&moved),
                counted,
                "{name}: instance, {ray:?}"
            );
            assert_eq!(
                scene.cast(&moved).map(|h| h.hit),
                hit,
                "{name}: scene, {ray:?}"
            );
            let in_scene: Vec<_> = scene.cast_all(&moved).iter().map(|h| h.hit).collect();
            assert_eq!(in_scene, counted, "{name}: scene, {ray:?}");
            assert_eq!(scene.occluded_with(&moved, &tie_rule), !counted.is_empty());
        }
        assert!(
            touches > cases.len() / 3,
            "{name}: {touches} of {} rays",
            cases.len()
        );
        assert!(crossings > 0, "{name}");

        // Batches (packets where the rays allow) answer what single rays answer.
        let rays: Vec<Ray> = cases.iter().map(|(ray, _)| *ray).collect();
        let singles: Vec<_> = rays.iter().map(|ray| mesh.cast(ray)).collect();
        assert_eq!(mesh.cast_batch(&rays), singles, "{name}: batch");
        let blocked: Vec<bool> = singles.iter().map(Option::is_some).collect();
        assert_eq!(mesh.occluded_batch(&rays), blocked, "{name}: batch");
        let counted: Vec<_> = rays
            .iter()
            .map(|ray| mesh.cast_with(ray, &tie_rule))
            .collect();
        assert_eq!(
            mesh.cast_batch_with(&rays, &tie_rule),
            counted,
            "{name}: batch"
        );
    }
}

/// The fixtures are what they claim: closed, every edge shared by two triangles running
/// along it in opposite directions.
#[test]
fn the_solids_are_closed_and_consistently_oriented() {
    for solid in lattice_solids() {
        let mut directed = HashMap::new();
        for &[a, b, c] in solid.mesh.indices() {
            for edge in [(a, b), (b, c), (c, a)] {
                *directed.entry(edge).or_insert(0) += 1;
            }
        }
        for (&(p, q), &count) in &directed {
            assert_eq!(count, 1, "{}: edge {p}-{q}", solid.name);
            assert_eq!(
                directed.get(&(q, p)),
                Some(&1),
                "{}: edge {p}-{q}",
                solid.name
            );
        }
    }
}
