//! [`RayRange`]: what a walk asks of a ray's range in either precision, so that one walk of a
//! binary tree serves rays in `f32` ([`Ray`]) and in `f64` ([`DRay`]).

use crate::rays::{DRay, Ray};

/// A ray's accepted range of `t` in the ray's own precision: what a walk that shrinks the
/// range as hits are found needs ([`crate::RayHit::Scalar`] is the same precision). Sealed:
/// implemented by [`Ray`] (`f32`) and [`DRay`] (`f64`).
pub trait RayRange: Copy + sealed::Sealed {
    /// The precision of `t`: `f32` or `f64`.
    type Scalar: Copy + PartialOrd + core::fmt::Debug;

    /// The largest accepted `t` (inclusive).
    fn t_max(&self) -> Self::Scalar;

    /// The same ray with the range ending at `t_max`.
    #[must_use]
    fn with_t_max(self, t_max: Self::Scalar) -> Self;

    /// Whether `t` lies in the accepted range (false for NaN).
    fn contains_t(&self, t: Self::Scalar) -> bool;

    /// Whether any query can hit: finite origin and direction, a non-zero direction, a
    /// non-empty range without NaN.
    fn is_valid(&self) -> bool;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::rays::Ray {}
    impl Sealed for crate::rays::DRay {}
}

impl RayRange for Ray {
    type Scalar = f32;

    #[inline(always)]
    fn t_max(&self) -> f32 {
        self.t_max
    }

    #[inline(always)]
    fn with_t_max(self, t_max: f32) -> Self {
        Self { t_max, ..self }
    }

    #[inline(always)]
    fn contains_t(&self, t: f32) -> bool {
        Ray::contains_t(self, t)
    }

    #[inline(always)]
    fn is_valid(&self) -> bool {
        Ray::is_valid(self)
    }
}

impl RayRange for DRay {
    type Scalar = f64;

    #[inline(always)]
    fn t_max(&self) -> f64 {
        self.t_max
    }

    #[inline(always)]
    fn with_t_max(self, t_max: f64) -> Self {
        Self { t_max, ..self }
    }

    #[inline(always)]
    fn contains_t(&self, t: f64) -> bool {
        DRay::contains_t(self, t)
    }

    #[inline(always)]
    fn is_valid(&self) -> bool {
        DRay::is_valid(self)
    }
}
