//! The brute-force reference of a mesh: a loop over every triangle with the same triangle test
//! and tie rule as the BVH, and bit-for-bit comparison of hits.

use meshcast::glam::Vec3;
use meshcast::primitives::TriangleTransform;
use meshcast::{Contacts, Hit, LeafTest, Ray, Triangle};

/// The closest hit by brute force, as a query with default options answers it: every
/// triangle with the watertight test, contacts hitting ([`Contacts::Hit`]), ties to the
/// smaller index.
pub fn brute_force_cast(triangles: &[Triangle], ray: &Ray) -> Option<Hit> {
    brute_force_cast_with(triangles, ray, Contacts::Hit)
}

/// The closest hit by brute force with the rule `contacts` ([`Triangle::intersect_with`]).
pub fn brute_force_cast_with(triangles: &[Triangle], ray: &Ray, contacts: Contacts) -> Option<Hit> {
    closest_of(triangles.iter().map(|t| t.intersect_with(ray, contacts)))
}

/// Every hit by brute force, each crossing once ([`Triangle::intersect`], the tie rule),
/// sorted by `t`, then index.
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

    /// Every triangle's hit by `ray` (index 0 in each), in triangle order, with the rule
    /// `contacts` (the transform test's triangles are always closed).
    fn hits<'a>(
        &'a self,
        ray: &'a Ray,
        contacts: Contacts,
    ) -> Box<dyn Iterator<Item = Option<Hit>> + 'a> {
        match self {
            Self::Watertight(triangles) => Box::new(
                triangles
                    .iter()
                    .map(move |t| t.intersect_with(ray, contacts)),
            ),
            Self::Transform(transforms) => Box::new(
                transforms
                    .iter()
                    .map(|t| t.as_ref().and_then(|t| t.intersect(ray))),
            ),
        }
    }

    /// The closest hit by brute force, as a query with default options answers it
    /// (contacts hitting), ties to the smaller index.
    pub fn cast(&self, ray: &Ray) -> Option<Hit> {
        self.cast_with(ray, Contacts::Hit)
    }

    /// The closest hit by brute force with the rule `contacts`, ties to the smaller index.
    pub fn cast_with(&self, ray: &Ray, contacts: Contacts) -> Option<Hit> {
        closest_of(self.hits(ray, contacts))
    }

    /// Every hit by brute force, each crossing once (the tie rule), sorted by `t`, then index.
    pub fn cast_all(&self, ray: &Ray) -> Vec<Hit> {
        all_of(self.hits(ray, Contacts::TieRule))
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
    hits.sort_by(Hit::order);
    hits
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

/// The smallest of a hit's three barycentric weights: near 0 the hit is near an edge, where a
/// tiny change of the ray can move it to the neighbouring triangle.
pub fn edge_closeness(hit: &Hit) -> f32 {
    hit.u.min(hit.v).min(hit.w())
}

/// The generalised winding number of `triangles` at `point` by brute force (Jacobson, Kavan
/// and Sorkine-Hornung, *Robust Inside-Outside Segmentation using Generalized Winding
/// Numbers*, 2013): every triangle's signed solid angle seen from the point
/// ([`Triangle::solid_angle`]), summed in `f64` and divided by 4π. On a closed,
/// consistently oriented mesh it is 1 inside (counter-clockwise faces outward), 0 outside,
/// up to rounding.
pub fn brute_force_winding_number(triangles: &[Triangle], point: Vec3) -> f64 {
    let total: f64 = triangles
        .iter()
        .map(|triangle| triangle.solid_angle(point.as_dvec3()))
        .sum();
    total / (4.0 * std::f64::consts::PI)
}

/// The distance from `point` to the nearest of `triangles` by brute force (each measured by
/// [`Triangle::distance_squared`], the test the hierarchies use, so the answer is theirs bit
/// for bit), degenerate triangles left out; `None` when there is none.
pub fn brute_force_distance(triangles: &[Triangle], point: Vec3) -> Option<f32> {
    triangles
        .iter()
        .filter(|triangle| !triangle.is_degenerate())
        .map(|triangle| triangle.distance_squared(point))
        .min_by(f32::total_cmp)
        .map(f32::sqrt)
}

/// Each triangle's area, in `f64` from the corners as stored (0 for a degenerate one).
pub fn triangle_areas(mesh: &meshcast::Mesh) -> Vec<f64> {
    let tri_mesh = mesh.tri_mesh();
    let positions = tri_mesh.positions();
    tri_mesh
        .indices()
        .iter()
        .map(|corners| {
            let [a, b, c] = corners.map(|i| positions[i as usize].as_dvec3());
            0.5 * (b - a).cross(c - a).length()
        })
        .collect()
}
