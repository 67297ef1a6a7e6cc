//! numpy in and out: rows of floats of any float (or integer) dtype and any leading shape
//! read without a copy where numpy already holds them as C-contiguous `float32` or
//! `float64`; answers handed to numpy without a copy (`PyArray::from_vec`).
//!
//! Rows read as `float64` (float64 arrays, and the integers and Python floats numpy widens
//! to it) are world coordinates in `f64` for a mesh: its queries carry each ray and point
//! into the mesh's own frame (`Mesh::origin`) before anything is rounded to `f32`, and
//! answer `t`, points and distances in `float64` ([`Reals`]). `float32` rows are read as
//! they are, unless the mesh has an origin of its own, which they are carried to as well.

use meshcast::glam::{DVec3, Vec3};
use meshcast::primitives::carry_point;
use meshcast::Mesh;
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

/// Where the numbers of [`Rows`] are.
enum Numbers<'py> {
    /// An array numpy holds.
    Numpy(Floats<'py>),
    /// Rows made here, never seen by Python (a camera's rays).
    Made(Vec<f32>),
}

/// An array of shape `(..., width)`: rows of `width` numbers.
pub struct Rows<'py> {
    numbers: Numbers<'py>,
    /// The shape before the last axis: the answers' shape.
    pub leading: Vec<usize>,
    /// The numbers in a row.
    width: usize,
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
        let (floats, leading) = numpy_rows(array, name, width)?;
        Ok(Self {
            numbers: Numbers::Numpy(floats),
            leading,
            width,
            name,
        })
    }

    /// Rows of `width` numbers made here, `values` of the shape `leading + (width,)`: read
    /// as numpy's `float32` rows are, without a numpy array.
    pub fn made(values: Vec<f32>, leading: Vec<usize>, width: usize, name: &'static str) -> Self {
        debug_assert_eq!(values.len(), leading.iter().product::<usize>() * width);
        Self {
            numbers: Numbers::Made(values),
            leading,
            width,
            name,
        }
    }

    /// These rows if `fits` holds for their leading shape.
    ///
    /// # Errors
    /// `ValueError` saying that the rows must have shape `expected`, and the shape they have.
    pub fn shaped(self, fits: impl Fn(&[usize]) -> bool, expected: &str) -> PyResult<Self> {
        if fits(&self.leading) {
            return Ok(self);
        }
        let shape: Vec<usize> = self.leading.iter().copied().chain([self.width]).collect();
        Err(PyValueError::new_err(format!(
            "{} must have shape {expected}, not {}",
            self.name,
            python_shape(&shape)
        )))
    }

    /// Reads `vertices` as an `(N, 3)` array of positions, one per vertex.
    ///
    /// # Errors
    /// As [`Rows::new`], and `ValueError` for more or fewer than one leading axis.
    pub fn vertices(vertices: &Bound<'py, PyAny>) -> PyResult<Self> {
        Self::new(vertices, "vertices", 3)?.shaped(|leading| leading.len() == 1, "(N, 3)")
    }

    /// The numbers and their shape, for the threads that run without the GIL (a `Rows`
    /// holds Python references, which may not go there).
    pub fn view(&self) -> RowsView<'_> {
        let slice = match &self.numbers {
            // Both arrays were made C-contiguous in `floats`.
            Numbers::Numpy(Floats::F32(a)) => FloatSlice::F32(a.as_slice().expect("C-contiguous")),
            Numbers::Numpy(Floats::F64(a)) => FloatSlice::F64(a.as_slice().expect("C-contiguous")),
            Numbers::Made(values) => FloatSlice::F32(values),
        };
        RowsView {
            slice,
            leading: &self.leading,
            name: self.name,
        }
    }
}

/// `array` as [`Rows::new`] reads it: the numpy array of `float32` or `float64` the rows are
/// read from.
///
/// # Errors
/// As [`Rows::new`].
pub fn rows_array<'py>(
    array: &Bound<'py, PyAny>,
    name: &'static str,
    width: usize,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match numpy_rows(array, name, width)?.0 {
        Floats::F32(a) => a.as_any().clone(),
        Floats::F64(a) => a.as_any().clone(),
    })
}

/// `array` as C-contiguous `float32` or `float64` ([`floats`]), with the shape before its
/// last axis, which must be `width`.
///
/// # Errors
/// As [`Rows::new`].
fn numpy_rows<'py>(
    array: &Bound<'py, PyAny>,
    name: &'static str,
    width: usize,
) -> PyResult<(Floats<'py>, Vec<usize>)> {
    let floats = floats(array, name)?;
    let shape = match &floats {
        Floats::F32(a) => a.shape().to_vec(),
        Floats::F64(a) => a.shape().to_vec(),
    };
    match shape.split_last() {
        Some((&last, leading)) if last == width => Ok((floats, leading.to_vec())),
        _ => Err(PyValueError::new_err(format!(
            "{name} must have shape (..., {width}), not {}",
            python_shape(&shape)
        ))),
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

    /// The numbers of the rows, as numpy holds them.
    pub fn slice(&self) -> FloatSlice<'a> {
        self.slice
    }

    /// Whether the rows are read as `float64`: world coordinates in `f64` for a mesh, whose
    /// answers then come in `float64` too.
    pub fn is_wide(&self) -> bool {
        matches!(self.slice, FloatSlice::F64(_))
    }

    /// The mesh these rows are carried into for a query of `frame` (a mesh's, `None` for a
    /// scene's): the mesh when the rows are `float64` or the mesh has an origin of its own;
    /// `None` when they are read as they are, in `f32`, as a query at the origin always
    /// read them.
    pub fn carried_into<'m>(&self, frame: Option<&'m Mesh>) -> Option<&'m Mesh> {
        frame.filter(|mesh| self.is_wide() || mesh.origin() != DVec3::ZERO)
    }

    /// `f` of each row `(x, y, z)`, world coordinates in `f64`, carried into a frame whose
    /// origin lies at `origin` and rounded once ([`carry_point`], as a mesh with that
    /// origin stores its positions; the rows as they are, in `f32`, for an origin at zero),
    /// in parallel, in order.
    pub fn map_carried<T: Send>(&self, origin: DVec3, f: impl Fn(Vec3) -> T + Sync) -> Vec<T> {
        self.map_rows_f64(|point| f(carry_point(DVec3::from_array(point), origin)))
    }

    /// `f` of every row of `W` numbers (as `f64`, exactly as given), in parallel, in order.
    pub fn map_rows_f64<const W: usize, T: Send>(
        &self,
        f: impl Fn([f64; W]) -> T + Sync,
    ) -> Vec<T> {
        match self.slice {
            FloatSlice::F32(s) => s
                .par_chunks_exact(W)
                .map(|row| f(std::array::from_fn(|i| f64::from(row[i]))))
                .collect(),
            FloatSlice::F64(s) => s
                .par_chunks_exact(W)
                .map(|row| f(std::array::from_fn(|i| row[i])))
                .collect(),
        }
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

    /// `f` of every row of `W` numbers (as `f32`), in parallel, in order.
    pub fn map_rows<const W: usize, T: Send>(&self, f: impl Fn([f32; W]) -> T + Sync) -> Vec<T> {
        self.slice.map_rows(f)
    }

    /// Where the row at `index` sits in the caller's array, as numpy would print the index.
    pub fn position(&self, index: usize) -> String {
        let place = place_in(self.leading, index);
        if place.is_empty() {
            return self.name.to_string();
        }
        let place: Vec<String> = place.iter().map(ToString::to_string).collect();
        format!("{}[{}]", self.name, place.join(", "))
    }
}

/// The index of row `index` in an array whose leading axes are `leading` (row-major), as
/// numpy's `unravel_index` gives it.
pub fn place_in(leading: &[usize], index: usize) -> Vec<usize> {
    let mut rest = index;
    let mut place: Vec<usize> = leading
        .iter()
        .rev()
        .map(|&len| {
            let at = rest % len.max(1);
            rest /= len.max(1);
            at
        })
        .collect();
    place.reverse();
    place
}

impl FloatSlice<'_> {
    /// Row `index` of `W` numbers, as `f32`.
    pub fn row<const W: usize>(self, index: usize) -> [f32; W] {
        match self {
            Self::F32(s) => std::array::from_fn(|i| s[W * index + i]),
            Self::F64(s) => std::array::from_fn(|i| s[W * index + i] as f32),
        }
    }

    /// Row `index` of `W` numbers, as `f64` (exactly as given).
    pub fn row_f64<const W: usize>(self, index: usize) -> [f64; W] {
        match self {
            Self::F32(s) => std::array::from_fn(|i| f64::from(s[W * index + i])),
            Self::F64(s) => std::array::from_fn(|i| s[W * index + i]),
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

/// The points of rows `(x, y, z)`, as `f32`.
///
/// # Errors
/// `ValueError` naming the first point with a NaN or infinite coordinate.
pub fn points(rows: &RowsView<'_>) -> PyResult<Vec<Vec3>> {
    finite_points(rows, rows.slice.map_rows(Vec3::from_array), |p| {
        p.is_finite()
    })
}

/// The points of rows `(x, y, z)`, world coordinates carried into a frame whose origin lies
/// at `origin` ([`RowsView::map_carried`]).
///
/// # Errors
/// `ValueError` naming the first point with a NaN or infinite coordinate (there).
pub fn points_in(rows: &RowsView<'_>, origin: DVec3) -> PyResult<Vec<Vec3>> {
    finite_points(rows, rows.map_carried(origin, |point| point), |p| {
        p.is_finite()
    })
}

/// The points of rows `(x, y, z)` in `f64`, exactly as given: world coordinates for the
/// point queries of `DVec3`s of a mesh, which carry them into its frame.
///
/// # Errors
/// `ValueError` naming the first point with a NaN or infinite coordinate.
pub fn world_points(rows: &RowsView<'_>) -> PyResult<Vec<DVec3>> {
    finite_points(rows, rows.map_rows_f64(DVec3::from_array), |p| {
        p.is_finite()
    })
}

/// `points`, the points of `rows`, if `finite` holds for each.
///
/// # Errors
/// `ValueError` naming the first point with a NaN or infinite coordinate.
fn finite_points<P: Sync + std::fmt::Display>(
    rows: &RowsView<'_>,
    points: Vec<P>,
    finite: impl Fn(&P) -> bool + Sync,
) -> PyResult<Vec<P>> {
    match points.par_iter().position_first(|p| !finite(p)) {
        Some(index) => Err(PyValueError::new_err(format!(
            "{} is not finite: {}",
            rows.position(index),
            points[index]
        ))),
        None => Ok(points),
    }
}

/// Numbers answered one per ray, hit or point, in the dtype the query's rows ask for:
/// `float64` for `float64` rows carried into a mesh's frame, else `float32`.
pub enum Reals {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Reals {
    /// `values` as they are where `wide`, else rounded to `f32`.
    pub fn new(values: Vec<f64>, wide: bool) -> Self {
        if wide {
            Self::F64(values)
        } else {
            Self::F32(values.into_par_iter().map(|x| x as f32).collect())
        }
    }
}

/// Answers a query hands to numpy: a `Vec` of numpy's elements, or [`Reals`].
pub trait Answers {
    /// The answers as a numpy array of shape `leading + tail`, without a copy.
    ///
    /// # Errors
    /// What numpy raises (none for a shape that holds the answers).
    fn into_numpy<'py>(
        self,
        py: Python<'py>,
        leading: &[usize],
        tail: &[usize],
    ) -> PyResult<Bound<'py, PyAny>>;
}

impl<T: Element> Answers for Vec<T> {
    fn into_numpy<'py>(
        self,
        py: Python<'py>,
        leading: &[usize],
        tail: &[usize],
    ) -> PyResult<Bound<'py, PyAny>> {
        to_numpy(py, self, leading, tail)
    }
}

impl Answers for Reals {
    fn into_numpy<'py>(
        self,
        py: Python<'py>,
        leading: &[usize],
        tail: &[usize],
    ) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Self::F32(values) => to_numpy(py, values, leading, tail),
            Self::F64(values) => to_numpy(py, values, leading, tail),
        }
    }
}

/// Points of a mesh's frame, whose origin lies at `origin` (`Mesh.origin`), as an `(n, 3)`
/// array: `float32` as they are for a frame at the world's origin, else `float64` world
/// coordinates (`origin + point`).
pub fn frame_points<'py>(
    py: Python<'py>,
    points: &[Vec3],
    origin: DVec3,
) -> PyResult<Bound<'py, PyAny>> {
    let n = points.len();
    if origin == DVec3::ZERO {
        let flat: Vec<f32> = points.iter().flat_map(|p| p.to_array()).collect();
        return to_numpy(py, flat, &[n], &[3]);
    }
    let flat: Vec<f64> = points
        .iter()
        .flat_map(|&p| (origin + p.as_dvec3()).to_array())
        .collect();
    to_numpy(py, flat, &[n], &[3])
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
