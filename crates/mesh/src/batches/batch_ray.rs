//! What the batch driver reads of a batch's rays: [`BatchRay`].

use meshcast_primitives::{DRay, Ray};

/// A ray of a batch as the driver sees it: a [`Ray`], or a [`DRay`] in `f64` world
/// coordinates. The driver hands the rays themselves to what answers them; it reads a ray as a
/// [`Ray`] ([`BatchRay::seen`]) only to choose the order they are traced in (finding camera
/// images, sorting by where rays pass), which groups rays and never answers one, so an `f64`
/// ray rounded to `f32` there serves as well as it.
pub(crate) trait BatchRay: Copy + Send + Sync {
    /// The ray in `f32`, for choosing the order.
    fn seen(&self) -> Ray;
}

impl BatchRay for Ray {
    #[inline(always)]
    fn seen(&self) -> Ray {
        *self
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
}
