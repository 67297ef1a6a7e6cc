//! The fast builder: a linear BVH over centroids sorted along a Morton curve (Lauterbach,
//! Garland, Sengupta, Luebke, Manocha, *Fast BVH Construction on GPUs*, 2009; Karras,
//! *Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees*, 2012), split
//! top-down at the highest bit in which a node's first and last codes differ. No surface area
//! is evaluated; boxes are computed bottom-up once the topology is known.

use glam::{UVec3, Vec3A};
use meshcast_primitives::Aabb;
use rayon::prelude::*;

use super::driver::{build_top_down, Split, Splitter};
use super::input::{BuildOptions, BuildPrimitive, Parallel, Prepared};
use crate::binary::{refit_nodes, Node};
use crate::memory::{try_vec, OutOfMemory};

/// Bits per axis of a Morton code (63 bits in all).
const MORTON_BITS: u32 = 21;
/// The largest leaf the fast builder makes when primitives can still be told apart: without a
/// cost model to decide, small leaves keep loosely grouped primitives out of each other's
/// boxes (bunny: SAH cost 38.1 against 31.4 for binned SAH). Raised to
/// [`BuildOptions::leaf_block`] when that is larger: a mesh pads every leaf to four
/// triangles, so leaves of two were half padding (bunny mesh, `meshcast bench --quality
/// fast`: 147 -> 82 bytes per triangle, build 16.2 -> 13.0 ms, incoherent closest hits
/// 1.7 -> 2.0 Mrays/s on one thread, coherent the same within noise).
const LBVH_LEAF_PRIMITIVES: usize = 2;
/// Inputs with fewer primitives are encoded and sorted without rayon.
const PARALLEL_SORT_PRIMITIVES: usize = 1 << 14;

/// A primitive's Morton code and original index.
#[derive(Clone, Copy, Debug)]
struct MortonPrimitive {
    code: u64,
    index: u32,
}

/// Builds the nodes and the leaf order over usable primitives; `box_of` gives the full input
/// in original order, for the final bottom-up boxes.
pub(crate) fn build(
    prepared: Prepared,
    box_of: impl Fn(usize) -> Aabb,
    options: &BuildOptions,
) -> Result<(Vec<Node>, Vec<u32>), OutOfMemory> {
    let Prepared {
        primitives: prims,
        centroids,
        ..
    } = prepared;
    let extent = centroids.max - centroids.min;
    let cells = ((1u32 << MORTON_BITS) - 1) as f32;
    let scale = Vec3A::select(
        extent.cmpgt(Vec3A::ZERO),
        Vec3A::splat(cells) / extent,
        Vec3A::ZERO,
    );
    let encode = |p: &BuildPrimitive| {
        let q = ((p.centroid() - centroids.min) * scale)
            .as_uvec3()
            .min(UVec3::splat((1 << MORTON_BITS) - 1));
        MortonPrimitive {
            code: spread_bits(q.x) | spread_bits(q.y) << 1 | spread_bits(q.z) << 2,
            index: p.index,
        }
    };
    let key = |m: &MortonPrimitive| (m.code, m.index);
    let mut items: Vec<MortonPrimitive> = try_vec(prims.len(), "the build's Morton codes")?;
    if options.parallel == Parallel::Rayon && prims.len() >= PARALLEL_SORT_PRIMITIVES {
        prims.par_iter().map(encode).collect_into_vec(&mut items);
        items.par_sort_unstable_by_key(key);
    } else {
        items.extend(prims.iter().map(encode));
        items.sort_unstable_by_key(key);
    }
    drop(prims);
    let splitter = LbvhSplitter {
        leaf: LBVH_LEAF_PRIMITIVES
            .max(options.leaf_block)
            .min(options.clamped_max_leaf()),
        max_leaf: options.clamped_max_leaf(),
    };
    let (mut nodes, order) = build_top_down(&splitter, items, (), options.parallel, |m| m.index)?;
    refit_nodes(&mut nodes, &order, box_of);
    Ok((nodes, order))
}

/// Spreads the low 21 bits of `x` to every third bit of a `u64`.
fn spread_bits(x: u32) -> u64 {
    let mut x = u64::from(x) & 0x1f_ffff;
    x = (x | x << 32) & 0x001f_0000_0000_ffff;
    x = (x | x << 16) & 0x001f_0000_ff00_00ff;
    x = (x | x << 8) & 0x100f_00f0_0f00_f00f;
    x = (x | x << 4) & 0x10c3_0c30_c30c_30c3;
    x = (x | x << 2) & 0x1249_2492_4924_9249;
    x
}

struct LbvhSplitter {
    /// Leaf size while codes differ.
    leaf: usize,
    /// Leaf size for runs of equal codes, which are split by count beyond it.
    max_leaf: usize,
}

impl Splitter for LbvhSplitter {
    type Item = MortonPrimitive;
    type Task = ();

    fn bounds(&self, _: &()) -> Aabb {
        Aabb::EMPTY
    }

    fn split(&self, items: &mut [MortonPrimitive], _: ()) -> Split<()> {
        let n = items.len();
        if n <= self.leaf {
            return Split::Leaf;
        }
        let diff = items[0].code ^ items[n - 1].code;
        let mid = if diff == 0 {
            if n <= self.max_leaf {
                return Split::Leaf;
            }
            n / 2
        } else {
            let bit = 1u64 << (63 - diff.leading_zeros());
            items.partition_point(|m| m.code & bit == 0)
        };
        Split::Node {
            mid,
            left: (),
            right: (),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_bits_interleaves() {
        assert_eq!(spread_bits(0), 0);
        assert_eq!(spread_bits(1), 1);
        assert_eq!(spread_bits(0b11), 0b1001);
        assert_eq!(spread_bits(0x1f_ffff), 0x1249_2492_4924_9249);
        for i in 0..21 {
            assert_eq!(spread_bits(1 << i), 1u64 << (3 * i));
        }
    }
}
