//! The pinhole camera: turns pixel coordinates into rays, and frames a box by default.

use glam::{Mat4, Vec2, Vec3};

use super::viewport::{perspective, pixels};
use crate::error::Error;
use crate::rays::{Aabb, Ray};
use crate::view::{ClipPlanes, DepthConvention, Viewport};

/// The direction from the target towards the eye that [`Camera::framing`] looks along: from
/// the front right and a little above, for a `+y` up world (the OBJ convention).
const FRAMING_DIRECTION: Vec3 = Vec3::new(0.55, 0.35, 1.0);

/// The fraction of the frame that [`Camera::framing`] leaves free around the box, on each side
/// of the limiting axis.
const FRAMING_MARGIN: f32 = 0.02;

/// A pinhole camera at `eye` looking at `target`, with `up` pointing to the top of the image,
/// a vertical field of view in degrees and an aspect ratio (width over height).
///
/// Pixel coordinates are measured from the top-left corner of the image, `x` to the right and
/// `y` down, in pixels: pixel `(i, j)` covers `[i, i + 1] x [j, j + 1]`, so its centre is
/// `(i + 0.5, j + 0.5)` and `(0, 0)` is the image's top-left corner. Rays start at the eye and
/// have unit-length directions, so their `t` is the distance from the eye.
///
/// A degenerate camera (eye equal to target, a non-finite field, a zero field of view or
/// aspect) gives degenerate rays, which every query treats as a miss. An `up` parallel to the
/// view direction is replaced by another vector perpendicular to it.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::Camera;
///
/// let camera = Camera::new(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 60.0, 2.0);
/// // The centre of a 200 x 100 image looks straight at the target.
/// let ray = camera.ray_through(100.0, 50.0, 200, 100);
/// assert_eq!(ray.origin, Vec3::new(0.0, 0.0, 5.0));
/// assert!(ray.dir.distance(Vec3::NEG_Z) < 1e-6);
/// // The top-left pixel's ray goes up and to the left.
/// let corner = camera.ray_through_pixel(0, 0, 200, 100);
/// assert!(corner.dir.x < 0.0 && corner.dir.y > 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Where the camera is: the origin of every ray.
    pub eye: Vec3,
    /// The point seen at the centre of the image.
    pub target: Vec3,
    /// Which way is up in the image (need not be perpendicular to the view direction).
    pub up: Vec3,
    /// The vertical field of view, in degrees.
    pub fov_y_degrees: f32,
    /// The image's width over its height.
    pub aspect: f32,
}

/// The camera's orthonormal frame, and the half-extents of the image plane at distance 1.
/// The frame a [`Camera`]'s rays are built from ([`Camera::frame`]): the ray through the
/// point `(ndc_x, ndc_y)` of the image (each in `[-1, 1]`, `y` up) has the direction
/// `forward + right * (ndc_x * half_width) + up * (ndc_y * half_height)`, normalised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraFrame {
    /// The unit view direction.
    pub forward: Vec3,
    /// The unit vector to the right of the image.
    pub right: Vec3,
    /// The unit vector up the image.
    pub up: Vec3,
    /// The tangent of half the horizontal field of view.
    pub half_width: f32,
    /// The tangent of half the vertical field of view.
    pub half_height: f32,
}

impl Camera {
    /// The camera at `eye` looking at `target`.
    #[inline]
    pub const fn new(eye: Vec3, target: Vec3, up: Vec3, fov_y_degrees: f32, aspect: f32) -> Self {
        Self {
            eye,
            target,
            up,
            fov_y_degrees,
            aspect,
        }
    }

    /// A camera that shows the whole of `bounds`, centred and as large as the frame allows,
    /// seen from the front right and a little above (`+z` is the front and `+y` is up).
    ///
    /// The eye is placed so that every corner of the box lies in the view, with a small margin
    /// along the limiting axis; the target is the box's centre moved sideways to centre its
    /// image. An empty or non-finite box gives a camera looking at the origin from the same
    /// direction.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Aabb, Camera};
    ///
    /// let cube = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
    /// let camera = Camera::framing(cube, 45.0, 4.0 / 3.0);
    /// for corner in [cube.min, cube.max, Vec3::new(-1.0, 1.0, -1.0)] {
    ///     let pixel = camera.project(corner, 400, 300).ok_or("behind the camera")?;
    ///     assert!(pixel.x >= 0.0 && pixel.x <= 400.0 && pixel.y >= 0.0 && pixel.y <= 300.0);
    /// }
    /// # Ok::<(), &str>(())
    /// ```
    pub fn framing(bounds: Aabb, fov_y_degrees: f32, aspect: f32) -> Self {
        let bounds = if bounds.is_empty() || !bounds.is_finite() {
            Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0))
        } else if bounds.extent() == Vec3::ZERO {
            // A single point: frame a small cube around it, so the eye is not on it.
            let pad = Vec3::splat(bounds.min.abs().max_element().max(1.0) * 1e-3);
            Aabb::new(bounds.min - pad, bounds.max + pad)
        } else {
            bounds
        };
        let corners: [Vec3; 8] = core::array::from_fn(|i| {
            Vec3::select(
                glam::BVec3::new(i & 1 == 0, i & 2 == 0, i & 4 == 0),
                bounds.min,
                bounds.max,
            )
        });
        Self::fit(&corners, bounds.centroid(), fov_y_degrees, aspect)
    }

    /// Like [`Camera::framing`], but fits the points themselves rather than their box, so a
    /// mesh's vertices fill the frame more tightly than its bounding box would let them.
    ///
    /// Points that are not finite make it fall back to [`Camera::framing`] of their box, as do
    /// no points or a single repeated point.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Aabb, Camera};
    ///
    /// let diamond = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    /// let tight = Camera::framing_points(&diamond, 45.0, 1.0);
    /// let loose = Camera::framing(Aabb::from_points(diamond), 45.0, 1.0);
    /// assert!(tight.eye.distance(tight.target) < loose.eye.distance(loose.target));
    /// ```
    pub fn framing_points(points: &[Vec3], fov_y_degrees: f32, aspect: f32) -> Self {
        let bounds = Aabb::from_points(points.iter().copied());
        if bounds.is_empty() || !bounds.is_finite() || bounds.extent() == Vec3::ZERO {
            return Self::framing(bounds, fov_y_degrees, aspect);
        }
        Self::fit(points, bounds.centroid(), fov_y_degrees, aspect)
    }

    /// The camera looking along [`FRAMING_DIRECTION`] that fits `points` (finite, not all
    /// equal) centred and as large as the frame allows.
    fn fit(points: &[Vec3], centre: Vec3, fov_y_degrees: f32, aspect: f32) -> Self {
        let backward = FRAMING_DIRECTION.normalize();
        let right = Vec3::Y.cross(backward).normalize();
        let up = backward.cross(right);
        let tan_y = (0.5 * fov_y_degrees.to_radians()).tan() * (1.0 - FRAMING_MARGIN);
        let tan_x = tan_y * aspect;
        // A point in the frame (right, up, forward) centred on `centre`.
        let local = |p: Vec3| {
            let p = p - centre;
            Vec3::new(p.dot(right), p.dot(up), -p.dot(backward))
        };

        // A point (x, y, z) is in view from an eye at (ex, ey, ez) when
        // |x - ex| <= tan_x (z - ez), and likewise for y. Opposite frustum planes together
        // bound ez; the tightest bound places the eye.
        let eye_depth = |tan: f32, coordinate: fn(Vec3) -> f32| {
            let (near_side, far_side) = points.iter().fold((f32::MIN, f32::MIN), |(a, b), &p| {
                let c = local(p);
                (
                    a.max(coordinate(c) - tan * c.z),
                    b.max(-coordinate(c) - tan * c.z),
                )
            });
            -(near_side + far_side) / (2.0 * tan)
        };
        let ez = eye_depth(tan_x, |c| c.x).min(eye_depth(tan_y, |c| c.y));
        let ex = centring_offset(points, local, ez, |c| c.x);
        let ey = centring_offset(points, local, ez, |c| c.y);
        let eye = centre + right * ex + up * ey - backward * ez;
        let target = centre + right * ex + up * ey;
        Self::new(eye, target, Vec3::Y, fov_y_degrees, aspect)
    }

    /// The same camera with the aspect ratio of a `width` x `height` image.
    #[inline]
    #[must_use]
    pub fn with_image_aspect(self, width: u32, height: u32) -> Self {
        Self {
            aspect: width as f32 / height as f32,
            ..self
        }
    }

    /// The unit vector from the eye towards the target (zero for a degenerate camera).
    #[inline]
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye).normalize_or_zero()
    }

    /// The frame [`Camera::ray_through`] builds its rays from (an `up` parallel to the view
    /// replaced as there).
    pub fn frame(&self) -> CameraFrame {
        let forward = self.forward();
        let mut right = forward.cross(self.up).normalize_or_zero();
        if right == Vec3::ZERO {
            right = forward.any_orthonormal_vector();
        }
        let half_height = (0.5 * self.fov_y_degrees.to_radians()).tan();
        CameraFrame {
            forward,
            right,
            up: right.cross(forward),
            half_width: half_height * self.aspect,
            half_height,
        }
    }

    /// The ray from the eye through the point `(x, y)` of a `width` x `height` image, in pixel
    /// coordinates from the top-left corner (the centre of pixel `(i, j)` is
    /// `(i + 0.5, j + 0.5)`). The direction has unit length.
    ///
    /// Points outside the image give rays outside the field of view; a zero `width` or
    /// `height` gives a degenerate ray.
    #[inline]
    pub fn ray_through(&self, x: f32, y: f32, width: u32, height: u32) -> Ray {
        let frame = self.frame();
        let ndc_x = 2.0 * x / width as f32 - 1.0;
        let ndc_y = 1.0 - 2.0 * y / height as f32;
        let dir = frame.forward
            + frame.right * (ndc_x * frame.half_width)
            + frame.up * (ndc_y * frame.half_height);
        Ray::new(self.eye, dir.normalize())
    }

    /// The ray through the centre of pixel `(column, row)`, counted from the top-left.
    #[inline]
    pub fn ray_through_pixel(&self, column: u32, row: u32, width: u32, height: u32) -> Ray {
        self.ray_through(column as f32 + 0.5, row as f32 + 0.5, width, height)
    }

    /// The rays through the centre of every pixel of a `width` x `height` image, row by row
    /// from the top-left: ray `row * width + column` is
    /// [`Camera::ray_through_pixel`]`(column, row, width, height)`.
    ///
    /// The camera's own aspect ratio is used as it is; set it with
    /// [`Camera::with_image_aspect`] for square pixels. A zero `width` or `height` gives no
    /// rays. Nothing is allocated: collect the rays to cast them as a batch.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Aabb, Camera, Ray};
    ///
    /// let camera = Camera::framing(Aabb::new(Vec3::ZERO, Vec3::ONE), 45.0, 2.0);
    /// let rays: Vec<Ray> = camera.pixel_rays(64, 32).collect();
    /// assert_eq!(rays.len(), 64 * 32);
    /// assert_eq!(rays[64 + 5], camera.ray_through_pixel(5, 1, 64, 32));
    /// ```
    pub fn pixel_rays(
        &self,
        width: u32,
        height: u32,
    ) -> impl ExactSizeIterator<Item = Ray> + Clone {
        let camera = *self;
        pixels(width, height)
            .map(move |(column, row)| camera.ray_through_pixel(column, row, width, height))
    }

    /// The view matrix (world to eye space, looking down `-z`) of the camera's frame, the one
    /// [`Camera::ray_through`] uses (an `up` parallel to the view is replaced likewise).
    pub fn view_matrix(&self) -> Mat4 {
        let frame = self.frame();
        Mat4::look_to_rh(self.eye, frame.forward, frame.up)
    }

    /// The camera's perspective projection (its field of view and aspect) with these clip
    /// planes, in the depth convention given; the far plane may be infinite.
    pub fn projection_matrix(&self, planes: ClipPlanes, depth: DepthConvention) -> Mat4 {
        perspective(self.fov_y_degrees.to_radians(), self.aspect, planes, depth)
    }

    /// The [`Viewport`] of a `width` x `height` image of this camera: its rays point where
    /// [`Camera::ray_through`]'s do, limited to the range between the clip planes.
    ///
    /// # Errors
    /// [`Error::InvalidViewport`] for an empty image or a degenerate camera (eye on the
    /// target, a zero or non-finite field of view or aspect, bad clip planes).
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Camera, ClipPlanes, DepthConvention};
    ///
    /// let camera = Camera::new(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 60.0, 2.0);
    /// let viewport = camera.viewport(200, 100, ClipPlanes::new(0.1, 100.0), DepthConvention::ZeroToOne)?;
    /// let ray = viewport.ray_through(20.0, 30.0);
    /// assert!(ray.dir.distance(camera.ray_through(20.0, 30.0, 200, 100).dir) < 1e-6);
    /// # Ok::<(), meshcast_primitives::Error>(())
    /// ```
    pub fn viewport(
        &self,
        width: u32,
        height: u32,
        planes: ClipPlanes,
        depth: DepthConvention,
    ) -> Result<Viewport, Error> {
        let valid_planes = planes.near > 0.0 && planes.far > planes.near;
        if !valid_planes
            || self.forward() == Vec3::ZERO
            || self.aspect.is_nan()
            || self.aspect <= 0.0
        {
            return Err(Error::InvalidViewport {
                reason: "degenerate camera or clip planes",
            });
        }
        let projection = self.projection_matrix(planes, depth);
        Viewport::new(self.view_matrix(), projection, depth, width, height)
    }

    /// Where `point` appears in a `width` x `height` image, in the pixel coordinates of
    /// [`Camera::ray_through`]; `None` if the point is not in front of the eye. Points outside
    /// the field of view give coordinates outside the image.
    pub fn project(&self, point: Vec3, width: u32, height: u32) -> Option<Vec2> {
        let frame = self.frame();
        let offset = point - self.eye;
        let depth = offset.dot(frame.forward);
        if depth.is_nan() || depth <= 0.0 {
            return None;
        }
        let ndc_x = offset.dot(frame.right) / (depth * frame.half_width);
        let ndc_y = offset.dot(frame.up) / (depth * frame.half_height);
        let pixel = Vec2::new(
            (ndc_x + 1.0) * 0.5 * width as f32,
            (1.0 - ndc_y) * 0.5 * height as f32,
        );
        pixel.is_finite().then_some(pixel)
    }
}

/// The sideways offset `e` of an eye at depth `ez` that centres the image of `points` along
/// one image axis: the largest and smallest slopes `(p - e) / (z - ez)` of the points' `local`
/// coordinates become opposite. Their sum decreases with `e` and changes sign between the
/// smallest and largest `p`, so bisection finds it.
fn centring_offset(
    points: &[Vec3],
    local: impl Fn(Vec3) -> Vec3,
    ez: f32,
    coordinate: fn(Vec3) -> f32,
) -> f32 {
    let balance = |e: f32| {
        let (lo, hi) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &p| {
            let c = local(p);
            let slope = (coordinate(c) - e) / (c.z - ez);
            (lo.min(slope), hi.max(slope))
        });
        lo + hi
    };
    let (mut lo, mut hi) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &p| {
        let c = coordinate(local(p));
        (lo.min(c), hi.max(c))
    });
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if balance(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Triangle;

    fn camera() -> Camera {
        Camera::new(
            Vec3::new(3.0, 2.0, 7.0),
            Vec3::new(-1.0, 0.5, 0.25),
            Vec3::Y,
            50.0,
            1.5,
        )
    }

    #[test]
    fn centre_pixel_ray_goes_through_target() {
        let camera = camera();
        let ray = camera.ray_through(150.0, 100.0, 300, 200);
        let to_target = camera.target - camera.eye;
        let t = to_target.length();
        assert!((ray.dir.length() - 1.0).abs() < 1e-6);
        assert!(ray.at(t).distance(camera.target) < 1e-5 * t);
        // An odd-sized image has a centre pixel whose centre is the image centre.
        let odd = camera.ray_through_pixel(150, 100, 301, 201);
        assert!(odd.at(t).distance(camera.target) < 1e-5 * t);
    }

    #[test]
    fn project_then_ray_through_round_trips() {
        let camera = camera();
        let (width, height) = (640, 480);
        for (x, y) in [
            (0.0, 0.0),
            (0.5, 0.5),
            (320.0, 240.0),
            (639.5, 12.25),
            (640.0, 480.0),
        ] {
            let ray = camera.ray_through(x, y, width, height);
            let point = ray.at(4.0);
            let pixel = camera.project(point, width, height).expect("in front");
            assert!(
                (pixel.x - x).abs() < 1e-3 && (pixel.y - y).abs() < 1e-3,
                "{x},{y} -> {pixel}"
            );
        }
        let behind = camera.eye - camera.forward();
        assert_eq!(camera.project(behind, width, height), None);
    }

    #[test]
    fn image_axes_point_right_and_down() {
        let camera = Camera::new(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 90.0, 1.0);
        let right = camera.ray_through(100.0, 50.0, 100, 100);
        let down = camera.ray_through(50.0, 100.0, 100, 100);
        // A 90 degree field: the image edge is 45 degrees off the axis.
        assert!(right.dir.distance(Vec3::new(1.0, 0.0, -1.0).normalize()) < 1e-6);
        assert!(down.dir.distance(Vec3::new(0.0, -1.0, -1.0).normalize()) < 1e-6);
    }

    #[test]
    fn framing_keeps_every_corner_in_view_and_fills_the_frame() {
        let boxes = [
            Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0)),
            Aabb::new(Vec3::new(10.0, -3.0, 100.0), Vec3::new(11.0, 30.0, 100.5)),
            Aabb::new(Vec3::new(-5.0, 0.0, -5.0), Vec3::new(5.0, 0.0, 5.0)),
        ];
        for bounds in boxes {
            for (width, height) in [(400, 300), (300, 400), (256, 256)] {
                let camera = Camera::framing(bounds, 40.0, width as f32 / height as f32);
                let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
                for i in 0..8 {
                    let corner = Vec3::select(
                        glam::BVec3::new(i & 1 == 0, i & 2 == 0, i & 4 == 0),
                        bounds.min,
                        bounds.max,
                    );
                    let p = camera.project(corner, width, height).expect("in front");
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                let size = Vec2::new(width as f32, height as f32);
                assert!(lo.cmpge(Vec2::splat(-1e-2)).all(), "{bounds:?} {lo}");
                assert!(hi.cmple(size + 1e-2).all(), "{bounds:?} {hi}");
                // Centred, and the limiting axis nearly filled.
                let centre = (lo + hi) * 0.5;
                assert!(centre.distance(size * 0.5) < 1e-2 * size.max_element());
                let fill = ((hi - lo) / size).max_element();
                assert!(fill > 0.9, "{bounds:?} fills only {fill}");
            }
        }
    }

    #[test]
    fn framing_points_fits_the_points_not_their_box() {
        // Points on a sphere: their box's corners stick out far beyond them.
        let points: Vec<Vec3> = (0..200)
            .map(|i| {
                let (a, b) = (i as f32 * 0.7, i as f32 * 1.3);
                Vec3::new(a.cos() * b.sin(), a.sin() * b.sin(), b.cos()) * 3.0 + Vec3::X * 10.0
            })
            .collect();
        let (width, height) = (320, 240);
        let camera = Camera::framing_points(&points, 35.0, 320.0 / 240.0);
        let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for &p in &points {
            let pixel = camera.project(p, width, height).expect("in front");
            lo = lo.min(pixel);
            hi = hi.max(pixel);
        }
        let size = Vec2::new(width as f32, height as f32);
        assert!(lo.cmpge(Vec2::splat(-1e-2)).all() && hi.cmple(size + 1e-2).all());
        assert!(((hi - lo) / size).max_element() > 0.95);
        let centre = (lo + hi) * 0.5;
        assert!(centre.distance(size * 0.5) < 1.0, "{centre}");
        // Degenerate input falls back to box framing.
        assert!(Camera::framing_points(&[], 35.0, 1.0)
            .ray_through(1.0, 1.0, 2, 2)
            .is_valid());
        let bad = [Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)];
        assert!(Camera::framing_points(&bad, 35.0, 1.0)
            .ray_through(1.0, 1.0, 2, 2)
            .is_valid());
    }

    #[test]
    fn framing_an_empty_box_or_a_point_still_gives_valid_rays() {
        let camera = Camera::framing(Aabb::EMPTY, 45.0, 1.0);
        assert!(camera.ray_through(5.0, 5.0, 10, 10).is_valid());
        let point = Vec3::new(3.0, -2.0, 1e6);
        let camera = Camera::framing(Aabb::new(point, point), 45.0, 1.0);
        let ray = camera.ray_through(5.0, 5.0, 10, 10);
        assert!(ray.is_valid());
        let pixel = camera.project(point, 10, 10).expect("in front");
        assert!(pixel.distance(Vec2::splat(5.0)) < 2.0, "{pixel}");
    }

    #[test]
    fn up_parallel_to_view_and_degenerate_cameras_do_not_panic() {
        let straight_down = Camera::new(Vec3::Y, Vec3::ZERO, Vec3::Y, 45.0, 1.0);
        let ray = straight_down.ray_through(5.0, 5.0, 10, 10);
        assert!(ray.is_valid());
        assert!(ray.dir.distance(Vec3::NEG_Y) < 1e-6);
        let degenerate = Camera::new(Vec3::ONE, Vec3::ONE, Vec3::Y, 45.0, 1.0);
        assert!(!degenerate.ray_through(5.0, 5.0, 10, 10).is_valid());
        assert!(!camera().ray_through(5.0, 5.0, 0, 0).is_valid());
    }

    #[test]
    fn pixel_rays_are_row_major_from_the_top_left() {
        let bounds = Aabb::new(Vec3::new(-3.0, 10.0, 0.5), Vec3::new(1.0, 12.0, 0.75));
        let camera = Camera::framing(bounds, 40.0, 1.0).with_image_aspect(7, 5);
        let rays: Vec<Ray> = camera.pixel_rays(7, 5).collect();
        assert_eq!(rays.len(), 35);
        for row in 0..5 {
            for column in 0..7 {
                let expected = camera.ray_through_pixel(column, row, 7, 5);
                assert_eq!(rays[(row * 7 + column) as usize], expected);
            }
        }
        // x grows to the right along a row, and the image goes down row by row.
        let right = camera.ray_through(1.0, 0.0, 1, 1).dir - camera.ray_through(0.0, 0.0, 1, 1).dir;
        assert!((rays[1].dir - rays[0].dir).dot(right) > 0.0);
        assert!(rays[7].dir.y < rays[0].dir.y);
        assert_eq!(camera.pixel_rays(0, 5).len(), 0);
        assert_eq!(camera.pixel_rays(7, 0).count(), 0);
    }

    #[test]
    fn pixel_rays_hit_a_triangle_seen_at_the_centre() {
        let camera = Camera::new(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 30.0, 1.0);
        let tri = Triangle::new(
            Vec3::new(-0.1, -0.1, 0.0),
            Vec3::new(0.1, -0.1, 0.0),
            Vec3::new(0.0, 0.1, 0.0),
        );
        let hit = tri.intersect(&camera.ray_through_pixel(32, 32, 64, 64));
        assert!(hit.is_some_and(|h| (h.t - 5.0).abs() < 1e-3));
        assert!(tri
            .intersect(&camera.ray_through_pixel(0, 0, 64, 64))
            .is_none());
    }
}
