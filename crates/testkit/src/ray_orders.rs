//! The batches a batch call must never be slower on than a loop of single-ray calls: random
//! rays in the caller's order and sorted three ways, a lidar's scan in its order and shuffled,
//! and fans of rays from many points. Each is a [`RaySet`]; [`order_sets`] gives them all.

use meshcast::glam::Vec3;
use meshcast::{Aabb, Ray};
use rand::seq::SliceRandom;

use crate::random::{random_direction, rng};
use crate::rays::incoherent_rays;

/// A named batch of rays.
#[derive(Clone, Debug)]
pub struct RaySet {
    /// What the rays are and how they are ordered.
    pub name: &'static str,
    /// The rays.
    pub rays: Vec<Ray>,
}

/// The ray sets of issue 44's table, about `count` rays each, around `bounds`, the same for
/// the same `seed`:
///
/// - `random`: [`incoherent_rays`] in the order made;
/// - `octant+morton`: the same, sorted by direction octant, then by a Morton code of the origin;
/// - `morton6`: sorted by a six-dimensional Morton code of origin and direction;
/// - `centre-pass`: sorted by where the ray passes closest to the box's centre, then by direction;
/// - `lidar`: a scanner at the box's centre shifted by a quarter of its extent, columns of
///   elevations swept in azimuth, in scan order;
/// - `lidar-shuffled`: the same rays shuffled;
/// - `fans`: 64 random directions from each of `count / 64` random points around the box.
pub fn order_sets(bounds: Aabb, count: usize, seed: u64) -> Vec<RaySet> {
    let random = incoherent_rays(bounds, count, seed);
    let sorted = |key: &dyn Fn(&Ray) -> u64| {
        let mut rays = random.clone();
        rays.sort_by_cached_key(|ray| key(ray));
        rays
    };
    let unit = |p: Vec3| unit_in(p, bounds);
    let octant_morton = sorted(&|ray| (octant(ray.dir) << 60) | morton3(unit(ray.origin), 20));
    let morton6 = sorted(&|ray| {
        let dir = 0.5 * (ray.dir.normalize_or_zero() + Vec3::ONE);
        morton6(unit(ray.origin), dir)
    });
    let centre = bounds.centroid();
    let centre_pass = sorted(&|ray| {
        let dir = ray.dir.normalize_or_zero();
        let pass = ray.origin + dir * (centre - ray.origin).dot(dir);
        (morton3(unit(pass), 16) << 16) | morton3(0.5 * (dir + Vec3::ONE), 5)
    });
    let lidar = lidar_rays(bounds, count);
    let mut shuffled = lidar.clone();
    shuffled.shuffle(&mut rng(seed));
    vec![
        RaySet {
            name: "random",
            rays: random,
        },
        RaySet {
            name: "octant+morton",
            rays: octant_morton,
        },
        RaySet {
            name: "morton6",
            rays: morton6,
        },
        RaySet {
            name: "centre-pass",
            rays: centre_pass,
        },
        RaySet {
            name: "lidar",
            rays: lidar,
        },
        RaySet {
            name: "lidar-shuffled",
            rays: shuffled,
        },
        RaySet {
            name: "fans",
            rays: fan_rays(bounds, count / FAN_RAYS, seed),
        },
    ]
}

/// The rays per point of a fan.
const FAN_RAYS: usize = 64;

/// Elevations per lidar column.
const LIDAR_ROWS: usize = 64;

/// About `count` rays of a lidar inside `bounds`: [`LIDAR_ROWS`] elevations from -30 to 30
/// degrees per column, columns around the full circle, column after column.
fn lidar_rays(bounds: Aabb, count: usize) -> Vec<Ray> {
    let origin = bounds.centroid() + 0.25 * bounds.extent();
    let columns = (count / LIDAR_ROWS).max(1);
    let mut rays = Vec::with_capacity(columns * LIDAR_ROWS);
    for column in 0..columns {
        let azimuth = std::f32::consts::TAU * column as f32 / columns as f32;
        for row in 0..LIDAR_ROWS {
            let elevation = (-30.0 + 60.0 * row as f32 / (LIDAR_ROWS - 1) as f32).to_radians();
            let dir = Vec3::new(
                elevation.cos() * azimuth.cos(),
                elevation.cos() * azimuth.sin(),
                elevation.sin(),
            );
            rays.push(Ray::new(origin, dir));
        }
    }
    rays
}

/// [`FAN_RAYS`] random directions from each of `points` random points on the sphere the
/// incoherent rays start on and inside the box.
fn fan_rays(bounds: Aabb, points: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed ^ 0xfa);
    let origins = incoherent_rays(bounds, points.max(1), seed ^ 0xfa);
    let mut rays = Vec::with_capacity(origins.len() * FAN_RAYS);
    for (i, start) in origins.iter().enumerate() {
        // Every other fan starts halfway along its ray, inside or near the box.
        let origin = if i % 2 == 0 {
            start.origin
        } else {
            start.at(0.5 * (start.origin - bounds.centroid()).length())
        };
        for _ in 0..FAN_RAYS {
            rays.push(Ray::new(origin, random_direction(&mut rng)));
        }
    }
    rays
}

/// `p` in the unit cube that `bounds` grown twice its size around its centre maps to, clamped.
fn unit_in(p: Vec3, bounds: Aabb) -> Vec3 {
    let extent = bounds.extent().max(Vec3::splat(f32::MIN_POSITIVE));
    let low = bounds.centroid() - 2.0 * extent;
    ((p - low) / (4.0 * extent)).clamp(Vec3::ZERO, Vec3::ONE)
}

/// The octant of `dir`: one bit per negative component.
fn octant(dir: Vec3) -> u64 {
    u64::from(dir.x < 0.0) | u64::from(dir.y < 0.0) << 1 | u64::from(dir.z < 0.0) << 2
}

/// The Morton code of `p` in the unit cube, `bits` bits per axis.
fn morton3(p: Vec3, bits: u32) -> u64 {
    interleave(&[p.x, p.y, p.z], bits)
}

/// The six-dimensional Morton code of `a` and `b` in the unit cube, 10 bits per axis.
fn morton6(a: Vec3, b: Vec3) -> u64 {
    interleave(&[a.x, a.y, a.z, b.x, b.y, b.z], 10)
}

/// The bits of `coordinates` (each in `[0, 1]`, `bits` bits) interleaved, highest first.
fn interleave(coordinates: &[f32], bits: u32) -> u64 {
    let scale = ((1u64 << bits) - 1) as f32;
    let cells: Vec<u64> = coordinates
        .iter()
        .map(|&c| (c.clamp(0.0, 1.0) * scale) as u64)
        .collect();
    let mut code = 0;
    for bit in (0..bits).rev() {
        for cell in &cells {
            code = code << 1 | (cell >> bit & 1);
        }
    }
    code
}
