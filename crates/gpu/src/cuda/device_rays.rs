//! Rays that stay on the device: the caller's `float32` arrays where the CUDA back end reads
//! them ([`DeviceRows`], [`DeviceRays`]), answers in memory meshcast owns there
//! ([`DeviceBuffer`], [`DeviceCast`]), and the launches of `device_rays.cuh`'s kernels over
//! them, on the device or, in the tests, on the host. The back end's second `unsafe` module:
//! every address a kernel takes is a [`DeviceRows`]'s, which its maker vouches for, or a
//! [`DeviceBuffer`]'s, at least as large as the launch covers.
#![allow(unsafe_code)]

use cudarc::driver::{sys, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};

use super::driver::{bind_before_freeing, cuda_error, DeviceMesh, BLOCK};
use super::{CudaMesh, Mode};
use crate::error::{Error, Result};
use crate::layout::GpuRay;

/// Words of one ray as the kernel reads it (`GpuRay`, 32 bytes).
const RAY_WORDS: usize = size_of::<GpuRay>() / 4;

/// A `float32` array of shape `(rows, 3)` where the CUDA back end reads it: element `(i, k)`
/// at byte `address + i * row_stride + k * column_stride`, strides in bytes as
/// `__cuda_array_interface__` and DLPack give them (of any sign; 0 repeats a row).
#[derive(Clone, Copy, Debug)]
pub struct DeviceRows {
    address: u64,
    rows: usize,
    row_stride: i64,
    column_stride: i64,
}

impl DeviceRows {
    /// The array of `rows` rows at `address` with these strides (in bytes).
    ///
    /// # Safety
    /// Until every query given these rows has returned, each element `(i, k)`, `i < rows`,
    /// `k < 3`, is four bytes that the back end answering the query can read as an `f32` and
    /// that nothing writes meanwhile: memory of the mesh's CUDA device (device or managed
    /// memory of its primary context, as torch, CuPy and Warp allocate), or host memory where
    /// the kernel runs on the host ([`Backend::CudaHost`](crate::Backend::CudaHost)). A query
    /// checks that the first element's address is memory of that device, but no more.
    ///
    /// # Errors
    /// [`Error::DeviceRays`] if the address or a stride is not a multiple of 4 (a float's
    /// alignment).
    pub unsafe fn new(
        address: u64,
        rows: usize,
        row_stride: i64,
        column_stride: i64,
    ) -> Result<Self> {
        if !address.is_multiple_of(4) || row_stride % 4 != 0 || column_stride % 4 != 0 {
            return Err(Error::DeviceRays {
                reason: format!(
                    "float32 rows at {address:#x} with strides of ({row_stride}, \
                     {column_stride}) bytes are not aligned to 4 bytes"
                ),
            });
        }
        Ok(Self {
            address,
            rows,
            row_stride,
            column_stride,
        })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The address of row `first`.
    fn row(&self, first: usize) -> u64 {
        let offset = (first as i64).wrapping_mul(self.row_stride);
        self.address.wrapping_add_signed(offset)
    }
}

/// Rays on the device: origins and directions ([`DeviceRows`]), each ray accepting `t` in a
/// closed range, and the stream the caller made them on, if the query must wait for it.
#[derive(Clone, Copy, Debug)]
pub struct DeviceRays {
    origins: DeviceRows,
    directions: DeviceRows,
    count: usize,
    range: (f32, f32),
    stream: Option<u64>,
}

impl DeviceRays {
    /// Ray `i` from `origins` row `i` along `directions` row `i`, accepting `t` in
    /// `t_min..=t_max` (as [`Ray::with_range`](meshcast_primitives::Ray::with_range)); either
    /// array may be one row, shared by every ray.
    ///
    /// # Errors
    /// [`Error::DeviceRays`] if the two have different numbers of rows, neither of them one.
    pub fn new(origins: DeviceRows, directions: DeviceRows, range: (f32, f32)) -> Result<Self> {
        let count = match (origins.rows, directions.rows) {
            (o, d) if o == d => o,
            (1, d) => d,
            (o, 1) => o,
            (o, d) => {
                return Err(Error::DeviceRays {
                    reason: format!("{o} origins and {d} directions"),
                })
            }
        };
        // One row for every ray: read it again for each.
        let shared = |rows: DeviceRows| DeviceRows {
            row_stride: if rows.rows == 1 { 0 } else { rows.row_stride },
            ..rows
        };
        Ok(Self {
            origins: shared(origins),
            directions: shared(directions),
            count,
            range,
            stream: None,
        })
    }

    /// The same rays, which a query reads only once the work queued so far on `stream` is
    /// done (`__cuda_array_interface__`'s `stream`; the query's own work waits for it on the
    /// device, the host does not).
    ///
    /// # Safety
    /// `stream` is a CUDA stream of the mesh's device's primary context, or 1 or 2 (the
    /// legacy and the per-thread default stream), valid until the queries given these rays
    /// have returned.
    pub unsafe fn after_stream(self, stream: u64) -> Self {
        Self {
            stream: Some(stream),
            ..self
        }
    }

    /// The number of rays.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Memory meshcast allocated where the CUDA back end answers, freed when dropped: an
/// answer array of rays on the device ([`GpuMesh::cast_device`](crate::GpuMesh::cast_device)).
pub struct DeviceBuffer {
    memory: Memory,
    bytes: usize,
}

enum Memory {
    /// Device memory, and its address there.
    Device(CudaSlice<u8>, u64),
    /// Host memory, where the kernel runs on the host.
    #[cfg(feature = "host-kernel")]
    Host(Vec<u32>),
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("address", &format_args!("{:#x}", self.address()))
            .field("bytes", &self.bytes)
            .field("device", &self.device())
            .finish()
    }
}

impl DeviceBuffer {
    /// Where it starts: a CUDA device pointer ([`DeviceBuffer::device`]), or a host address.
    pub fn address(&self) -> u64 {
        match &self.memory {
            Memory::Device(_, address) => *address,
            #[cfg(feature = "host-kernel")]
            Memory::Host(words) => words.as_ptr() as u64,
        }
    }

    /// Its size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The ordinal of the CUDA device it is on; `None` for host memory (the kernel's host
    /// build).
    pub fn device(&self) -> Option<usize> {
        match &self.memory {
            Memory::Device(slice, _) => Some(slice.ordinal()),
            #[cfg(feature = "host-kernel")]
            Memory::Host(_) => None,
        }
    }

    /// Its bytes, copied to the host.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the copy fails.
    pub fn to_host(&self) -> Result<Vec<u8>> {
        let words = self.words(0, self.bytes.div_ceil(4))?;
        let mut bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
        bytes.truncate(self.bytes);
        Ok(bytes)
    }

    /// Words `first..first + n`, copied to the host.
    fn words(&self, first: usize, n: usize) -> Result<Vec<u32>> {
        match &self.memory {
            Memory::Device(slice, _) => {
                let stream = slice.stream();
                let mut words = vec![0u32; n];
                // SAFETY: `u8` device memory read as `u32` words: any bits are a `u32`, the
                // allocation is a whole number of words (`alloc`), and `first + n` is within it
                // (the slice below panics otherwise).
                let view = unsafe { slice.transmute::<u32>(slice.len() / 4) }
                    .expect("a whole number of words");
                let readback = cuda_error("readback");
                stream
                    .memcpy_dtoh(&view.slice(first..first + n), &mut words)
                    .map_err(&readback)?;
                stream.synchronize().map_err(&readback)?;
                Ok(words)
            }
            #[cfg(feature = "host-kernel")]
            Memory::Host(words) => Ok(words[first..first + n].to_vec()),
        }
    }

    /// The device memory, where the kernel runs on the device.
    fn device_slice(&mut self) -> &mut CudaSlice<u8> {
        match &mut self.memory {
            Memory::Device(slice, _) => slice,
            #[cfg(feature = "host-kernel")]
            Memory::Host(_) => unreachable!("a device's buffers are on the device"),
        }
    }

    /// The host memory's words, where the kernel runs on the host.
    #[cfg(feature = "host-kernel")]
    fn host(&mut self) -> &mut [u32] {
        match &mut self.memory {
            Memory::Host(words) => words,
            Memory::Device(..) => unreachable!("the host build's buffers are on the host"),
        }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        match &self.memory {
            // Other streams (the caller's framework's) may still read it: wait for every
            // stream of the context before it is freed on this one.
            Memory::Device(slice, _) => {
                bind_before_freeing(slice.context());
                let _ = slice.context().synchronize();
            }
            #[cfg(feature = "host-kernel")]
            Memory::Host(_) => {}
        }
    }
}

/// The closest hits of rays on the device, laid out as Open3D's `cast_rays` lays them out,
/// one row per ray: `t_hit` (`f32`, infinite on a miss), `geometry_ids` (`u32`: 0 on a hit,
/// `u32::MAX` on a miss), `primitive_ids` (`u32`: the mesh's triangle, `u32::MAX` on a
/// miss), `primitive_uvs` (two `f32`: `u`, `v`; 0 on a miss) and `primitive_normals` (three
/// `f32`: the triangle's unit normal, as `Triangle::normal` normalised or zero; 0 on a
/// miss).
#[derive(Debug)]
pub struct DeviceCast {
    /// `f32` per ray.
    pub t_hit: DeviceBuffer,
    /// `u32` per ray.
    pub geometry_ids: DeviceBuffer,
    /// `u32` per ray.
    pub primitive_ids: DeviceBuffer,
    /// Two `f32` per ray.
    pub primitive_uvs: DeviceBuffer,
    /// Three `f32` per ray.
    pub primitive_normals: DeviceBuffer,
}

/// Where a query of rays on the device lays its answers out.
pub(crate) enum DeviceAnswers {
    /// Boxed: five buffers against one.
    Closest(Box<DeviceCast>),
    /// A byte per ray, 1 where it hits anything.
    Any(DeviceBuffer),
}

/// How a chunk's answer slots are made: by the kernel, or all the same word (every ray a miss
/// on an empty mesh, or open on a mesh the kernel cannot trace).
#[derive(Clone, Copy)]
pub(crate) enum Trace {
    Kernel,
    Fill(u32),
}

/// A query's buffers on the back end's side, for one chunk of rays at a time.
pub(crate) struct Scratch {
    rays: DeviceBuffer,
    answers: DeviceBuffer,
    /// The first ray that is not finite, then how many are open.
    flags: DeviceBuffer,
    open_index: DeviceBuffer,
    open_rays: DeviceBuffer,
}

/// The rays a chunk left open: their indices among the query's rays, and the rays.
pub(crate) type OpenRays = (Vec<u32>, Vec<GpuRay>);

/// The mesh's triangle of each GPU triangle, and each mesh triangle's unit normal.
pub(crate) type Tables<'a> = (&'a [u32], &'a [[f32; 3]]);

fn launch_config(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(BLOCK).max(1), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// At most this many rays in one chunk, so that a chunk's counts fit the kernels' `u32`s.
const MAX_CHUNK: usize = 1 << 30;

impl CudaMesh {
    /// `bytes` of memory where the kernel runs (at least one word, rounded up to words).
    fn alloc(&self, bytes: usize) -> Result<DeviceBuffer> {
        let words = bytes.div_ceil(4).max(1);
        let memory = match self {
            Self::Device(mesh) => {
                // SAFETY: device memory the kernels write before anything reads it: each
                // answer array is laid out whole by `chunk` (every ray of every chunk), each
                // scratch buffer's words are written before they are read back.
                let slice =
                    unsafe { mesh.stream.alloc::<u8>(4 * words) }.map_err(cuda_error("upload"))?;
                let address = slice.device_ptr(&mesh.stream).0;
                Memory::Device(slice, address)
            }
            #[cfg(feature = "host-kernel")]
            Self::Host { .. } => Memory::Host(vec![0; words]),
        };
        Ok(DeviceBuffer { memory, bytes })
    }

    /// `bytes` copied to where the kernel runs.
    pub(crate) fn copy_of(&self, bytes: &[u8]) -> Result<DeviceBuffer> {
        let mut buffer = self.alloc(bytes.len())?;
        let mut words = vec![0u32; bytes.len().div_ceil(4).max(1)];
        bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        match self {
            Self::Device(mesh) => {
                // SAFETY: `u8` device memory written as the `u32` words it was made of
                // (`alloc`: as many as `words`).
                let mut view = unsafe { buffer.device_slice().transmute_mut::<u32>(words.len()) }
                    .expect("whole words");
                let upload = cuda_error("upload");
                mesh.stream
                    .memcpy_htod(&words, &mut view)
                    .map_err(&upload)?;
                mesh.stream.synchronize().map_err(&upload)?;
            }
            #[cfg(feature = "host-kernel")]
            Self::Host { .. } => buffer.host().copy_from_slice(&words),
        }
        Ok(buffer)
    }

    /// The answer arrays of `count` rays' query of `mode`.
    pub(crate) fn device_answers(&self, mode: Mode, count: usize) -> Result<DeviceAnswers> {
        Ok(match mode {
            Mode::Closest => DeviceAnswers::Closest(Box::new(DeviceCast {
                t_hit: self.alloc(4 * count)?,
                geometry_ids: self.alloc(4 * count)?,
                primitive_ids: self.alloc(4 * count)?,
                primitive_uvs: self.alloc(8 * count)?,
                primitive_normals: self.alloc(12 * count)?,
            })),
            Mode::Any => DeviceAnswers::Any(self.alloc(count)?),
        })
    }

    /// Buffers for chunks of up to `chunk` rays.
    pub(crate) fn scratch(&self, chunk: usize) -> Result<Scratch> {
        Ok(Scratch {
            rays: self.alloc(chunk * size_of::<GpuRay>())?,
            answers: self.alloc(chunk * 16)?,
            flags: self.alloc(8)?,
            open_index: self.alloc(chunk * 4)?,
            open_rays: self.alloc(chunk * size_of::<GpuRay>())?,
        })
    }

    /// The most rays a chunk may hold.
    pub(crate) fn chunk_limit() -> usize {
        MAX_CHUNK
    }

    /// Checks that `rays` are in memory of the mesh's device, and makes the query's work on
    /// the device wait for the work queued on their stream.
    ///
    /// # Errors
    /// [`Error::DeviceRays`] if an array is not memory the driver knows, or is on another
    /// device; [`Error::Gpu`] if the driver fails.
    pub(crate) fn wait_for(&self, rays: &DeviceRays) -> Result<()> {
        let mesh = match self {
            Self::Device(mesh) => mesh,
            #[cfg(feature = "host-kernel")]
            Self::Host { .. } => return Ok(()),
        };
        let context = mesh.stream.context();
        context.bind_to_thread().map_err(cuda_error("dispatch"))?;
        for (what, rows) in [("origins", rays.origins), ("directions", rays.directions)] {
            if rows.rows == 0 {
                continue;
            }
            let mut ordinal: i32 = -1;
            // SAFETY: asks the driver about an address, writing one `int` (the attribute's
            // type) into `ordinal`; any address may be asked about.
            unsafe {
                sys::cuPointerGetAttribute(
                    (&raw mut ordinal).cast(),
                    sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                    rows.address,
                )
            }
            .result()
            .map_err(|error| Error::DeviceRays {
                reason: format!(
                    "the {what} at {:#x} are not memory the CUDA driver knows ({error}): \
                     host memory?",
                    rows.address
                ),
            })?;
            if usize::try_from(ordinal).ok() != Some(context.ordinal()) {
                return Err(Error::DeviceRays {
                    reason: format!(
                        "the {what} are on CUDA device {ordinal}, the mesh on device {}",
                        context.ordinal()
                    ),
                });
            }
        }
        if let Some(stream) = rays.stream {
            let dispatch = cuda_error("dispatch");
            let event = context.new_event(None).map_err(&dispatch)?;
            // SAFETY: `stream` is a stream of this context or a default stream
            // (`DeviceRays::after_stream`'s promise); the event is this context's.
            unsafe { sys::cuEventRecord(event.cu_event(), stream as usize as sys::CUstream) }
                .result()
                .map_err(&dispatch)?;
            mesh.stream.wait(&event).map_err(&dispatch)?;
        }
        Ok(())
    }

    /// Rays `first..first + n` of `rays` packed, traced for `mode` (or their slots filled),
    /// and laid out in `answers`, the open ones listed and returned.
    ///
    /// # Errors
    /// [`Error::NotFinite`] naming the first ray of the chunk with a number that is not
    /// finite; [`Error::Gpu`] if the device fails.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chunk(
        &self,
        mode: Mode,
        rays: &DeviceRays,
        (first, n): (usize, usize),
        trace: Trace,
        tables: Tables<'_>,
        answers: &mut DeviceAnswers,
        scratch: &mut Scratch,
    ) -> Result<OpenRays> {
        assert!(first + n <= rays.count && n <= MAX_CHUNK);
        assert!(scratch.rays.bytes >= n * size_of::<GpuRay>());
        let (not_finite, open) = match self {
            Self::Device(mesh) => {
                mesh.device_chunk(mode, rays, (first, n), trace, tables, answers, scratch)?
            }
            #[cfg(feature = "host-kernel")]
            Self::Host { nodes, triangles } => host::chunk(
                (nodes, triangles),
                mode,
                rays,
                (first, n),
                trace,
                tables,
                answers,
                scratch,
            ),
        };
        if (not_finite as usize) < n {
            return Err(Error::NotFinite {
                ray: first + not_finite as usize,
            });
        }
        let open_index = scratch.open_index.words(0, open)?;
        let open_rays = scratch.open_rays.words(0, open * RAY_WORDS)?;
        Ok((open_index, bytemuck::cast_slice(&open_rays).to_vec()))
    }

    /// Puts the host's answers in place: for closest hits five words each (the ray, `t`,
    /// `u`, `v`, the mesh's triangle or `u32::MAX`), for any hit two (the ray, 0 or 1).
    ///
    /// # Errors
    /// [`Error::Gpu`] if the device fails.
    pub(crate) fn put(
        &self,
        words: &[u32],
        tables: Tables<'_>,
        answers: &mut DeviceAnswers,
    ) -> Result<()> {
        let per = match answers {
            DeviceAnswers::Closest(_) => 5,
            DeviceAnswers::Any(_) => 2,
        };
        let n = words.len() / per;
        if n == 0 {
            return Ok(());
        }
        match self {
            Self::Device(mesh) => mesh.device_put(words, n, tables, answers),
            #[cfg(feature = "host-kernel")]
            Self::Host { .. } => {
                host::put(words, n, tables, answers);
                Ok(())
            }
        }
    }

    /// Waits for the device's work on the answers to be done.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the device fails.
    pub(crate) fn finish(&self) -> Result<()> {
        match self {
            Self::Device(mesh) => mesh.stream.synchronize().map_err(cuda_error("dispatch")),
            #[cfg(feature = "host-kernel")]
            Self::Host { .. } => Ok(()),
        }
    }
}

impl DeviceMesh {
    /// The tables on the device, copied at the first query that needs them.
    fn device_tables(&self, (triangle_ids, normals): Tables<'_>) -> Result<(u64, u64)> {
        let stream: &std::sync::Arc<CudaStream> = &self.stream;
        if self.tables.get().is_none() {
            let upload = cuda_error("upload");
            // One element at least, so that no buffer is empty.
            let ids = stream
                .clone_htod(if triangle_ids.is_empty() {
                    &[0u32][..]
                } else {
                    triangle_ids
                })
                .map_err(&upload)?;
            let flat: &[f32] = bytemuck::cast_slice(normals);
            let normals = stream
                .clone_htod(if flat.is_empty() { &[0f32][..] } else { flat })
                .map_err(&upload)?;
            let _ = self.tables.set((ids, normals));
        }
        let (ids, normals) = self.tables.get().expect("set above");
        Ok((ids.device_ptr(stream).0, normals.device_ptr(stream).0))
    }

    /// [`CudaMesh::chunk`] on the device: the first ray that is not finite (`n` if none)
    /// and how many are open.
    #[allow(clippy::too_many_arguments)]
    fn device_chunk(
        &self,
        mode: Mode,
        rays: &DeviceRays,
        (first, n): (usize, usize),
        trace: Trace,
        tables: Tables<'_>,
        answers: &DeviceAnswers,
        scratch: &mut Scratch,
    ) -> Result<(u32, usize)> {
        let dispatch = cuda_error("dispatch");
        let stream = &self.stream;
        let count = n as u32;
        let (ray_buffer, slots) = (scratch.rays.address(), scratch.answers.address());
        let flags = scratch.flags.address();
        let (open_index, open_rays) = (scratch.open_index.address(), scratch.open_rays.address());
        // SAFETY: the two flag words, `u8` memory written as `u32`s (`alloc`: whole words).
        let mut flag_view =
            unsafe { scratch.flags.device_slice().transmute_mut::<u32>(2) }.expect("two words");
        stream
            .memcpy_htod(&[count, 0], &mut flag_view)
            .map_err(&dispatch)?;
        let (o, d) = (rays.origins, rays.directions);
        let (o_row, d_row) = (o.row(first), d.row(first));
        let (t_min, t_max) = rays.range;
        let mut pack = stream.launch_builder(&self.kernels.pack);
        pack.arg(&o_row)
            .arg(&o.row_stride)
            .arg(&o.column_stride)
            .arg(&d_row)
            .arg(&d.row_stride)
            .arg(&d.column_stride)
            .arg(&t_min)
            .arg(&t_max)
            .arg(&ray_buffer)
            .arg(&flags)
            .arg(&count);
        // SAFETY: `meshcast_pack`'s arguments in order and of its types (pointers as 64-bit
        // addresses, `long long` strides, floats, `u32`): it reads elements of rows
        // `first..first + n` of both arrays (`DeviceRows::new`'s promise; `first + n` is at
        // most the rays' count, asserted by `chunk`) and writes rays `0..n` of the scratch
        // buffer (at least `n` rays, asserted) and the first flag word.
        unsafe { pack.launch(launch_config(n)) }.map_err(&dispatch)?;
        let words = n * 4;
        match trace {
            Trace::Fill(word) => {
                // SAFETY: `words` words of the scratch answers (16 bytes a ray, `scratch`).
                unsafe { sys::cuMemsetD32Async(slots, word, words, stream.cu_stream()) }
                    .result()
                    .map_err(&dispatch)?;
            }
            Trace::Kernel => {
                let function = match mode {
                    Mode::Closest => &self.kernels.closest,
                    Mode::Any => &self.kernels.any,
                };
                let mut launch = stream.launch_builder(function);
                launch
                    .arg(&self.nodes)
                    .arg(&self.triangles)
                    .arg(&ray_buffer)
                    .arg(&slots)
                    .arg(&count);
                // SAFETY: as `DeviceMesh::launch`'s: the kernel's arguments in order, rays
                // and answers below `count`, which the scratch buffers hold (32 and 16 bytes
                // a ray), nodes and triangles the layout's, checked at upload.
                unsafe { launch.launch(launch_config(n)) }.map_err(&dispatch)?;
            }
        }
        let (ids, normals) = self.device_tables(tables)?;
        let first_ray = first as u32;
        let open_count = flags + 4;
        match answers {
            DeviceAnswers::Closest(cast) => {
                let out = cast_addresses(cast);
                let mut lay_out = stream.launch_builder(&self.kernels.lay_out_closest);
                lay_out
                    .arg(&slots)
                    .arg(&ids)
                    .arg(&normals)
                    .arg(&ray_buffer)
                    .arg(&out[0])
                    .arg(&out[1])
                    .arg(&out[2])
                    .arg(&out[3])
                    .arg(&out[4])
                    .arg(&open_count)
                    .arg(&open_index)
                    .arg(&open_rays)
                    .arg(&first_ray)
                    .arg(&count);
                // SAFETY: `meshcast_lay_out_closest`'s arguments in order: it reads slots and
                // rays `0..n` of the scratch buffers, the tables at the GPU triangles the
                // kernel reported (each below the table's length, `layout::of`) and at mesh
                // triangles (each below the normals' length); it writes rows
                // `first..first + n` of the answer arrays (made for every ray) and at most `n`
                // open rays (the open buffers hold `n`).
                unsafe { lay_out.launch(launch_config(n)) }.map_err(&dispatch)?;
            }
            DeviceAnswers::Any(occluded) => {
                let out = occluded.address();
                let mut lay_out = stream.launch_builder(&self.kernels.lay_out_any);
                lay_out
                    .arg(&slots)
                    .arg(&ray_buffer)
                    .arg(&out)
                    .arg(&open_count)
                    .arg(&open_index)
                    .arg(&open_rays)
                    .arg(&first_ray)
                    .arg(&count);
                // SAFETY: as for closest hits, with one count a ray read and one byte a ray
                // written.
                unsafe { lay_out.launch(launch_config(n)) }.map_err(&dispatch)?;
            }
        }
        let mut flags = [0u32; 2];
        let readback = cuda_error("readback");
        stream
            .memcpy_dtoh(&flag_view, &mut flags)
            .map_err(&readback)?;
        stream.synchronize().map_err(&readback)?;
        Ok((flags[0], flags[1] as usize))
    }

    /// [`CudaMesh::put`] on the device: the `n` answers copied there and put in place.
    fn device_put(
        &self,
        words: &[u32],
        n: usize,
        tables: Tables<'_>,
        answers: &DeviceAnswers,
    ) -> Result<()> {
        let dispatch = cuda_error("dispatch");
        let stream = &self.stream;
        let uploaded = stream.clone_htod(words).map_err(cuda_error("upload"))?;
        let address = uploaded.device_ptr(stream).0;
        let count = n as u32;
        let (_, normals) = self.device_tables(tables)?;
        match answers {
            DeviceAnswers::Closest(cast) => {
                let out = cast_addresses(cast);
                let mut put = stream.launch_builder(&self.kernels.put_closest);
                put.arg(&address)
                    .arg(&normals)
                    .arg(&out[0])
                    .arg(&out[1])
                    .arg(&out[2])
                    .arg(&out[3])
                    .arg(&out[4])
                    .arg(&count);
                // SAFETY: `meshcast_put_closest`'s arguments in order: it reads `n` answers of
                // five words (uploaded above) and writes the rows they name, each a ray of
                // the query, which the answer arrays hold, reading the normals of mesh
                // triangles the CPU reported.
                unsafe { put.launch(launch_config(n)) }.map_err(&dispatch)?;
            }
            DeviceAnswers::Any(occluded) => {
                let out = occluded.address();
                let mut put = stream.launch_builder(&self.kernels.put_any);
                put.arg(&address).arg(&out).arg(&count);
                // SAFETY: as for closest hits, two words an answer, one byte a ray.
                unsafe { put.launch(launch_config(n)) }.map_err(&dispatch)?;
            }
        }
        // The uploaded answers are freed on the stream, after the kernel.
        drop(uploaded);
        Ok(())
    }
}

/// The five arrays' addresses.
fn cast_addresses(cast: &DeviceCast) -> [u64; 5] {
    [
        cast.t_hit.address(),
        cast.geometry_ids.address(),
        cast.primitive_ids.address(),
        cast.primitive_uvs.address(),
        cast.primitive_normals.address(),
    ]
}

/// The device rays' kernels run on the host (`device_rays.cuh`'s host entry points).
#[cfg(feature = "host-kernel")]
mod host {
    use std::ffi::c_char;

    use super::{DeviceAnswers, DeviceRays, Mode, Scratch, Tables, Trace, RAY_WORDS};
    use crate::cuda::driver::{any_on_host, closest_on_host};
    use crate::layout::{GpuNode, GpuRay, GpuTriangle};

    unsafe extern "C" {
        fn meshcast_pack_host(
            origins: *const c_char,
            origin_row: i64,
            origin_column: i64,
            directions: *const c_char,
            direction_row: i64,
            direction_column: i64,
            t_min: f32,
            t_max: f32,
            rays: *mut GpuRay,
            count: u32,
        ) -> u32;
        fn meshcast_lay_out_closest_host(
            hits: *const [u32; 4],
            triangle_ids: *const u32,
            normals: *const f32,
            rays: *const GpuRay,
            t: *mut u32,
            geometry: *mut u32,
            primitive: *mut u32,
            uv: *mut u32,
            normal: *mut u32,
            open_count: *mut u32,
            open_index: *mut u32,
            open: *mut u32,
            first: u32,
            count: u32,
        );
        fn meshcast_lay_out_any_host(
            counts: *const u32,
            rays: *const GpuRay,
            occluded: *mut u32,
            open_count: *mut u32,
            open_index: *mut u32,
            open: *mut u32,
            first: u32,
            count: u32,
        );
        fn meshcast_put_closest_host(
            answers: *const u32,
            normals: *const f32,
            t: *mut u32,
            geometry: *mut u32,
            primitive: *mut u32,
            uv: *mut u32,
            normal: *mut u32,
            count: u32,
        );
        fn meshcast_put_any_host(answers: *const u32, occluded: *mut u32, count: u32);
    }

    /// [`CudaMesh::chunk`](super::CudaMesh::chunk) on the host.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn chunk(
        (nodes, triangles): (&[GpuNode], &[GpuTriangle]),
        mode: Mode,
        rays: &DeviceRays,
        (first, n): (usize, usize),
        trace: Trace,
        (triangle_ids, normals): Tables<'_>,
        answers: &mut DeviceAnswers,
        scratch: &mut Scratch,
    ) -> (u32, usize) {
        let count = n as u32;
        let packed: &mut [GpuRay] =
            bytemuck::cast_slice_mut(&mut scratch.rays.host()[..n * RAY_WORDS]);
        let (o, d) = (rays.origins, rays.directions);
        let (t_min, t_max) = rays.range;
        // SAFETY: reads elements of rows `first..first + n` of both arrays, host memory here
        // (`DeviceRows::new`'s promise; `first + n` is within the rays, asserted by `chunk`),
        // and writes `n` rays into `packed`, which holds `n`.
        let not_finite = unsafe {
            meshcast_pack_host(
                o.row(first) as usize as *const c_char,
                o.row_stride,
                o.column_stride,
                d.row(first) as usize as *const c_char,
                d.row_stride,
                d.column_stride,
                t_min,
                t_max,
                packed.as_mut_ptr(),
                count,
            )
        };
        let slots = &mut scratch.answers.host()[..4 * n];
        match (trace, mode) {
            (Trace::Fill(word), _) => slots.fill(word),
            (Trace::Kernel, Mode::Closest) => {
                closest_on_host(nodes, triangles, packed, bytemuck::cast_slice_mut(slots));
            }
            (Trace::Kernel, Mode::Any) => {
                any_on_host(nodes, triangles, packed, &mut slots[..n]);
            }
        }
        let [open_count, _] = &mut scratch.flags.host()[..2] else {
            unreachable!("two flag words")
        };
        *open_count = 0;
        let open_count: *mut u32 = open_count;
        let (open_index, open_rays) = (
            scratch.open_index.host().as_mut_ptr(),
            scratch.open_rays.host().as_mut_ptr(),
        );
        let (slots, packed) = (
            scratch.answers.host().as_ptr(),
            scratch.rays.host().as_ptr(),
        );
        match answers {
            DeviceAnswers::Closest(cast) => {
                // SAFETY: reads `n` slots and rays (the scratch buffers hold them), the tables
                // at GPU triangles the kernel reported (below the ids' length, `layout::of`)
                // and mesh triangles (below the normals' length); writes rows
                // `first..first + n` of the answer arrays (one row per ray of the query) and at
                // most `n` open rays, which the open buffers hold.
                unsafe {
                    meshcast_lay_out_closest_host(
                        slots.cast(),
                        triangle_ids.as_ptr(),
                        normals.as_ptr().cast(),
                        packed.cast(),
                        cast.t_hit.host().as_mut_ptr(),
                        cast.geometry_ids.host().as_mut_ptr(),
                        cast.primitive_ids.host().as_mut_ptr(),
                        cast.primitive_uvs.host().as_mut_ptr(),
                        cast.primitive_normals.host().as_mut_ptr(),
                        open_count,
                        open_index,
                        open_rays,
                        first as u32,
                        count,
                    );
                }
            }
            DeviceAnswers::Any(occluded) => {
                // SAFETY: as for closest hits, a count read and a byte written per ray.
                unsafe {
                    meshcast_lay_out_any_host(
                        slots,
                        packed.cast(),
                        occluded.host().as_mut_ptr(),
                        open_count,
                        open_index,
                        open_rays,
                        first as u32,
                        count,
                    );
                }
            }
        }
        // SAFETY: the count the call above left, in the scratch buffer's first word.
        let open = unsafe { *open_count } as usize;
        (not_finite, open)
    }

    /// [`CudaMesh::put`](super::CudaMesh::put) on the host.
    pub(super) fn put(
        words: &[u32],
        n: usize,
        (_, normals): Tables<'_>,
        answers: &mut DeviceAnswers,
    ) {
        let count = n as u32;
        match answers {
            DeviceAnswers::Closest(cast) => {
                // SAFETY: reads `n` answers of five words (`words` holds them) and writes the
                // rows they name, rays of the query, which the arrays hold, reading normals of
                // mesh triangles the CPU reported.
                unsafe {
                    meshcast_put_closest_host(
                        words.as_ptr(),
                        normals.as_ptr().cast(),
                        cast.t_hit.host().as_mut_ptr(),
                        cast.geometry_ids.host().as_mut_ptr(),
                        cast.primitive_ids.host().as_mut_ptr(),
                        cast.primitive_uvs.host().as_mut_ptr(),
                        cast.primitive_normals.host().as_mut_ptr(),
                        count,
                    );
                }
            }
            DeviceAnswers::Any(occluded) => {
                // SAFETY: as for closest hits, two words an answer, a byte a ray.
                unsafe {
                    meshcast_put_any_host(words.as_ptr(), occluded.host().as_mut_ptr(), count)
                };
            }
        }
    }
}
