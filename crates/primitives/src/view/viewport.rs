//! The viewport: pixel rays, projection and marquee frusta from a view and a projection
//! matrix, for every common depth convention. [`crate::Camera`] builds one from eye, target,
//! up and field of view ([`crate::Camera::viewport`]).

use glam::{DMat4, DVec3, DVec4, Mat4, Vec2, Vec3};

use crate::error::Error;
use crate::rays::Ray;
use crate::volumes::Frustum;

/// Where the near and far planes land in normalised device depth.
///
/// Every convention here has `x` to the right and `y` up in normalised device coordinates
/// (OpenGL, Direct3D, Metal, wgpu); for Vulkan's `y`-down clip space, flip the projection's
/// `y` as usual and the pixel rows still count down from the top.
///
/// # Examples
/// ```
/// use meshcast_primitives::DepthConvention;
///
/// assert_eq!(DepthConvention::NegativeOneToOne.near_far(), (-1.0, 1.0));
/// assert_eq!(DepthConvention::ReversedZ.near_far(), (1.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthConvention {
    /// OpenGL: near at −1, far at +1 (glam's `*_gl` projections).
    NegativeOneToOne,
    /// Direct3D, Vulkan, Metal and wgpu: near at 0, far at 1 (glam's `perspective_rh`).
    ZeroToOne,
    /// Reversed Z: near at 1, far at 0, for depth precision (glam's
    /// `perspective_infinite_reverse_rh`, or `perspective_rh` with near and far swapped).
    ReversedZ,
}

impl DepthConvention {
    /// The normalised depths of the near and far planes.
    pub const fn near_far(self) -> (f64, f64) {
        match self {
            Self::NegativeOneToOne => (-1.0, 1.0),
            Self::ZeroToOne => (0.0, 1.0),
            Self::ReversedZ => (1.0, 0.0),
        }
    }
}

/// The distances of the near and far clipping planes in front of the eye; `far` may be
/// `f32::INFINITY` (an infinite projection).
///
/// # Examples
/// ```
/// use meshcast_primitives::ClipPlanes;
///
/// let planes = ClipPlanes::new(0.1, f32::INFINITY);
/// assert!(planes.is_infinite());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipPlanes {
    /// The near plane's distance (positive).
    pub near: f32,
    /// The far plane's distance (greater than `near`, or infinite).
    pub far: f32,
}

impl ClipPlanes {
    /// The planes at these distances.
    pub const fn new(near: f32, far: f32) -> Self {
        Self { near, far }
    }

    /// Whether the far plane is at infinity.
    pub fn is_infinite(&self) -> bool {
        self.far == f32::INFINITY
    }
}

/// A `width` x `height` image seen through a view matrix (world to eye space) and a
/// projection matrix (eye to clip space): turns pixels into world rays, world points into
/// pixels, and marquee rectangles into frusta.
///
/// Pixel coordinates are those of [`crate::Camera`]: from the image's top-left corner, `x`
/// to the right and `y` down, so pixel `(i, j)` covers `[i, i + 1] x [j, j + 1]`, its centre
/// is `(i + 0.5, j + 0.5)` and its corners are whole numbers. Perspective and orthographic
/// projections (and any invertible one) work in each [`DepthConvention`]; all the
/// arithmetic is done in `f64` and rounded once.
///
/// # Examples
/// ```
/// use glam::{Mat4, Vec3};
/// use meshcast_primitives::{DepthConvention, Triangle, Viewport};
///
/// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
/// let projection = Mat4::perspective_rh(60f32.to_radians(), 4.0 / 3.0, 0.1, 100.0);
/// let viewport = Viewport::new(view, projection, DepthConvention::ZeroToOne, 640, 480)?;
/// // The centre of the image looks at the origin.
/// let ray = viewport.ray_through(320.0, 240.0);
/// let tri = Triangle::new(Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::Y);
/// let hit = tri.intersect(&ray).ok_or("miss")?;
/// let pixel = viewport.project(ray.at(hit.t)).ok_or("behind")?;
/// assert!((pixel.x - 320.0).abs() < 1e-3 && (pixel.y - 240.0).abs() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    view: Mat4,
    projection: Mat4,
    depth: DepthConvention,
    width: u32,
    height: u32,
    view_projection: DMat4,
    inverse: DMat4,
    /// The centre of projection for a perspective projection; `None` for a parallel one.
    eye: Option<DVec3>,
}

/// A pixel's line of sight: where it enters the view volume and where it leaves it (a
/// point) or the direction it runs on in (an infinite far plane).
enum Sight {
    Bounded(DVec3, DVec3),
    Unbounded(DVec3, DVec3),
}

impl Viewport {
    /// The viewport of these matrices and image size.
    ///
    /// # Errors
    /// [`Error::InvalidViewport`] when the width or height is zero, or a matrix is not
    /// finite, or their product cannot be inverted.
    pub fn new(
        view: Mat4,
        projection: Mat4,
        depth: DepthConvention,
        width: u32,
        height: u32,
    ) -> Result<Self, Error> {
        let invalid = |reason| Err(Error::InvalidViewport { reason });
        if width == 0 || height == 0 {
            return invalid("the image has no pixels");
        }
        if !view.is_finite() || !projection.is_finite() {
            return invalid("a matrix is not finite");
        }
        let view_projection = projection.as_dmat4() * view.as_dmat4();
        let determinant = view_projection.determinant();
        if determinant == 0.0 || !determinant.is_finite() {
            return invalid("the view and projection cannot be inverted");
        }
        let inverse = view_projection.inverse();
        if !inverse.is_finite() {
            return invalid("the view and projection cannot be inverted");
        }
        // Clip w depends on depth under a perspective projection; the centre of projection
        // is then the world point whose clip coordinates are (0, 0, z, 0).
        let eye = (projection.row(3).z != 0.0).then(|| {
            let centre = inverse * DVec4::Z;
            centre.truncate() / centre.w
        });
        if eye.is_some_and(|e| !e.is_finite()) {
            return invalid("the projection has no centre");
        }
        Ok(Self {
            view,
            projection,
            depth,
            width,
            height,
            view_projection,
            inverse,
            eye,
        })
    }

    /// The view matrix (world to eye space).
    pub fn view(&self) -> Mat4 {
        self.view
    }

    /// The projection matrix (eye to clip space).
    pub fn projection(&self) -> Mat4 {
        self.projection
    }

    /// The depth convention.
    pub fn depth(&self) -> DepthConvention {
        self.depth
    }

    /// The image width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The image height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The centre of projection (the eye) of a perspective projection; `None` for an
    /// orthographic one.
    pub fn eye(&self) -> Option<Vec3> {
        self.eye.map(|e| e.as_vec3())
    }

    fn ndc(&self, x: f32, y: f32) -> (f64, f64) {
        (
            2.0 * f64::from(x) / f64::from(self.width) - 1.0,
            1.0 - 2.0 * f64::from(y) / f64::from(self.height),
        )
    }

    fn unproject(&self, ndc_x: f64, ndc_y: f64, depth: f64) -> DVec4 {
        self.inverse * DVec4::new(ndc_x, ndc_y, depth, 1.0)
    }

    /// The line of sight of the image point `(x, y)`, from the near plane on.
    fn sight(&self, x: f32, y: f32) -> Sight {
        let (nx, ny) = self.ndc(x, y);
        let (near_depth, far_depth) = self.depth.near_far();
        let near = self.unproject(nx, ny, near_depth);
        let far = self.unproject(nx, ny, far_depth);
        let near_point = near.truncate() / near.w;
        // An infinite far plane unprojects to a point at infinity (w = 0): a direction,
        // pointing away from the eye when the near point's w is positive.
        let scale = far.truncate().length();
        if far.w.abs() <= scale * 1e-12 || far.w * near.w < 0.0 {
            let direction = far.truncate() * near.w.signum();
            Sight::Unbounded(near_point, direction)
        } else {
            Sight::Bounded(near_point, far.truncate() / far.w)
        }
    }

    /// The world ray through the image point `(x, y)` (in pixel coordinates, see
    /// [`Viewport`]): unit direction, from the eye for a perspective projection and from the
    /// near plane for an orthographic one, so `t` is a world distance. Its range covers the
    /// view volume only: from the near plane to the far plane (without end for an infinite
    /// far plane), so that what the image does not show is not picked; widen it with
    /// [`Ray::with_range`] to pick behind the planes.
    ///
    /// Points outside the image give rays outside the view.
    pub fn ray_through(&self, x: f32, y: f32) -> Ray {
        let (origin, near, far) = match (self.sight(x, y), self.eye) {
            (Sight::Bounded(near, far), Some(eye)) => (eye, near, Some(far)),
            (Sight::Bounded(near, far), None) => (near, near, Some(far)),
            (Sight::Unbounded(near, direction), eye) => {
                let origin = eye.unwrap_or(near);
                let dir = direction.normalize();
                let t_min = (near - origin).dot(dir);
                return Ray::new(origin.as_vec3(), dir.as_vec3())
                    .with_range(t_min.max(0.0) as f32, f32::INFINITY);
            }
        };
        let reach = far.map_or(near - origin, |f| f - origin);
        let dir = reach.normalize();
        let t_min = (near - origin).dot(dir).max(0.0);
        let t_max = reach.length();
        Ray::new(origin.as_vec3(), dir.as_vec3()).with_range(t_min as f32, t_max as f32)
    }

    /// The ray through the centre of pixel `(column, row)`, counted from the top-left.
    pub fn ray_through_pixel(&self, column: u32, row: u32) -> Ray {
        self.ray_through(column as f32 + 0.5, row as f32 + 0.5)
    }

    /// The rays through the centre of every pixel of the image, row by row from the
    /// top-left: ray `row * width + column` is [`Viewport::ray_through_pixel`]`(column, row)`,
    /// limited to the view volume likewise. Nothing is allocated: collect the rays to cast
    /// them as a batch.
    ///
    /// # Examples
    /// ```
    /// use glam::{Mat4, Vec3};
    /// use meshcast_primitives::{DepthConvention, Ray, Viewport};
    ///
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
    /// let projection = Mat4::perspective_rh(1.0, 2.0, 0.1, 100.0);
    /// let viewport = Viewport::new(view, projection, DepthConvention::ZeroToOne, 64, 32)?;
    /// let rays: Vec<Ray> = viewport.pixel_rays().collect();
    /// assert_eq!(rays.len(), 64 * 32);
    /// assert_eq!(rays[64 + 5], viewport.ray_through_pixel(5, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pixel_rays(&self) -> impl ExactSizeIterator<Item = Ray> + Clone {
        let viewport = *self;
        pixels(self.width, self.height)
            .map(move |(column, row)| viewport.ray_through_pixel(column, row))
    }

    /// Where `point` appears: its pixel coordinates `x`, `y` (as in [`Viewport::ray_through`])
    /// and its normalised depth `z` in the viewport's [`DepthConvention`]; `None` when the
    /// point is at or behind the eye's plane (clip `w <= 0`). Points outside the view give
    /// coordinates outside the image or depths beyond the planes' values.
    pub fn project(&self, point: Vec3) -> Option<Vec3> {
        let clip = self.view_projection * point.as_dvec3().extend(1.0);
        if clip.w.is_nan() || clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        let pixel = DVec3::new(
            (ndc.x + 1.0) * 0.5 * f64::from(self.width),
            (1.0 - ndc.y) * 0.5 * f64::from(self.height),
            ndc.z,
        )
        .as_vec3();
        pixel.is_finite().then_some(pixel)
    }

    /// The part of the view volume behind the rectangle with opposite corners `a` and `b` (in
    /// pixel coordinates): a [`Frustum`] from the near plane to the far plane, unbounded
    /// beyond the near plane for an infinite far plane. `None` for a rectangle with no area
    /// (a click rather than a drag: pick with [`Viewport::ray_through`] instead) or not
    /// finite.
    ///
    /// # Examples
    /// ```
    /// use glam::{Mat4, Vec2, Vec3};
    /// use meshcast_primitives::{DepthConvention, Viewport};
    ///
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
    /// let projection = Mat4::perspective_infinite_reverse_rh(1.0, 1.0, 0.1);
    /// let viewport = Viewport::new(view, projection, DepthConvention::ReversedZ, 100, 100)?;
    /// let centre = viewport.marquee(Vec2::new(40.0, 40.0), Vec2::new(60.0, 60.0)).ok_or("empty")?;
    /// assert!(centre.contains_point(Vec3::ZERO));
    /// assert!(!centre.contains_point(Vec3::new(2.0, 0.0, 0.0)));
    /// assert!(viewport.marquee(Vec2::splat(3.0), Vec2::splat(3.0)).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn marquee(&self, a: Vec2, b: Vec2) -> Option<Frustum> {
        let (low, high) = (a.min(b), a.max(b));
        if !(low.is_finite() && high.is_finite()) || low.x == high.x || low.y == high.y {
            return None;
        }
        let corners = [
            (low.x, high.y),
            (high.x, high.y),
            (high.x, low.y),
            (low.x, low.y),
        ];
        let sights = corners.map(|(x, y)| self.sight(x, y));
        let near = sights.each_ref().map(|s| match s {
            Sight::Bounded(n, _) | Sight::Unbounded(n, _) => n.as_vec3(),
        });
        if sights.iter().all(|s| matches!(s, Sight::Bounded(..))) {
            let far = sights.map(|s| match s {
                Sight::Bounded(_, f) | Sight::Unbounded(_, f) => f.as_vec3(),
            });
            Frustum::from_corners(near, far)
        } else {
            let directions = sights.map(|s| match s {
                Sight::Bounded(n, f) => (f - n).normalize().as_vec3(),
                Sight::Unbounded(_, d) => d.normalize().as_vec3(),
            });
            Frustum::unbounded(near, directions)
        }
    }

    /// The whole view volume as a frustum ([`Viewport::marquee`] of the whole image).
    pub fn frustum(&self) -> Option<Frustum> {
        self.marquee(Vec2::ZERO, Vec2::new(self.width as f32, self.height as f32))
    }
}

/// A right-handed perspective projection (camera looking down `-z`) with the vertical field
/// of view `fov_y` (radians), for the depth convention and clip planes given; an infinite
/// far plane is allowed in each convention.
pub(crate) fn perspective(
    fov_y: f32,
    aspect: f32,
    planes: ClipPlanes,
    depth: DepthConvention,
) -> Mat4 {
    let (near, far) = (planes.near, planes.far);
    match (depth, planes.is_infinite()) {
        (DepthConvention::NegativeOneToOne, false) => {
            Mat4::perspective_rh_gl(fov_y, aspect, near, far)
        }
        (DepthConvention::NegativeOneToOne, true) => {
            // The limit of the OpenGL matrix as far goes to infinity.
            let f = 1.0 / (0.5 * fov_y).tan();
            Mat4::from_cols(
                glam::Vec4::new(f / aspect, 0.0, 0.0, 0.0),
                glam::Vec4::new(0.0, f, 0.0, 0.0),
                glam::Vec4::new(0.0, 0.0, -1.0, -1.0),
                glam::Vec4::new(0.0, 0.0, -2.0 * near, 0.0),
            )
        }
        (DepthConvention::ZeroToOne, false) => Mat4::perspective_rh(fov_y, aspect, near, far),
        (DepthConvention::ZeroToOne, true) => Mat4::perspective_infinite_rh(fov_y, aspect, near),
        (DepthConvention::ReversedZ, false) => Mat4::perspective_rh(fov_y, aspect, far, near),
        (DepthConvention::ReversedZ, true) => {
            Mat4::perspective_infinite_reverse_rh(fov_y, aspect, near)
        }
    }
}

/// The pixels of a `width` x `height` image, row by row from the top-left, as
/// `(column, row)`.
pub(crate) fn pixels(width: u32, height: u32) -> impl ExactSizeIterator<Item = (u32, u32)> + Clone {
    // Counted in `usize` so the iterator knows its length; no image has more pixels than
    // that on a 64-bit target, and a 32-bit one saturates rather than wraps.
    let count = (width as usize).saturating_mul(height as usize);
    (0..count).map(move |i| ((i % width as usize) as u32, (i / width as usize) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONVENTIONS: [DepthConvention; 3] = [
        DepthConvention::NegativeOneToOne,
        DepthConvention::ZeroToOne,
        DepthConvention::ReversedZ,
    ];

    fn view() -> Mat4 {
        Mat4::look_at_rh(
            Vec3::new(3.0, 2.0, 7.0),
            Vec3::new(-1.0, 0.5, 0.25),
            Vec3::Y,
        )
    }

    #[test]
    fn near_and_far_planes_land_where_the_convention_says() {
        for depth in CONVENTIONS {
            for far in [50.0, f32::INFINITY] {
                let projection = perspective(1.0, 1.5, ClipPlanes::new(0.5, far), depth);
                let viewport = Viewport::new(view(), projection, depth, 300, 200).expect("valid");
                let ray = viewport.ray_through(10.0, 20.0);
                let (near_depth, far_depth) = depth.near_far();
                let at_near = viewport.project(ray.at(ray.t_min)).expect("in front");
                assert!(
                    (f64::from(at_near.z) - near_depth).abs() < 1e-4,
                    "{depth:?} {at_near}"
                );
                assert!(at_near.truncate().distance(Vec2::new(10.0, 20.0)) < 1e-2);
                if far.is_finite() {
                    let at_far = viewport.project(ray.at(ray.t_max)).expect("in front");
                    assert!(
                        (f64::from(at_far.z) - far_depth).abs() < 1e-3,
                        "{depth:?} {at_far}"
                    );
                } else {
                    assert_eq!(ray.t_max, f32::INFINITY);
                }
            }
        }
    }

    #[test]
    fn bad_viewports_are_errors() {
        let projection = Mat4::perspective_rh(1.0, 1.0, 0.1, 10.0);
        let err = Viewport::new(view(), projection, DepthConvention::ZeroToOne, 0, 10);
        assert!(matches!(err, Err(Error::InvalidViewport { .. })));
        let singular = Viewport::new(Mat4::ZERO, projection, DepthConvention::ZeroToOne, 10, 10);
        assert!(singular.is_err());
        let nan = Mat4::from_translation(Vec3::NAN);
        assert!(Viewport::new(nan, projection, DepthConvention::ZeroToOne, 10, 10).is_err());
    }

    #[test]
    fn pixel_rays_are_row_major_from_the_top_left() {
        let projection = perspective(
            1.0,
            1.4,
            ClipPlanes::new(0.5, 50.0),
            DepthConvention::ReversedZ,
        );
        let viewport =
            Viewport::new(view(), projection, DepthConvention::ReversedZ, 7, 5).expect("valid");
        let rays: Vec<Ray> = viewport.pixel_rays().collect();
        assert_eq!(rays.len(), 35);
        for row in 0..5 {
            for column in 0..7 {
                assert_eq!(
                    rays[(row * 7 + column) as usize],
                    viewport.ray_through_pixel(column, row)
                );
            }
        }
    }

    #[test]
    fn orthographic_rays_are_parallel_and_start_on_the_near_plane() {
        let projection = Mat4::orthographic_rh(-4.0, 4.0, -3.0, 3.0, 1.0, 20.0);
        let viewport =
            Viewport::new(view(), projection, DepthConvention::ZeroToOne, 80, 60).expect("valid");
        assert_eq!(viewport.eye(), None);
        let a = viewport.ray_through(0.0, 0.0);
        let b = viewport.ray_through(80.0, 60.0);
        assert!(a.dir.distance(b.dir) < 1e-6);
        assert_eq!(a.t_min, 0.0);
        assert!((a.t_max - 19.0).abs() < 1e-4);
        // The two corners are the image's diagonal apart: 8 x 6 world units.
        assert!((a.origin.distance(b.origin) - 10.0).abs() < 1e-4);
    }
}
