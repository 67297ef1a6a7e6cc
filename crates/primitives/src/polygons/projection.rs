//! The polygon seen in 2D, as the triangulation projects it along its normal's dominant axis:
//! the projected corner and the orientation of three of them, shared by the triangulation,
//! the ear clipper and the z-order index.

/// A 2D point of the projected polygon, in `f64` so that orientation tests on `f32` input are
/// (nearly always) exact.
pub(crate) type Point = [f64; 2];

/// Twice the signed area of the triangle `abc`: positive when it turns counter-clockwise.
#[inline]
pub(crate) fn orient(a: Point, b: Point, c: Point) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}
