//! `LeafTest`: which ray–triangle test a mesh runs at the leaves of its hierarchy.

/// Which ray–triangle test a [`crate::Mesh`] runs at the leaves of its hierarchy, four
/// triangles at a time; chosen with [`crate::Mesh::with_leaf_test`].
///
/// With `Watertight` a query answers exactly what a loop of the watertight test over every
/// triangle answers (same triangle, bit-identical `t`, `u`, `v`). `Transform` was meant to be
/// faster, but on the bunny and the ogre it is not measurably so: 0.85 to 1.21 times the
/// watertight rays per second figure by figure (within this machine's noise), and the same CPU
/// time within 5% over a whole `meshcast bench` run. It keeps 48 bytes per triangle at the
/// leaves instead of 36 (68 instead of 55.5 with the hierarchy), and it is not watertight: a
/// ray through an edge or vertex shared by two triangles can miss both (and escape a closed
/// mesh) or hit both. Its rounding also grows with the ray origin's distance and as the ray
/// grazes the plane, past the slack the walk gives boxes for the watertight test's rounding, so
/// where it reports a hit outside its triangle's box the walk may skip that hit (in the tests,
/// only with rays starting some 10^8 triangle widths away). Every hit it reports is the scalar
/// [`meshcast_primitives::TriangleTransform::intersect`] hit, bit for bit. So `Watertight` is
/// the default.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::{LeafTest, Mesh, RayQueries};
/// use meshcast_primitives::Ray;
///
/// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
/// assert_eq!(tri.leaf_test(), LeafTest::Watertight);
/// let tri = tri.with_leaf_test(LeafTest::Transform);
/// let hit = tri.cast(&Ray::new(Vec3::new(0.25, 0.5, 2.0), Vec3::NEG_Z)).ok_or("miss")?;
/// assert_eq!((hit.t, hit.u, hit.v), (2.0, 0.25, 0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LeafTest {
    /// The watertight test (Woop, Benthin and Wald, *Watertight Ray/Triangle Intersection*,
    /// JCGT 2013; [`meshcast_primitives::Triangle::intersect`]): a ray through a shared edge
    /// or vertex never falls through, and crosses a closed surface there exactly once. The
    /// corners are kept in leaf order, 36 bytes per triangle
    /// ([`meshcast_primitives::TriangleBlock`]).
    #[default]
    Watertight,
    /// The precomputed-transform test (Baldwin and Weber, *Fast Ray-Triangle Intersections by
    /// Coordinate Transformation*, JCGT 2016; [`meshcast_primitives::TriangleTransform`]):
    /// each triangle keeps the map to a space where it is the unit triangle, 48 bytes per
    /// triangle ([`meshcast_primitives::TransformBlock`]). Not watertight, and with no
    /// exactly-once rule: `cast_all` may count a crossing at an edge twice or not at all, and
    /// [`crate::QueryOptions::contacts`] changes nothing (its triangles are closed, as with
    /// [`meshcast_primitives::Contacts::Hit`], up to its rounding). A
    /// triangle whose transform is not representable in `f32` is never hit, as in the scalar
    /// test.
    Transform,
}
