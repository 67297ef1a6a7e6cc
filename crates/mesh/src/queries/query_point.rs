//! [`QueryPoint`]: the precision of a query's point as a type, so that every point query is
//! one method for points in `f32` and in `f64`, as [`crate::QueryRay`] is for rays; and
//! [`QueryBox`], the same for the box a grid is laid over.

use core::fmt::Debug;
use core::ops::Neg;

use glam::{DVec3, Vec3};
use meshcast_primitives::{carry_point, Aabb};

/// A point the queries of [`crate::PointQueries`] (and the views' eyes) take: [`Vec3`] in
/// `f32`, in the level's own coordinates, or [`DVec3`] in `f64` world coordinates for
/// geometry far from the origin.
///
/// Every level answers both with the same methods (`mesh.contains(point)` and
/// `mesh.contains(dpoint)`): a [`DVec3`] is carried into each mesh's frame in `f64`
/// ([`crate::Mesh::carry_point`], [`crate::Instance::carry_point`]) and rounded once where a
/// mesh asks in `f32` (inside or outside), or measured in `f64` where the answer is a number
/// (winding numbers, and the nearest point, found with the triangles carried to the query
/// point), and answered in `f64` ([`crate::DClosestPoint`], [`crate::DSceneClosestPoint`]).
///
/// Sealed: implemented by [`Vec3`] and [`DVec3`] only.
pub trait QueryPoint: Copy + Send + Sync + Debug + PartialEq + sealed::Sealed {
    /// The precision of the answers' numbers: `f32` or `f64`.
    type Scalar: Copy + Send + Sync + Debug + PartialEq + Neg<Output = Self::Scalar>;

    /// Whether every coordinate is finite.
    fn is_finite(self) -> bool;

    /// The point in `f64` (exact).
    fn world(self) -> DVec3;

    /// The point in the `f32` frame whose origin lies at `origin` in the world: a [`Vec3`]
    /// is in that frame already; a [`DVec3`] is carried there in `f64` and rounded once.
    fn in_frame(self, origin: DVec3) -> Vec3;

    /// A winding number computed in `f64`, in this precision.
    fn winding(winding: f64) -> Self::Scalar;
}

pub(crate) mod sealed {
    pub trait Sealed {}
    impl Sealed for glam::Vec3 {}
    impl Sealed for glam::DVec3 {}
    impl Sealed for meshcast_primitives::Aabb {}
    impl Sealed for [glam::DVec3; 2] {}
}

impl QueryPoint for Vec3 {
    type Scalar = f32;

    #[inline]
    fn is_finite(self) -> bool {
        Vec3::is_finite(self)
    }

    #[inline]
    fn world(self) -> DVec3 {
        self.as_dvec3()
    }

    #[inline]
    fn in_frame(self, _: DVec3) -> Vec3 {
        self
    }

    #[inline]
    fn winding(winding: f64) -> f32 {
        winding as f32
    }
}

impl QueryPoint for DVec3 {
    type Scalar = f64;

    #[inline]
    fn is_finite(self) -> bool {
        DVec3::is_finite(self)
    }

    #[inline]
    fn world(self) -> DVec3 {
        self
    }

    #[inline]
    fn in_frame(self, origin: DVec3) -> Vec3 {
        carry_point(self, origin)
    }

    #[inline]
    fn winding(winding: f64) -> f64 {
        winding
    }
}

/// The box of a grid a field is laid over ([`crate::Mesh::signed_distance_grid`] and the
/// other grids): an [`Aabb`] in `f32`, in the mesh's own coordinates, or its corners
/// `[min, max]` in `f64` world coordinates, each carried into the mesh's frame in `f64` and
/// rounded once ([`crate::Mesh::frame_box`]). Sealed.
pub trait QueryBox: Copy + sealed::Sealed {
    /// The box in the `f32` frame whose origin lies at `origin` in the world.
    fn in_frame(self, origin: DVec3) -> Aabb;
}

impl QueryBox for Aabb {
    #[inline]
    fn in_frame(self, _: DVec3) -> Aabb {
        self
    }
}

impl QueryBox for [DVec3; 2] {
    #[inline]
    fn in_frame(self, origin: DVec3) -> Aabb {
        let [min, max] = self;
        Aabb::new(carry_point(min, origin), carry_point(max, origin))
    }
}
