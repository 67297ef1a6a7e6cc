//! Answers that stay on the device: `meshcast.DeviceArray`, memory meshcast allocated on the
//! CUDA device (freed when the last holder lets go: the object, or a tensor a framework made
//! from it), handed out without a copy through `__cuda_array_interface__` (version 3) and
//! DLPack (`__dlpack__`, `__dlpack_device__`), and as the caller's framework's arrays
//! (`torch.from_dlpack`, `cupy.from_dlpack`, `warp.from_dlpack`).
//!
//! The module's `unsafe` code is the DLPack capsule: a `DLManagedTensor` (DLPack's C
//! struct) made here and freed by its deleter, which the consumer calls once it owns the
//! tensor, or the capsule's destructor where no consumer took it.
#![allow(unsafe_code)]

use std::ffi::{c_void, CStr};
use std::sync::Arc;

use meshcast::gpu::DeviceBuffer;
use pyo3::exceptions::{PyAttributeError, PyBufferError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::{ffi, IntoPyObjectExt};

use crate::device_arrays::Framework;

/// The memory a `DeviceArray` views: meshcast's on the device, or bytes on the host (for
/// testing the exports without a GPU, `_host_array`).
#[derive(Clone)]
enum Memory {
    Device(Arc<DeviceBuffer>),
    Host(Arc<Vec<u64>>),
}

impl Memory {
    fn address(&self) -> u64 {
        match self {
            Self::Device(buffer) => buffer.address(),
            Self::Host(words) => words.as_ptr() as u64,
        }
    }

    /// DLPack's device: `(kDLCUDA, ordinal)` or `(kDLCPU, 0)`.
    fn dlpack_device(&self) -> (i32, i32) {
        match self {
            Self::Device(buffer) => match buffer.device() {
                Some(ordinal) => (CUDA, ordinal as i32),
                None => (CPU, 0),
            },
            Self::Host(_) => (CPU, 0),
        }
    }
}

/// DLPack's device types.
const CPU: i32 = 1;
const CUDA: i32 = 2;

/// An answer array's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F32,
    U32,
    Bool,
}

impl Dtype {
    /// numpy's name.
    fn name(self) -> &'static str {
        match self {
            Self::F32 => "float32",
            Self::U32 => "uint32",
            Self::Bool => "bool",
        }
    }

    /// `__cuda_array_interface__`'s typestr.
    fn typestr(self) -> &'static str {
        match self {
            Self::F32 => "<f4",
            Self::U32 => "<u4",
            Self::Bool => "|b1",
        }
    }

    /// DLPack's `(code, bits)`: kDLFloat 2, kDLUInt 1, kDLBool 6.
    fn dlpack(self) -> (u8, u8) {
        match self {
            Self::F32 => (2, 32),
            Self::U32 => (1, 32),
            Self::Bool => (6, 8),
        }
    }

    fn bytes(self) -> usize {
        match self {
            Self::F32 | Self::U32 => 4,
            Self::Bool => 1,
        }
    }
}

/// An array on a CUDA device that meshcast allocated and answered in (``cast_rays`` and
/// ``test_occlusions`` of rays on the device), C-contiguous, freed when the last holder lets
/// go: this object, or an array a framework made from it. Read it where it is through
/// ``__cuda_array_interface__`` (version 3; the answers are complete when the call returns,
/// so no stream is named) or DLPack (``torch.from_dlpack``, ``cupy.from_dlpack``,
/// ``warp.from_dlpack``), with no copy; ``numpy()`` copies it to the host.
#[pyclass(frozen, module = "meshcast")]
pub struct DeviceArray {
    memory: Memory,
    shape: Vec<usize>,
    dtype: Dtype,
}

impl DeviceArray {
    /// `buffer` viewed as an array of `shape` and `dtype`.
    pub fn new(buffer: DeviceBuffer, shape: Vec<usize>, dtype: Dtype) -> Self {
        debug_assert_eq!(
            buffer.bytes(),
            shape.iter().product::<usize>() * dtype.bytes()
        );
        Self {
            memory: Memory::Device(Arc::new(buffer)),
            shape,
            dtype,
        }
    }

    fn nbytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.bytes()
    }

    /// Strides in elements, C order.
    fn strides(&self) -> Vec<i64> {
        let mut strides = vec![0i64; self.shape.len()];
        let mut step = 1i64;
        for (stride, &len) in strides.iter_mut().zip(&self.shape).rev() {
            *stride = step;
            step *= len as i64;
        }
        strides
    }

    /// The array as `framework`'s (zero copy, through DLPack), or itself for another
    /// producer's rays.
    ///
    /// # Errors
    /// The framework's, if it refuses it.
    pub fn into_framework(self, py: Python<'_>, framework: Framework) -> PyResult<Py<PyAny>> {
        let module = match framework {
            Framework::Torch => "torch",
            Framework::Cupy => "cupy",
            Framework::Warp => "warp",
            Framework::Other => return self.into_py_any(py),
        };
        let array = Bound::new(py, self)?;
        Ok(py
            .import(module)?
            .call_method1("from_dlpack", (array,))?
            .unbind())
    }
}

#[pymethods]
impl DeviceArray {
    /// The shape, a tuple.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        pyo3::types::PyTuple::new(py, &self.shape)
    }

    /// The element type's numpy name: ``"float32"``, ``"uint32"`` or ``"bool"``.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }

    /// ``"cuda:N"``, or ``"cpu"`` for host memory.
    #[getter]
    fn device(&self) -> String {
        match self.memory.dlpack_device() {
            (CUDA, ordinal) => format!("cuda:{ordinal}"),
            _ => "cpu".to_owned(),
        }
    }

    /// The address of its first element.
    #[getter]
    fn ptr(&self) -> u64 {
        self.memory.address()
    }

    /// Its size in bytes.
    #[getter(nbytes)]
    fn nbytes_py(&self) -> usize {
        self.nbytes()
    }

    fn __len__(&self) -> usize {
        self.shape.first().copied().unwrap_or(1)
    }

    /// A copy on the host, as a numpy array.
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let bytes = match &self.memory {
            Memory::Device(buffer) => py
                .detach(|| buffer.to_host())
                .map_err(crate::error::to_py)?,
            Memory::Host(words) => {
                let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
                bytes.truncate(self.nbytes());
                bytes
            }
        };
        let numpy = py.import("numpy")?;
        let flat = numpy.call_method1(
            "frombuffer",
            (pyo3::types::PyBytes::new(py, &bytes), self.dtype.name()),
        )?;
        flat.call_method1("reshape", (self.shape.clone(),))?
            .call_method0("copy")
    }

    /// ``__cuda_array_interface__``, version 3 (only for memory on a CUDA device).
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if self.memory.dlpack_device().0 != CUDA {
            return Err(PyAttributeError::new_err(
                "__cuda_array_interface__: this array is in host memory",
            ));
        }
        let interface = PyDict::new(py);
        interface.set_item("shape", pyo3::types::PyTuple::new(py, &self.shape)?)?;
        interface.set_item("typestr", self.dtype.typestr())?;
        interface.set_item("descr", vec![("", self.dtype.typestr())])?;
        interface.set_item("data", (self.memory.address(), false))?;
        interface.set_item("strides", py.None())?;
        interface.set_item("version", 3)?;
        // Complete when the call that made it returned: nothing to wait for.
        interface.set_item("stream", py.None())?;
        Ok(interface)
    }

    /// DLPack's device: ``(2, ordinal)`` on a CUDA device (kDLCUDA), ``(1, 0)`` on the host.
    fn __dlpack_device__(&self) -> (i32, i32) {
        self.memory.dlpack_device()
    }

    /// A DLPack capsule viewing the array (no copy). ``stream`` needs no wait (the array is
    /// complete); ``copy=True`` and another ``dl_device`` are refused with ``BufferError``.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<Bound<'py, PyAny>>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // The unversioned capsule, which every consumer reads (the standard lets a producer
        // answer a `max_version` with it).
        let _ = (stream, max_version);
        if copy == Some(true) {
            return Err(PyBufferError::new_err(
                "meshcast.DeviceArray is exported without a copy only (copy=True asked)",
            ));
        }
        if let Some(device) = dl_device {
            if device != self.memory.dlpack_device() {
                return Err(PyBufferError::new_err(format!(
                    "meshcast.DeviceArray is on DLPack device {:?}, not {device:?}",
                    self.memory.dlpack_device()
                )));
            }
        }
        capsule(py, self)
    }

    fn __repr__(&self) -> String {
        format!(
            "meshcast.DeviceArray(shape={:?}, dtype={}, device={})",
            self.shape,
            self.dtype.name(),
            self.device()
        )
    }
}

/// A `DeviceArray` over a copy of `array` (a numpy array of float32, uint32 or bool) in host
/// memory: for testing the exports (DLPack, the interface) without a GPU.
#[pyfunction]
pub fn _host_array(array: &Bound<'_, PyAny>) -> PyResult<DeviceArray> {
    let py = array.py();
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("ascontiguousarray", (array,))?;
    let dtype = match array
        .getattr("dtype")?
        .getattr("name")?
        .extract::<String>()?
        .as_str()
    {
        "float32" => Dtype::F32,
        "uint32" => Dtype::U32,
        "bool" => Dtype::Bool,
        other => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "float32, uint32 or bool, not {other}"
            )))
        }
    };
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let bytes: Vec<u8> = array.call_method0("tobytes")?.extract()?;
    // Words, so that the elements are aligned as they would be on the device.
    let mut words: Vec<u64> = bytes
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_ne_bytes(word)
        })
        .collect();
    words.push(0);
    Ok(DeviceArray {
        memory: Memory::Host(Arc::new(words)),
        shape,
        dtype,
    })
}

// DLPack's C structs (dlpack.h, version 0.8: the unversioned `DLManagedTensor`).
#[repr(C)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// What a capsule's tensor keeps alive: the memory, and the shape and strides it points to.
struct Keep {
    _memory: Memory,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

const DLTENSOR: &CStr = c"dltensor";

/// Frees a tensor made by [`capsule`] (its `Keep` and itself): DLPack's deleter, called by
/// the consumer that owns it, from any thread, with or without the GIL (nothing here is
/// Python's).
unsafe extern "C" fn delete(tensor: *mut DLManagedTensor) {
    if tensor.is_null() {
        return;
    }
    // SAFETY: `tensor` is a box `capsule` leaked, whose `manager_ctx` is a leaked box of
    // `Keep`; DLPack calls the deleter once, so each is freed once.
    unsafe {
        let tensor = Box::from_raw(tensor);
        drop(Box::from_raw(tensor.manager_ctx.cast::<Keep>()));
    }
}

/// The capsule's destructor: frees the tensor if no consumer took it (a consumer renames the
/// capsule `used_dltensor` and calls the deleter itself).
unsafe extern "C" fn destroy(capsule: *mut ffi::PyObject) {
    // SAFETY: `capsule` is the capsule being destroyed, with the GIL held; its pointer, if it
    // is still named `dltensor`, is the tensor `capsule` made, not yet given to a consumer.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, DLTENSOR.as_ptr()) == 1 {
            let tensor = ffi::PyCapsule_GetPointer(capsule, DLTENSOR.as_ptr());
            delete(tensor.cast());
        }
    }
}

/// A `dltensor` capsule viewing `array`, keeping its memory alive until the tensor is freed.
fn capsule<'py>(py: Python<'py>, array: &DeviceArray) -> PyResult<Bound<'py, PyAny>> {
    let (device_type, device_id) = array.memory.dlpack_device();
    let (code, bits) = array.dtype.dlpack();
    let mut keep = Box::new(Keep {
        _memory: array.memory.clone(),
        shape: array.shape.iter().map(|&len| len as i64).collect(),
        strides: array.strides(),
    });
    let tensor = Box::new(DLManagedTensor {
        dl_tensor: DLTensor {
            data: array.memory.address() as usize as *mut c_void,
            device: DLDevice {
                device_type,
                device_id,
            },
            ndim: array.shape.len() as i32,
            dtype: DLDataType {
                code,
                bits,
                lanes: 1,
            },
            shape: keep.shape.as_mut_ptr(),
            strides: keep.strides.as_mut_ptr(),
            byte_offset: 0,
        },
        manager_ctx: Box::into_raw(keep).cast(),
        deleter: Some(delete),
    });
    let tensor = Box::into_raw(tensor);
    // SAFETY: a capsule named `dltensor` (a static name) holding the tensor, with `destroy`
    // as its destructor; on failure the tensor is freed here, as no capsule holds it.
    unsafe {
        let capsule = ffi::PyCapsule_New(tensor.cast(), DLTENSOR.as_ptr(), Some(destroy));
        if capsule.is_null() {
            delete(tensor);
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, capsule))
    }
}
