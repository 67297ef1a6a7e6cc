//! The pinhole camera of the view queries (`Scene.pick`, `lasso_triangles`, the `*_in_view`
//! calls, `cast_camera`): one Python value, `Camera`, or the keywords it stands for, read in
//! one place, and its pixels' rays, made in one place.

use meshcast::glam::{DVec3, Vec3};
use meshcast::primitives::carry_point;
use meshcast::{ClipPlanes, DepthConvention, Viewport};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::error::to_py;
use crate::keywords::Keywords;

/// A pinhole camera at `eye` looking at `target`, `up` towards the top of an image of
/// `width` x `height` pixels whose horizontal field of view is `fov` degrees (Open3D's
/// convention), with clip planes at the distances `near` and `far` (used by the views, the
/// lasso and `cast_camera`; `Scene.pick` sees the whole ray).
#[pyclass(frozen, module = "meshcast", from_py_object)]
#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    #[pyo3(get)]
    pub eye: [f32; 3],
    #[pyo3(get)]
    pub target: [f32; 3],
    #[pyo3(get)]
    pub up: [f32; 3],
    #[pyo3(get)]
    pub fov: f32,
    #[pyo3(get)]
    pub width: u32,
    #[pyo3(get)]
    pub height: u32,
    #[pyo3(get)]
    pub near: f32,
    #[pyo3(get)]
    pub far: f32,
}

const DEFAULT_UP: [f32; 3] = [0.0, 1.0, 0.0];
const DEFAULT_FOV: f32 = 60.0;
const DEFAULT_NEAR: f32 = 0.01;

/// Whether a call's camera keywords include the clip planes (`Scene.pick` has none).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Clip {
    Planes,
    Whole,
}

#[pymethods]
impl Camera {
    #[new]
    #[pyo3(signature = (eye, target, **fields), text_signature = "(eye, target, *, up=[0.0, 1.0, 0.0], fov=60.0, width, height, near=0.01, far=...)")]
    fn py_new(
        eye: [f32; 3],
        target: [f32; 3],
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let keywords = Keywords::new("Camera", fields)?;
        let camera = Self {
            eye,
            target,
            up: keywords.take("up")?.unwrap_or(DEFAULT_UP),
            fov: keywords.take("fov")?.unwrap_or(DEFAULT_FOV),
            width: keywords.required("width")?,
            height: keywords.required("height")?,
            near: keywords.take("near")?.unwrap_or(DEFAULT_NEAR),
            far: keywords.take("far")?.unwrap_or(f32::INFINITY),
        };
        keywords.finish()?;
        camera.image_checked()?;
        Ok(camera)
    }

    fn __repr__(&self) -> String {
        format!(
            "Camera(eye={:?}, target={:?}, up={:?}, fov={}, width={}, height={}, near={}, far={})",
            self.eye, self.target, self.up, self.fov, self.width, self.height, self.near, self.far
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.extract::<Camera>().is_ok_and(|other| *self == other)
    }
}

impl Camera {
    /// The same camera in the frame of a mesh whose origin lies at `origin`
    /// (`Mesh.origin`): its eye and target carried there in `f64` and rounded once (the
    /// camera itself for an origin at zero).
    pub fn in_frame(&self, origin: DVec3) -> Self {
        let carried =
            |point: [f32; 3]| carry_point(Vec3::from_array(point).as_dvec3(), origin).to_array();
        Self {
            eye: carried(self.eye),
            target: carried(self.target),
            ..self.clone()
        }
    }

    /// The camera of a view call: `camera` if given, else the keywords (`eye`, `center`,
    /// `up`, `fov_deg`, `width_px`, `height_px`, and with `Clip::Planes` `near` and `far`)
    /// that the calls took before `Camera` existed.
    ///
    /// # Errors
    /// `TypeError` for both or neither, a missing or unknown keyword or a wrong type;
    /// `ValueError` for an empty image or a field of view outside `(0, 180)` degrees.
    pub fn of_call(
        function: &'static str,
        camera: Option<&Bound<'_, Camera>>,
        keywords: Option<&Bound<'_, PyDict>>,
        clip: Clip,
    ) -> PyResult<Self> {
        let keywords = Keywords::new(function, keywords)?;
        if let Some(camera) = camera {
            if !keywords.is_empty() {
                return Err(PyTypeError::new_err(format!(
                    "{function}() takes either camera= or the camera's keywords (eye, center, ...), not both"
                )));
            }
            return Ok(camera.get().clone());
        }
        let (near, far) = if clip == Clip::Planes {
            (keywords.take("near")?, keywords.take("far")?)
        } else {
            (None, None)
        };
        let camera = Self {
            eye: keywords.required("eye")?,
            target: keywords.required("center")?,
            up: keywords.take("up")?.unwrap_or(DEFAULT_UP),
            fov: keywords.take("fov_deg")?.unwrap_or(DEFAULT_FOV),
            width: keywords.required("width_px")?,
            height: keywords.required("height_px")?,
            near: near.unwrap_or(DEFAULT_NEAR),
            far: far.unwrap_or(f32::INFINITY),
        };
        keywords.finish()?;
        Ok(camera)
    }

    /// The engine's camera: unit directions, the vertical field of view the horizontal
    /// `fov` and the aspect make. (Open3D's `create_rays_pinhole`, which
    /// `meshcast.create_rays_pinhole` follows, turns its image half a turn and does not
    /// normalise directions.)
    ///
    /// # Errors
    /// `ValueError` for an empty image or a field of view outside `(0, 180)` degrees.
    pub fn to_engine(&self) -> PyResult<meshcast::Camera> {
        self.image_checked()?;
        let aspect = self.width as f32 / self.height as f32;
        let half_horizontal = (0.5 * self.fov).to_radians();
        let fov_y = 2.0 * (half_horizontal.tan() / aspect).atan().to_degrees();
        Ok(meshcast::Camera::new(
            self.eye.into(),
            self.target.into(),
            self.up.into(),
            fov_y,
            aspect,
        ))
    }

    /// The camera's viewport (depth from 0 at the near plane to 1 at the far one).
    ///
    /// # Errors
    /// As [`Camera::to_engine`]; `MeshcastError` for a degenerate camera (eye on the
    /// target, a non-finite coordinate) or clip planes that are not `0 < near < far`.
    pub fn viewport(&self) -> PyResult<Viewport> {
        self.to_engine()?
            .viewport(
                self.width,
                self.height,
                ClipPlanes::new(self.near, self.far),
                DepthConvention::ZeroToOne,
            )
            .map_err(to_py)
    }

    /// The rays of `viewport` (this camera's, [`Camera::viewport`]) through the centres of
    /// the image's pixels, row by row from the top-left, as rows `(ox, oy, oz, dx, dy, dz)`:
    /// [`Viewport::ray_through_pixel`], the rays the `*_in_view` calls cast, without their
    /// ranges. Made in parallel, on the pool the caller runs in.
    ///
    /// # Errors
    /// `ValueError` for an image whose rays are too many to store.
    pub fn pixel_rows(&self, viewport: &Viewport) -> PyResult<Vec<f32>> {
        let (width, height) = (self.width as usize, self.height as usize);
        let floats = width
            .checked_mul(height)
            .and_then(|pixels| pixels.checked_mul(6))
            .filter(|&n| n <= isize::MAX as usize / 4)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "an image of {width} x {height} pixels has too many rays to store"
                ))
            })?;
        let mut rows = vec![0.0_f32; floats];
        rows.par_chunks_mut(6 * width.max(1))
            .enumerate()
            .for_each(|(row, line)| {
                for (column, out) in line.chunks_exact_mut(6).enumerate() {
                    let ray = viewport.ray_through_pixel(column as u32, row as u32);
                    out[..3].copy_from_slice(&ray.origin.to_array());
                    out[3..].copy_from_slice(&ray.dir.to_array());
                }
            });
        Ok(rows)
    }

    fn image_checked(&self) -> PyResult<()> {
        if self.width == 0 || self.height == 0 {
            return Err(PyValueError::new_err(
                "width_px and height_px must be at least 1",
            ));
        }
        if !(self.fov > 0.0 && self.fov < 180.0) {
            return Err(PyValueError::new_err(format!(
                "fov_deg must be between 0 and 180 degrees, not {}",
                self.fov
            )));
        }
        Ok(())
    }
}
