//! A tiny deterministic generator for the crate's unit tests (xorshift), so that they need no
//! dependency.

use glam::Vec3;

/// Xorshift64 (Marsaglia 2003), yielding floats in `[0, 1)`.
pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    /// The next float in `[0, 1)`.
    pub(crate) fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A point in the cube `[-scale, scale]^3`.
    pub(crate) fn point(&mut self, scale: f32) -> Vec3 {
        Vec3::new(self.next(), self.next(), self.next()) * 2.0 * scale - scale
    }
}
