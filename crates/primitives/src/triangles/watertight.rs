//! The watertight ray–triangle test (Woop, Benthin, Wald, *Watertight Ray/Triangle
//! Intersection*, JCGT 2013).
//!
//! Past 600 lines because its unit tests live beside it: the test is the first 340 lines,
//! the rest holds it to exact references at every scale, where a reader checks both at once.
//!
//! The ray is turned into a shear that maps it onto the +z axis; the triangle is then tested
//! in 2D with edge functions evaluated from the same vertex values for every triangle that
//! shares an edge, so the two sides of a shared edge agree exactly and no ray falls through.
//!
//! The shear rounds, so a rounded edge function near zero can have the wrong sign: a ray
//! exactly through a vertex at an oblique angle can pass beside every triangle around it.
//! So every edge function comes with a bound on its rounding (`edge_bounds.rs`, a static
//! filter in the manner of Shewchuk 1997), and one within its bound of zero has its sign
//! decided exactly on the input's coordinates: the ray's `f32` origin and direction and the
//! triangle's `f32` corners ([`crate::ray_edge_side`]: the sign of
//! `dir · ((to - origin) × (from - origin))`, by an `f64` filter, Shewchuk's exact predicates
//! or integers). Every sign the test takes is therefore the sign the edge function has in
//! exact arithmetic, and a zero means the ray's line meets the edge's line exactly.
//!
//! A zero means the ray runs through the edge's line (through the edge, or a vertex where
//! two edges meet). The paper counts the point as inside both triangles of the edge, so a
//! ray through a shared edge hits twice and one through a vertex once per triangle around it.
//! Here the zero takes the sign it would have were the ray moved by an infinitesimal step in
//! the sheared plane ([`crate::ray_edge_tie`], exact too: simulation of simplicity,
//! Edelsbrunner and Mücke 1990; a rasteriser's top-left rule is the same idea), the same step
//! for every triangle the ray is tested against. The answers are then those of a ray in
//! general position, whatever the mesh:
//! - a closed, consistently oriented surface (every edge shared by two triangles that run
//!   along it in opposite directions) is hit exactly once per crossing, through edges and
//!   vertices included, so the parity of the hits of a ray to infinity tells whether its
//!   origin is inside;
//! - a ray that only touches the surface (a silhouette edge or vertex) hits it twice or not
//!   at all, never once;
//! - on an open mesh a border edge is half-open: a ray exactly through it hits or misses by
//!   the edge's direction as seen along the ray;
//! - where more than two triangles share an edge, or two that share it run the same way
//!   (inconsistent orientation), each triangle keeps its own half-open edge, so a ray
//!   through that edge hits each triangle whose side it is moved to: possibly none or two
//!   where a consistent surface would give one.
//!
//! That rule is [`Contacts::TieRule`], right wherever hits are counted. A closest-hit or
//! any-hit question asks instead where or whether the ray meets the surface, and a ray that
//! only touches it (along a box's edge, through a cone's apex) meets it there: with
//! [`Contacts::Hit`] every triangle is closed, its edges and vertices included, so a ray that
//! meets a triangle's closed set in exact arithmetic hits it, at any angle, and one through a
//! shared edge hits both triangles of the edge at the same `t` (a closest hit then picks one
//! by [`Hit::order`]).
//!
//! None of it depends on scale. The bound has an absolute term (subnormal coordinates and
//! directions), an edge function whose bound overflows goes to the exact decision, and a hit
//! whose `f32` placement underflows or overflows (a mesh far below or above unit size, a
//! direction below `2^-126`, whose shear's `1 / d` is infinite) is placed in `f64` on the
//! input's coordinates: a mesh and its rays scaled by a power of two answer alike wherever
//! `t` is a finite `f32`, and a hit beyond `f32::MAX` is no hit.
//!
//! The filter costs a few operations per triangle; the exact decision runs only for
//! triangles with an edge function within about `2^-21` of its terms (the ray within about
//! `u` times its distance over the triangle's size of an edge's line). `t`, `u` and `v` are
//! those of the rounded edge functions wherever their signs are the exact ones, so away from
//! edges and vertices every answer is bit for bit what it was; where a rounded sign was
//! wrong, the hit is placed in `f64` on the input's coordinates instead, so that the two hits
//! of a ray grazing a fold keep their order.

use glam::{Vec3, Vec4};

use super::edge_bounds::{edge_bound, is_near, is_well_placed};
use crate::exact::{ray_edge_side, ray_edge_tie};
use crate::rays::Ray;
use crate::triangles::Hit;
#[cfg(doc)]
use crate::triangles::Triangle;

/// The per-ray set-up of the watertight test: the axis permutation and shear. Build it once
/// per ray and test many triangles with [`WatertightRay::intersect`].
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Ray, WatertightRay};
///
/// // Two triangles sharing the edge x = y; a ray straight through that edge hits one of them.
/// let (a, b, c, d) = (Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0), Vec3::X, Vec3::Y);
/// let ray = Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::NEG_Z);
/// let wt = WatertightRay::new(&ray);
/// assert!(wt.intersect(a, c, b).is_some() || wt.intersect(a, b, d).is_some());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WatertightRay {
    pub(crate) origin: Vec3,
    /// The ray's direction, for the exact signs near edges (`ray_edge_side`).
    pub(crate) dir: Vec3,
    /// Index of the dominant direction axis (`kz`), then the other two (`kx`, `ky`), ordered
    /// so that the triangle's winding is preserved.
    pub(crate) axes: [usize; 3],
    /// The shear `(dir[kx] / dir[kz], dir[ky] / dir[kz], 1 / dir[kz])`.
    pub(crate) shear: Vec3,
    pub(crate) t_min: f32,
    pub(crate) t_max: f32,
    /// Which triangles own a point on an edge or a vertex.
    pub(crate) contacts: Contacts,
}

/// Which triangles a ray through an edge or a vertex hits: the one [`Contacts::TieRule`]
/// gives the point to, or every triangle it touches ([`Contacts::Hit`]). The two differ only
/// for rays exactly through an edge or a vertex.
///
/// "Exactly" is in exact arithmetic on the `f32` coordinates the test is given: the ray's
/// origin and direction and the triangle's corners, at any angle (see the module
/// [`crate::watertight`]). For a mesh those are its vertices and the ray as cast; for an
/// instance they are the mesh's vertices and the ray as transformed into the mesh's frame
/// (rounded to `f32`), so a ray through a vertex of a transformed instance is exact only
/// where the transform is exact on it (translations and scalings by powers of two,
/// typically).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Contacts, Ray, WatertightRay};
///
/// // Two triangles sharing the edge x = y; a ray straight through that edge.
/// let (a, b, c, d) = (Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0), Vec3::X, Vec3::Y);
/// let ray = Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::NEG_Z);
/// let hits = |contacts| {
///     let wt = WatertightRay::new(&ray).with_contacts(contacts);
///     [wt.intersect(a, c, b), wt.intersect(a, b, d)].iter().flatten().count()
/// };
/// assert_eq!(hits(Contacts::TieRule), 1);
/// assert_eq!(hits(Contacts::Hit), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contacts {
    /// Every triangle is closed: a ray that meets an edge or a vertex hits each triangle
    /// there. What a closest or any hit means by "the ray meets the surface".
    Hit,
    /// Each edge and vertex belongs to one of the triangles around it (see the module doc):
    /// a ray crossing a closed surface there hits it once, a ray only touching it hits it
    /// twice or not at all. What counting crossings needs. [`WatertightRay::new`]'s default.
    TieRule,
}

impl WatertightRay {
    /// The set-up for `ray`. A degenerate ray ([`Ray::is_valid`]) gives a set-up that misses
    /// every triangle.
    #[inline]
    pub fn new(ray: &Ray) -> Self {
        let (t_min, t_max) = if ray.is_valid() {
            (ray.t_min, ray.t_max)
        } else {
            (f32::NAN, f32::NAN)
        };
        Self::with_axes(ray, t_min, t_max)
    }

    /// [`WatertightRay::new`] for a ray known to be valid ([`Ray::is_valid`]), as a BVH walk
    /// knows every ray that reaches a leaf: the same set-up, without the check that empties
    /// a degenerate ray's range. A degenerate ray's answers are then unspecified (a debug
    /// build panics).
    #[inline]
    pub fn from_valid(ray: &Ray) -> Self {
        debug_assert!(ray.is_valid(), "a degenerate ray: {ray:?}");
        Self::with_axes(ray, ray.t_min, ray.t_max)
    }

    /// The set-up of `ray`'s origin and direction with the range `[t_min, t_max]`.
    #[inline(always)]
    fn with_axes(ray: &Ray, t_min: f32, t_max: f32) -> Self {
        let [kx, ky, kz] = Self::axes_of(ray);
        let d = ray.dir.to_array();
        // One four-lane division whose spare lane is 1 / 1. Written as three scalar divisions,
        // LLVM fused them into one with an undefined fourth lane, which in some callers held a
        // value that made each division take a slow microcode path (a quarter of the bunny's
        // traversal time). Lane by lane the results are the scalar quotients, bit for bit.
        let shear = Vec4::new(d[kx], d[ky], 1.0, 1.0) / Vec4::new(d[kz], d[kz], d[kz], 1.0);
        Self {
            origin: ray.origin,
            dir: ray.dir,
            axes: [kx, ky, kz],
            shear: shear.truncate(),
            t_min,
            t_max,
            contacts: Contacts::TieRule,
        }
    }

    /// The same set-up with the given rule for rays through edges and vertices.
    #[inline]
    #[must_use]
    pub fn with_contacts(self, contacts: Contacts) -> Self {
        Self { contacts, ..self }
    }

    /// The axes of `ray`'s set-up: the dominant direction axis `kz`, after the other two
    /// (`kx`, `ky`) in the order that keeps a triangle's winding.
    #[inline]
    pub fn axes_of(ray: &Ray) -> [usize; 3] {
        // Indexed by `2 kz + s`, `s` set where `dir[kz] < 0`: `kx` and `ky` follow `kz`
        // cyclically, swapped for a negative `dir[kz]`. A table rather than the swap, which
        // compiled to a branch per ray.
        const AXES: [[usize; 3]; 6] = [
            [1, 2, 0],
            [2, 1, 0],
            [2, 0, 1],
            [0, 2, 1],
            [0, 1, 2],
            [1, 0, 2],
        ];
        let kz = ray.dir.abs().max_position();
        AXES[2 * kz + usize::from(ray.dir[kz] < 0.0)]
    }

    /// The same set-up with a new accepted range (a BVH shrinks `t_max` as it finds hits).
    #[inline]
    #[must_use]
    pub fn with_range(self, t_min: f32, t_max: f32) -> Self {
        Self {
            t_min,
            t_max,
            ..self
        }
    }

    /// Tests the triangle `(v0, v1, v2)`, both sides. Returns `t`, `u`, `v` with the hit point
    /// `(1 - u - v) * v0 + u * v1 + v * v2`, or `None` if it misses, `t` is outside the range,
    /// or the triangle is degenerate as seen along the ray (zero projected area).
    ///
    /// Unlike [`crate::Triangle::intersect_watertight`], this does not check
    /// [`crate::Triangle::is_degenerate`]: corners collinear in 3D may not be collinear once sheared
    /// and rounded, and such a needle can then be hit along its length. Filter degenerate
    /// triangles beforehand (a mesh does so once, at load time).
    #[inline]
    pub fn intersect(&self, v0: Vec3, v1: Vec3, v2: Vec3) -> Option<Hit> {
        let [kx, ky, kz] = self.axes;
        let s = self.shear;
        // Vertices relative to the origin, sheared so that the ray runs along +z.
        let a = v0 - self.origin;
        let b = v1 - self.origin;
        let c = v2 - self.origin;
        let ax = a[kx] - s.x * a[kz];
        let ay = a[ky] - s.y * a[kz];
        let bx = b[kx] - s.x * b[kz];
        let by = b[ky] - s.y * b[kz];
        let cx = c[kx] - s.x * c[kz];
        let cy = c[ky] - s.y * c[kz];

        // Scaled barycentrics: the 2D edge functions of the edges b -> c, c -> a and a -> b.
        let e = [cx * by - cy * bx, ax * cy - ay * cx, bx * ay - by * ax];
        let bound = edge_bound([(ax, ay), (bx, by), (cx, cy)], [a[kz], b[kz], c[kz]]);
        let depths = [a[kz], b[kz], c[kz]];
        let corners = [v0, v1, v2];
        if e.iter().any(|&e| is_near(e, bound)) {
            return self.intersect_exactly(corners, e, bound, depths);
        }
        // Inside when all three share a sign (either winding, so both sides hit).
        let [e0, e1, e2] = e;
        if (e0 < 0.0 || e1 < 0.0 || e2 < 0.0) && (e0 > 0.0 || e1 > 0.0 || e2 > 0.0) {
            return None;
        }
        self.place(corners, e, depths)
    }

    /// The hit of the edge functions `e` (all of one sign or zero, each sign exact) of the
    /// triangle `corners`, whose coordinates on the dominant axis, relative to the origin,
    /// are `depths`. Where the `f32` arithmetic leaves the range in which its rounding is
    /// relative ([`is_well_placed`]), the hit is placed in `f64` instead.
    #[inline(always)]
    fn place(&self, corners: [Vec3; 3], [e0, e1, e2]: [f32; 3], depths: [f32; 3]) -> Option<Hit> {
        let det = e0 + e1 + e2;
        if det == 0.0 {
            return None;
        }
        // Scaled distance, then one division.
        let sz = self.shear.z;
        let t_scaled = e0 * (sz * depths[0]) + e1 * (sz * depths[1]) + e2 * (sz * depths[2]);
        let inv_det = 1.0 / det;
        let t = t_scaled * inv_det;
        if !is_well_placed(t_scaled, det, t) {
            return self.place_exactly(corners, [e0, e1, e2].map(sign));
        }
        if !(t >= self.t_min && t <= self.t_max) {
            return None;
        }
        Some(Hit::new(t, e1 * inv_det, e2 * inv_det))
    }

    /// [`WatertightRay::intersect`] for a triangle with an edge function `e` within the
    /// `bound` of zero: each such sign is decided exactly ([`ray_edge_side`], with
    /// [`ray_edge_tie`] for a zero under the tie rule). Where every rounded sign is the exact
    /// one, the hit is placed from the rounded edge functions as any other; where one is not
    /// (the rounding would have moved the ray across an edge), it is placed in `f64` on the
    /// input's coordinates, so that two hits on either side of an edge seen at a grazing
    /// angle keep their order along the ray.
    #[cold]
    #[inline(never)]
    fn intersect_exactly(
        &self,
        corners: [Vec3; 3],
        e: [f32; 3],
        bound: f32,
        depths: [f32; 3],
    ) -> Option<Hit> {
        // A degenerate ray (its range NaN) or a corner that is not finite: no hit. Every
        // other input is decided, edge functions that overflowed to infinity or NaN included.
        let finite = self.origin.is_finite() && self.dir.is_finite();
        if self.t_min.is_nan()
            || self.t_max.is_nan()
            || !finite
            || !corners.iter().all(|c| c.is_finite())
        {
            return None;
        }
        // Edge function `i` is that of the edge from corner `i + 1` to corner `i + 2`.
        let edge = |i: usize| (corners[(i + 1) % 3], corners[(i + 2) % 3]);
        let exact: [i8; 3] = core::array::from_fn(|i| {
            if is_near(e[i], bound) {
                let (from, to) = edge(i);
                ray_edge_side(self.origin, self.dir, from, to)
            } else {
                sign(e[i])
            }
        });
        let sides: [i8; 3] = match self.contacts {
            // A ray through an edge or a vertex, which the closed triangle holds: a zero
            // takes no side.
            Contacts::Hit => exact,
            // Each zero takes the side the ray would be on if moved by an infinitesimal step,
            // so that exactly one of the triangles around the point owns it.
            Contacts::TieRule => core::array::from_fn(|i| match exact[i] {
                0 => {
                    let (from, to) = edge(i);
                    ray_edge_tie(self.dir, self.axes, from, to)
                }
                side => side,
            }),
        };
        if sides.contains(&-1) && sides.contains(&1) || sides == [0; 3] {
            return None;
        }
        if (0..3).all(|i| sign(e[i]) == exact[i]) {
            return self.place(corners, e, depths);
        }
        self.place_exactly(corners, exact)
    }

    /// The hit of the ray on the triangle `corners`, whose edge functions have the exact
    /// signs `exact` (all of one sign or zero), computed in `f64`: each edge function is the
    /// triple product `dir · ((to - o) × (from - o))`, given its exact sign, and the distance
    /// the corners' depths along the dominant axis weighted by them.
    fn place_exactly(&self, corners: [Vec3; 3], exact: [i8; 3]) -> Option<Hit> {
        let (o, d) = (self.origin.as_dvec3(), self.dir.as_dvec3());
        let relative = corners.map(|c| c.as_dvec3() - o);
        let e: [f64; 3] = core::array::from_fn(|i| {
            let (from, to) = (relative[(i + 1) % 3], relative[(i + 2) % 3]);
            let value = d.dot(to.cross(from));
            match exact[i] {
                0 => 0.0,
                side if (value > 0.0) == (side > 0) && value != 0.0 => value,
                // Rounded across zero (far below `f64`'s reach of the terms).
                side => f64::from(side) * f64::MIN_POSITIVE,
            }
        });
        let det = e[0] + e[1] + e[2];
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let kz = self.axes[2];
        let depth: f64 = (0..3).map(|i| e[i] * relative[i][kz]).sum();
        let t = (depth / det / d[kz]) as f32;
        // A distance beyond `f32`'s range is no hit (nor one the hierarchy's boxes reach).
        if !(t >= self.t_min && t <= self.t_max && t.is_finite()) {
            return None;
        }
        Some(Hit::new(t, (e[1] / det) as f32, (e[2] / det) as f32))
    }
}

/// The sign of `x`: `-1`, `0` or `1` (`-0.0` and NaN are `0`).
#[inline]
fn sign(x: f32) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Triangle;

    /// Found by the glTF fuzz target: an edge function of `-1.6e-47`, exact in `f64`, rounds
    /// to zero as an `f32`; the tie rule then took it for a ray through the edge and hit a
    /// triangle the ray passes beside (every corner has `x > 0`, the ray runs along `x = 0`),
    /// which the hierarchy's boxes rightly miss.
    #[test]
    fn fuzz_gltf_edge_function_below_f32_range() {
        let triangle = [
            Vec3::new(2.305071e-38, 0.0, 0.0),
            Vec3::new(0.5019531, 0.0, 0.0),
            Vec3::new(2.3376521e-18, 1.7748073e28, 6.7715283e-10),
        ];
        let ray = Ray::new(Vec3::new(0.0, 2.6622211e28, 0.0), Vec3::NEG_Y);
        let [a, b, c] = triangle;
        assert_eq!(WatertightRay::new(&ray).intersect(a, b, c), None);
        let touching = WatertightRay::new(&ray).with_contacts(Contacts::Hit);
        assert_eq!(touching.intersect(a, b, c), None);
        // Moved to the inside of that edge by the same tiny amount, the ray hits.
        let inside = Ray::new(Vec3::new(3e-38, 2.6622211e28, 0.0), Vec3::NEG_Y);
        assert!(WatertightRay::new(&inside).intersect(a, b, c).is_some());
    }

    /// Found by the OBJ fuzz target: corners and an origin near `f32`'s limit make the
    /// bound overflow, and every edge function went to the exact path, which placed the hit
    /// at `t = inf`, where the hierarchy's boxes never reach. Where the bound overflows only
    /// a zero is decided exactly, and a hit at infinity would be no hit anyway.
    #[test]
    fn fuzz_obj_hit_beyond_the_f32_range_is_no_hit() {
        let [a, b, c] = [
            Vec3::ZERO,
            Vec3::new(1e3, -2.1e38, 0.0),
            Vec3::new(1.0, 1.0, 0.5),
        ];
        let ray = Ray::new(
            Vec3::new(-6.3e37, 1.68e38, -1.092e38),
            Vec3::new(0.3, -0.8, 0.52),
        );
        for contacts in [Contacts::Hit, Contacts::TieRule] {
            let hit = WatertightRay::new(&ray)
                .with_contacts(contacts)
                .intersect(a, b, c);
            assert!(hit.is_none_or(|h| h.t.is_finite()), "{hit:?}");
        }
    }

    /// A fan of triangles around a centre vertex: rays through the shared centre vertex and
    /// through every shared edge hit exactly one of them (no crack, no double count).
    #[test]
    fn fan_has_no_cracks_and_no_double_hits_at_shared_edges_and_vertex() {
        let centre = Vec3::new(0.1, 0.2, 0.3);
        let n = 7;
        let rim: Vec<Vec3> = (0..n)
            .map(|i| {
                let a = i as f32 / n as f32 * core::f32::consts::TAU;
                centre + Vec3::new(a.cos(), a.sin(), 0.13 * (i as f32).sin())
            })
            .collect();
        let fan: Vec<Triangle> = (0..n)
            .map(|i| Triangle::new(centre, rim[i], rim[(i + 1) % n]))
            .collect();
        let origins = [
            Vec3::new(0.37, -0.21, 3.0),
            Vec3::new(-2.0, 1.5, -4.0),
            Vec3::new(1e3, -7e2, 5e2),
        ];
        for origin in origins {
            let mut targets = vec![centre];
            for (i, p) in rim.iter().enumerate() {
                for k in 1..8 {
                    let f = k as f32 / 8.0;
                    // A point on a shared spoke, then one inside a triangle.
                    targets.push(centre.lerp(*p, f));
                    targets.push(centre.lerp(p.lerp(rim[(i + 1) % n], f), 0.99));
                }
            }
            for target in targets {
                let ray = Ray::new(origin, target - origin);
                let hits = fan.iter().filter(|t| t.intersect(&ray).is_some()).count();
                assert_eq!(hits, 1, "ray {ray:?} through the fan");
            }
        }
    }

    /// A ray through a shared vertex or along a shared spoke of the fan hits every triangle
    /// it touches when contacts hit, and the one the tie rule names otherwise; a ray inside
    /// one triangle hits that one either way.
    #[test]
    fn contacts_hit_every_triangle_touched() {
        // Corners whose midpoints are exact, so that the rays below run exactly through the
        // spokes and rim edges.
        let centre = Vec3::new(0.25, 0.5, 0.375);
        let square = [
            (1, 0),
            (1, 1),
            (0, 1),
            (-1, 1),
            (-1, 0),
            (-1, -1),
            (0, -1),
            (1, -1),
        ];
        let rim: Vec<Vec3> = square
            .iter()
            .map(|&(x, y)| centre + Vec3::new(x as f32, y as f32, 0.0))
            .collect();
        let n = rim.len();
        let fan: Vec<[Vec3; 3]> = (0..n).map(|i| [centre, rim[i], rim[(i + 1) % n]]).collect();
        let hits = |ray: &Ray, contacts| {
            let wt = WatertightRay::new(ray).with_contacts(contacts);
            fan.iter()
                .filter(|[a, b, c]| wt.intersect(*a, *b, *c).is_some())
                .count()
        };
        for dir in [Vec3::NEG_Z, Vec3::Z, Vec3::new(0.0, -0.0, -1.0)] {
            let through = |p: Vec3| Ray::new(p - dir * 3.0, dir);
            assert_eq!(hits(&through(centre), Contacts::Hit), n);
            assert_eq!(hits(&through(centre), Contacts::TieRule), 1);
            let spoke = through(centre.lerp(rim[2], 0.5));
            assert_eq!(hits(&spoke, Contacts::Hit), 2);
            assert_eq!(hits(&spoke, Contacts::TieRule), 1);
            // The rim's corner rim[1] is shared by two triangles, a border edge by one.
            assert_eq!(hits(&through(rim[1]), Contacts::Hit), 2);
            assert_eq!(hits(&through(rim[1].lerp(rim[2], 0.5)), Contacts::Hit), 1);
            let inside = through(centre.lerp(rim[0].lerp(rim[1], 0.5), 0.5));
            assert_eq!(hits(&inside, Contacts::Hit), 1);
            assert_eq!(hits(&inside, Contacts::TieRule), 1);
            // Beside the fan by the least step there is, contacts or not.
            let beside = through(rim[0] + Vec3::X * f32::EPSILON * 2.0);
            assert_eq!(hits(&beside, Contacts::Hit), 0);
        }
    }

    /// A ray along a cube's edge (trimesh's regression test): it touches the top face at its
    /// rim and runs in the planes of the two side faces. Contacts hit it at the top whichever
    /// edge it runs down; the tie rule hits two of the four edges twice and the others not at
    /// all.
    #[test]
    fn contacts_along_a_cube_edge_hit_the_face_it_meets() {
        let (lo, hi) = (-1.0f32, 1.0f32);
        // The top face z = 1 as two triangles, counter-clockwise from above.
        let top = [
            [
                Vec3::new(lo, lo, hi),
                Vec3::new(hi, lo, hi),
                Vec3::new(hi, hi, hi),
            ],
            [
                Vec3::new(lo, lo, hi),
                Vec3::new(hi, hi, hi),
                Vec3::new(lo, hi, hi),
            ],
        ];
        let mut tie_rule = Vec::new();
        for (x, y) in [
            (hi, 0.0),
            (lo, 0.0),
            (0.0, hi),
            (0.0, lo),
            (hi, hi),
            (lo, lo),
        ] {
            let ray = Ray::new(Vec3::new(x, y, 5.0), Vec3::NEG_Z);
            let hits = |contacts| {
                let wt = WatertightRay::new(&ray).with_contacts(contacts);
                top.iter()
                    .filter_map(|[a, b, c]| wt.intersect(*a, *b, *c))
                    .collect::<Vec<_>>()
            };
            let touching = hits(Contacts::Hit);
            assert!(!touching.is_empty(), "({x}, {y})");
            assert!(touching.iter().all(|h| h.t == 4.0), "({x}, {y})");
            tie_rule.push(hits(Contacts::TieRule).len());
        }
        // The top face alone has border edges, half-open by the tie rule.
        assert!(tie_rule.contains(&0), "{tie_rule:?}");
    }

    /// The crease scaled by `2^k` from `2^-140` (subnormal coordinates, edge functions that
    /// underflow) to `2^100` (edge functions that overflow) answers as at scale 1: the same
    /// triangles hit by either rule, at the same distance (in units of the scale where the
    /// direction is not scaled), to its rounding. Rays one ulp beside a vertex are left out
    /// where the scale rounds them onto it.
    #[test]
    fn every_power_of_two_scale_answers_as_unit_scale() {
        let patch = crate::test_rng::crease_patch();
        let unit_rays = crate::test_rng::crease_rays();
        for (k, scaled, rays) in crate::test_rng::scaled_creases() {
            let s = 2f64.powi(k);
            for (i, ray) in rays.iter().enumerate() {
                let unit = unit_rays[i];
                let exact = |v: Vec3, w: Vec3| v.as_dvec3() == w.as_dvec3() * s;
                let t_unit = if exact(ray.dir, unit.dir) {
                    1.0
                } else if ray.dir == unit.dir {
                    s
                } else {
                    continue; // the subnormal tilt: held to the lanes, not to scale 1
                };
                if !exact(ray.origin, unit.origin) {
                    continue;
                }
                for contacts in [Contacts::Hit, Contacts::TieRule] {
                    let at = WatertightRay::new(ray).with_contacts(contacts);
                    let at_unit = WatertightRay::new(&unit).with_contacts(contacts);
                    for (j, [a, b, c]) in patch.iter().enumerate() {
                        let t = scaled[j];
                        let got = at.intersect(t.v0, t.v1, t.v2);
                        let expected = at_unit.intersect(*a, *b, *c);
                        assert_eq!(
                            got.is_some(),
                            expected.is_some(),
                            "2^{k} ray {i} triangle {j} {contacts:?}"
                        );
                        if let (Some(got), Some(expected)) = (got, expected) {
                            let t = f64::from(got.t) / t_unit;
                            let error = (t - f64::from(expected.t)).abs();
                            assert!(
                                error <= 1e-6 * f64::from(expected.t) + 4e-45 / t_unit,
                                "2^{k} ray {i} triangle {j}: t {t} against {}",
                                expected.t
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn both_sides_hit_with_consistent_barycentrics() {
        let tri = Triangle::new(
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        );
        let front = Ray::new(Vec3::new(0.5, 0.5, 4.0), Vec3::new(0.0, 0.0, -2.0));
        let back = Ray::new(Vec3::new(0.5, 0.5, -4.0), Vec3::new(0.0, 0.0, 2.0));
        for ray in [front, back] {
            let hit = tri.intersect(&ray).expect("hit");
            assert!((hit.t - 2.0).abs() < 1e-6);
            assert!((hit.u - 0.25).abs() < 1e-6 && (hit.v - 0.25).abs() < 1e-6);
            assert!(hit.point(&tri).distance(ray.at(hit.t)) < 1e-5);
        }
    }

    /// The issue that brought exact edge signs: a ray from outside through the crease vertex
    /// `(16, 14, 0)` at an oblique angle touches the cube there and nowhere else. Rounded
    /// shear put that vertex outside every triangle around it, so `Contacts::Hit` missed.
    #[test]
    fn touching_a_crease_vertex_at_an_oblique_angle_hits() {
        let patch = crate::test_rng::crease_patch();
        let hits = |origin: Vec3, target: Vec3, contacts| {
            let ray = Ray::new(origin, target - origin);
            assert_eq!(
                origin + ray.dir,
                target,
                "the ray passes exactly through {target}"
            );
            let wt = WatertightRay::new(&ray).with_contacts(contacts);
            patch
                .iter()
                .filter(|[a, b, c]| wt.intersect(*a, *b, *c).is_some())
                .count()
        };
        let outside = Vec3::new(30.0, -7.0, 11.0);
        let vertex = Vec3::new(16.0, 14.0, 0.0);
        let midpoint = Vec3::new(16.0, 14.5, 0.0);
        for target in [vertex, midpoint] {
            assert!(hits(outside, target, Contacts::Hit) >= 1, "{target}");
            assert_eq!(hits(outside, target, Contacts::TieRule) % 2, 0, "{target}");
        }
        // One ulp outside the cube beside the vertex: the line meets no closed triangle.
        let beside = Vec3::new(f32::from_bits(16f32.to_bits() + 1), 14.0, 0.0);
        assert_eq!(hits(outside, beside, Contacts::Hit), 0);
        assert_eq!(hits(outside, beside, Contacts::TieRule), 0);
        // From inside, through the vertex and the edge: one crossing.
        let inside = Vec3::new(8.0, 8.0, 8.0);
        for target in [vertex, midpoint] {
            assert!(hits(inside, target, Contacts::Hit) >= 1, "{target}");
            assert_eq!(hits(inside, target, Contacts::TieRule), 1, "{target}");
        }
    }

    #[test]
    fn range_is_inclusive_and_respected() {
        let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let ray = Ray::new(Vec3::new(0.25, 0.25, 1.0), Vec3::NEG_Z);
        assert!(tri.intersect(&ray.with_range(1.0, 1.0)).is_some());
        assert!(tri.intersect(&ray.with_range(0.0, 0.99)).is_none());
        assert!(tri.intersect(&ray.with_range(1.01, 5.0)).is_none());
        let behind = Ray::new(Vec3::new(0.25, 0.25, -1.0), Vec3::NEG_Z);
        assert!(tri.intersect(&behind).is_none());
    }

    #[test]
    fn degenerate_triangles_and_rays_never_hit() {
        let p = Vec3::new(0.3, 0.3, 0.0);
        let ray = Ray::new(Vec3::new(0.3, 0.3, 1.0), Vec3::NEG_Z);
        let degenerate = [
            Triangle::new(Vec3::ZERO, Vec3::ZERO, Vec3::ZERO),
            Triangle::new(Vec3::ZERO, Vec3::X, Vec3::X),
            Triangle::new(Vec3::ZERO, Vec3::ONE, Vec3::splat(2.0)),
            Triangle::new(Vec3::ZERO, p, p * 2.0),
            Triangle::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X, Vec3::Y),
            Triangle::new(Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::X, Vec3::Y),
        ];
        for tri in degenerate {
            assert!(tri.intersect(&ray).is_none(), "{tri:?}");
        }
        let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let bad = [
            Ray::new(Vec3::NAN, Vec3::NEG_Z),
            Ray::new(Vec3::new(0.3, 0.3, 1.0), Vec3::NAN),
            Ray::new(Vec3::new(0.3, 0.3, 1.0), Vec3::ZERO),
            Ray::new(Vec3::new(0.3, 0.3, f32::INFINITY), Vec3::NEG_Z),
            ray.with_range(f32::NAN, 2.0),
        ];
        for ray in bad {
            assert!(tri.intersect(&ray).is_none(), "{ray:?}");
            assert!(WatertightRay::new(&ray)
                .intersect(tri.v0, tri.v1, tri.v2)
                .is_none());
        }
    }

    #[test]
    fn axis_parallel_rays_with_signed_zero_components() {
        let tri = Triangle::new(
            Vec3::new(-1.0, -1.0, 0.5),
            Vec3::new(1.0, -1.0, 0.5),
            Vec3::new(0.0, 1.0, 0.5),
        );
        for zx in [0.0f32, -0.0] {
            for zy in [0.0f32, -0.0] {
                for dz in [1.0f32, -1.0] {
                    let origin = Vec3::new(0.0, 0.0, 0.5 - 2.0 * dz);
                    let ray = Ray::new(origin, Vec3::new(zx, zy, dz));
                    let hit = tri.intersect(&ray).expect("hit");
                    assert!((hit.t - 2.0).abs() < 1e-6);
                }
            }
        }
    }
}
