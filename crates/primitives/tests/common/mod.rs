//! Shared support of the primitives' property tests: fixed-seed configuration, strategies, the
//! list of triangle tests, and an `f64` reference.

use glam::{DVec3, Vec3};
use meshcast_primitives::{Hit, Polygon, Ray, Triangle, TriangleTransform, WatertightRay};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// The seed of every property test: a failure reproduces on every run (proptest prints the
/// minimal failing input).
pub const SEED: u64 = 0x6d65_7368_6361_7374;

/// A fixed-seed configuration running `cases` cases, writing no regression files.
pub fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(SEED),
        failure_persistence: None,
        ..Config::default()
    }
}

/// A point with coordinates in `[-extent, extent]`.
pub fn point(extent: f32) -> impl Strategy<Value = Vec3> {
    let c = -extent..=extent;
    (c.clone(), c.clone(), c).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// A triangle with corners in `[-extent, extent]³`.
pub fn triangle(extent: f32) -> impl Strategy<Value = Triangle> {
    (point(extent), point(extent), point(extent)).prop_map(|(a, b, c)| Triangle::new(a, b, c))
}

/// Every two-sided triangle test of the crate, by name, on one ray. Ray and triangle need not
/// be valid.
pub fn two_sided_hits(tri: &Triangle, ray: &Ray) -> [(&'static str, Option<Hit>); 6] {
    let transform = TriangleTransform::new(tri);
    let polygon = Polygon::new(tri.vertices()).ok();
    [
        ("moller_trumbore", tri.intersect_moller_trumbore(ray)),
        ("watertight", tri.intersect_watertight(ray)),
        (
            "watertight_ray",
            // The raw form does not check the triangle: that is the caller's job.
            if tri.is_degenerate() {
                None
            } else {
                WatertightRay::new(ray).intersect(tri.v0, tri.v1, tri.v2)
            },
        ),
        (
            "triangle_transform",
            transform.and_then(|tt| tt.intersect(ray)),
        ),
        ("plane_inside", tri.intersect_plane_inside(ray)),
        ("polygon", polygon.and_then(|p| p.intersect(ray))),
    ]
}

/// The ray's line against the triangle's plane in `f64`: `t` and the barycentrics
/// `[1 - u - v, u, v]` of the crossing, or `None` if the line is parallel to the plane.
/// Neither the range nor the inside is checked.
pub fn reference(tri: &Triangle, ray: &Ray) -> Option<(f64, [f64; 3])> {
    let [v0, v1, v2] = tri.vertices().map(|v| v.as_dvec3());
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let e1 = v1 - v0;
    let e2 = v2 - v0;
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det == 0.0 {
        return None;
    }
    let s = o - v0;
    let q = s.cross(e1);
    let u = s.dot(p) / det;
    let v = d.dot(q) / det;
    let t = e2.dot(q) / det;
    Some((t, [1.0 - u - v, u, v]))
}

/// The cosine between the ray and the triangle's plane normal, in `f64`.
pub fn cosine(tri: &Triangle, ray: &Ray) -> f64 {
    let n: DVec3 = tri.normal().as_dvec3();
    (n.dot(ray.dir.as_dvec3()) / (n.length() * ray.dir.as_dvec3().length())).abs()
}

/// How far from degenerate the triangle is: twice its area over its longest edge squared
/// (0 for a needle, `sqrt(3) / 2` at most, for the equilateral triangle).
pub fn shape_quality(tri: &Triangle) -> f64 {
    let [a, b, c] = tri.vertices().map(|v| v.as_dvec3());
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    (b - a).cross(c - a).length() / longest
}

/// `|a - b| <= tolerance * max(|a|, |b|)`.
pub fn close(a: f32, b: f64, tolerance: f64) -> bool {
    let a = f64::from(a);
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

/// `f32::EPSILON` as `f64`.
pub const EPS: f64 = f32::EPSILON as f64;

/// How far from the reference the `f32` tests may be, in units of `EPS` times the case's
/// condition numbers (measured: at most 8.4 for `t`, by Möller–Trumbore; 2.1 for the
/// barycentrics, by the polygon test, over 1.2 million cases near and far from the origin).
pub const T_ERROR: f64 = 16.0;
/// See [`T_ERROR`]: the width, in the same units, of the band around an edge where a test may
/// decide either way.
pub const HAIR: f64 = 8.0;

/// The reference answer for one ray and triangle, with the error bounds of this case.
pub struct Expected {
    /// The exact `t` of the ray's line at the plane.
    pub t: f64,
    /// The exact barycentrics.
    pub bary: [f64; 3],
    /// The allowed relative error of `t`.
    pub t_tolerance: f64,
    /// The allowed absolute error of the barycentrics: closer to an edge, anything goes.
    pub hair: f64,
}

impl Expected {
    /// `None` if the line is parallel to the plane.
    pub fn new(tri: &Triangle, ray: &Ray) -> Option<Self> {
        let (t, bary) = reference(tri, ray)?;
        let [a, b, c] = tri.vertices();
        let size = f64::from((b - a).length().max((c - b).length()).max((a - c).length()));
        let dist = f64::from((ray.origin - tri.centroid()).length());
        let cos = cosine(tri, ray);
        let cond_t = 1.0 + (dist + size) / (t.abs() * f64::from(ray.dir.length()) * cos);
        let cond_b = (dist + size) / (shape_quality(tri) * size * cos);
        Some(Self {
            t,
            bary,
            t_tolerance: T_ERROR * EPS * cond_t,
            hair: HAIR * EPS * cond_b,
        })
    }

    /// The smallest barycentric: negative outside the triangle.
    pub fn margin(&self) -> f64 {
        self.bary[0].min(self.bary[1]).min(self.bary[2])
    }

    /// Whether every test must hit: inside by more than a hair, and `t` inside the range
    /// by more than its tolerance.
    pub fn must_hit(&self, ray: &Ray) -> bool {
        let slack = self.t_tolerance * self.t.abs();
        self.margin() > self.hair
            && self.t - slack > f64::from(ray.t_min)
            && self.t + slack < f64::from(ray.t_max)
    }

    /// Whether every test must miss: outside by more than a hair, or `t` outside the range by
    /// more than its tolerance.
    pub fn must_miss(&self, ray: &Ray) -> bool {
        let slack = self.t_tolerance * self.t.abs();
        self.margin() < -self.hair
            || self.t + slack < f64::from(ray.t_min)
            || self.t - slack > f64::from(ray.t_max)
    }

    /// Checks one test's answer: hit or miss where it is clear, `t` within tolerance, and a
    /// hit point on the triangle that reconstructs `ray.at(t)`.
    pub fn check(
        &self,
        name: &str,
        tri: &Triangle,
        ray: &Ray,
        hit: Option<Hit>,
    ) -> Result<(), String> {
        let Some(hit) = hit else {
            return if self.must_hit(ray) {
                Err(format!(
                    "{name} missed; expected t {} bary {:?}",
                    self.t, self.bary
                ))
            } else {
                Ok(())
            };
        };
        if self.must_miss(ray) {
            return Err(format!(
                "{name} hit {hit:?}; expected a miss, t {} bary {:?}",
                self.t, self.bary
            ));
        }
        if !close(hit.t, self.t, self.t_tolerance) {
            return Err(format!(
                "{name} t {} vs {} (tolerance {:e})",
                hit.t, self.t, self.t_tolerance
            ));
        }
        if !ray.contains_t(hit.t) {
            return Err(format!("{name} t {} outside the range", hit.t));
        }
        if !(hit.u >= 0.0 && hit.v >= 0.0 && hit.u + hit.v <= 1.0 + 1e-6) {
            return Err(format!("{name} barycentrics off the triangle: {hit:?}"));
        }
        let (u, v) = (f64::from(hit.u), f64::from(hit.v));
        if (u - self.bary[1]).abs() > self.hair || (v - self.bary[2]).abs() > self.hair {
            return Err(format!(
                "{name} u, v {u} {v} vs {:?} (hair {:e})",
                self.bary, self.hair
            ));
        }
        // The two ways of computing the point agree to the combined error bounds.
        let size = f64::from((tri.v1 - tri.v0).length().max((tri.v2 - tri.v0).length()));
        let along = f64::from(ray.dir.length()) * self.t.abs() * self.t_tolerance;
        let gap = f64::from(hit.point(tri).distance(ray.at(hit.t)));
        let allowed = 2.0 * self.hair * size
            + along
            + 8.0 * EPS * f64::from(ray.origin.length() + ray.at(hit.t).length());
        if gap > allowed {
            return Err(format!(
                "{name} point {} vs ray.at(t) {} ({gap:e} > {allowed:e})",
                hit.point(tri),
                ray.at(hit.t)
            ));
        }
        Ok(())
    }
}
