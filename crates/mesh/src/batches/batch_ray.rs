//! What the batch driver reads of a batch's rays: [`BatchRay`].

use meshcast_primitives::{DRay, Ray};

/// A ray of a batch as the driver sees it: a [`Ray`], or a [`DRay`] in `f64` world
/// coordinates. The driver hands the rays themselves to what answers them; it reads a ray as a
/// [`Ray`] ([`BatchRay::seen`]) only to choose the order they are traced in (finding camera
/// images, sorting by where rays pass), which groups rays and never answers one, so an `f64`
/// ray rounded to `f32` there serves as well as it.
///
/// Public in this private module: the supertrait of the public [`crate::QueryRay`] that
/// users can neither name nor implement.
pub trait BatchRay: Copy + Send + Sync {
    /// The ray in `f32`, for choosing the order.
    fn seen(&self) -> Ray;

    /// The ray with its range cut to a distance limit (`t * |dir| <= max_distance`, in the
    /// ray's precision), or `None` when nothing can be found: a NaN or negative limit (and
    /// for an `f64` ray, a degenerate ray).
    fn limited(&self, max_distance: f32) -> Option<Self>;
}

impl BatchRay for Ray {
    #[inline(always)]
    fn seen(&self) -> Ray {
        *self
    }

    #[inline]
    fn limited(&self, max_distance: f32) -> Option<Self> {
        if max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        if max_distance == f32::INFINITY {
            return Some(*self);
        }
        let t_max = max_distance / self.dir.length();
        Some(self.with_range(self.t_min, self.t_max.min(t_max)))
    }
}

impl BatchRay for DRay {
    #[inline]
    fn seen(&self) -> Ray {
        Ray {
            origin: self.origin.as_vec3(),
            dir: self.dir.as_vec3(),
            t_min: self.t_min as f32,
            t_max: self.t_max as f32,
        }
    }

    #[inline]
    fn limited(&self, max_distance: f32) -> Option<Self> {
        let limit = f64::from(max_distance);
        if !self.is_valid() || limit.is_nan() || limit < 0.0 {
            return None;
        }
        Some(self.with_range(self.t_min, self.t_max.min(limit / self.dir.length())))
    }
}
