//! The SAH-optimal choice of wide nodes (Ylitie, Karras, Laine, *Efficient Incoherent Ray
//! Traversal on GPUs Through Compressed Wide BVHs*, HPG 2017, section 3.1): a dynamic program
//! over the binary tree, bottom up, prices every binary subtree held in at most 1 to 8 lanes;
//! `collapse.rs` then asks it, top down, for each wide node's lanes.

use arrayvec::ArrayVec;
use glam::Vec4;

use crate::binary::{Bvh, Node};
use crate::builders::{BuildOptions, Parallel, SahCost};
use crate::layout::{LEAF_ALIGNMENT, WIDE_WIDTH};
use crate::memory::{try_filled, OutOfMemory};

/// Binary levels whose two subtrees are priced in parallel (up to 2^12 tasks), so that no
/// unbalanced tree recurses deeply.
const PARALLEL_LEVELS: u32 = 12;
/// Subtrees with fewer descendants are priced on one thread.
pub(crate) const PARALLEL_DESCENDANTS: usize = 1 << 13;

/// One lane of a wide node: binary node `node`, as a leaf of `slots` (of the binary tree's
/// order) or, without slots, as a wide node of its own.
#[derive(Clone, Debug)]
pub(crate) struct Lane {
    pub node: u32,
    pub slots: Option<core::ops::Range<u32>>,
}

/// The lanes of one wide node.
pub(crate) type Lanes = ArrayVec<Lane, WIDE_WIDTH>;

/// The priced binary tree: what the top-down pass needs to choose every wide node's lanes.
pub(crate) struct SahCollapse {
    subtrees: Vec<Subtree>,
    cost: SahCost,
    /// One over the root box's area, so that costs are relative to it.
    root_area_inverse: f64,
    /// The most primitives a leaf made of a whole binary subtree holds.
    max_leaf: u32,
}

/// The dynamic program's answers for one binary node `n`.
#[derive(Clone, Copy)]
struct Subtree {
    /// `cost[i - 1]` is C(n, i): the least SAH cost (relative to the root's area) of `n`'s
    /// subtree as at most `i` lanes of a wide node, each a leaf or a wide node.
    cost: [f32; WIDE_WIDTH],
    /// Primitives in the subtree.
    count: u32,
    /// Whether C(n, 1) makes the subtree one leaf rather than one wide node.
    leaf: bool,
}

impl Subtree {
    const UNPRICED: Self = Self {
        cost: [f32::NAN; WIDE_WIDTH],
        count: 0,
        leaf: true,
    };
}

impl SahCollapse {
    /// Prices every subtree of `binary` with the costs of `options` (a node visit costs
    /// `traversal_cost` blocks of [`LEAF_ALIGNMENT`] primitive tests), on rayon if
    /// `options.parallel` says so; a leaf holds at most `max_leaf_primitives`, unless it is a
    /// binary leaf already.
    ///
    /// Why that limit: with a mesh's costs every binary subtree of up to eight primitives is
    /// a leaf already, so the wide leaves are the binary ones. Letting a leaf take subtrees
    /// of up to 12 or 16 triangles lowered the SAH cost by 0.5% on the bunny and the ogre and
    /// the nodes visited per ray by 2%, but added 7% to the blocks tested and 0.3 to 0.5% to
    /// the instructions per ray (callgrind, coherent and incoherent, closest and any hit).
    ///
    /// `None` for an empty or flat tree (a root box of zero area), where every cost is zero;
    /// [`OutOfMemory`] when the prices (one per binary node) cannot be allocated.
    pub fn new(binary: &Bvh, options: &BuildOptions) -> Result<Option<Self>, OutOfMemory> {
        let nodes = binary.nodes();
        let root_area = nodes.first().map_or(0.0, half_area);
        if root_area <= 0.0 {
            return Ok(None);
        }
        let mut collapse = Self {
            subtrees: Vec::new(),
            cost: SahCost::new(&BuildOptions {
                leaf_block: LEAF_ALIGNMENT,
                ..*options
            }),
            root_area_inverse: root_area.recip(),
            max_leaf: u32::try_from(options.clamped_max_leaf()).unwrap_or(u32::MAX),
        };
        let mut subtrees = try_filled(nodes.len(), Subtree::UNPRICED, "the collapse's prices")?;
        match nodes.first().and_then(Node::children) {
            Some([first, _]) if options.parallel == Parallel::Rayon => {
                let (root, below) = subtrees.split_at_mut(1);
                collapse.descendants(nodes, first as usize, below, 0);
                root[0] = collapse.price(nodes, 0, below, first as usize);
            }
            _ => collapse.sweep(nodes, 0, &mut subtrees),
        }
        collapse.subtrees = subtrees;
        Ok(Some(collapse))
    }

    /// Prices the descendants of a node whose children are `first` and `first + 1`, into
    /// `out` (nodes `first ..`). Every builder lays a tree out depth first, so `out` holds the
    /// two children, then the first one's descendants, then the second one's; the two parts
    /// are priced in parallel.
    fn descendants(&self, nodes: &[Node], first: usize, out: &mut [Subtree], level: u32) {
        if level >= PARALLEL_LEVELS || out.len() < PARALLEL_DESCENDANTS {
            return self.sweep(nodes, first, out);
        }
        let (pair, rest) = out.split_at_mut(2);
        let second = nodes[first + 1].children().map(|[c, _]| c as usize);
        let (left, right) = rest.split_at_mut(second.map_or(rest.len(), |c| c - first - 2));
        rayon::join(
            || {
                if let Some([c, _]) = nodes[first].children() {
                    assert_eq!(c as usize, first + 2, "a depth-first layout");
                    self.descendants(nodes, first + 2, left, level + 1);
                }
            },
            || {
                if let Some(c) = second {
                    self.descendants(nodes, c, right, level + 1);
                }
            },
        );
        pair[0] = self.price(nodes, first, left, first + 2);
        pair[1] = self.price(nodes, first + 1, right, second.unwrap_or(0));
    }

    /// Prices nodes `first .. first + out.len()` into `out`, children before parents; the
    /// children of each node lie in the range too.
    fn sweep(&self, nodes: &[Node], first: usize, out: &mut [Subtree]) {
        for k in (0..out.len()).rev() {
            out[k] = self.price(nodes, first + k, out, first);
        }
    }

    /// The answers for binary node `index`, whose children (if any) are priced in `priced`,
    /// which holds nodes `base ..`.
    fn price(&self, nodes: &[Node], index: usize, priced: &[Subtree], base: usize) -> Subtree {
        let node = &nodes[index];
        let area = self.area(node);
        let Some([a, _]) = node.children() else {
            let count = node.count();
            return Subtree {
                cost: [self.cost.side(area, count as usize); WIDE_WIDTH],
                count,
                leaf: true,
            };
        };
        let (a, b) = (&priced[a as usize - base], &priced[a as usize - base + 1]);
        let count = a.count + b.count;
        let shared = shared(a, b);
        // C(n, 1): one leaf of the whole subtree, or one wide node holding the best eight
        // lanes of its children's subtrees.
        let wide = self.cost.interior(area) + shared[WIDE_WIDTH - 1];
        let leaf = (count <= self.max_leaf)
            .then(|| self.cost.side(area, count as usize))
            .filter(|&leaf| leaf <= wide);
        let mut cost = [leaf.unwrap_or(wide); WIDE_WIDTH];
        // C(n, i): as many lanes as C(n, i - 1), or i lanes shared between the children.
        for roots in 2..=WIDE_WIDTH {
            cost[roots - 1] = cost[roots - 2].min(shared[roots - 1]);
        }
        Subtree {
            cost,
            count,
            leaf: leaf.is_some(),
        }
    }

    /// The area of `node`'s box over the root's, made in `f64` so that no cost overflows or
    /// is NaN: [`SahCollapse::gather`] repeats the choices of [`SahCollapse::price`] only on
    /// numbers.
    fn area(&self, node: &Node) -> f32 {
        (half_area(node) * self.root_area_inverse) as f32
    }

    /// The lanes of the wide node made of binary node `root`: its children's subtrees in the
    /// eight lanes that cost least (a binary leaf is the one lane).
    pub fn lanes(&self, nodes: &[Node], root: u32) -> Lanes {
        let mut lanes = Lanes::new();
        match nodes[root as usize].children() {
            Some([a, b]) => {
                let (_, k) = distribute(self.subtree(a), self.subtree(b), WIDE_WIDTH);
                self.gather(nodes, a, k, &mut lanes);
                self.gather(nodes, b, WIDE_WIDTH - k, &mut lanes);
            }
            None => self.gather(nodes, root, 1, &mut lanes),
        }
        lanes
    }

    /// Appends the lanes of C(`node`, `roots`), making the choices [`SahCollapse::price`]
    /// made: the same sums and minima; of equal costs, more lanes rather than fewer.
    fn gather(&self, nodes: &[Node], node: u32, mut roots: usize, lanes: &mut Lanes) {
        let subtree = self.subtree(node);
        if let Some([a, b]) = nodes[node as usize].children() {
            while roots > 1 {
                let (shared, k) = distribute(self.subtree(a), self.subtree(b), roots);
                if shared <= subtree.cost[roots - 2] {
                    self.gather(nodes, a, k, lanes);
                    self.gather(nodes, b, roots - k, lanes);
                    return;
                }
                roots -= 1;
            }
        }
        let slots = subtree.leaf.then(|| {
            let mut leftmost = node;
            while let Some([a, _]) = nodes[leftmost as usize].children() {
                leftmost = a;
            }
            let first = nodes[leftmost as usize].offset();
            first..first + subtree.count
        });
        lanes.push(Lane { node, slots });
    }

    fn subtree(&self, node: u32) -> &Subtree {
        &self.subtrees[node as usize]
    }
}

/// Half the surface area of `node`'s box, in `f64`: finite for every finite box.
fn half_area(node: &Node) -> f64 {
    let e = node.max().as_dvec3() - node.min().as_dvec3();
    e.x * e.y + e.y * e.z + e.z * e.x
}

/// For each `i` in 1..=8, the least cost of holding two sibling subtrees in `i` lanes shared
/// between them, at least one each (infinite for `i = 1`): the min-plus convolution of their
/// costs, four lanes at a time.
#[inline]
fn shared(a: &Subtree, b: &Subtree) -> [f32; WIDE_WIDTH] {
    // `b`'s costs behind eight infinities: `padded[WIDE_WIDTH - k + j]` is C(b, j + 1 - k).
    let mut padded = [f32::INFINITY; 2 * WIDE_WIDTH];
    padded[WIDE_WIDTH..].copy_from_slice(&b.cost);
    let mut shared = [Vec4::INFINITY; 2];
    for k in 1..WIDE_WIDTH {
        let first = Vec4::splat(a.cost[k - 1]);
        for (half, best) in shared.iter_mut().enumerate() {
            let at = WIDE_WIDTH - k + 4 * half;
            // No cost is NaN, so `min` is exact and its order does not matter.
            *best = best.min(first + Vec4::from_slice(&padded[at..at + 4]));
        }
    }
    let mut out = [0.0; WIDE_WIDTH];
    shared[0].write_to_slice(&mut out[..4]);
    shared[1].write_to_slice(&mut out[4..]);
    out
}

/// The cheapest way to hold two sibling subtrees in `roots` lanes (`2..=8`): the cost (an
/// entry of [`shared`]) and how many lanes the first one takes (of equal costs, the fewest).
fn distribute(a: &Subtree, b: &Subtree, roots: usize) -> (f32, usize) {
    let mut best = (a.cost[0] + b.cost[roots - 2], 1);
    for k in 2..roots {
        let cost = a.cost[k - 1] + b.cost[roots - k - 1];
        if cost < best.0 {
            best = (cost, k);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use meshcast_primitives::Aabb;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    use super::*;
    use crate::{Quality, WideBvh, WideLane, PADDING_SLOT};

    /// The SAH cost the collapse lowers, in `f64`: `traversal` per wide node, one per block
    /// of a leaf, each weighted by its box's area over the root's.
    fn cost(wide: &WideBvh, traversal: f64) -> f64 {
        let area = |b: Aabb| {
            let e = b.max.as_dvec3() - b.min.as_dvec3();
            e.x * e.y + e.y * e.z + e.z * e.x
        };
        let root = area(wide.bounds());
        let mut total = 0.0;
        let mut stack = vec![(0usize, root)];
        while let Some((index, node_area)) = stack.pop() {
            total += traversal * node_area;
            let node = &wide.nodes()[index];
            for lane in 0..WIDE_WIDTH {
                match node.lane(lane) {
                    WideLane::Node(child) => stack.push((child as usize, area(node.bounds(lane)))),
                    WideLane::Leaf(slots) => {
                        let kept = wide.primitive_order()[slots.start as usize..slots.end as usize]
                            .iter()
                            .filter(|&&p| p != PADDING_SLOT)
                            .count();
                        total += kept.div_ceil(LEAF_ALIGNMENT) as f64 * area(node.bounds(lane));
                    }
                    WideLane::Empty => {}
                }
            }
        }
        if root > 0.0 {
            total / root
        } else {
            total
        }
    }

    /// Seeded box sets, named with their seed: uniform and clustered soups, thin slivers,
    /// points on a line (every area zero), and boxes too large for an `f32` area.
    fn box_sets() -> Vec<(String, Vec<Aabb>)> {
        let mut sets = Vec::new();
        for (seed, count) in [(1u64, 1usize), (2, 2), (3, 9), (4, 100), (5, 3000)] {
            let mut rng = Pcg64::seed_from_u64(seed);
            let mut point = |scale: f32| Vec3::new(rng.gen(), rng.gen(), rng.gen()) * scale;
            let uniform = (0..count)
                .map(|_| {
                    let p = point(10.0);
                    Aabb::new(p, p + point(0.5))
                })
                .collect();
            sets.push((format!("uniform, seed {seed}"), uniform));
        }
        let mut rng = Pcg64::seed_from_u64(6);
        let centres: Vec<Vec3> = (0..12)
            .map(|_| Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 100.0)
            .collect();
        let clustered = (0..4000)
            .map(|i| {
                let p =
                    centres[i % centres.len()] + Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 3.0;
                Aabb::new(p, p + Vec3::splat(0.1))
            })
            .collect();
        sets.push(("clustered, seed 6".to_owned(), clustered));
        let slivers = (0..2000)
            .map(|i| {
                let angle = i as f32 * 0.013;
                let p = Vec3::new(angle.cos(), angle.sin(), 0.0) * 5.0;
                Aabb::new(
                    p,
                    p + Vec3::new(0.0, 0.0, 20.0) + Vec3::splat(i as f32 * 1e-4),
                )
            })
            .collect();
        sets.push(("slivers".to_owned(), slivers));
        let line = (0..500)
            .map(|i| {
                let p = Vec3::X * (i % 97) as f32;
                Aabb::new(p, p)
            })
            .collect();
        sets.push(("points on a line".to_owned(), line));
        let huge = (0..300)
            .map(|i| {
                let p = Vec3::new(i as f32 * 1e35 - 1.5e37, (i % 7) as f32 * 3e37, 0.0);
                Aabb::new(p, p + Vec3::new(1e36, 2e37, (i % 3) as f32))
            })
            .collect();
        sets.push(("huge".to_owned(), huge));
        sets
    }

    /// Checks what `validate` and `from_parts` (leaf padding, the depth recomputed) check.
    fn check(wide: &WideBvh, boxes: &[Aabb], what: &str) {
        assert_eq!(wide.validate(boxes), Ok(()), "{what}");
        let again = WideBvh::from_parts(wide.nodes.clone(), wide.order.clone(), boxes)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(again.depth, wide.depth, "{what}");
    }

    #[test]
    fn the_sah_collapse_costs_no_more_than_the_greedy_one() {
        let mesh = BuildOptions {
            leaf_block: LEAF_ALIGNMENT,
            ..BuildOptions::default()
        };
        let options = [
            mesh,
            BuildOptions {
                quality: Quality::Fast,
                ..mesh
            },
            BuildOptions {
                quality: Quality::High,
                ..mesh
            },
            // Binary leaves of up to four, so that wide leaves can merge subtrees.
            BuildOptions {
                traversal_cost: 1.0,
                ..mesh
            },
            BuildOptions {
                max_leaf_primitives: 16,
                ..BuildOptions::default()
            },
        ];
        let mut merged = false;
        for (name, boxes) in box_sets() {
            for options in &options {
                let what = format!("{name}, {options:?}");
                let binary = Bvh::build(&boxes, options);
                let sah = WideBvh::from_binary_with(&binary, options);
                let greedy = WideBvh::from_binary_greedy(&binary, options.parallel);
                check(&sah, &boxes, &what);
                check(&greedy, &boxes, &what);
                let traversal = f64::from(options.traversal_cost);
                let (sah_cost, greedy_cost) = (cost(&sah, traversal), cost(&greedy, traversal));
                assert!(sah_cost.is_finite(), "{what}");
                assert!(
                    sah_cost <= greedy_cost * (1.0 + 1e-4),
                    "{what}: {sah_cost} > {greedy_cost}"
                );
                merged |= sah.stats().leaf_count < greedy.stats().leaf_count;
            }
        }
        assert!(merged, "some leaf holds a whole binary subtree");
    }

    #[test]
    fn the_parallel_pricing_answers_what_the_sweep_answers() {
        // Boxes enough for two levels of `descendants` or more, and a tree of each quality.
        let mut rng = Pcg64::seed_from_u64(7);
        let boxes: Vec<Aabb> = (0..100_000)
            .map(|_| {
                let p = Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 100.0;
                Aabb::new(p, p + Vec3::new(rng.gen(), rng.gen(), rng.gen()))
            })
            .collect();
        for quality in [Quality::Fast, Quality::Balanced, Quality::High] {
            let options = |parallel| BuildOptions {
                quality,
                parallel,
                leaf_block: LEAF_ALIGNMENT,
                ..BuildOptions::default()
            };
            let binary = Bvh::build(&boxes, &options(Parallel::Sequential));
            assert!(
                binary.nodes().len() > 3 * PARALLEL_DESCENDANTS,
                "{quality:?}"
            );
            let priced = |parallel| {
                SahCollapse::new(&binary, &options(parallel))
                    .expect("memory")
                    .expect("not flat")
                    .subtrees
                    .iter()
                    .map(|s| (s.cost.map(f32::to_bits), s.count, s.leaf))
                    .collect::<Vec<_>>()
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .expect("a pool");
            assert!(priced(Parallel::Sequential) == pool.install(|| priced(Parallel::Rayon)));
        }
    }

    #[test]
    fn a_flat_tree_is_collapsed_greedily() {
        // Every area is zero, and so every cost: the SAH would choose by its ties alone.
        let boxes: Vec<Aabb> = (0..4096)
            .map(|i| Aabb::new(Vec3::X * i as f32, Vec3::X * i as f32))
            .collect();
        let binary = Bvh::build(&boxes, &BuildOptions::default());
        let wide = WideBvh::from_binary(&binary);
        check(&wide, &boxes, "points on a line");
        let greedy = WideBvh::from_binary_greedy(&binary, Parallel::Rayon);
        eprintln!(
            "binary depth {} leaves {:?} greedy {} sah {}",
            binary.stats().depth,
            binary.stats().leaf_size_histogram,
            greedy.depth,
            wide.depth
        );
        for (i, n) in wide.nodes.iter().enumerate().take(12) {
            eprintln!("{i}: {:?}", (0..8).map(|l| n.lane(l)).collect::<Vec<_>>());
        }
    }
}
