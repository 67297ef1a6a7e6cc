//! Shared support for the cross-crate tests: the assets, an independent count of an OBJ file's
//! triangles, seeded random and adversarial ray generators, and the brute-force reference
//! (a loop over every triangle with the same triangle test and tie rule).

use std::path::{Path, PathBuf};

use glam::{Affine3A, Quat, Vec3};
use meshcast_mesh::{LeafTest, Scene, SceneHit};
use meshcast_primitives::{Aabb, Hit, Ray, Triangle, TriangleTransform};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The seeded generator every test uses.
pub fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// The repository's `assets/` folder.
pub fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

/// An asset by file name.
pub fn asset(name: &str) -> PathBuf {
    assets_dir().join(name)
}

/// Every `.obj` file in `assets/`, sorted by name.
pub fn all_assets() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(assets_dir())
        .expect("assets/ exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "obj"))
        .collect();
    paths.sort();
    paths
}

/// A fresh path in the system's temporary folder (per process and name), for generated files.
pub fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshcast-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir.join(name)
}

/// Counts an OBJ text's triangles without any loader: a face line (`f`) with `n` corners is
/// `n - 2` triangles.
pub fn count_obj_triangles(text: &str) -> usize {
    text.lines()
        .map(|line| {
            let mut words = line.split_whitespace();
            if words.next() == Some("f") {
                words.count().saturating_sub(2)
            } else {
                0
            }
        })
        .sum()
}

/// The box of every vertex (`v` line) of an OBJ text, parsed here independently.
pub fn obj_vertex_bounds(text: &str) -> Aabb {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("v")).then(|| {
                let c: Vec<f32> = words
                    .take(3)
                    .map(|w| w.parse().expect("a number"))
                    .collect();
                Vec3::new(c[0], c[1], c[2])
            })
        })
        .fold(Aabb::EMPTY, Aabb::grow)
}

/// The closest hit by brute force: every triangle with [`Triangle::intersect`] (the default
/// watertight test), ties to the smaller index.
pub fn brute_force_cast(triangles: &[Triangle], ray: &Ray) -> Option<Hit> {
    closest_of(triangles.iter().map(|t| t.intersect(ray)))
}

/// Every hit by brute force, sorted by `t`, then index.
pub fn brute_force_cast_all(triangles: &[Triangle], ray: &Ray) -> Vec<Hit> {
    all_of(triangles.iter().map(|t| t.intersect(ray)))
}

/// A mesh's triangles prepared for the brute-force loop of its [`LeafTest`]:
/// [`Triangle::intersect`] for [`LeafTest::Watertight`], [`TriangleTransform::intersect`]
/// for [`LeafTest::Transform`] (no hit where the transform is not representable).
pub enum LeafReference {
    /// The triangles, tested with the watertight test.
    Watertight(Vec<Triangle>),
    /// Each triangle's transform, made once.
    Transform(Vec<Option<TriangleTransform>>),
}

impl LeafReference {
    /// The reference of `leaf_test` over `triangles`.
    pub fn new(leaf_test: LeafTest, triangles: &[Triangle]) -> Self {
        match leaf_test {
            LeafTest::Watertight => Self::Watertight(triangles.to_vec()),
            LeafTest::Transform => {
                Self::Transform(triangles.iter().map(TriangleTransform::new).collect())
            }
        }
    }

    /// Every triangle's hit by `ray` (index 0 in each), in triangle order.
    fn hits<'a>(&'a self, ray: &'a Ray) -> Box<dyn Iterator<Item = Option<Hit>> + 'a> {
        match self {
            Self::Watertight(triangles) => Box::new(triangles.iter().map(|t| t.intersect(ray))),
            Self::Transform(transforms) => Box::new(
                transforms
                    .iter()
                    .map(|t| t.as_ref().and_then(|t| t.intersect(ray))),
            ),
        }
    }

    /// The closest hit by brute force, ties to the smaller index.
    pub fn cast(&self, ray: &Ray) -> Option<Hit> {
        closest_of(self.hits(ray))
    }

    /// Every hit by brute force, sorted by `t`, then index.
    pub fn cast_all(&self, ray: &Ray) -> Vec<Hit> {
        all_of(self.hits(ray))
    }
}

/// The closest of each triangle's hit, in triangle order, ties to the smaller index.
fn closest_of(hits: impl Iterator<Item = Option<Hit>>) -> Option<Hit> {
    hits.enumerate().fold(None, |best, (i, hit)| {
        Hit::closest(best, hit.map(|h| h.with_triangle(i as u32)))
    })
}

/// Each triangle's hit, in triangle order, numbered and sorted by `t`, then index.
fn all_of(hits: impl Iterator<Item = Option<Hit>>) -> Vec<Hit> {
    let mut hits: Vec<Hit> = hits
        .enumerate()
        .filter_map(|(i, hit)| hit.map(|h| h.with_triangle(i as u32)))
        .collect();
    sort_hits(&mut hits);
    hits
}

/// Sorts hits by the tie rule (`t`, then index).
pub fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.triangle.cmp(&b.triangle)));
}

/// Whether two optional hits are bit-identical in triangle and `t` (and barycentrics).
pub fn same_hit(a: Option<Hit>, b: Option<Hit>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.triangle == b.triangle
                && a.t.to_bits() == b.t.to_bits()
                && a.u.to_bits() == b.u.to_bits()
                && a.v.to_bits() == b.v.to_bits()
        }
        _ => false,
    }
}

/// A uniformly random unit vector.
pub fn random_direction(rng: &mut Pcg64) -> Vec3 {
    let z: f32 = rng.gen_range(-1.0..=1.0);
    let azimuth: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
    let ring = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(ring * azimuth.cos(), ring * azimuth.sin(), z)
}

/// A uniformly random point in a box.
pub fn random_point_in(rng: &mut Pcg64, bounds: Aabb) -> Vec3 {
    bounds.min + bounds.extent() * Vec3::from(rng.gen::<[f32; 3]>())
}

/// `count` random rays around `bounds`: half from a sphere around the box towards a random
/// point in it (unnormalised directions of random length, so `t` is not a distance), half from
/// a random point inside the box in a random direction.
pub fn random_rays(bounds: Aabb, count: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed);
    let radius = bounds.extent().length().max(1e-3);
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                let origin = bounds.centroid() + random_direction(&mut rng) * radius * 1.5;
                let target = random_point_in(&mut rng, bounds);
                Ray::new(origin, (target - origin) * rng.gen_range(0.01..10.0))
            } else {
                let origin = random_point_in(&mut rng, bounds);
                Ray::new(origin, random_direction(&mut rng))
            }
        })
        .collect()
}

/// `count` rays that stress a triangle test and a BVH on `triangles` (non-degenerate ones are
/// picked as targets): through vertices and points on edges (shared in a closed mesh),
/// axis-parallel with `+0`/`-0` components, from far away, grazing along a triangle's plane,
/// starting on the surface, with tight or empty ranges, and degenerate (NaN, infinite, zero).
pub fn adversarial_rays(triangles: &[Triangle], count: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed);
    let targets: Vec<&Triangle> = triangles.iter().filter(|t| !t.is_degenerate()).collect();
    let bounds = triangles
        .iter()
        .fold(Aabb::EMPTY, |b, t| b.union(t.bounds()));
    let radius = bounds.extent().length().max(1e-3);
    let mut rays = Vec::with_capacity(count);
    while rays.len() < count {
        let triangle = targets[rng.gen_range(0..targets.len())];
        let corners = triangle.vertices();
        let vertex = corners[rng.gen_range(0..3)];
        let edge_point = {
            let k = rng.gen_range(0..3);
            let f: f32 = [0.5, 0.25, rng.gen()][rng.gen_range(0..3)];
            corners[k].lerp(corners[(k + 1) % 3], f)
        };
        let target = if rng.gen() { vertex } else { edge_point };
        let outside = bounds.centroid() + random_direction(&mut rng) * radius * 2.0;
        let ray = match rays.len() % 10 {
            // Through a vertex or an edge point, from outside.
            0 | 1 => Ray::new(outside, target - outside),
            // Axis-parallel through the target, other components +0 or -0.
            2 | 3 => {
                let axis = rng.gen_range(0..3);
                let sign = if rng.gen() { 1.0 } else { -1.0 };
                let mut dir = Vec3::ZERO;
                for k in 0..3 {
                    dir[k] = if rng.gen() { 0.0 } else { -0.0 };
                }
                dir[axis] = sign;
                let mut origin = target;
                origin[axis] -= sign * radius * 2.0;
                Ray::new(origin, dir)
            }
            // From far away (a million sizes), at the target.
            4 => {
                let far = bounds.centroid() + random_direction(&mut rng) * radius * 1e6;
                Ray::new(far, target - far)
            }
            // Grazing: in the triangle's plane, along an edge's direction.
            5 => {
                let dir = corners[1] - corners[0];
                Ray::new(corners[0] - dir * 3.0, dir)
            }
            // Starting on the surface (inside a triangle), in a random direction.
            6 => {
                let (a, b): (f32, f32) = (rng.gen(), rng.gen());
                let (a, b) = if a + b > 1.0 {
                    (1.0 - a, 1.0 - b)
                } else {
                    (a, b)
                };
                let on_surface =
                    corners[0] + (corners[1] - corners[0]) * a + (corners[2] - corners[0]) * b;
                Ray::new(on_surface, random_direction(&mut rng))
            }
            // A segment ending exactly at the target, or a range that starts past it.
            7 => {
                if rng.gen() {
                    Ray::segment(outside, target)
                } else {
                    Ray::new(outside, target - outside).with_range(0.5, 2.0)
                }
            }
            // A tiny or huge direction (t scales inversely).
            8 => {
                let scale = if rng.gen() { 1e-6 } else { 1e6 };
                Ray::new(outside, (target - outside) * scale)
            }
            // Degenerate rays: every query must call them a miss.
            _ => {
                let nan = f32::NAN;
                let inf = f32::INFINITY;
                match rng.gen_range(0..6) {
                    0 => Ray::new(Vec3::new(nan, 0.0, 0.0), target - outside),
                    1 => Ray::new(outside, Vec3::new(0.0, nan, 1.0)),
                    2 => Ray::new(outside, Vec3::ZERO),
                    3 => Ray::new(Vec3::new(0.0, -inf, 0.0), Vec3::Y),
                    4 => Ray::new(outside, Vec3::new(inf, 0.0, 0.0)),
                    _ => Ray::new(outside, target - outside).with_range(nan, 1.0),
                }
            }
        };
        rays.push(ray);
    }
    rays
}

/// A random rigid-plus-scale transform: a rotation, a non-uniform scale (each factor in
/// `[0.2, 5]`, possibly negative to mirror) and a translation within `spread`.
pub fn random_transform(rng: &mut Pcg64, spread: f32) -> Affine3A {
    let axis = random_direction(rng);
    let angle = rng.gen_range(0.0..std::f32::consts::TAU);
    let mut scale = Vec3::from(std::array::from_fn::<f32, 3, _>(|_| {
        rng.gen_range(0.2..5.0)
    }));
    if rng.gen_bool(0.2) {
        scale.x = -scale.x;
    }
    let translation = (Vec3::from(rng.gen::<[f32; 3]>()) - 0.5) * 2.0 * spread;
    Affine3A::from_scale_rotation_translation(
        scale,
        Quat::from_axis_angle(axis, angle),
        translation,
    )
}

/// The smallest of a hit's three barycentric weights: near 0 the hit is near an edge, where a
/// tiny change of the ray can move it to the neighbouring triangle.
pub fn edge_closeness(hit: &Hit) -> f32 {
    hit.u.min(hit.v).min(hit.w())
}

/// Whether `a` comes before `b` in a scene: smaller `t`, then instance, then triangle.
fn scene_order(a: &SceneHit, b: &SceneHit) -> std::cmp::Ordering {
    a.hit
        .t
        .total_cmp(&b.hit.t)
        .then(a.instance.cmp(&b.instance))
        .then(a.hit.triangle.cmp(&b.hit.triangle))
}

/// Every hit in a scene by brute force: each instance's every triangle, tested on the
/// instance's carried ray, sorted by `t`, instance, triangle; `keep` filters triangles.
pub fn brute_force_scene_cast_all(
    scene: &Scene,
    ray: &Ray,
    mut keep: impl FnMut(meshcast_mesh::InstanceId, u32) -> bool,
) -> Vec<SceneHit> {
    let mut hits = Vec::new();
    for (instance, placed) in scene.instances() {
        let local = placed.to_local(ray);
        for (i, triangle) in placed.mesh().tri_mesh().triangles().enumerate() {
            if !keep(instance, i as u32) {
                continue;
            }
            if let Some(hit) = triangle.intersect(&local) {
                hits.push(SceneHit {
                    instance,
                    hit: hit.with_triangle(i as u32),
                });
            }
        }
    }
    hits.sort_by(scene_order);
    hits
}

/// The closest hit in a scene by brute force (the first of
/// [`brute_force_scene_cast_all`]).
pub fn brute_force_scene_cast(scene: &Scene, ray: &Ray) -> Option<SceneHit> {
    brute_force_scene_cast_all(scene, ray, |_, _| true)
        .first()
        .copied()
}

/// Whether two optional scene hits are the same instance and bit-identical hits.
pub fn same_scene_hit(a: Option<SceneHit>, b: Option<SceneHit>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.instance == b.instance && same_hit(Some(a.hit), Some(b.hit)),
        _ => false,
    }
}
