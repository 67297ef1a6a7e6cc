//! The triangle and its geometry; the ray tests live beside it, one per file
//! ([`crate::watertight`], [`crate::moller_trumbore`], [`crate::triangle_transform`]).

use glam::{DVec2, DVec3, Vec3};

use crate::exact::predicates::orient2d;

use crate::rays::{Aabb, Ray};
use crate::triangles::{Contacts, Hit, WatertightRay};

/// A triangle with corners `v0`, `v1`, `v2`; counter-clockwise seen from the side its
/// [`normal`](Triangle::normal) points to (the front).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Ray, Triangle};
///
/// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// assert_eq!(tri.area(), 0.5);
/// let hit = tri.intersect(&Ray::new(Vec3::new(0.25, 0.5, -1.0), Vec3::Z)).ok_or("miss")?;
/// assert_eq!((hit.t, hit.u, hit.v), (1.0, 0.25, 0.5));
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// The first corner (barycentric weight `1 - u - v`).
    pub v0: Vec3,
    /// The second corner (weight `u`).
    pub v1: Vec3,
    /// The third corner (weight `v`).
    pub v2: Vec3,
}

impl Triangle {
    /// The triangle with these corners.
    #[inline]
    pub const fn new(v0: Vec3, v1: Vec3, v2: Vec3) -> Self {
        Self { v0, v1, v2 }
    }

    /// The triangle whose corners are `positions[index[0..3]]`, or `None` if an index is out
    /// of range.
    #[inline]
    pub fn from_indexed(positions: &[Vec3], index: [u32; 3]) -> Option<Self> {
        Some(Self::new(
            *positions.get(index[0] as usize)?,
            *positions.get(index[1] as usize)?,
            *positions.get(index[2] as usize)?,
        ))
    }

    /// The corners as an array.
    #[inline]
    pub const fn vertices(&self) -> [Vec3; 3] {
        [self.v0, self.v1, self.v2]
    }

    /// The non-normalised normal `(v1 - v0) x (v2 - v0)`; its length is twice the area.
    #[inline]
    pub fn normal(&self) -> Vec3 {
        (self.v1 - self.v0).cross(self.v2 - self.v0)
    }

    /// The signed solid angle of the triangle seen from `from`, in steradians (`-2π..=2π`):
    /// positive when `from` lies behind the triangle, on the side opposite its normal
    /// ([`Triangle::normal`]; inside, for a closed mesh whose triangles face out). The
    /// formula of Van Oosterom and Strackee (*The Solid Angle of a Plane Triangle*, 1983), in
    /// `f64`. Summed over a mesh and divided by 4π it is the generalised winding number
    /// (Jacobson, Kavan and Sorkine-Hornung 2013).
    ///
    /// # Examples
    /// ```
    /// use glam::{DVec3, Vec3};
    /// use meshcast_primitives::Triangle;
    ///
    /// let tri = Triangle::new(Vec3::new(-1.0, -1.0, 1.0), Vec3::new(1.0, -1.0, 1.0), Vec3::new(0.0, 1.0, 1.0));
    /// // Its front faces +z; the origin is behind it.
    /// assert!(tri.normal().z > 0.0);
    /// assert!(tri.solid_angle(DVec3::ZERO) > 0.0);
    /// assert!(tri.solid_angle(DVec3::new(0.0, 0.0, 2.0)) < 0.0);
    /// // Seen from just behind its middle, nearly a hemisphere.
    /// let near = tri.solid_angle(DVec3::new(0.0, -0.3, 1.0 - 1e-9));
    /// assert!((near - 2.0 * std::f64::consts::PI).abs() < 1e-6);
    /// ```
    #[inline]
    pub fn solid_angle(&self, from: DVec3) -> f64 {
        let a = self.v0.as_dvec3() - from;
        let b = self.v1.as_dvec3() - from;
        let c = self.v2.as_dvec3() - from;
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let det = a.dot(b.cross(c));
        let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        2.0 * det.atan2(denominator)
    }

    /// The area.
    #[inline]
    pub fn area(&self) -> f32 {
        0.5 * self.normal().length()
    }

    /// The centroid, the mean of the corners.
    #[inline]
    pub fn centroid(&self) -> Vec3 {
        (self.v0 + self.v1 + self.v2) * (1.0 / 3.0)
    }

    /// The bounding box.
    #[inline]
    pub fn bounds(&self) -> Aabb {
        Aabb::new(
            self.v0.min(self.v1).min(self.v2),
            self.v0.max(self.v1).max(self.v2),
        )
    }

    /// Whether the triangle can never be hit: a corner is not finite, or the corners are
    /// collinear (repeated corners included), decided exactly, so the answer is the same at
    /// every scale: a triangle of subnormal size, or one whose `f32` normal would underflow
    /// to zero or overflow, is not degenerate. Every ray test of this crate misses a
    /// degenerate triangle.
    ///
    /// The corners are collinear exactly when their projections on the three coordinate
    /// planes are (Shewchuk's `orient2d`, exact for every `f32`); the `f32` normal decides
    /// first wherever no product in it can have rounded to zero.
    #[inline]
    pub fn is_degenerate(&self) -> bool {
        let [a, b, c] = [self.v0, self.v1, self.v2];
        if !(a.is_finite() && b.is_finite() && c.is_finite()) {
            return true;
        }
        // A product of normal `f32`s is never zero, so a component of at least the smallest
        // normal float, finite, is a true non-zero (its rounding is relative).
        let n = self.normal().abs();
        if n.is_finite() && n.max_element() >= f32::MIN_POSITIVE * 4.0 {
            let exact_enough = n.max_element() > f32::EPSILON * 8.0 * self.normal_terms();
            if exact_enough {
                return false;
            }
        }
        let [a, b, c] = [a, b, c].map(|v| v.as_dvec3());
        let flat = |i: usize, j: usize| {
            let on = |p: DVec3| DVec2::new(p[i], p[j]);
            orient2d(on(a), on(b), on(c)) == 0.0
        };
        flat(0, 1) && flat(1, 2) && flat(2, 0)
    }

    /// The largest sum of magnitudes of the products in one component of the normal, the
    /// scale of its rounding.
    #[inline]
    fn normal_terms(&self) -> f32 {
        let (p, q) = ((self.v1 - self.v0).abs(), (self.v2 - self.v0).abs());
        let terms = Vec3::new(
            p.y * q.z + p.z * q.y,
            p.z * q.x + p.x * q.z,
            p.x * q.y + p.y * q.x,
        );
        terms.max_element()
    }

    /// The engine's default test: [`Triangle::intersect_watertight`], two-sided.
    #[inline]
    pub fn intersect(&self, ray: &Ray) -> Option<Hit> {
        self.intersect_watertight(ray)
    }

    /// The watertight test of Woop, Benthin and Wald (2013), two-sided, with a tie rule for
    /// rays exactly through an edge or a vertex: of the triangles of a consistently oriented
    /// surface meeting where the ray crosses it, exactly one is hit (no crack, no double
    /// count). A triangle's edges are half-open, as in a rasteriser: a ray exactly through an
    /// edge that no other triangle shares (the border of an open mesh) hits it or not
    /// depending on the edge's direction as seen along the ray. See [`WatertightRay`], which
    /// keeps the per-ray set-up for testing many triangles and says more.
    #[inline]
    pub fn intersect_watertight(&self, ray: &Ray) -> Option<Hit> {
        self.intersect_with(ray, Contacts::TieRule)
    }

    /// The watertight test with the rule `contacts` for rays exactly through an edge or a
    /// vertex: [`Contacts::TieRule`] is [`Triangle::intersect_watertight`];
    /// [`Contacts::Hit`] holds the triangle closed, so that every ray meeting it, on an edge
    /// or a vertex too, hits it.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Contacts, Ray, Triangle};
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
    /// // Straight down through the middle of each edge.
    /// let middles = [Vec3::new(0.5, 0.0, 1.0), Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.0, 0.5, 1.0)];
    /// let hits = |contacts| {
    ///     let rays = middles.map(|m| Ray::new(m, Vec3::NEG_Z));
    ///     rays.iter().filter(|ray| tri.intersect_with(ray, contacts).is_some()).count()
    /// };
    /// assert_eq!(hits(Contacts::Hit), 3);
    /// // The tie rule leaves some edges to the neighbours the triangle would have there.
    /// assert!(hits(Contacts::TieRule) < 3);
    /// ```
    #[inline]
    pub fn intersect_with(&self, ray: &Ray, contacts: Contacts) -> Option<Hit> {
        if !ray.is_valid() || self.is_degenerate() {
            return None;
        }
        WatertightRay::new(ray)
            .with_contacts(contacts)
            .intersect(self.v0, self.v1, self.v2)
    }
}
