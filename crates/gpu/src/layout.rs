//! The GPU's copy of a mesh: the CPU's wide tree node for node, and the triangles' corners in
//! leaf-slot order, with what the shader and the host exchange per ray.

use bytemuck::{Pod, Zeroable};
use meshcast_bvh::{WideLane, WideNode, PADDING_SLOT, WIDE_WIDTH};
use meshcast_mesh::{Error, Mesh, Result};
use meshcast_primitives::Ray;

/// The magnitude beyond which the shader's arithmetic could overflow (2^28): a mesh with a
/// coordinate beyond it is answered on the CPU whole, a ray whose origin lies beyond it is
/// handed to the CPU (`trace.wgsl`'s `COORD_LIMIT`).
pub(crate) const COORD_LIMIT: f32 = 268_435_456.0;

/// The magnitude below which a non-zero coordinate could be flushed to zero by the GPU
/// (2^-100; `trace.wgsl`'s `TINY`).
pub(crate) const COORD_FLOOR: f32 = 7.888_609e-31;

/// How far a reported `t` may lie from the CPU's, relative to it (2^-12; `trace.wgsl`'s
/// `T_REPORT_BOUND`): a hit that cannot promise it is answered on the CPU.
pub const T_ERROR_BOUND: f32 = 2.441_406_3e-4;

/// How far a reported `u` or `v` may lie from the CPU's (2^-8; `trace.wgsl`'s `UV_BOUND`):
/// a hit that cannot promise it, a grazing one, is answered on the CPU.
pub const UV_ERROR_BOUND: f32 = 3.906_25e-3;

/// A triangle slot's triangle index when the slot pads a leaf.
pub(crate) const NO_TRIANGLE: u32 = u32::MAX;

/// The closest-hit answer of a ray the shader leaves to the host.
pub(crate) const FLAGGED: u32 = u32::MAX - 1;

/// One node as the shader reads it (`trace.wgsl`'s `Node`): the six planes of eight lanes,
/// then each lane's offset and count, as [`WideNode`] holds them.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct GpuNode {
    planes: [[f32; 4]; 12],
    offset: [u32; WIDE_WIDTH],
    count: [u32; WIDE_WIDTH],
}

const _: () = assert!(core::mem::size_of::<GpuNode>() == 256);

impl GpuNode {
    fn of(node: &WideNode) -> Self {
        let mut gpu = Self::zeroed();
        for lane in 0..WIDE_WIDTH {
            let bounds = node.bounds(lane);
            let (half, sub) = (lane / 4, lane % 4);
            for axis in 0..3 {
                gpu.planes[2 * axis + half][sub] = bounds.min[axis];
                gpu.planes[2 * (axis + 3) + half][sub] = bounds.max[axis];
            }
            (gpu.offset[lane], gpu.count[lane]) = match node.lane(lane) {
                WideLane::Node(child) => (child, 0),
                WideLane::Leaf(slots) => (slots.start, slots.end - slots.start),
                WideLane::Empty => (0, u32::MAX),
            };
        }
        gpu
    }
}

/// One ray as the shader reads it (`RayIn`): the origin and `t_min`, the direction and
/// `t_max`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct GpuRay {
    origin: [f32; 4],
    dir: [f32; 4],
}

impl GpuRay {
    pub(crate) fn of(ray: &Ray) -> Self {
        let (o, d) = (ray.origin, ray.dir);
        Self {
            origin: [o.x, o.y, o.z, ray.t_min],
            dir: [d.x, d.y, d.z, ray.t_max],
        }
    }
}

/// The dispatch's parameters (`trace.wgsl`'s `Params`).
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(crate) struct Params {
    pub(crate) ray_count: u32,
    pub(crate) cap: u32,
    pub(crate) row: u32,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) camera: u32,
    pub(crate) first: u32,
    pub(crate) _pad: u32,
    pub(crate) eye: [f32; 4],
    pub(crate) forward: [f32; 4],
    pub(crate) right: [f32; 4],
    pub(crate) up: [f32; 4],
}

/// The nodes and the triangles of `mesh` as the shader reads them, checked
/// ([`in_bounds`]): the kernel runs without wgpu's bounds checks.
pub(crate) fn of(mesh: &Mesh) -> Result<(Vec<GpuNode>, Vec<[f32; 4]>)> {
    let (nodes, triangles) = (nodes(mesh), triangles(mesh));
    if !in_bounds(&nodes, triangles.len() / 3) {
        return Err(Error::Gpu {
            operation: "upload",
            message: "the tree indexes past its nodes or triangles".into(),
        });
    }
    Ok((nodes, triangles))
}

fn nodes(mesh: &Mesh) -> Vec<GpuNode> {
    mesh.bvh().nodes().iter().map(GpuNode::of).collect()
}

/// Whether the shader's indices into `nodes` and the triangles of `slots` leaf slots stay in
/// bounds and its walk ends (`unchecked.rs`): every node lane's child lies after its parent
/// and within `nodes`, every leaf lane's slots within `slots`.
pub(crate) fn in_bounds(nodes: &[GpuNode], slots: usize) -> bool {
    nodes.iter().enumerate().all(|(parent, node)| {
        (0..WIDE_WIDTH).all(|lane| {
            let (offset, count) = (node.offset[lane] as usize, node.count[lane]);
            match count {
                0 => offset > parent && offset < nodes.len(),
                u32::MAX => true,
                count => offset
                    .checked_add(count as usize)
                    .is_some_and(|end| end <= slots),
            }
        })
    })
}

/// Three `vec4`s per leaf slot: the corners, the first one's `w` holding the triangle's
/// index ([`NO_TRIANGLE`] for padding).
fn triangles(mesh: &Mesh) -> Vec<[f32; 4]> {
    let tri_mesh = mesh.tri_mesh();
    let (positions, indices) = (tri_mesh.positions(), tri_mesh.indices());
    let mut corners = Vec::with_capacity(3 * mesh.bvh().primitive_order().len());
    for &triangle in mesh.bvh().primitive_order() {
        if triangle == PADDING_SLOT {
            let padding = [0.0, 0.0, 0.0, f32::from_bits(NO_TRIANGLE)];
            corners.extend([padding, [0.0; 4], [0.0; 4]]);
            continue;
        }
        let [a, b, c] = indices[triangle as usize].map(|i| positions[i as usize]);
        corners.extend([
            [a.x, a.y, a.z, f32::from_bits(triangle)],
            [b.x, b.y, b.z, 0.0],
            [c.x, c.y, c.z, 0.0],
        ]);
    }
    corners
}

/// Whether the shader can trace `mesh`: every coordinate zero or of a magnitude within
/// [`COORD_FLOOR`, `COORD_LIMIT`], so that no arithmetic overflows or meets a subnormal
/// that the GPU may flush. A mesh outside it is answered on the CPU.
pub(crate) fn traceable(mesh: &Mesh) -> bool {
    mesh.tri_mesh().positions().iter().all(|p| {
        p.to_array()
            .iter()
            .all(|&x| x == 0.0 || (COORD_FLOOR..=COORD_LIMIT).contains(&x.abs()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check the unchecked kernel leans on passes real trees and catches every index
    /// that would leave its buffer or walk back up the tree.
    #[test]
    fn in_bounds_catches_every_stray_index() {
        let mesh = Mesh::from_tri_mesh(meshcast_testkit::icosphere(3), &Default::default());
        let (nodes, triangles) = of(&mesh).expect("a built tree is in bounds");
        let slots = triangles.len() / 3;
        assert!(nodes.len() > 1 && in_bounds(&nodes, slots));
        let (node, lane) = nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| (0..WIDE_WIDTH).find(|&l| n.count[l] == 0).map(|l| (i, l)))
            .expect("an inner lane");
        for stray in [nodes.len() as u32, node as u32, 0] {
            let mut bad = nodes.clone();
            bad[node].offset[lane] = stray;
            assert!(!in_bounds(&bad, slots), "child {stray}");
        }
        let (node, lane) = nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| {
                (0..WIDE_WIDTH)
                    .find(|&l| n.count[l] != 0 && n.count[l] != u32::MAX)
                    .map(|l| (i, l))
            })
            .expect("a leaf lane");
        for (offset, count) in [(slots as u32, 4), (slots as u32 - 3, 4), (u32::MAX - 1, 4)] {
            let mut bad = nodes.clone();
            bad[node].offset[lane] = offset;
            bad[node].count[lane] = count;
            assert!(!in_bounds(&bad, slots), "slots {offset}+{count}");
        }
    }
}
