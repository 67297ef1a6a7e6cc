//! The CUDA back end's `unsafe` code: the driver loaded at run time, kernel launches, pinned
//! host memory, and the host build of the kernel called through C. Everything else of the back
//! end is safe code in `mod.rs`.
#![allow(unsafe_code)]

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use rayon::prelude::*;

use super::{modules_for, Mode, Module};
use crate::error::{Error, Result};
use crate::kernel::profiling;
use crate::layout::GpuRay;
#[cfg(feature = "host-kernel")]
use crate::layout::{GpuNode, GpuTriangle};
use crate::rays::RaySource;

/// The kernel's rays per block (`kernel.cu`'s `WORKGROUP`, its launch bound).
pub(super) const BLOCK: u32 = 128;

/// Words of one ray as the kernel reads it (`GpuRay`, 32 bytes).
const RAY_WORDS: usize = size_of::<GpuRay>() / 4;

/// An NVIDIA GPU with the kernel loaded: its context, one stream, and the entry points.
pub(crate) struct Device {
    stream: Arc<CudaStream>,
    kernels: Kernels,
    name: String,
}

/// The kernel's entry points: the two traversals, and those of the rays that stay on the
/// device (`device_rays.cuh`).
#[derive(Clone)]
pub(super) struct Kernels {
    pub(super) closest: CudaFunction,
    pub(super) any: CudaFunction,
    pub(super) pack: CudaFunction,
    pub(super) lay_out_closest: CudaFunction,
    pub(super) lay_out_any: CudaFunction,
    pub(super) put_closest: CudaFunction,
    pub(super) put_any: CudaFunction,
}

pub(super) fn cuda_error(operation: &'static str) -> impl Fn(DriverError) -> Error {
    move |error| Error::Gpu {
        operation,
        message: format!("CUDA: {error}"),
    }
}

impl Device {
    /// Device 0 with the kernel loaded (the first of [`modules_for`]'s builds the driver
    /// takes), or why not (no driver, no device, no build the driver takes).
    pub(crate) fn open() -> std::result::Result<Self, String> {
        // SAFETY: only looks for the driver's library (libloading, no symbol called); without
        // it every other call into cudarc would panic, so it is asked first.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("no NVIDIA driver (libcuda) found".into());
        }
        let context = CudaContext::new(0).map_err(|error| error.to_string())?;
        let device = context.name().map_err(|error| error.to_string())?;
        let (major, minor) = context
            .compute_capability()
            .map_err(|error| error.to_string())?;
        let capability = (major.unsigned_abs(), minor.unsigned_abs());
        let mut refusals = Vec::new();
        for module in modules_for(capability).map_err(|error| error.to_string())? {
            let image = match &module {
                Module::Cubin(_, bytes) => Ptx::from_binary(bytes.to_vec()),
                Module::Ptx(text) => Ptx::from_src(text.as_str()),
            };
            let loaded = context.load_module(image).and_then(|module| {
                Ok(Kernels {
                    closest: module.load_function("meshcast_closest")?,
                    any: module.load_function("meshcast_any")?,
                    pack: module.load_function("meshcast_pack")?,
                    lay_out_closest: module.load_function("meshcast_lay_out_closest")?,
                    lay_out_any: module.load_function("meshcast_lay_out_any")?,
                    put_closest: module.load_function("meshcast_put_closest")?,
                    put_any: module.load_function("meshcast_put_any")?,
                })
            });
            match loaded {
                Ok(kernels) => {
                    return Ok(Self {
                        stream: context.default_stream(),
                        kernels,
                        name: format!("{device} ({})", module.describe()),
                    })
                }
                Err(error) => refusals.push(format!("{}: {error}", module.describe())),
            }
        }
        Err(if refusals.is_empty() {
            format!("{device} (compute capability {major}.{minor}): no build of the kernel for it")
        } else {
            format!("{device} refused the kernel: {}", refusals.join("; "))
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The node and triangle bytes copied to the device.
    pub(crate) fn upload(&self, nodes: &[u8], triangles: &[u8]) -> Result<DeviceMesh> {
        let upload = cuda_error("upload");
        // At least one word each, so that an empty mesh still has buffers to bind.
        let copy = |bytes: &[u8]| -> Result<CudaSlice<u8>> {
            let bytes = if bytes.is_empty() {
                &[0u8; 4][..]
            } else {
                bytes
            };
            self.stream.clone_htod(bytes).map_err(&upload)
        };
        Ok(DeviceMesh {
            stream: Arc::clone(&self.stream),
            kernels: self.kernels.clone(),
            nodes: copy(nodes)?,
            triangles: copy(triangles)?,
            buffers: Mutex::new(None),
            tables: OnceLock::new(),
        })
    }
}

/// A mesh on the device, with the buffers its rays and answers pass through.
pub(crate) struct DeviceMesh {
    pub(super) stream: Arc<CudaStream>,
    pub(super) kernels: Kernels,
    pub(super) nodes: CudaSlice<u8>,
    pub(super) triangles: CudaSlice<u8>,
    /// Made at the first query and remade larger when a call needs more.
    buffers: Mutex<Option<Buffers>>,
    /// The mesh's triangle of each GPU triangle and each triangle's unit normal, copied at
    /// the first query of rays on the device (`device_rays.rs`).
    pub(super) tables: OnceLock<(CudaSlice<u32>, CudaSlice<f32>)>,
}

/// Makes `context` current on the calling thread before memory of it is freed here: cudarc
/// frees device and pinned memory without binding the context, which on a thread that never
/// used it (a Python thread dropping the last reference to a mesh, say) fails with
/// `CUDA_ERROR_INVALID_CONTEXT`, leaks the memory and leaves that error pending in the
/// context for the next call, whatever it is. An error already pending stays pending.
pub(super) fn bind_before_freeing(context: &CudaContext) {
    let pending = context.check_err();
    context.record_err(context.bind_to_thread());
    context.record_err(pending);
}

impl Drop for DeviceMesh {
    fn drop(&mut self) {
        bind_before_freeing(self.stream.context());
    }
}

impl Drop for DeviceRays {
    fn drop(&mut self) {
        bind_before_freeing(self.rays.context());
    }
}

/// Rays kept on the device for timing the kernel alone, with room for their answers.
pub(crate) struct DeviceRays {
    count: usize,
    rays: CudaSlice<u32>,
    answers: Mutex<CudaSlice<u32>>,
}

/// Words of one ray's answer: a closest hit's slot, or an any-hit count.
fn answer_words(mode: Mode) -> usize {
    match mode {
        Mode::Closest => 4,
        Mode::Any => 1,
    }
}

/// Milliseconds from `start` to an `end` recorded now on `stream`, once it is reached.
fn elapsed_ms(
    stream: &CudaStream,
    start: &CudaEvent,
    end: &CudaEvent,
) -> std::result::Result<f32, DriverError> {
    end.record(stream)?;
    end.synchronize()?;
    start.elapsed_ms(end)
}

/// One chunk's rays and answers, on the host (pinned, so copies run at the bus's speed) and
/// on the device.
struct Buffers {
    rays: usize,
    host_rays: PinnedHostSlice<u32>,
    host_answers: PinnedHostSlice<u32>,
    device_rays: CudaSlice<u32>,
    /// Four words per ray: a closest hit's slot, or an any-hit count in the first quarter.
    device_answers: CudaSlice<u32>,
}

impl DeviceMesh {
    pub(crate) fn bytes(&self) -> u64 {
        (self.nodes.len() + self.triangles.len()) as u64
    }

    /// Traces the rays of `rays` for `mode`, `chunk` at a time, handing `take` each chunk's
    /// first ray and its hit slots (closest) or counts (any hit). The rays are written on
    /// every core straight into pinned memory, and the answers read from there.
    pub(crate) fn stream(
        &self,
        mode: Mode,
        rays: &dyn RaySource,
        chunk: usize,
        mut take: impl FnMut(usize, &[[u32; 4]], &[u32]),
    ) -> Result<()> {
        let count = rays.len();
        if count == 0 {
            return Ok(());
        }
        let chunk = chunk.min(count);
        let mut buffers = self.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        if buffers.as_ref().is_none_or(|b| b.rays < chunk) {
            *buffers = None;
            *buffers = Some(self.buffers_for(chunk)?);
        }
        let b = buffers.as_mut().expect("made above");
        for start in (0..count).step_by(chunk) {
            let n = chunk.min(count - start);
            self.trace_chunk(mode, b, n, |converted| {
                converted
                    .par_iter_mut()
                    .enumerate()
                    .with_min_len(4096)
                    .for_each(|(i, ray)| *ray = GpuRay::of(&rays.ray(start + i)));
            })?;
            let answers = &b.host_answers.as_slice().map_err(cuda_error("readback"))?;
            match mode {
                Mode::Closest => take(start, bytemuck::cast_slice(&answers[..4 * n]), &[]),
                Mode::Any => take(start, &[], &answers[..n]),
            }
        }
        Ok(())
    }

    /// Traces `n` rays, written into the pinned buffer by `fill`, leaving their answers in
    /// the pinned answer buffer.
    fn trace_chunk(
        &self,
        mode: Mode,
        b: &mut Buffers,
        n: usize,
        fill: impl FnOnce(&mut [GpuRay]),
    ) -> Result<()> {
        let dispatch = cuda_error("dispatch");
        let words = n * RAY_WORDS;
        let host_rays = &mut b.host_rays.as_mut_slice().map_err(&dispatch)?[..words];
        fill(bytemuck::cast_slice_mut(host_rays));
        let host_rays = &b.host_rays.as_slice().map_err(&dispatch)?[..words];
        self.stream
            .memcpy_htod(host_rays, &mut b.device_rays.slice_mut(..words))
            .map_err(&dispatch)?;
        let timing = profiling()
            .then(|| self.events())
            .transpose()
            .map_err(&dispatch)?;
        if let Some((start, _)) = &timing {
            start.record(&self.stream).map_err(&dispatch)?;
        }
        self.launch(mode, &b.device_rays, &mut b.device_answers, n)?;
        if let Some((start, end)) = &timing {
            let ms = elapsed_ms(&self.stream, start, end).map_err(&dispatch)?;
            eprintln!(
                "meshcast gpu: CUDA kernel, {n} rays: {ms:.3} ms ({:.1} Mrays/s)",
                n as f64 / f64::from(ms) / 1e3
            );
        }
        let readback = cuda_error("readback");
        let answer_words = answer_words(mode) * n;
        let host_answers = &mut b.host_answers.as_mut_slice().map_err(&readback)?[..answer_words];
        self.stream
            .memcpy_dtoh(&b.device_answers.slice(..answer_words), host_answers)
            .map_err(&readback)?;
        self.stream.synchronize().map_err(&readback)?;
        Ok(())
    }

    /// Launches the kernel of `mode` over the first `n` rays of `rays`, its answers into
    /// `answers`, on the stream (not waited for).
    fn launch(
        &self,
        mode: Mode,
        rays: &CudaSlice<u32>,
        answers: &mut CudaSlice<u32>,
        n: usize,
    ) -> Result<()> {
        assert!(rays.len() >= n * RAY_WORDS && answers.len() >= n * answer_words(mode));
        let count = u32::try_from(n).map_err(|_| Error::Gpu {
            operation: "dispatch",
            message: format!("{n} rays in one launch"),
        })?;
        let function = match mode {
            Mode::Closest => &self.kernels.closest,
            Mode::Any => &self.kernels.any,
        };
        let mut launch = self.stream.launch_builder(function);
        launch
            .arg(&self.nodes)
            .arg(&self.triangles)
            .arg(rays)
            .arg(answers)
            .arg(&count);
        let config = LaunchConfig {
            grid_dim: (count.div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the arguments are the kernel's (`kernel.cu`'s `meshcast_closest` and
        // `meshcast_any`: nodes, triangles, rays, answers, count), in order and of its types
        // (device pointers and a `u32`). Every index the kernel takes stays in its buffer: rays
        // and answers below `count`, which both buffers hold (asserted above: eight words per
        // ray, four or one answer words); nodes and triangles as the layout's bounds check
        // proves for the WGSL kernel, whose indices are the same (`unchecked.rs`), on the same
        // bytes (`layout::of`).
        unsafe { launch.launch(config) }.map_err(cuda_error("dispatch"))?;
        Ok(())
    }

    /// Two events to time the stream's work between.
    fn events(&self) -> std::result::Result<(CudaEvent, CudaEvent), DriverError> {
        let context = self.stream.context();
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        Ok((context.new_event(flags)?, context.new_event(flags)?))
    }

    /// `rays` copied to the device to stay there, with room for their answers.
    pub(crate) fn resident(&self, rays: &[GpuRay]) -> Result<DeviceRays> {
        let upload = cuda_error("upload");
        let words: &[u32] = bytemuck::cast_slice(rays);
        // At least one ray's room, so that no buffer is empty.
        let mut device_rays = self
            .stream
            .alloc_zeros::<u32>(words.len().max(RAY_WORDS))
            .map_err(&upload)?;
        self.stream
            .memcpy_htod(words, &mut device_rays.slice_mut(..words.len()))
            .map_err(&upload)?;
        let answers = self
            .stream
            .alloc_zeros::<u32>(4 * rays.len().max(1))
            .map_err(&upload)?;
        Ok(DeviceRays {
            count: rays.len(),
            rays: device_rays,
            answers: Mutex::new(answers),
        })
    }

    /// The fastest of `repeats` launches of `mode` over resident rays, timed by CUDA events
    /// around the kernel alone (nothing copied).
    pub(crate) fn time(&self, rays: &DeviceRays, mode: Mode, repeats: usize) -> Result<Duration> {
        let dispatch = cuda_error("dispatch");
        let mut answers = rays.answers.lock().unwrap_or_else(PoisonError::into_inner);
        let (start, end) = self.events().map_err(&dispatch)?;
        let mut best = f32::INFINITY;
        for _ in 0..repeats.max(1) {
            start.record(&self.stream).map_err(&dispatch)?;
            self.launch(mode, &rays.rays, &mut answers, rays.count)?;
            best = best.min(elapsed_ms(&self.stream, &start, &end).map_err(&dispatch)?);
        }
        Ok(Duration::from_secs_f64(f64::from(best) / 1e3))
    }

    fn buffers_for(&self, rays: usize) -> Result<Buffers> {
        let upload = cuda_error("upload");
        let context = self.stream.context();
        // SAFETY: pinned host memory of `u32`s, any bits a valid `u32`; every word is written
        // (a chunk's rays, or the device's answers) before it is read.
        let (host_rays, host_answers) = unsafe {
            (
                context.alloc_pinned::<u32>(rays * RAY_WORDS),
                context.alloc_pinned::<u32>(rays * 4),
            )
        };
        // SAFETY: device memory the kernel writes before the host copies it back, for the
        // rays the launch covers; the rays are copied in before every launch.
        let (device_rays, device_answers) = unsafe {
            (
                self.stream.alloc::<u32>(rays * RAY_WORDS),
                self.stream.alloc::<u32>(rays * 4),
            )
        };
        Ok(Buffers {
            rays,
            host_rays: host_rays.map_err(&upload)?,
            host_answers: host_answers.map_err(&upload)?,
            device_rays: device_rays.map_err(&upload)?,
            device_answers: device_answers.map_err(&upload)?,
        })
    }
}

#[cfg(feature = "host-kernel")]
mod host {
    use super::{GpuNode, GpuRay, GpuTriangle};

    // `kernel.cu`'s host entry points (`host_kernel.cpp`, built by `build.rs`).
    unsafe extern "C" {
        fn meshcast_closest_host(
            nodes: *const GpuNode,
            triangles: *const f32,
            rays: *const GpuRay,
            hits: *mut [u32; 4],
            first: u32,
            end: u32,
        );
        fn meshcast_any_host(
            nodes: *const GpuNode,
            triangles: *const f32,
            rays: *const GpuRay,
            counts: *mut u32,
            first: u32,
            end: u32,
        );
    }

    /// The closest-hit kernel over `rays`, run on the host into `hits`.
    pub(crate) fn closest_on_host(
        nodes: &[GpuNode],
        triangles: &[GpuTriangle],
        rays: &[GpuRay],
        hits: &mut [[u32; 4]],
    ) {
        assert_eq!(rays.len(), hits.len());
        let end = u32::try_from(rays.len()).expect("a chunk of rays");
        // SAFETY: the kernel reads rays and writes hits `0..end`, both that long (above), as
        // the `Buffers` of `kernel.cu` it builds from these pointers; nodes and triangles are
        // a layout's whole buffers (`layout::of`, bounds checked), `#[repr(C)]` as the kernel
        // declares them (`Node` 80 bytes, triangles nine floats).
        unsafe {
            meshcast_closest_host(
                nodes.as_ptr(),
                triangles.as_ptr().cast(),
                rays.as_ptr(),
                hits.as_mut_ptr(),
                0,
                end,
            );
        }
    }

    /// The any-hit kernel over `rays`, run on the host into `counts`.
    pub(crate) fn any_on_host(
        nodes: &[GpuNode],
        triangles: &[GpuTriangle],
        rays: &[GpuRay],
        counts: &mut [u32],
    ) {
        assert_eq!(rays.len(), counts.len());
        let end = u32::try_from(rays.len()).expect("a chunk of rays");
        // SAFETY: as in `closest_on_host`, with one count per ray.
        unsafe {
            meshcast_any_host(
                nodes.as_ptr(),
                triangles.as_ptr().cast(),
                rays.as_ptr(),
                counts.as_mut_ptr(),
                0,
                end,
            );
        }
    }
}

#[cfg(feature = "host-kernel")]
pub(crate) use host::{any_on_host, closest_on_host};
