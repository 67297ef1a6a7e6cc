//! The brute-force references of what viewpoints see: segments from a vertex towards an
//! eye, tested against every triangle.

use meshcast::glam::Vec3;
use meshcast::primitives::T_MIN_POSITIVE;
use meshcast::{Contacts, Ray, Triangle};

/// Whether the ray from `p` towards `target` over `(0, 1]` hits any triangle, by brute
/// force with the watertight test, contacts hitting: the rule of `Mesh::visible_vertices`
/// as its docs state it.
pub fn brute_force_sight_blocked(triangles: &[Triangle], p: Vec3, target: Vec3) -> bool {
    let ray = Ray::new(p, target - p).with_range(T_MIN_POSITIVE, 1.0);
    triangles
        .iter()
        .any(|t| t.intersect_with(&ray, Contacts::Hit).is_some())
}

/// Whether the segment from `p` to `target` (the ray over `[0, 1]`, `0` included) hits a
/// triangle with no corner at `p`: the vertex's own triangles left out by a filter, the
/// other way to state the rule.
pub fn brute_force_sight_blocked_filtered(triangles: &[Triangle], p: Vec3, target: Vec3) -> bool {
    let ray = Ray::new(p, target - p).with_range(0.0, 1.0);
    triangles.iter().any(|t| {
        let own = [t.v0, t.v1, t.v2].contains(&p);
        !own && t.intersect_with(&ray, Contacts::Hit).is_some()
    })
}
