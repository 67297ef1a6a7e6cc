//! Touching at any angle: closed meshes whose coordinates are small integers (a box cut into
//! unit squares, a union of boxes with concave creases, an octahedron cut into lattice
//! triangles), and rays from half-integer origins, inside and outside, aimed at oblique angles
//! exactly at every vertex and edge midpoint (so `origin + dir` is that point, exactly), and
//! one ulp beside the vertices. Each ray is held to an exact integer reference: which closed
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
use meshcast::{
    BuildOptions, Contacts, Instance, Mesh, QueryOptions, Ray, RayQueries, Scene, TriMesh,
};

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

/// A closed mesh with integer coordinates and its exact inside test.
struct Solid {
    name: &'static str,
    mesh: TriMesh,
    /// Whether a point (not on the surface) is inside.
    inside: Box<dyn Fn(Vec3) -> bool>,
    /// Origins, half-integer, none on the surface.
    origins: Vec<Vec3>,
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

/// Builds a mesh from faces given as corner lists (triangles or quads, each split into
/// triangles from its first corner), sharing equal corners.
fn mesh_of(faces: &[Vec<[i32; 3]>]) -> TriMesh {
    let mut index = HashMap::new();
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut corner = |p: [i32; 3]| {
        *index.entry(p).or_insert_with(|| {
            positions.push(p.map(|x| x as f32));
            positions.len() as u32 - 1
        })
    };
    let mut indices = Vec::new();
    for face in faces {
        let ids: Vec<u32> = face.iter().map(|&p| corner(p)).collect();
        for k in 1..ids.len() - 1 {
            indices.push([ids[0], ids[k], ids[k + 1]]);
        }
    }
    TriMesh::from_triangles(&positions, &indices).expect("a valid mesh")
}

/// The surface of a union of unit voxels: every face between a filled and an empty voxel,
/// outwards.
fn voxels(filled: impl Fn([i32; 3]) -> bool, size: i32) -> TriMesh {
    let mut faces = Vec::new();
    for x in -1..=size {
        for y in -1..=size {
            for z in -1..=size {
                let v = [x, y, z];
                if !filled(v) {
                    continue;
                }
                for k in 0..3 {
                    for step in [1, -1] {
                        let mut next = v;
                        next[k] += step;
                        if filled(next) {
                            continue;
                        }
                        let (u, w) = ((k + 1) % 3, (k + 2) % 3);
                        let mut quad: Vec<[i32; 3]> = [(0, 0), (1, 0), (1, 1), (0, 1)]
                            .iter()
                            .map(|&(du, dw)| {
                                let mut p = v;
                                p[k] += i32::from(step > 0);
                                p[u] += du;
                                p[w] += dw;
                                p
                            })
                            .collect();
                        if step < 0 {
                            quad.reverse();
                        }
                        faces.push(quad);
                    }
                }
            }
        }
    }
    mesh_of(&faces)
}

/// The octahedron `|x| + |y| + |z| <= n` cut into lattice triangles, outwards.
fn octahedron(n: i32) -> TriMesh {
    let mut faces = Vec::new();
    for signs in 0..8 {
        let s = [1, 2, 4].map(|bit| if signs & bit == 0 { 1 } else { -1 });
        let at = |i: i32, j: i32| [s[0] * i, s[1] * j, s[2] * (n - i - j)];
        for i in 0..n {
            for j in 0..n - i {
                let mut up = vec![at(i, j), at(i + 1, j), at(i, j + 1)];
                let mut down =
                    (i + j < n - 1).then(|| vec![at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]);
                if s[0] * s[1] * s[2] < 0 {
                    up.reverse();
                    if let Some(down) = down.as_mut() {
                        down.reverse();
                    }
                }
                faces.push(up);
                faces.extend(down);
            }
        }
    }
    mesh_of(&faces)
}

fn solids() -> Vec<Solid> {
    let cube =
        |[x, y, z]: [i32; 3]| (0..6).contains(&x) && (0..6).contains(&y) && (0..6).contains(&z);
    // A block, a tower on half of it and a ledge: concave creases and corners.
    let steps = |[x, y, z]: [i32; 3]| {
        let within = |v: i32, hi: i32| (0..hi).contains(&v);
        within(x, 5) && within(y, 4) && within(z, 2)
            || within(x, 2) && within(y, 4) && within(z, 5)
            || within(x, 5) && within(y, 2) && (2..3).contains(&z)
    };
    let voxel_inside = |filled: fn([i32; 3]) -> bool| {
        Box::new(move |p: Vec3| filled(p.floor().as_ivec3().to_array()))
            as Box<dyn Fn(Vec3) -> bool>
    };
    vec![
        Solid {
            name: "cube cut into unit squares",
            mesh: voxels(cube, 6),
            inside: voxel_inside(cube),
            origins: vec![
                Vec3::new(13.5, -4.5, 9.5),
                Vec3::new(-5.5, 2.5, 11.5),
                Vec3::new(3.5, 14.5, -6.5),
                Vec3::new(2.5, 3.5, 1.5),
                Vec3::new(4.5, 0.5, 5.5),
            ],
        },
        Solid {
            name: "union of boxes",
            mesh: voxels(steps, 5),
            inside: voxel_inside(steps),
            origins: vec![
                Vec3::new(9.5, 7.5, 8.5),
                Vec3::new(-4.5, -3.5, 6.5),
                Vec3::new(3.5, 3.5, 3.5),
                Vec3::new(1.5, 2.5, 3.5),
                Vec3::new(3.5, 0.5, 1.5),
            ],
        },
        Solid {
            name: "lattice octahedron",
            mesh: octahedron(5),
            inside: Box::new(|p: Vec3| p.abs().element_sum() < 5.0),
            origins: vec![
                Vec3::new(7.5, -3.5, 4.5),
                Vec3::new(-2.5, 8.5, -5.5),
                Vec3::new(0.5, -0.5, 1.5),
                Vec3::new(-1.5, 0.5, 0.5),
            ],
        },
    ]
}

/// Every vertex and edge midpoint of `mesh`, and points one ulp (`2^-19`, exact at these
/// magnitudes) beside some vertices.
fn targets(mesh: &TriMesh) -> Vec<Vec3> {
    let positions = mesh.positions();
    let mut points: Vec<Vec3> = positions.to_vec();
    for &[a, b, c] in mesh.indices() {
        for (p, q) in [(a, b), (b, c), (c, a)] {
            if p < q {
                points.push((positions[p as usize] + positions[q as usize]) * 0.5);
            }
        }
    }
    let ulp = 1.0 / (1u32 << 19) as f32;
    for (i, &p) in positions.iter().enumerate().step_by(5) {
        let mut beside = p;
        beside[i % 3] += if i % 2 == 0 { ulp } else { -ulp };
        points.push(beside);
    }
    points
}

/// The exact answers for `rays` (those in a face's plane left out), with the rays kept.
fn reference(solid: &Solid, rays: Vec<Ray>) -> Vec<(Ray, Met)> {
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

fn rays_of(solid: &Solid, stride: usize) -> Vec<Ray> {
    let targets = targets(&solid.mesh);
    let mut rays = Vec::new();
    for (k, &origin) in solid.origins.iter().enumerate() {
        for &target in targets.iter().skip(k % stride).step_by(stride) {
            let ray = Ray::new(origin, target - origin);
            assert_eq!(origin + ray.dir, target, "exactly through the point");
            rays.push(ray);
        }
    }
    rays
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
    for solid in solids() {
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
        let cases = reference(&solid, rays_of(&solid, 2));
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
    for solid in solids() {
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
