//! The GPU's copy of a mesh: the CPU's wide tree renumbered into compressed 80-byte nodes
//! (Ylitie, Karras, Laine 2017), each node's leaves' triangles together, with what the shader
//! and the host exchange per ray.

use crate::error::{Error, Result};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use meshcast_bvh::{WideBvh, WideLane, WideNode, PADDING_SLOT, WIDE_WIDTH};
use meshcast_mesh::Mesh;
use meshcast_primitives::{Aabb, Ray};

use crate::kernel::ChildOrder;
use crate::quantization::{self, EMPTY_STEPS};

/// The magnitude beyond which the shader's arithmetic could overflow (2^28): a mesh with a
/// coordinate beyond it is answered on the CPU whole, a ray whose origin lies beyond it is
/// handed to the CPU (`shader/shared.wgsl`'s `COORD_LIMIT`).
pub(crate) const COORD_LIMIT: f32 = 268_435_456.0;

/// The magnitude below which a non-zero coordinate could be flushed to zero by the GPU
/// (2^-100; `shader/shared.wgsl`'s `TINY`).
pub(crate) const COORD_FLOOR: f32 = 7.888_609e-31;

/// How far a reported `t` may lie from the CPU's, relative to it (2^-12; `shader/shared.wgsl`'s
/// `T_REPORT_BOUND`): a hit that cannot promise it is answered on the CPU.
pub const T_ERROR_BOUND: f32 = 2.441_406_3e-4;

/// How far a reported `u` or `v` may lie from the CPU's (2^-8; `shader/shared.wgsl`'s `UV_BOUND`):
/// a hit that cannot promise it, a grazing one, is answered on the CPU.
pub const UV_ERROR_BOUND: f32 = 3.906_25e-3;

/// The most triangles a leaf of a traced mesh holds: a lane's count is one byte. The default
/// builds make leaves of at most 8; a mesh built with larger ones is answered on the CPU.
pub(crate) const MAX_LEAF_TRIANGLES: usize = u8::MAX as usize;

/// The closest-hit answer of a ray that hits nothing.
pub(crate) const NO_TRIANGLE: u32 = u32::MAX;

/// The closest-hit answer of a ray the shader leaves to the host.
pub(crate) const FLAGGED: u32 = u32::MAX - 1;

/// One compressed node as the shader reads it (`shader/inputs.wgsl`'s `Node`): the lanes' boxes on a
/// grid of eight bits per axis (`quantization.rs`), and where the lanes' children and
/// triangles are, relative to the node's first child and first triangle.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct GpuNode {
    /// Per axis, the grid's origin.
    origin: [f32; 3],
    /// Per axis, the grid's step `2^(b - 127)` as its biased `f32` exponent `b`.
    exponents: [u8; 3],
    /// Bit `lane` set for a lane that holds a node.
    inner: u8,
    /// The GPU index of the node's first child node: a node lane's child is this plus the
    /// node lanes before it.
    child_base: u32,
    /// The node's first triangle: a leaf lane's first is this plus the counts before it.
    triangle_base: u32,
    /// A leaf lane's triangle count (1 to 255); 0 for node lanes and empty lanes.
    counts: [u8; WIDE_WIDTH],
    /// Plane `p` (min x, y, z, max x, y, z) of lanes `4h..4h + 4` is `steps[2p + h]`, in
    /// grid steps from the origin, a byte per lane, rounded outwards.
    steps: [[u8; 4]; 12],
}

const _: () = assert!(core::mem::size_of::<GpuNode>() == 80);

impl GpuNode {
    /// A node whose every lane is empty: the root of a layout with nothing to trace, so that
    /// the node buffer always holds node 0.
    fn empty() -> Self {
        let mut node = Self::zeroed();
        node.set_steps(&[EMPTY_STEPS; WIDE_WIDTH]);
        node
    }

    /// `node`'s lanes on their grid, lane `lane` holding the CPU's lane `lanes[lane]`, with
    /// the children and triangles placed where the layout put them.
    fn compressed(
        node: &WideNode,
        lanes: &[usize; WIDE_WIDTH],
        child_base: u32,
        triangle_base: u32,
        counts: [u8; 8],
    ) -> Self {
        let boxes = lanes.map(|cpu_lane| match node.lane(cpu_lane) {
            WideLane::Empty => Aabb::EMPTY,
            _ => node.bounds(cpu_lane),
        });
        let grid = quantization::grid(boxes);
        let inner = (0..WIDE_WIDTH)
            .filter(|&lane| matches!(node.lane(lanes[lane]), WideLane::Node(_)))
            .fold(0u8, |mask, lane| mask | 1 << lane);
        let mut gpu = Self {
            origin: grid.map(|axis| axis.origin),
            exponents: grid.map(|axis| axis.exponent_byte()),
            inner,
            child_base,
            triangle_base,
            counts,
            steps: [[0; 4]; 12],
        };
        gpu.set_steps(&boxes.map(|bounds| quantization::steps(&grid, bounds)));
        gpu
    }

    fn set_steps(&mut self, lanes: &[([u8; 3], [u8; 3]); WIDE_WIDTH]) {
        for (lane, (lo, hi)) in lanes.iter().enumerate() {
            let (half, sub) = (lane / 4, lane % 4);
            for axis in 0..3 {
                self.steps[2 * axis + half][sub] = lo[axis];
                self.steps[2 * (axis + 3) + half][sub] = hi[axis];
            }
        }
    }

    /// What `lane` holds as the shader reads it: a node by GPU index, a range of GPU
    /// triangles (each index computed without overflow), or nothing.
    fn lane(&self, lane: usize) -> GpuLane {
        let below = (1u32 << lane) - 1;
        if self.inner >> lane & 1 == 1 {
            let rank = (u32::from(self.inner) & below).count_ones();
            return GpuLane::Node(u64::from(self.child_base) + u64::from(rank));
        }
        let count = u64::from(self.counts[lane]);
        if count == 0 {
            return GpuLane::Empty;
        }
        let before: u64 = self.counts[..lane].iter().map(|&c| u64::from(c)).sum();
        let first = u64::from(self.triangle_base) + before;
        GpuLane::Leaf(first, first + count)
    }

    /// The box of `lane` exactly as the shader decodes it.
    #[cfg(test)]
    fn decoded(&self, lane: usize) -> Aabb {
        let (half, sub) = (lane / 4, lane % 4);
        let axis = |axis: usize| quantization::Axis {
            origin: self.origin[axis],
            exponent: i32::from(self.exponents[axis]) - 127,
        };
        let plane = |p: usize| axis(p % 3).decode(self.steps[2 * p + half][sub]);
        Aabb::new(
            Vec3::new(plane(0), plane(1), plane(2)),
            Vec3::new(plane(3), plane(4), plane(5)),
        )
    }
}

/// What a lane of a [`GpuNode`] holds, as [`GpuNode::lane`] decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GpuLane {
    Node(u64),
    /// GPU triangles `first..end`.
    Leaf(u64, u64),
    Empty,
}

/// One triangle as the shader reads it (`shader/inputs.wgsl`'s `tris`, nine floats): its corners.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct GpuTriangle {
    corners: [[f32; 3]; 3],
}

const _: () = assert!(core::mem::size_of::<GpuTriangle>() == 36);

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

    /// The ray laid out here: `GpuRay::of(&ray).ray() == ray`, bit for bit.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn ray(&self) -> Ray {
        let [ox, oy, oz, t_min] = self.origin;
        let [dx, dy, dz, t_max] = self.dir;
        Ray::new(Vec3::new(ox, oy, oz), Vec3::new(dx, dy, dz)).with_range(t_min, t_max)
    }
}

/// The dispatch's parameters (`shader/inputs.wgsl`'s `Params`).
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
    /// 1 when hits on back faces are skipped.
    pub(crate) culling: u32,
    /// Every hit: 0 to list every hit, or the first `keep` (at most `cap`) in hit order.
    pub(crate) keep: u32,
    pub(crate) _pad: [u32; 3],
    pub(crate) eye: [f32; 4],
    pub(crate) forward: [f32; 4],
    pub(crate) right: [f32; 4],
    pub(crate) up: [f32; 4],
}

/// A mesh as the shader reads it: the nodes (the root first), the triangles, and for each
/// GPU triangle the mesh's triangle, which the host reports.
pub(crate) struct Layout {
    pub(crate) nodes: Vec<GpuNode>,
    pub(crate) triangles: Vec<GpuTriangle>,
    pub(crate) triangle_ids: Vec<u32>,
}

/// The layout of `mesh` for a kernel that visits children in `order`, checked
/// ([`in_bounds`]): the kernel runs without wgpu's bounds checks. A mesh the shader cannot
/// trace ([`traceable`]) or with no triangle gets a lone empty root.
pub(crate) fn of(mesh: &Mesh, order: ChildOrder) -> Result<Layout> {
    let layout = if traceable(mesh) {
        renumbered(mesh, order)?
    } else {
        Layout {
            nodes: vec![GpuNode::empty()],
            triangles: Vec::new(),
            triangle_ids: Vec::new(),
        }
    };
    if !in_bounds(&layout.nodes, layout.triangles.len()) {
        return Err(stray("the tree indexes past its nodes or triangles"));
    }
    Ok(layout)
}

/// The CPU's tree with the same nodes and leaves, numbered for the GPU: each node's child
/// nodes are given consecutive indices, in lane order, when the node is laid out, and the
/// children are laid out from the last lane's to the first's (the order of the CPU's
/// collapse, so that the numbering is usually the CPU's own); each node's leaves' triangles
/// follow one another, in lane order, without the CPU's padding slots. The lanes are the
/// CPU's, or for [`ChildOrder::Octant`] the CPU's placed by [`lane_order`].
fn renumbered(mesh: &Mesh, order: ChildOrder) -> Result<Layout> {
    let wide: &WideBvh = mesh.bvh();
    let cpu = wide.nodes();
    let mut layout = Layout {
        nodes: vec![GpuNode::empty()],
        triangles: Vec::with_capacity(mesh.triangle_count()),
        triangle_ids: Vec::with_capacity(mesh.triangle_count()),
    };
    if cpu.is_empty() {
        return Ok(layout);
    }
    let (positions, indices) = (mesh.tri_mesh().positions(), mesh.tri_mesh().indices());
    // The CPU index of each GPU node, and which CPU nodes have one: a node reached twice
    // would be laid out twice (and a cycle forever).
    let mut cpu_of = vec![0u32];
    let mut reached = vec![false; cpu.len()];
    reached[0] = true;
    let mut stack = vec![0u32];
    while let Some(index) = stack.pop() {
        let node = &cpu[cpu_of[index as usize] as usize];
        let child_base = cpu_of.len() as u32;
        let triangle_base = layout.triangles.len() as u32;
        let lanes = lane_order(node, order);
        let mut counts = [0u8; WIDE_WIDTH];
        for (count, &cpu_lane) in counts.iter_mut().zip(&lanes) {
            match node.lane(cpu_lane) {
                WideLane::Node(child) => {
                    match reached.get_mut(child as usize) {
                        Some(seen) if !*seen => *seen = true,
                        _ => return Err(stray("a node lane names no new node")),
                    }
                    cpu_of.push(child);
                    layout.nodes.push(GpuNode::empty());
                }
                WideLane::Leaf(slots) => {
                    let order = &wide.primitive_order()[slots.start as usize..slots.end as usize];
                    let before = layout.triangles.len();
                    for &triangle in order.iter().filter(|&&t| t != PADDING_SLOT) {
                        let [a, b, c] = indices[triangle as usize].map(|i| positions[i as usize]);
                        layout.triangles.push(GpuTriangle {
                            corners: [a.to_array(), b.to_array(), c.to_array()],
                        });
                        layout.triangle_ids.push(triangle);
                    }
                    *count = u8::try_from(layout.triangles.len() - before)
                        .map_err(|_| stray("a leaf holds more than 255 triangles"))?;
                }
                WideLane::Empty => {}
            }
        }
        layout.nodes[index as usize] =
            GpuNode::compressed(node, &lanes, child_base, triangle_base, counts);
        stack.extend(child_base..cpu_of.len() as u32);
    }
    Ok(layout)
}

/// The CPU lane that each GPU lane of `node` holds: the CPU's own order for
/// [`ChildOrder::Distance`]; for [`ChildOrder::Octant`], each child in the lane whose bits are
/// the signs (set for positive x, y, z) of the corner its box's centre lies towards from the
/// centre of the node's, the best-placed remaining child and lane first (Ylitie et al.'s
/// greedy assignment), the empty lanes after.
fn lane_order(node: &WideNode, order: ChildOrder) -> [usize; WIDE_WIDTH] {
    let mut lanes: [usize; WIDE_WIDTH] = std::array::from_fn(|lane| lane);
    if order == ChildOrder::Distance {
        return lanes;
    }
    let used: Vec<usize> = (0..WIDE_WIDTH)
        .filter(|&lane| node.lane(lane) != WideLane::Empty)
        .collect();
    let centre = used
        .iter()
        .fold(Aabb::EMPTY, |union, &lane| union.union(node.bounds(lane)))
        .centroid();
    let offsets: Vec<Vec3> = used
        .iter()
        .map(|&lane| node.bounds(lane).centroid() - centre)
        .collect();
    let toward = |offset: Vec3, slot: usize| {
        (0..3)
            .map(|axis| {
                if slot >> axis & 1 == 1 {
                    offset[axis]
                } else {
                    -offset[axis]
                }
            })
            .sum::<f32>()
    };
    let mut slots: [Option<usize>; WIDE_WIDTH] = [None; WIDE_WIDTH];
    let mut placed = vec![false; used.len()];
    for _ in 0..used.len() {
        let mut best: Option<(usize, usize, f32)> = None;
        for (child, offset) in offsets.iter().enumerate().filter(|&(c, _)| !placed[c]) {
            for slot in (0..WIDE_WIDTH).filter(|&s| slots[s].is_none()) {
                let score = toward(*offset, slot);
                if best.is_none_or(|(_, _, b)| score.total_cmp(&b).is_gt()) {
                    best = Some((child, slot, score));
                }
            }
        }
        let (child, slot, _) = best.expect("a child and a lane are left");
        slots[slot] = Some(used[child]);
        placed[child] = true;
    }
    let mut empty = (0..WIDE_WIDTH).filter(|lane| !used.contains(lane));
    for (lane, slot) in lanes.iter_mut().zip(slots) {
        *lane = slot
            .or_else(|| empty.next())
            .expect("eight lanes for eight slots");
    }
    lanes
}

fn stray(message: &str) -> Error {
    Error::Gpu {
        operation: "upload",
        message: message.into(),
    }
}

/// Whether the shader's indices into `nodes` and `triangles` triangles stay in bounds, its
/// `u32` arithmetic does not wrap, and its walk ends (`unchecked.rs`): there is a root,
/// `node * 8 + lane` and `9 * triangle + 8` fit in a `u32`, every node lane's child lies
/// after its parent and within `nodes`, and every leaf lane's triangles within `triangles`.
pub(crate) fn in_bounds(nodes: &[GpuNode], triangles: usize) -> bool {
    let fits = !nodes.is_empty() && nodes.len() <= 1 << 29 && triangles <= u32::MAX as usize / 9;
    fits && nodes.iter().enumerate().all(|(parent, node)| {
        (0..WIDE_WIDTH).all(|lane| match node.lane(lane) {
            GpuLane::Node(child) => child > parent as u64 && child < nodes.len() as u64,
            GpuLane::Leaf(_, end) => end <= triangles as u64,
            GpuLane::Empty => true,
        })
    })
}

/// Whether the shader can trace `mesh`: every coordinate zero or of a magnitude within
/// [`COORD_FLOOR`, `COORD_LIMIT`], so that no arithmetic overflows or meets a subnormal
/// that the GPU may flush, and no leaf of more than [`MAX_LEAF_TRIANGLES`]. A mesh outside
/// it is answered on the CPU.
pub(crate) fn traceable(mesh: &Mesh) -> bool {
    let coordinates = mesh.tri_mesh().positions().iter().all(|p| {
        p.to_array()
            .iter()
            .all(|&x| x == 0.0 || (COORD_FLOOR..=COORD_LIMIT).contains(&x.abs()))
    });
    let wide = mesh.bvh();
    coordinates
        && wide.nodes().iter().all(|node| {
            (0..WIDE_WIDTH).all(|lane| match node.lane(lane) {
                WideLane::Leaf(slots) => {
                    let order = &wide.primitive_order()[slots.start as usize..slots.end as usize];
                    order.iter().filter(|&&t| t != PADDING_SLOT).count() <= MAX_LEAF_TRIANGLES
                }
                _ => true,
            })
        })
}

#[cfg(test)]
mod tests {
    use meshcast::{MeshFiles, TriMesh};
    use meshcast_bvh::BuildOptions;
    use meshcast_testkit::{all_assets, icosphere};

    use super::*;

    /// The value of the shared constant `name` (`shader/shared.wgsl`).
    fn shared(name: &str) -> f64 {
        include_str!("shader/shared.wgsl")
            .lines()
            .find_map(|line| {
                let value = line.strip_prefix("const ")?.strip_prefix(name)?;
                let value = value.split_once(" = ")?.1.split_once(';')?.0;
                Some(match value.strip_suffix('u') {
                    Some(hex) if hex.starts_with("0x") => {
                        f64::from(u32::from_str_radix(&hex[2..], 16).expect("hex"))
                    }
                    Some(decimal) => decimal.parse().expect("u32"),
                    None => f64::from(value.parse::<f32>().expect("f32")),
                })
            })
            .unwrap_or_else(|| panic!("no `const {name}` in shader/shared.wgsl"))
    }

    /// The host's copies of the kernels' constants are theirs.
    #[test]
    fn the_host_reads_the_kernels_constants() {
        assert_eq!(f64::from(COORD_LIMIT), shared("COORD_LIMIT"));
        assert_eq!(f64::from(COORD_FLOOR), shared("TINY"));
        assert_eq!(f64::from(T_ERROR_BOUND), shared("T_REPORT_BOUND"));
        assert_eq!(f64::from(UV_ERROR_BOUND), shared("UV_BOUND"));
        assert_eq!(f64::from(NO_TRIANGLE), shared("NO_TRIANGLE"));
        assert_eq!(f64::from(FLAGGED), shared("FLAGGED"));
    }

    /// Walks the GPU layout for `order` beside the CPU's tree from their roots: the same
    /// nodes, each GPU lane the CPU lane [`lane_order`] puts there (a permutation), the same
    /// leaves in the same order without padding, every decoded box containing the CPU's box;
    /// returns the nodes reached.
    fn same_tree(mesh: &Mesh, layout: &Layout, order: ChildOrder) -> usize {
        let wide = mesh.bvh();
        let mut stack = vec![(0usize, 0usize)];
        let mut reached = 0;
        while let Some((gpu, cpu)) = stack.pop() {
            reached += 1;
            let (gpu_node, cpu_node) = (&layout.nodes[gpu], &wide.nodes()[cpu]);
            let lanes = lane_order(cpu_node, order);
            let mut sorted = lanes;
            sorted.sort_unstable();
            assert_eq!(sorted, std::array::from_fn(|lane| lane), "{lanes:?}");
            for (lane, cpu_lane) in lanes.into_iter().enumerate() {
                let exact = cpu_node.bounds(cpu_lane);
                match (gpu_node.lane(lane), cpu_node.lane(cpu_lane)) {
                    (GpuLane::Node(child), WideLane::Node(cpu_child)) => {
                        stack.push((child as usize, cpu_child as usize));
                    }
                    (GpuLane::Leaf(first, end), WideLane::Leaf(slots)) => {
                        let want: Vec<u32> = wide.primitive_order()
                            [slots.start as usize..slots.end as usize]
                            .iter()
                            .copied()
                            .filter(|&t| t != PADDING_SLOT)
                            .collect();
                        assert_eq!(layout.triangle_ids[first as usize..end as usize], want);
                    }
                    (GpuLane::Empty, WideLane::Empty) => continue,
                    (gpu_lane, cpu_lane) => panic!("lane {lane}: {gpu_lane:?}, {cpu_lane:?}"),
                }
                let decoded = gpu_node.decoded(lane);
                assert!(
                    decoded.contains_box(&exact),
                    "node {gpu} lane {lane}: {decoded:?} lacks {exact:?}"
                );
            }
        }
        reached
    }

    /// The layout of every asset, for either order, is its CPU tree renumbered, every
    /// decoded box holds its exact box, and every triangle is laid out once.
    #[test]
    fn every_asset_is_its_cpu_tree_with_boxes_that_contain_the_exact_ones() {
        for path in all_assets() {
            let mesh = Mesh::from_path(&path).expect("asset");
            for order in [ChildOrder::Distance, ChildOrder::Octant] {
                let layout = of(&mesh, order).expect("in bounds");
                let reached = same_tree(&mesh, &layout, order);
                assert_eq!(reached, mesh.bvh().nodes().len(), "{path:?}");
                assert_eq!(layout.nodes.len(), mesh.bvh().nodes().len());
                let mut ids = layout.triangle_ids.clone();
                ids.sort_unstable();
                ids.dedup();
                assert_eq!(ids.len(), layout.triangles.len(), "{path:?}");
            }
        }
    }

    /// Eight triangles at the eight corners of a cube: the octant order puts each in the
    /// root's lane of its corner (bit i set for positive coordinate i).
    #[test]
    fn the_octant_order_puts_each_child_in_its_corner() {
        let mut positions = Vec::new();
        let mut indices = Vec::new();
        for corner in 0..8u32 {
            let sign = |axis: u32| if corner >> axis & 1 == 1 { 10.0 } else { -10.0 };
            let p = [sign(0), sign(1), sign(2)];
            let base = positions.len() as u32;
            positions.extend([p, [p[0] + 1.0, p[1], p[2]], [p[0], p[1] + 1.0, p[2]]]);
            indices.push([base, base + 1, base + 2]);
        }
        let one_per_leaf = BuildOptions {
            max_leaf_primitives: 1,
            ..BuildOptions::default()
        };
        let corners = TriMesh::from_triangles(&positions, &indices).expect("corners");
        let mesh = Mesh::from_tri_mesh(corners, &one_per_leaf);
        let layout = of(&mesh, ChildOrder::Octant).expect("in bounds");
        assert_eq!(layout.nodes.len(), 1, "one node of eight leaves");
        for lane in 0..WIDE_WIDTH {
            let GpuLane::Leaf(first, end) = layout.nodes[0].lane(lane) else {
                panic!("lane {lane} holds no leaf");
            };
            assert_eq!(end - first, 1);
            assert_eq!(layout.triangle_ids[first as usize], lane as u32);
        }
    }

    /// A mesh the shader cannot trace (a leaf too large, a coordinate too far) is laid out
    /// as a lone empty root; an empty mesh too.
    #[test]
    fn untraceable_and_empty_meshes_get_an_empty_root() {
        // Three hundred copies of one triangle, which no split tells apart.
        let one_leaf = BuildOptions {
            max_leaf_primitives: 1000,
            ..BuildOptions::default()
        };
        let corners = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let copies = TriMesh::from_triangles(&corners, &[[0, 1, 2]; 300]).expect("copies");
        let big_leaf = Mesh::from_tri_mesh(copies, &one_leaf);
        let far =
            Mesh::from_triangles(&[[0.0; 3], [1e30, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
                .expect("far");
        let empty = Mesh::from_triangles(&[], &[]).expect("empty");
        assert!(traceable(&empty) && !traceable(&far) && !traceable(&big_leaf));
        for mesh in [big_leaf, far, empty] {
            let layout = of(&mesh, ChildOrder::Distance).expect("in bounds");
            assert_eq!((layout.nodes.len(), layout.triangles.len()), (1, 0));
            assert!((0..WIDE_WIDTH).all(|lane| layout.nodes[0].lane(lane) == GpuLane::Empty));
        }
    }

    /// The check the unchecked kernel leans on passes real trees and catches every index
    /// that would leave its buffer or walk back up the tree.
    #[test]
    fn in_bounds_catches_every_stray_index() {
        let mesh = Mesh::from_tri_mesh(icosphere(3), &Default::default());
        let layout = of(&mesh, ChildOrder::Distance).expect("a built tree is in bounds");
        let (nodes, triangles) = (layout.nodes, layout.triangles.len());
        assert!(nodes.len() > 1 && in_bounds(&nodes, triangles));
        assert!(!in_bounds(&[], 0));
        assert!(!in_bounds(&nodes, u32::MAX as usize / 9 + 1));
        // A child at the end, at its parent, before it, and past the end by wrapping.
        let parent = (0..nodes.len())
            .find(|&i| nodes[i].inner != 0)
            .expect("a node with a child");
        let rank = nodes[parent].inner.count_ones();
        let last = nodes.len() as u32 - rank;
        for base in [last + 1, parent as u32, 0, u32::MAX] {
            let mut bad = nodes.clone();
            bad[parent].child_base = base;
            assert!(!in_bounds(&bad, triangles), "child base {base}");
        }
        // Triangles past the end, by the base, by the count, and by wrapping.
        let (node, lane) = nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| (0..WIDE_WIDTH).find(|&l| n.counts[l] != 0).map(|l| (i, l)))
            .expect("a leaf lane");
        let before: u32 = nodes[node].counts[..lane]
            .iter()
            .map(|&c| u32::from(c))
            .sum();
        for (first, count) in [
            (triangles as u32, 1),
            (triangles as u32 - 1, 2),
            (triangles as u32 - 200, 255),
            (u32::MAX, 1),
        ] {
            let mut bad = nodes.clone();
            bad[node].triangle_base = first.wrapping_sub(before);
            bad[node].counts[lane] = count;
            assert!(!in_bounds(&bad, triangles), "triangles {first}+{count}");
        }
    }
}
