//! Copying a mesh to the GPU ([`Gpu::upload`]) and replacing the copy when its vertices move
//! ([`GpuMesh::set_positions`]).

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::error::{Error, Result};
use meshcast_bvh::BuildOptions;
use meshcast_mesh::{LeafTest, Mesh};
use wgpu::util::DeviceExt;

use super::{GpuMesh, WgpuCopy, DEFAULT_HIT_CAPACITY};
use crate::context::{checked, Gpu};
use crate::cuda::CudaMesh;
use crate::kernel::GpuOptions;
use crate::layout::{self, Layout};

impl Gpu {
    /// Copies `mesh` to the GPU: its tree's nodes compressed and renumbered (no rebuild) and
    /// its triangles in their leaves' order.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the mesh uses a leaf test other than [`LeafTest::Watertight`] (the
    /// one the shader runs) or is larger than the adapter's largest buffer.
    pub fn upload(&self, mesh: impl Into<Arc<Mesh>>) -> Result<GpuMesh> {
        let mesh = mesh.into();
        if mesh.leaf_test() != LeafTest::Watertight {
            return Err(Error::Gpu {
                operation: "upload",
                message: format!(
                    "the GPU runs the watertight test; this mesh uses {:?}",
                    mesh.leaf_test()
                ),
            });
        }
        let traced = traced(&mesh, &self.shared.options);
        let layout = layout::of(&traced, self.shared.options.order)?;
        let cuda = self.cuda_copy(&layout)?;
        // wgpu's copy now where wgpu answers everything, so that a mesh too large for the
        // adapter is refused here; with CUDA, at the first query only wgpu answers.
        let wgpu_copy = OnceLock::new();
        if cuda.is_none() {
            let _ = wgpu_copy.set(self.buffers_of(&layout)?);
        }
        Ok(GpuMesh {
            gpu: self.clone(),
            traceable: layout::traceable(&mesh),
            mesh,
            traced,
            wgpu_copy,
            cuda,
            triangle_ids: layout.triangle_ids,
            hit_capacity: DEFAULT_HIT_CAPACITY,
            workspace: Mutex::new(None),
            rays: AtomicU64::new(0),
            finished_on_cpu: AtomicU64::new(0),
            unit_normals: OnceLock::new(),
        })
    }

    /// The node and triangle buffers holding `layout`.
    pub(super) fn buffers_of(&self, layout: &Layout) -> Result<WgpuCopy> {
        Ok(WgpuCopy {
            nodes: self.storage("nodes", bytemuck::cast_slice(&layout.nodes))?,
            triangles: self.storage("triangles", bytemuck::cast_slice(&layout.triangles))?,
        })
    }

    /// The layout where the CUDA back end reads it, if it is open.
    fn cuda_copy(&self, layout: &Layout) -> Result<Option<CudaMesh>> {
        self.shared
            .cuda
            .as_ref()
            .map(|cuda| cuda.upload(layout))
            .transpose()
    }

    /// A read-only storage buffer holding `bytes` (at least 32, one ray, so that empty data
    /// binds).
    pub(super) fn storage(&self, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
        let shared = &self.shared;
        let limit = shared.device.limits().max_storage_buffer_binding_size;
        if bytes.len() as u64 > limit {
            return Err(Error::Gpu {
                operation: "upload",
                message: format!(
                    "{label} take {} bytes; {} allows {limit} in one buffer",
                    bytes.len(),
                    shared.info.name
                ),
            });
        }
        let mut padded = [0u8; 32];
        let contents = if bytes.len() < padded.len() {
            padded[..bytes.len()].copy_from_slice(bytes);
            &padded[..]
        } else {
            bytes
        };
        checked(&shared.device, "upload", || {
            shared
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                })
        })
    }
}

impl GpuMesh {
    /// Moves the vertices (a deforming mesh): the CPU mesh is refitted (rebuilt only if a
    /// triangle became or stopped being degenerate, as [`Mesh::set_positions`] does) and the
    /// GPU copy replaced, with no tree built on the GPU.
    ///
    /// # Errors
    /// As [`Mesh::set_positions`]; [`Error::Gpu`] if the buffers cannot be made.
    pub fn set_positions(&mut self, positions: &[[f32; 3]]) -> Result<()> {
        let own_tree = Arc::ptr_eq(&self.mesh, &self.traced);
        Arc::make_mut(&mut self.mesh).set_positions(positions)?;
        if own_tree {
            self.traced = Arc::clone(&self.mesh);
        } else {
            Arc::make_mut(&mut self.traced).set_positions(positions)?;
        }
        let queue = &self.gpu.shared.queue;
        let layout = layout::of(&self.traced, self.gpu.shared.options.order)?;
        let node_bytes: &[u8] = bytemuck::cast_slice(&layout.nodes);
        let triangle_bytes: &[u8] = bytemuck::cast_slice(&layout.triangles);
        if let Some(copy) = self.wgpu_copy.get_mut() {
            if node_bytes.len() as u64 == copy.nodes.size()
                && triangle_bytes.len() as u64 == copy.triangles.size()
            {
                // Refitted: the same sizes, written in place.
                queue.write_buffer(&copy.nodes, 0, node_bytes);
                queue.write_buffer(&copy.triangles, 0, triangle_bytes);
            } else {
                *copy = self.gpu.buffers_of(&layout)?;
                // The workspace's bindings name the old buffers.
                *self
                    .workspace
                    .get_mut()
                    .unwrap_or_else(PoisonError::into_inner) = None;
            }
        }
        self.cuda = self.gpu.cuda_copy(&layout)?;
        self.unit_normals = OnceLock::new();
        self.triangle_ids = layout.triangle_ids;
        self.traceable = layout::traceable(&self.mesh);
        Ok(())
    }
}

/// The mesh whose tree the GPU walks: `mesh`, or, where [`GpuOptions::leaf`] asks for other
/// leaves, the same triangles built into a tree for the GPU.
pub(crate) fn traced(mesh: &Arc<Mesh>, options: &GpuOptions) -> Arc<Mesh> {
    let leaf = options.leaf.unwrap_or(0) as usize;
    if leaf == 0 {
        return Arc::clone(mesh);
    }
    let options = BuildOptions {
        max_leaf_primitives: leaf,
        ..mesh.build_options()
    };
    Arc::new(Mesh::from_tri_mesh(mesh.tri_mesh().clone(), &options))
}
