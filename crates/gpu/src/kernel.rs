//! The traversal kernel's build choices ([`GpuOptions`], with the environment variables
//! that set them, so one binary can measure each choice on the GPU that matters) and the
//! shader source specialised for one query kind.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The shader: traversal and the watertight test, with the bounds that decide which rays
/// the host finishes.
/// WGSL has no includes, so its files are joined here, each using those before it.
pub(crate) const SHADER: &str = concat!(
    include_str!("shader/shared.wgsl"),
    include_str!("shader/inputs.wgsl"),
    include_str!("shader/ray.wgsl"),
    include_str!("shader/boxes.wgsl"),
    include_str!("shader/triangle.wgsl"),
    include_str!("shader/hits.wgsl"),
    include_str!("shader/walk.wgsl"),
);

/// The environment variable that sets [`GpuOptions::stack`].
pub const STACK_VARIABLE: &str = "MESHCAST_GPU_STACK";
/// The environment variable that sets [`GpuOptions::workgroup`].
pub const WORKGROUP_VARIABLE: &str = "MESHCAST_GPU_WORKGROUP";
/// The environment variable that sets [`GpuOptions::runtime_checks`] (`1` or `0`).
pub const CHECKS_VARIABLE: &str = "MESHCAST_GPU_CHECKS";
/// The environment variable that, set to `1`, has every streamed launch print where its time
/// went to stderr (writing rays, waiting for the GPU, taking answers).
pub const PROFILE_VARIABLE: &str = "MESHCAST_GPU_PROFILE";
/// The environment variable that sets [`GpuOptions::leaf`].
pub const LEAF_VARIABLE: &str = "MESHCAST_GPU_LEAF";
/// The environment variable that sets [`GpuOptions::chunk`].
pub const CHUNK_VARIABLE: &str = "MESHCAST_GPU_CHUNK";
/// The environment variable that sets [`GpuOptions::order`] (`distance` or `octant`).
pub const ORDER_VARIABLE: &str = "MESHCAST_GPU_ORDER";
/// The environment variable that sets [`GpuOptions::robust_access`] (`1` or `0`).
pub const ROBUST_VARIABLE: &str = "MESHCAST_GPU_ROBUST";
/// The environment variable that sets [`GpuOptions::backend`] (`auto`, `wgpu`, `cuda` or
/// `cuda-host`).
pub const BACKEND_VARIABLE: &str = "MESHCAST_GPU_BACKEND";

/// The most hit slots per ray the every-hit kernel holds (`shader/inputs.wgsl`'s `LIST_SIZE` in that
/// pipeline).
pub const MAX_HIT_CAPACITY: u32 = 64;

/// How the traversal kernels are built and rays streamed to them. Every choice keeps every
/// answer exact (a ray the kernel cannot finish is answered on the CPU); they trade speed
/// only, and the best one depends on the GPU, so each can be set at run time.
///
/// Measured on an NVIDIA H100 (Vulkan; closest hit, 4M rays, Grays/s; bunny random / bunny
/// camera; `bindings/python/benchmarks/gpu_options.py`, interleaved processes): the kernel
/// as first landed, with runtime checks, a stack of 96, a 64-slot hit list in every kernel
/// and workgroups of 64, ran 0.37 / 0.70; the defaults below run 0.61 / 4.3 to 4.8, with
/// runtime checks 0.40 / 3.1, workgroups of 64 0.61 / 3.6, the octant order 0.39 / 2.7.
/// Stacks of 24 to 48 measured within a few percent of 32. On an NVIDIA H200 (driver
/// 580.159.04, 2026-11-26, the slab test in registers), leaves of at most 2 triangles built
/// for the GPU ran random rays 1.35 to 1.38 times as fast on the bunny and the ogre (the
/// same tree through nvcc: 1.26 to 1.31 on all three meshes), but take 45 bytes per
/// triangle against the mesh's own tree's 38.4, so the mesh's tree stays the default.
/// Figures for the 1.1M-triangle bunny x16 move by up to 2.8 times from one upload to the
/// next (BENCHMARKS.md, "Where the GPU's time goes"): compare settings interleaved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Traversal stack entries per ray (8 to 256; [`STACK_VARIABLE`]). A ray whose walk
    /// needs more is answered on the CPU, so a small stack costs exactness nothing.
    pub stack: u32,
    /// Invocations per workgroup (a multiple of 32, at most 256; [`WORKGROUP_VARIABLE`]).
    pub workgroup: u32,
    /// Whether wgpu injects its bounds checks and loop bounds into the kernel
    /// ([`CHECKS_VARIABLE`]). Off by default: the kernel's own indices stay in bounds (see
    /// `unchecked.rs`), and the checks cost 1.3 to 1.5 times the kernel's time.
    pub runtime_checks: bool,
    /// Rays per streamed chunk (4096 to 2^24; [`CHUNK_VARIABLE`]): two chunks are in flight,
    /// one traced while the CPU writes the next one's rays and reads the last one's answers.
    /// The buffers of two chunks stay on the GPU between calls (about 100 bytes per ray of
    /// a chunk for closest hits).
    pub chunk: u32,
    /// The GPU's tree ([`LEAF_VARIABLE`]): `Some(0)` for the mesh's own (copied, no build),
    /// `Some(n)` for at most `n` triangles per leaf (1 to 8), a tree built for the GPU at
    /// upload with the mesh's other build options, kept on the host beside the mesh's own for
    /// [`GpuMesh::set_positions`](crate::GpuMesh::set_positions). `None` (the default) lets
    /// the back end choose: leaves of 2 where the CUDA back end traces (on an H200, through
    /// nvcc's code, 1.09 to 1.31 times as fast as the mesh's tree on every mesh and ray set
    /// measured, at 45 bytes per triangle on the GPU against 38.4), the mesh's own tree
    /// through wgpu alone (leaves of 2 ran random rays 1.35 to 1.38 times as fast there, but
    /// camera rays are not yet measured). GPUs, whose neighbouring rays run in lockstep,
    /// favour smaller leaves than the CPU's.
    pub leaf: Option<u32>,
    /// The order in which a node's children are visited ([`ORDER_VARIABLE`]).
    pub order: ChildOrder,
    /// Whether a Vulkan device is opened with the driver's bounds checks on every buffer
    /// access, `robustBufferAccess` and (where offered) `robustBufferAccess2`, as wgpu opens
    /// every Vulkan device ([`ROBUST_VARIABLE`]). On by default; off, the device is opened
    /// without both, to measure what they cost: the kernel's own indices stay in bounds (see
    /// `unchecked.rs`). Ignored on Metal, DX12 and OpenGL. Off, [`runtime_checks`] no longer
    /// bound buffer accesses on a device that offers `robustBufferAccess2` (wgpu leaves those
    /// to the driver there), only the private arrays' indices and the loops. Measured on an
    /// NVIDIA H200 (driver 580.159.04): the checks cost nothing measurable (off: within the
    /// spread between processes on every mesh and ray set), so they stay on.
    ///
    /// [`runtime_checks`]: GpuOptions::runtime_checks
    pub robust_access: bool,
    /// What traces closest-hit and any-hit batches ([`BACKEND_VARIABLE`]): by default
    /// ([`Backend::Auto`]) the CUDA kernel where the crate is built with `cuda` and an NVIDIA
    /// driver and device are found, else wgpu.
    pub backend: Backend,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            stack: 32,
            workgroup: 128,
            runtime_checks: false,
            chunk: 1 << 20,
            leaf: None,
            order: ChildOrder::Distance,
            robust_access: true,
            backend: Backend::Auto,
        }
    }
}

/// What traces closest-hit and any-hit batches ([`GpuOptions::backend`]). Every other query
/// (counts, hit lists, camera rays made on the GPU, back-face culling) runs through wgpu
/// whatever the choice, and every choice gives the same answers.
///
/// The CUDA kernel (crate feature `cuda`) is the WGSL kernel's traversal written line for line
/// in CUDA C++, with the same bounds, over the same bytes, compiled ahead of time by NVIDIA's
/// compiler and loaded through the NVIDIA driver (no CUDA toolkit needed). It runs with a
/// stack of 32 and blocks of 128 (compiled in), children in distance order;
/// [`GpuOptions::stack`], `workgroup`, `order` and the checks apply to wgpu's kernels,
/// [`GpuOptions::leaf`] and `chunk` to both.
///
/// [`Backend::Auto`] is the default: on an H200 (driver 580, 2026-11-28) the CUDA kernel
/// answered every ray as the CPU does and ran faster than wgpu's on every mesh and ray set
/// measured, even as clang compiled it (closest hits, Grays/s, wgpu against CUDA: bunny
/// random 0.598 / 0.684, camera 4.54 / 5.87; ogre 0.596 / 0.703, 4.30 / 6.41; bunny x16
/// 0.386 / 0.525, 2.77 / 4.15), and nvcc's code of the same source, which the crate now
/// embeds, 1.44 to 1.63 times as fast again; any hit ran 1.65 to 2.4 times as fast through CUDA
/// (BENCHMARKS.md, "Where the GPU's time goes").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// CUDA where built in and a CUDA device is found, else wgpu (the default).
    #[default]
    Auto,
    /// wgpu alone.
    Wgpu,
    /// The CUDA kernel on device 0; opening a [`Gpu`](crate::Gpu) fails without one.
    Cuda,
    /// The CUDA kernel built as host C++ and run on the CPU's cores (feature
    /// `host-kernel`): the tests' way of holding the kernel's source to the CPU where there
    /// is no NVIDIA GPU. Not a way to go fast.
    CudaHost,
}

/// The order in which the kernel visits the children of a node it enters. Either way every
/// answer is the CPU's: the order decides how soon a closest hit is found and far boxes are
/// culled, not what is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildOrder {
    /// Closest hits visit the children the ray enters nearest first, sorted by entry
    /// distance (an insertion sort per node); the other queries visit them in lane order.
    Distance,
    /// Every query visits them in the order of the ray's octant, with no sort (Ylitie,
    /// Karras, Laine 2017): the upload puts each child in the lane of the corner (the signs
    /// of x, y, z) it lies towards from its node's centre, and a ray whose direction's signs
    /// are the bits of `o` (set for negative) visits lane `k ^ o` for `k` from 0 to 7,
    /// roughly front to back. The nodes are laid out for the order of the [`Gpu`] they are
    /// uploaded to.
    ///
    /// Not yet timed on a GPU. On llvmpipe (bunny, 100,000 random and 100,000 incoherent
    /// rays, a 320 x 320 camera; the same rays left to the CPU) it ran at 0.5 to 0.7 times
    /// the distance order's speed for closest hits and 0.7 to 0.8 for any hit: the sort it
    /// saves is cheap there, and its order is only roughly front to back.
    ///
    /// [`Gpu`]: crate::Gpu
    Octant,
}

impl ChildOrder {
    /// The shader's `ORDER_*` constant.
    fn constant(self) -> u32 {
        match self {
            Self::Distance => 0,
            Self::Octant => 1,
        }
    }
}

impl GpuOptions {
    /// The defaults, with each one the environment sets replaced.
    ///
    /// # Errors
    /// [`Error::Gpu`] if a variable is set to something out of range.
    pub fn from_env() -> Result<Self> {
        let mut options = Self::default();
        if let Some(stack) = variable(STACK_VARIABLE)? {
            options.stack = stack;
        }
        if let Some(workgroup) = variable(WORKGROUP_VARIABLE)? {
            options.workgroup = workgroup;
        }
        if let Some(checks) = variable(CHECKS_VARIABLE)? {
            options.runtime_checks = checks != 0;
        }
        if let Some(chunk) = variable(CHUNK_VARIABLE)? {
            options.chunk = chunk;
        }
        if let Some(leaf) = variable(LEAF_VARIABLE)? {
            options.leaf = Some(leaf);
        }
        if let Some(robust) = variable(ROBUST_VARIABLE)? {
            options.robust_access = robust != 0;
        }
        match std::env::var(BACKEND_VARIABLE).as_deref().map(str::trim) {
            Ok("auto") => options.backend = Backend::Auto,
            Ok("wgpu") => options.backend = Backend::Wgpu,
            Ok("cuda") => options.backend = Backend::Cuda,
            Ok("cuda-host") => options.backend = Backend::CudaHost,
            Ok("") | Err(_) => {}
            Ok(other) => {
                return Err(invalid(format!(
                    "{BACKEND_VARIABLE}={other}: `auto`, `wgpu`, `cuda` or `cuda-host`"
                )))
            }
        }
        match std::env::var(ORDER_VARIABLE).as_deref().map(str::trim) {
            Ok("distance") => options.order = ChildOrder::Distance,
            Ok("octant") => options.order = ChildOrder::Octant,
            Ok("") | Err(_) => {}
            Ok(other) => {
                return Err(invalid(format!(
                    "{ORDER_VARIABLE}={other}: `distance` or `octant`"
                )))
            }
        }
        options.validate()?;
        Ok(options)
    }

    /// # Errors
    /// [`Error::Gpu`] if a choice is out of range.
    pub fn validate(&self) -> Result<()> {
        if !(8..=256).contains(&self.stack) {
            return Err(invalid(format!(
                "a stack of {} entries ({STACK_VARIABLE}): 8 to 256",
                self.stack
            )));
        }
        if self.workgroup == 0 || !self.workgroup.is_multiple_of(32) || self.workgroup > 256 {
            return Err(invalid(format!(
                "a workgroup of {} ({WORKGROUP_VARIABLE}): a multiple of 32 up to 256",
                self.workgroup
            )));
        }
        if !(4096..=1 << 24).contains(&self.chunk) {
            return Err(invalid(format!(
                "chunks of {} rays ({CHUNK_VARIABLE}): 4096 to 2^24",
                self.chunk
            )));
        }
        if let Some(leaf @ 9..) = self.leaf {
            return Err(invalid(format!(
                "leaves of {leaf} triangles ({LEAF_VARIABLE}): 0 (the mesh's tree) or 1 to 8"
            )));
        }
        Ok(())
    }

    /// The shader specialised for the query of `mode` (`shader/inputs.wgsl`'s `MODE_*`).
    pub(crate) fn source(&self, mode: u32) -> String {
        let list = if mode == 3 { MAX_HIT_CAPACITY } else { 1 };
        specialise(
            SHADER,
            &[
                ("MODE", mode),
                ("STACK_SIZE", self.stack),
                ("LIST_SIZE", list),
                ("WORKGROUP", self.workgroup),
                ("ORDER", self.order.constant()),
            ],
        )
    }
}

impl std::fmt::Display for GpuOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} back end, stack {}, workgroup {}, runtime checks {}, robust access {}, \
             chunks of {} rays, {} order, ",
            self.backend,
            self.stack,
            self.workgroup,
            if self.runtime_checks { "on" } else { "off" },
            if self.robust_access { "on" } else { "off" },
            self.chunk,
            match self.order {
                ChildOrder::Distance => "distance",
                ChildOrder::Octant => "octant",
            }
        )?;
        match self.leaf {
            None => write!(f, "the back end's tree"),
            Some(0) => write!(f, "the mesh's tree"),
            Some(leaf) => write!(f, "a tree of leaves up to {leaf}"),
        }
    }
}

/// `source` with each `const NAME: u32 = ...;` line of `values` given its value.
///
/// # Panics
/// If a name has no such line (a mismatch between this file and the shader, which the
/// tests catch).
fn specialise(source: &str, values: &[(&str, u32)]) -> String {
    let mut out = String::with_capacity(source.len());
    let mut found = vec![false; values.len()];
    for line in source.lines() {
        let value = values.iter().enumerate().find(|(_, (name, _))| {
            line.strip_prefix("const ")
                .and_then(|rest| rest.strip_prefix(name))
                .is_some_and(|rest| rest.starts_with(": u32 ="))
        });
        match value {
            Some((index, (name, value))) => {
                found[index] = true;
                out.push_str(&format!("const {name}: u32 = {value}u;"));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    assert!(
        found.iter().all(|&f| f),
        "the shader lacks a constant the host specialises"
    );
    out
}

fn variable(name: &str) -> Result<Option<u32>> {
    match std::env::var(name) {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| invalid(format!("{name}={text}: not a whole number"))),
        _ => Ok(None),
    }
}

fn invalid(message: String) -> Error {
    Error::Gpu {
        operation: "kernel options",
        message,
    }
}

/// Whether [`PROFILE_VARIABLE`] asks for where a query's time goes (read once per process).
pub fn profiling() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(PROFILE_VARIABLE).is_ok_and(|v| v.trim() == "1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every specialisation parses and validates (naga, as wgpu does on every adapter),
    /// with or without a GPU on the machine.
    #[test]
    fn every_specialisation_validates() {
        let options = [
            GpuOptions::default(),
            GpuOptions {
                stack: 96,
                workgroup: 64,
                runtime_checks: true,
                chunk: 4096,
                leaf: Some(2),
                order: ChildOrder::Octant,
                robust_access: false,
                backend: Backend::Wgpu,
            },
        ];
        for options in options {
            for mode in 0..5 {
                let source = options.source(mode);
                assert!(source.contains(&format!("const MODE: u32 = {mode}u;")));
                assert!(source.contains(&format!("const STACK_SIZE: u32 = {}u;", options.stack)));
                let module = wgpu::naga::front::wgsl::parse_str(&source)
                    .unwrap_or_else(|error| panic!("{}", error.emit_to_string(&source)));
                wgpu::naga::valid::Validator::new(
                    wgpu::naga::valid::ValidationFlags::all(),
                    wgpu::naga::valid::Capabilities::empty(),
                )
                .validate(&module)
                .unwrap_or_else(|error| panic!("{}", error.emit_to_string(&source)));
            }
        }
    }

    #[test]
    fn out_of_range_options_are_refused() {
        let cases = [
            (4, 128, 4096, 0),
            (300, 128, 4096, 0),
            (32, 0, 4096, 0),
            (32, 100, 4096, 0),
            (32, 512, 4096, 0),
            (32, 128, 100, 0),
            (32, 128, 1 << 25, 0),
            (32, 128, 4096, 9),
        ];
        for (stack, workgroup, chunk, leaf) in cases {
            let options = GpuOptions {
                stack,
                workgroup,
                runtime_checks: false,
                chunk,
                leaf: Some(leaf),
                order: ChildOrder::Distance,
                ..GpuOptions::default()
            };
            assert!(options.validate().is_err(), "{options}");
        }
        assert!(GpuOptions::default().validate().is_ok());
    }
}
