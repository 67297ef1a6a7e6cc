//! numpy in and out: rows of floats of any float (or integer) dtype and any leading shape
//! read without a copy where numpy already holds them as C-contiguous `float32` or
//! `float64`; answers handed to numpy without a copy (`PyArray::from_vec`).

use meshcast::glam::Vec3;
use meshcast::Ray;
use numpy::{
    Element, PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;
use rayon::prelude::*;

/// A C-contiguous array of floats, as numpy holds it.
pub enum Floats<'py> {
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyReadonlyArrayDyn<'py, f64>),
}

/// The same floats, borrowed: what crosses into the threads that run without the GIL.
#[derive(Clone, Copy)]
pub enum FloatSlice<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// An array of shape `(..., width)`: rows of `width` numbers.
pub struct Rows<'py> {
    floats: Floats<'py>,
    /// The shape before the last axis: the answers' shape.
    pub leading: Vec<usize>,
    /// What the caller called the array, for messages.
    pub name: &'static str,
}

impl<'py> Rows<'py> {
    /// Reads `array` as rows of `width` numbers: any float, integer or boolean dtype, any
    /// leading shape, any memory layout (copied only when numpy does not hold it as
    /// C-contiguous `float32` or `float64`).
    ///
    /// # Errors
    /// `TypeError` for something that is not an array of numbers, `ValueError` for a shape
    /// that does not end in `width`.
    pub fn new(array: &Bound<'py, PyAny>, name: &'static str, width: usize) -> PyResult<Self> {
        let floats = floats(array, name)?;
        let shape = match &floats {
            Floats::F32(a) => a.shape().to_vec(),
            Floats::F64(a) => a.shape().to_vec(),
        };
        match shape.split_last() {
            Some((&last, leading)) if last == width => Ok(Self {
                floats,
                leading: leading.to_vec(),
                name,
            }),
            _ => Err(PyValueError::new_err(format!(
                "{name} must have shape (..., {width}), not {}",
                python_shape(&shape)
            ))),
        }
    }

    /// Reads `vertices` as an `(N, 3)` array of positions, one per vertex.
    ///
    /// # Errors
    /// As [`Rows::new`], and `ValueError` for more or fewer than one leading axis.
    pub fn vertices(vertices: &Bound<'py, PyAny>) -> PyResult<Self> {
        let rows = Self::new(vertices, "vertices", 3)?;
        if rows.leading.len() != 1 {
            return Err(PyValueError::new_err(format!(
                "vertices must have shape (N, 3), not {}",
                rows.array().getattr("shape")?
            )));
        }
        Ok(rows)
    }

    /// The numbers and their shape, for the threads that run without the GIL (a `Rows`
    /// holds Python references, which may not go there).
    pub fn view(&self) -> RowsView<'_> {
        let slice = match &self.floats {
            // Both arrays were made C-contiguous in `floats`.
            Floats::F32(a) => FloatSlice::F32(a.as_slice().expect("C-contiguous")),
            Floats::F64(a) => FloatSlice::F64(a.as_slice().expect("C-contiguous")),
        };
        RowsView {
            slice,
            leading: &self.leading,
            name: self.name,
        }
    }

    /// The numpy array the rows are read from.
    pub fn array(&self) -> Bound<'py, PyAny> {
        match &self.floats {
            Floats::F32(a) => a.as_any().clone(),
            Floats::F64(a) => a.as_any().clone(),
        }
    }
}

/// The rows of a [`Rows`], borrowed: what crosses into the threads.
#[derive(Clone, Copy)]
pub struct RowsView<'a> {
    slice: FloatSlice<'a>,
    leading: &'a [usize],
    name: &'static str,
}

impl<'a> RowsView<'a> {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.leading.iter().product()
    }

    /// The rows in parallel chunks of `rows` rows (the last one shorter).
    pub fn chunks(&self, rows: usize) -> impl IndexedParallelIterator<Item = FloatSlice<'a>> + 'a {
        let width = match self.slice {
            FloatSlice::F32(s) => s.len() / self.len().max(1),
            FloatSlice::F64(s) => s.len() / self.len().max(1),
        };
        let (f32s, f64s): (&[f32], &[f64]) = match self.slice {
            FloatSlice::F32(s) => (s, &[]),
            FloatSlice::F64(s) => (&[], s),
        };
        let step = (rows * width).max(1);
        f32s.par_chunks(step)
            .map(FloatSlice::F32)
            .chain(f64s.par_chunks(step).map(FloatSlice::F64))
    }

    /// The `ValueError` of the ray at `index`, which is not finite.
    pub fn not_finite(&self, index: usize) -> PyErr {
        let ray = ray_of(self.slice.row(index), None);
        PyValueError::new_err(format!(
            "{} is not finite: origin {} direction {}",
            self.position(index),
            ray.origin,
            ray.dir
        ))
    }

    /// `f` of every row of `W` numbers (as `f32`), in parallel, in order.
    pub fn map_rows<const W: usize, T: Send>(&self, f: impl Fn([f32; W]) -> T + Sync) -> Vec<T> {
        self.slice.map_rows(f)
    }

    /// Where the row at `index` sits in the caller's array, as numpy would print the index.
    pub fn position(&self, index: usize) -> String {
        let mut rest = index;
        let mut place: Vec<usize> = self
            .leading
            .iter()
            .rev()
            .map(|&len| {
                let at = rest % len.max(1);
                rest /= len.max(1);
                at
            })
            .collect();
        place.reverse();
        if place.is_empty() {
            return self.name.to_string();
        }
        let place: Vec<String> = place.iter().map(ToString::to_string).collect();
        format!("{}[{}]", self.name, place.join(", "))
    }
}

impl FloatSlice<'_> {
    /// Fills `rays` from rows `(ox, oy, oz, dx, dy, dz)`, one ray per row, each accepting
    /// `t` in `range` (`None`: every `t > 0`, as [`Ray::new`]).
    pub fn fill_rays(self, rays: &mut [Ray], range: Option<(f32, f32)>) {
        match self {
            Self::F32(s) => {
                for (ray, row) in rays.iter_mut().zip(s.chunks_exact(6)) {
                    *ray = ray_of(std::array::from_fn(|i| row[i]), range);
                }
            }
            Self::F64(s) => {
                for (ray, row) in rays.iter_mut().zip(s.chunks_exact(6)) {
                    *ray = ray_of(std::array::from_fn(|i| row[i] as f32), range);
                }
            }
        }
    }

    /// Row `index` of `W` numbers, as `f32`.
    fn row<const W: usize>(self, index: usize) -> [f32; W] {
        match self {
            Self::F32(s) => std::array::from_fn(|i| s[W * index + i]),
            Self::F64(s) => std::array::from_fn(|i| s[W * index + i] as f32),
        }
    }

    /// `f` of every row of `W` numbers (as `f32`), in parallel, in order.
    pub fn map_rows<const W: usize, T: Send>(self, f: impl Fn([f32; W]) -> T + Sync) -> Vec<T> {
        match self {
            Self::F32(s) => s
                .par_chunks_exact(W)
                .map(|row| f(std::array::from_fn(|i| row[i])))
                .collect(),
            Self::F64(s) => s
                .par_chunks_exact(W)
                .map(|row| f(std::array::from_fn(|i| row[i] as f32)))
                .collect(),
        }
    }
}

/// `array` as C-contiguous `float32` or `float64`, converted by numpy when it is anything
/// else.
fn floats<'py>(array: &Bound<'py, PyAny>, name: &str) -> PyResult<Floats<'py>> {
    if let Ok(a) = array.cast::<PyArrayDyn<f32>>() {
        if a.is_c_contiguous() {
            return Ok(Floats::F32(a.readonly()));
        }
    }
    if let Ok(a) = array.cast::<PyArrayDyn<f64>>() {
        if a.is_c_contiguous() {
            return Ok(Floats::F64(a.readonly()));
        }
    }
    let numpy = array.py().import("numpy")?;
    let array = &plain(array)?;
    let converted = numpy.call_method1("asarray", (array,)).map_err(|err| {
        PyTypeError::new_err(format!("{name} must be an array of numbers: {err}"))
    })?;
    let dtype = converted.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    let wide = match kind.as_str() {
        "f" => itemsize >= 8,
        "i" | "u" | "b" => true,
        _ => {
            return Err(PyTypeError::new_err(format!(
                "{name} must hold real numbers, not {}",
                dtype.str()?
            )))
        }
    };
    let target = if wide { "float64" } else { "float32" };
    // `asarray` with an order keeps a 0-d array 0-d (`ascontiguousarray` would not).
    let kwargs = [("dtype", target), ("order", "C")].into_py_dict(array.py())?;
    let contiguous = numpy.call_method("asarray", (converted,), Some(&kwargs))?;
    Ok(if wide {
        Floats::F64(contiguous.cast::<PyArrayDyn<f64>>()?.readonly())
    } else {
        Floats::F32(contiguous.cast::<PyArrayDyn<f32>>()?.readonly())
    })
}

/// `object` as numpy can read it: an array as it is, else what its `numpy()` method
/// answers where it has one (an Open3D or PyTorch tensor on the CPU), else `object`.
///
/// # Errors
/// What `numpy()` raises (a tensor on a GPU).
pub fn plain<'py>(object: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if object.cast::<numpy::PyUntypedArray>().is_err() && object.hasattr("numpy")? {
        return object.call_method0("numpy");
    }
    Ok(object.clone())
}

/// A shape as Python prints a tuple.
fn python_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// The rays of rows `(ox, oy, oz, dx, dy, dz)`, each accepting `t` in `range` (`None`: every
/// `t > 0`, as [`Ray::new`]).
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number.
pub fn rays(rows: &RowsView<'_>, range: Option<(f32, f32)>) -> PyResult<Vec<Ray>> {
    let rays = rows.slice.map_rows(|row| ray_of(row, range));
    match rays.par_iter().position_first(|ray| !is_finite(ray)) {
        Some(index) => Err(rows.not_finite(index)),
        None => Ok(rays),
    }
}

/// Rows `(ox, oy, oz, dx, dy, dz)` read as rays where numpy holds them, each accepting `t`
/// in a range: the GPU queries write them straight into the GPU's upload buffer, with no
/// `Vec<Ray>` made first.
pub struct RowRays<'a> {
    slice: FloatSlice<'a>,
    range: Option<(f32, f32)>,
}

impl meshcast::gpu::RaySource for RowRays<'_> {
    fn len(&self) -> usize {
        match self.slice {
            FloatSlice::F32(s) => s.len() / 6,
            FloatSlice::F64(s) => s.len() / 6,
        }
    }

    fn ray(&self, index: usize) -> Ray {
        ray_of(self.slice.row(index), self.range)
    }
}

/// The rays of rows `(ox, oy, oz, dx, dy, dz)` as [`rays`] reads them, without a copy.
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite coordinate.
pub fn row_rays<'a>(rows: &RowsView<'a>, range: Option<(f32, f32)>) -> PyResult<RowRays<'a>> {
    let slice = rows.slice;
    let finite = |index| slice.row::<6>(index).iter().all(|x| x.is_finite());
    match (0..rows.len())
        .into_par_iter()
        .position_first(|i| !finite(i))
    {
        Some(index) => Err(rows.not_finite(index)),
        None => Ok(RowRays { slice, range }),
    }
}

/// The ray of a row `(ox, oy, oz, dx, dy, dz)`, accepting `t` in `range` (`None`: every
/// `t > 0`, as [`Ray::new`]).
fn ray_of([ox, oy, oz, dx, dy, dz]: [f32; 6], range: Option<(f32, f32)>) -> Ray {
    let ray = Ray::new(Vec3::new(ox, oy, oz), Vec3::new(dx, dy, dz));
    match range {
        Some((t_min, t_max)) => ray.with_range(t_min, t_max),
        None => ray,
    }
}

/// Whether a ray's origin and direction are finite.
pub fn is_finite(ray: &Ray) -> bool {
    ray.origin.is_finite() && ray.dir.is_finite()
}

/// The points of rows `(x, y, z)`.
///
/// # Errors
/// `ValueError` naming the first point with a NaN or infinite coordinate.
pub fn points(rows: &RowsView<'_>) -> PyResult<Vec<Vec3>> {
    let points = rows.slice.map_rows(Vec3::from_array);
    match points.par_iter().position_first(|p| !p.is_finite()) {
        Some(index) => Err(PyValueError::new_err(format!(
            "{} is not finite: {}",
            rows.position(index),
            points[index]
        ))),
        None => Ok(points),
    }
}

/// `data` as a numpy array of shape `leading + tail`, without a copy.
pub fn to_numpy<'py, T: Element>(
    py: Python<'py>,
    data: Vec<T>,
    leading: &[usize],
    tail: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let shape: Vec<usize> = leading.iter().chain(tail).copied().collect();
    Ok(PyArray1::from_vec(py, data).reshape(shape)?.into_any())
}
