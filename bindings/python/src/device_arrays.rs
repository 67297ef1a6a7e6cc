//! Arrays on a CUDA device as rays: torch tensors, CuPy and Warp arrays (any object with
//! `__cuda_array_interface__`, versions 2 and 3) read where they are, with no copy: their
//! address, shape, `float32` dtype, strides in bytes and the stream their data is made on
//! (version 3), checked and handed to the GPU mesh as `DeviceRows`. Which framework made them
//! is kept, so that the answers go back as that framework's arrays (`device_answers`). The
//! one `unsafe` call here makes the `DeviceRows` the producer's interface vouches for.

use meshcast::gpu::DeviceRows;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The framework whose arrays came in, so that the answers go back as its arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framework {
    Torch,
    Cupy,
    Warp,
    /// Another producer of `__cuda_array_interface__` (Numba, say): answered with
    /// `meshcast.DeviceArray`s.
    Other,
}

impl Framework {
    /// The framework of `object`, by the module its type comes from.
    fn of(object: &Bound<'_, PyAny>) -> Self {
        let module = object
            .get_type()
            .getattr("__module__")
            .and_then(|m| m.extract::<String>())
            .unwrap_or_default();
        match module.split('.').next().unwrap_or("") {
            "torch" => Self::Torch,
            "cupy" => Self::Cupy,
            "warp" => Self::Warp,
            _ => Self::Other,
        }
    }
}

/// An array of `float32` rows on a CUDA device, as `__cuda_array_interface__` describes it,
/// its leading axes read as one (rows `0..rows`, each `width` numbers).
#[derive(Clone, Debug)]
pub struct DeviceInput {
    /// Where element `(0, 0)` is.
    pub address: u64,
    /// The shape before the last axis.
    pub leading: Vec<usize>,
    /// The leading axes' elements as one axis: their count and stride in bytes.
    pub rows: usize,
    pub row_stride: i64,
    /// The stride of the last axis, in bytes.
    pub column_stride: i64,
    /// The stream to wait for (`None`: none).
    pub stream: Option<u64>,
    pub framework: Framework,
}

/// The `__cuda_array_interface__` of `object`, or `None` for an object without one (a numpy
/// array, a CPU tensor). A torch tensor that requires grad is read detached.
///
/// # Errors
/// `TypeError` if reading it fails for another reason.
fn interface<'py>(object: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    let object = if Framework::of(object) == Framework::Torch
        && object
            .getattr("requires_grad")
            .and_then(|r| r.extract::<bool>())
            .unwrap_or(false)
    {
        object.call_method0("detach")?
    } else {
        object.clone()
    };
    match object.getattr("__cuda_array_interface__") {
        Ok(interface) => interface
            .cast_into::<PyDict>()
            .map(Some)
            .map_err(|_| PyTypeError::new_err("__cuda_array_interface__ must be a dict")),
        Err(err) if err.is_instance_of::<pyo3::exceptions::PyAttributeError>(object.py()) => {
            Ok(None)
        }
        Err(err) => Err(PyTypeError::new_err(format!(
            "cannot read __cuda_array_interface__ of a {}: {err}",
            type_name(&object)
        ))),
    }
}

/// Torch's current stream on `tensor`'s device, where the work that writes it is queued;
/// `None` for the legacy default stream (torch's `cuda_stream` 0), which the queries' own
/// stream follows anyway.
///
/// # Errors
/// `TypeError` if torch cannot name it.
fn torch_current_stream(tensor: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    let stream: u64 = tensor
        .py()
        .import("torch")?
        .getattr("cuda")?
        .call_method1("current_stream", (tensor.getattr("device")?,))?
        .getattr("cuda_stream")?
        .extract()
        .map_err(|err| PyTypeError::new_err(format!("torch's current stream: {err}")))?;
    Ok((stream != 0).then_some(stream))
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |name| name.to_string())
}

/// Whether `object` is an array on a CUDA device (it has `__cuda_array_interface__`).
///
/// # Errors
/// `TypeError` if reading its interface fails.
pub fn is_device_array(object: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(interface(object)?.is_some())
}

/// A required entry of the interface.
fn entry<'py>(
    interface: &Bound<'py, PyDict>,
    key: &str,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    interface.get_item(key)?.ok_or_else(|| {
        PyTypeError::new_err(format!("{name}: __cuda_array_interface__ has no {key:?}"))
    })
}

impl DeviceInput {
    /// Reads `object`, an array on a CUDA device the caller calls `name`, as rows of `width`
    /// `float32` numbers: shape `(..., width)`, the leading axes evenly strided (any strides
    /// for a C-contiguous or a transposed or sliced view whose leading axes collapse into one).
    ///
    /// # Errors
    /// `TypeError` for an object without the interface, a dtype other than `float32`, a
    /// masked array or a missing entry; `ValueError` for a version other than 2 or 3, a shape
    /// that does not end in `width`, strides that do not fit the shape, or stream 0.
    pub fn read(object: &Bound<'_, PyAny>, name: &str, width: usize) -> PyResult<Self> {
        let Some(interface) = interface(object)? else {
            return Err(PyTypeError::new_err(format!(
                "{name} is not an array on a CUDA device (no __cuda_array_interface__)"
            )));
        };
        let version: i64 = entry(&interface, "version", name)?
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{name}: the version must be an int")))?;
        if !(2..=3).contains(&version) {
            return Err(PyValueError::new_err(format!(
                "{name}: __cuda_array_interface__ version {version} (meshcast reads 2 and 3)"
            )));
        }
        let typestr: String = entry(&interface, "typestr", name)?
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{name}: the typestr must be a str")))?;
        if !matches!(typestr.as_str(), "<f4" | "=f4") {
            return Err(PyTypeError::new_err(format!(
                "{name} on a CUDA device must be float32 (typestr '<f4'), not {typestr:?}: \
                 convert it there first (for example tensor.float())"
            )));
        }
        if interface
            .get_item("mask")?
            .is_some_and(|mask| !mask.is_none())
        {
            return Err(PyTypeError::new_err(format!(
                "{name}: masked arrays are not read"
            )));
        }
        let shape: Vec<usize> = entry(&interface, "shape", name)?.extract().map_err(|_| {
            PyTypeError::new_err(format!("{name}: the shape must be a tuple of ints"))
        })?;
        let data = entry(&interface, "data", name)?;
        let data = data.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err(format!("{name}: data must be a tuple (pointer, read_only)"))
        })?;
        let address: u64 = data
            .get_item(0)
            .and_then(|pointer| pointer.extract())
            .map_err(|_| {
                PyTypeError::new_err(format!("{name}: the data pointer must be an int"))
            })?;
        let strides: Option<Vec<i64>> = match interface.get_item("strides")? {
            Some(strides) if !strides.is_none() => Some(strides.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name}: the strides must be a tuple of ints or None"
                ))
            })?),
            _ => None,
        };
        let stream = match interface.get_item("stream")? {
            Some(stream) if version >= 3 && !stream.is_none() => {
                let stream: u64 = stream.extract().map_err(|_| {
                    PyTypeError::new_err(format!("{name}: the stream must be an int or None"))
                })?;
                if stream == 0 {
                    return Err(PyValueError::new_err(format!(
                        "{name}: stream 0 is ambiguous and disallowed by \
                         __cuda_array_interface__ (1: the legacy default stream, 2: the \
                         per-thread one)"
                    )));
                }
                Some(stream)
            }
            // A version 2 interface names no stream; torch's (which is one) leaves out the
            // stream its tensors' work is queued on: its current stream.
            _ if Framework::of(object) == Framework::Torch => torch_current_stream(object)?,
            _ => None,
        };
        let layout = RowLayout::of(&shape, strides.as_deref(), 4, width).map_err(|reason| {
            PyValueError::new_err(format!("{name} of shape {shape:?}: {reason}"))
        })?;
        Ok(Self {
            address,
            leading: shape[..shape.len() - 1].to_vec(),
            rows: layout.rows,
            row_stride: layout.row_stride,
            column_stride: layout.column_stride,
            stream,
            framework: Framework::of(object),
        })
    }
}

impl DeviceInput {
    /// The same rows from their `k`-th number on (the directions of rays of six).
    pub fn columns_from(&self, k: i64) -> Self {
        Self {
            address: self.address.wrapping_add_signed(k * self.column_stride),
            ..self.clone()
        }
    }

    /// The rows as the GPU mesh reads them.
    ///
    /// # Errors
    /// `MeshcastError` if they are not aligned to four bytes.
    pub fn device_rows(&self) -> PyResult<DeviceRows> {
        // SAFETY: the address, count and strides are the producer's
        // `__cuda_array_interface__` (or DLPack's), which promises `float32` elements there in
        // memory of its CUDA device (the query checks the device), alive while the object is;
        // the object is an argument of the call that runs the query, alive until it returns,
        // and meshcast only reads it.
        unsafe { DeviceRows::new(self.address, self.rows, self.row_stride, self.column_stride) }
            .map_err(crate::error::to_py)
    }
}

/// An array of shape `(..., width)` read as rows: how many, and the strides in bytes
/// between rows and between a row's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLayout {
    pub rows: usize,
    pub row_stride: i64,
    pub column_stride: i64,
}

impl RowLayout {
    /// The rows of an array of `shape` with `strides` in bytes (`None`: C-contiguous) and
    /// items of `item` bytes, each row `width` items: the leading axes must collapse into
    /// one evenly strided axis (axes of length 1 may have any stride).
    ///
    /// # Errors
    /// What is wrong, for the caller's message.
    pub fn of(
        shape: &[usize],
        strides: Option<&[i64]>,
        item: i64,
        width: usize,
    ) -> Result<Self, String> {
        if shape.last() != Some(&width) {
            return Err(format!("the last axis must have length {width}"));
        }
        let strides: Vec<i64> = match strides {
            Some(strides) if strides.len() != shape.len() => {
                return Err(format!(
                    "{} strides for {} axes",
                    strides.len(),
                    shape.len()
                ))
            }
            Some(strides) => strides.to_vec(),
            None => {
                let mut strides = vec![0i64; shape.len()];
                let mut step = item;
                for (stride, &len) in strides.iter_mut().zip(shape).rev() {
                    *stride = step;
                    step = step.saturating_mul(len as i64);
                }
                strides
            }
        };
        let leading = &shape[..shape.len() - 1];
        let rows = leading
            .iter()
            .try_fold(1usize, |rows, &len| rows.checked_mul(len))
            .ok_or("too many rows")?;
        // The axes of more than one element, innermost first: each must step over the
        // whole of the next.
        let mut row_stride: Option<i64> = None;
        let mut span: Option<(i64, usize)> = None;
        for (&len, &stride) in leading.iter().zip(&strides).rev() {
            if len == 1 {
                continue;
            }
            match span {
                None => row_stride = Some(stride),
                Some((inner, inner_len)) if inner.checked_mul(inner_len as i64) == Some(stride) => {
                }
                Some(_) => {
                    return Err(
                        "its leading axes are not evenly strided (a view that is not \
                                contiguous): give a contiguous copy"
                            .to_owned(),
                    )
                }
            }
            span = Some((stride, len));
        }
        Ok(Self {
            rows,
            row_stride: row_stride.unwrap_or(0),
            column_stride: strides[shape.len() - 1],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::RowLayout;

    fn layout(shape: &[usize], strides: Option<&[i64]>) -> Result<RowLayout, String> {
        RowLayout::of(shape, strides, 4, 3)
    }

    #[test]
    fn contiguous_arrays_are_rows_of_three() {
        let rows = |rows, row_stride| RowLayout {
            rows,
            row_stride,
            column_stride: 4,
        };
        assert_eq!(layout(&[5, 3], None), Ok(rows(5, 12)));
        assert_eq!(layout(&[2, 4, 3], None), Ok(rows(8, 12)));
        assert_eq!(layout(&[3], None), Ok(rows(1, 0)));
        assert_eq!(layout(&[0, 3], None), Ok(rows(0, 12)));
    }

    #[test]
    fn strided_views_whose_leading_axes_collapse_are_read_in_place() {
        // The origins of an (N, 6) array: rows 24 bytes apart.
        assert_eq!(
            layout(&[7, 3], Some(&[24, 4])).map(|l| (l.rows, l.row_stride)),
            Ok((7, 24))
        );
        // A transposed (3, N) array, and a reversed one.
        assert_eq!(
            layout(&[7, 3], Some(&[4, 28])),
            Ok(RowLayout {
                rows: 7,
                row_stride: 4,
                column_stride: 28
            })
        );
        assert_eq!(
            layout(&[7, 3], Some(&[-12, 4])).map(|l| l.row_stride),
            Ok(-12)
        );
        // Axes of length 1 may have any stride; a broadcast row has stride 0.
        assert_eq!(
            layout(&[1, 4, 3], Some(&[999, 12, 4])).map(|l| l.rows),
            Ok(4)
        );
        assert_eq!(layout(&[4, 3], Some(&[0, 4])).map(|l| l.row_stride), Ok(0));
        assert_eq!(
            layout(&[2, 4, 3], Some(&[96, 24, 4])).map(|l| l.row_stride),
            Ok(24)
        );
    }

    #[test]
    fn views_that_do_not_collapse_and_wrong_shapes_are_refused() {
        // A (2, 4, 3) array whose two blocks of rows are apart: not one axis.
        assert!(layout(&[2, 4, 3], Some(&[96, 24, 4])).is_ok_and(|l| l.rows == 8));
        assert!(layout(&[2, 4, 3], Some(&[200, 24, 4])).is_err());
        assert!(layout(&[4, 6], None).is_err());
        assert!(layout(&[], None).is_err());
        assert!(layout(&[4, 3], Some(&[12])).is_err());
    }
}
