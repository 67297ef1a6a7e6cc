//! [`Gpu`]: the adapter, its device and queue, and the one compute pipeline every query runs.

use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};

use crate::cuda::Cuda;
use crate::kernel::{profiling, GpuOptions};
use crate::{raw_device, unchecked};

/// The environment variable that picks an adapter by name: the first adapter whose name
/// contains its value (case-insensitive) is used, and [`Gpu::new`] fails if none does.
pub const ADAPTER_VARIABLE: &str = "MESHCAST_GPU";

/// What an adapter is: its name, the API wgpu reaches it through, and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterInfo {
    /// The adapter's name (`"NVIDIA H100 80GB HBM3"`, `"llvmpipe (LLVM 15.0.6, 256 bits)"`).
    pub name: String,
    /// The API: `"Vulkan"`, `"Metal"`, `"Dx12"` or `"Gl"`.
    pub backend: String,
    /// `"DiscreteGpu"`, `"IntegratedGpu"`, `"VirtualGpu"`, `"Cpu"` or `"Other"`.
    pub device_type: String,
    /// The driver and its version, as the driver reports them.
    pub driver: String,
}

impl AdapterInfo {
    fn of(info: &wgpu::AdapterInfo) -> Self {
        Self {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_owned(),
        }
    }
}

impl std::fmt::Display for AdapterInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {}", self.name, self.backend, self.device_type)?;
        if !self.driver.is_empty() {
            write!(f, ", {}", self.driver)?;
        }
        write!(f, ")")
    }
}

/// A GPU opened for ray queries: the adapter, its device and queue, and the traversal
/// kernels, one pipeline per query kind, compiled when first used. Cheap to clone (the clones share the device); upload meshes to it with
/// [`Gpu::upload`].
#[derive(Clone)]
pub struct Gpu {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: AdapterInfo,
    pub(crate) options: GpuOptions,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// The CUDA back end, where [`GpuOptions::backend`] chose it and it opened.
    pub(crate) cuda: Option<Cuda>,
    /// The pipeline of each kernel mode (`shader/inputs.wgsl`'s `MODE_*`), once compiled.
    pipelines: Mutex<[Option<wgpu::ComputePipeline>; MODES]>,
}

/// The kernel's modes: closest, any, count, every hit, and the camera's rays alone.
const MODES: usize = 5;

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.shared.info)
            .finish()
    }
}

impl Gpu {
    /// Opens a GPU: the adapter [`ADAPTER_VARIABLE`] names if it is set, else a discrete GPU
    /// before an integrated one before a virtual one before a software one (Vulkan, Metal
    /// and DX12 before OpenGL).
    ///
    /// The kernels are built as [`GpuOptions::from_env`] says.
    ///
    /// # Errors
    /// [`Error::NoGpu`] if there is no adapter, none matches the variable, or the adapter
    /// refuses a device with the limits the kernels need; [`Error::Gpu`] if a kernel option
    /// in the environment is out of range.
    pub fn new() -> Result<Self> {
        let wanted = std::env::var(ADAPTER_VARIABLE)
            .ok()
            .filter(|name| !name.trim().is_empty());
        Self::with_adapter(wanted.as_deref())
    }

    /// Opens the first adapter whose name contains `name` (case-insensitive), or, for `None`,
    /// the best one as [`Gpu::new`] picks it, with kernels built as
    /// [`GpuOptions::from_env`] says.
    ///
    /// # Errors
    /// As [`Gpu::new`].
    pub fn with_adapter(name: Option<&str>) -> Result<Self> {
        Self::with_options(name, GpuOptions::from_env()?)
    }

    /// As [`Gpu::with_adapter`], with kernels built as `options` says.
    ///
    /// # Errors
    /// As [`Gpu::new`], and [`Error::Gpu`] if `options` are out of range.
    pub fn with_options(name: Option<&str>, options: GpuOptions) -> Result<Self> {
        options.validate()?;
        let mut adapters = found_adapters();
        if adapters.is_empty() {
            return Err(Error::NoGpu {
                reason: "wgpu found no adapter (no Vulkan, Metal, DX12 or OpenGL driver)".into(),
            });
        }
        adapters.sort_by_key(|adapter| preference(&adapter.get_info()));
        let adapter = match name {
            Some(name) => {
                let lower = name.to_lowercase();
                let position = adapters
                    .iter()
                    .position(|a| a.get_info().name.to_lowercase().contains(&lower));
                match position {
                    Some(index) => adapters.swap_remove(index),
                    None => {
                        return Err(Error::NoGpu {
                            reason: format!(
                                "none is named like `{name}` ({ADAPTER_VARIABLE}); found: {}",
                                names(&adapters)
                            ),
                        })
                    }
                }
            }
            None => adapters.swap_remove(0),
        };
        Self::open(adapter, options)
    }

    /// Every adapter wgpu finds, best first (the order [`Gpu::new`] picks from).
    pub fn adapters() -> Vec<AdapterInfo> {
        let mut adapters = found_adapters();
        adapters.sort_by_key(|adapter| preference(&adapter.get_info()));
        adapters
            .iter()
            .map(|adapter| AdapterInfo::of(&adapter.get_info()))
            .collect()
    }

    fn open(adapter: wgpu::Adapter, options: GpuOptions) -> Result<Self> {
        let info = AdapterInfo::of(&adapter.get_info());
        let offered = adapter.limits();
        // The largest buffers the adapter allows: a 30M-triangle mesh needs over 1 GB.
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: offered.max_storage_buffer_binding_size,
            max_buffer_size: offered.max_buffer_size,
            max_storage_buffers_per_shader_stage: 5,
            ..wgpu::Limits::downlevel_defaults()
        };
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("meshcast"),
            required_features: wgpu::Features::empty(),
            required_limits: limits,
            ..Default::default()
        };
        let refused = |error: String| Error::NoGpu {
            reason: format!("{info} refused a device: {error}"),
        };
        // Without the driver's bounds checks where asked and the adapter is Vulkan's.
        let raw = if options.robust_access {
            None
        } else {
            raw_device::open_without_robust_access(&adapter, &descriptor)
        };
        let (device, queue, robustness) = match raw {
            Some(opened) => {
                let (device, queue, robustness) = opened.map_err(refused)?;
                (device, queue, Some(robustness))
            }
            None => {
                let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
                    .map_err(|error| refused(error.to_string()))?;
                let robustness = profiling()
                    .then(|| raw_device::default_robustness(&adapter, descriptor.required_features))
                    .flatten();
                (device, queue, robustness)
            }
        };
        if profiling() {
            match robustness {
                Some(robustness) => eprintln!("meshcast gpu: {info}: {robustness}"),
                None => eprintln!(
                    "meshcast gpu: {info}: not Vulkan, robust buffer access as the backend has it"
                ),
            }
        }
        let layout = bind_group_layout(&device);
        let cuda = Cuda::open(options.backend)?;
        // The back end's tree where the options leave it to the back end (`GpuOptions::leaf`).
        let options = GpuOptions {
            leaf: Some(options.leaf.unwrap_or(if cuda.is_some() { 2 } else { 0 })),
            ..options
        };
        if profiling() {
            if let Some(cuda) = &cuda {
                eprintln!(
                    "meshcast gpu: closest and any-hit batches through CUDA on {}",
                    cuda.name()
                );
            }
        }
        Ok(Self {
            shared: Arc::new(Shared {
                device,
                queue,
                info,
                options,
                layout,
                cuda,
                pipelines: Mutex::new(Default::default()),
            }),
        })
    }

    /// The adapter in use.
    pub fn adapter(&self) -> &AdapterInfo {
        &self.shared.info
    }

    /// How the kernels are built.
    pub fn kernel_options(&self) -> GpuOptions {
        self.shared.options
    }

    /// The CUDA device that traces closest-hit and any-hit batches, if the CUDA back end
    /// opened ([`GpuOptions::backend`]); every other query runs on [`Gpu::adapter`].
    pub fn cuda_device(&self) -> Option<String> {
        self.shared.cuda.as_ref().map(Cuda::name)
    }
}

impl Shared {
    /// The pipeline of kernel `mode`, compiled on first use.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the adapter cannot compile it.
    pub(crate) fn pipeline(&self, mode: u32) -> Result<wgpu::ComputePipeline> {
        let mut pipelines = self
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let slot = &mut pipelines[mode as usize];
        if let Some(pipeline) = slot {
            return Ok(pipeline.clone());
        }
        let device = &self.device;
        let pipeline = checked(device, "shader", || {
            let source = self.options.source(mode);
            let module = unchecked::module(device, &source, self.options.runtime_checks);
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("meshcast trace"),
                bind_group_layouts: &[Some(&self.layout)],
                immediate_size: 0,
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("meshcast trace"),
                layout: Some(&layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
        })
        .map_err(|error| Error::NoGpu {
            reason: format!("{} cannot run the kernel: {error}", self.info),
        })?;
        *slot = Some(pipeline.clone());
        Ok(pipeline)
    }
}

/// The bindings every kernel takes: the parameters, the nodes, the triangles, the rays, the
/// hits and the counts.
fn bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("meshcast trace"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            storage(1, true),
            storage(2, true),
            storage(3, true),
            storage(4, false),
            storage(5, false),
        ],
    })
}

/// Every adapter of the APIs made for compute (Vulkan, Metal, DX12), or, only where none
/// answers, OpenGL's, of the back ends `WGPU_BACKEND` allows (all by default): each device
/// once (OpenGL would list a Vulkan device a second time), and nothing printed on the way
/// (Vulkan through an instance that enables no window system, `raw_device::quiet_vulkan_instance`;
/// OpenGL's EGL asks for a Wayland display, and libwayland prints where `XDG_RUNTIME_DIR` is
/// unset).
fn found_adapters() -> Vec<wgpu::Adapter> {
    let descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    let allowed = descriptor.backends;
    let enumerate = |backends: wgpu::Backends| {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        pollster::block_on(instance.enumerate_adapters(backends))
    };
    let mut primary =
        allowed & (wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12);
    let mut adapters = Vec::new();
    if primary.contains(wgpu::Backends::VULKAN) {
        if let Some(vulkan) = raw_device::quiet_vulkan_instance(descriptor.flags) {
            adapters.extend(pollster::block_on(
                vulkan.enumerate_adapters(wgpu::Backends::VULKAN),
            ));
            primary.remove(wgpu::Backends::VULKAN);
        }
    }
    if !primary.is_empty() {
        adapters.extend(enumerate(primary));
    }
    if adapters.is_empty() && allowed.contains(wgpu::Backends::GL) {
        adapters = enumerate(wgpu::Backends::GL);
    }
    adapters
}

/// Lower is better: the kind of device, then the API.
fn preference(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    let api = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (kind, api)
}

fn names(adapters: &[wgpu::Adapter]) -> String {
    adapters
        .iter()
        .map(|a| AdapterInfo::of(&a.get_info()).to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Runs `make` with the device's validation and out-of-memory errors caught, as an
/// [`Error::Gpu`] of `operation`, rather than left to wgpu's handler (which panics).
pub(crate) fn checked<T>(
    device: &wgpu::Device,
    operation: &'static str,
    make: impl FnOnce() -> T,
) -> Result<T> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = make();
    let invalid = pollster::block_on(validation.pop());
    let out_of_memory = pollster::block_on(memory.pop());
    match invalid.or(out_of_memory) {
        Some(error) => Err(gpu_error(operation, error)),
        None => Ok(value),
    }
}

pub(crate) fn wait(device: &wgpu::Device) -> Result<()> {
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|error| gpu_error("dispatch", error))
}

pub(crate) fn gpu_error(operation: &'static str, error: impl std::fmt::Display) -> Error {
    Error::Gpu {
        operation,
        message: error.to_string(),
    }
}
