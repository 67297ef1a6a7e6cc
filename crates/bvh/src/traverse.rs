//! Traversal over a leaf closure: closest hit, any hit and all hits, with an explicit stack
//! and no recursion. Node boxes are tested with a conservative slab test (after Ize, *Robust
//! BVH Ray Traversal*, 2013; see `SlabRay::test`), and a node is skipped only when its entry
//! distance exceeds its exit distance, so the answers equal a brute-force loop over every
//! primitive, ties included.

use glam::Vec3A;
use meshcast_primitives::{slab, slab_slack, Hit, Ray, RayHit};
use smallvec::SmallVec;

use crate::{Bvh, Node};

/// Stack entries kept inline before a traversal allocates (deeper trees still work).
pub const STACK_INLINE_CAPACITY: usize = 64;

/// A ray prepared for slab tests: SIMD origin and reciprocal direction, and the absolute
/// widening of every node's range.
struct SlabRay {
    origin: Vec3A,
    inv_dir: Vec3A,
    slack: f32,
    t_min: f32,
}

impl SlabRay {
    /// The set-up for `ray` in a tree whose root is `root`.
    ///
    /// Ranges are widened by [`slab_slack`] of the root box ([`meshcast_primitives::SLAB_SLACK`] times its farthest
    /// distance along the ray's dominant axis): every node lies in the root, so one absolute
    /// amount, computed once per ray, serves them all.
    #[inline(always)]
    fn new(ray: &Ray, root: &Node) -> Self {
        let inv_dir = ray.dir.recip();
        Self {
            origin: ray.origin.into(),
            inv_dir: inv_dir.into(),
            slack: slab_slack(&root.bounds(), ray),
            t_min: ray.t_min,
        }
    }

    /// `(entry, exit)` of `node` within `[t_min, t_max]`, widened; hit iff `entry <= exit`.
    ///
    /// The slab test of [`meshcast_primitives::slab`] (Kay and Kajiya 1986): the `0 * inf`
    /// case of an axis-parallel ray on a slab plane counts as inside that slab.
    #[inline(always)]
    fn test(&self, node: &Node, t_max: f32) -> (f32, f32) {
        slab(
            node.min().into(),
            node.max().into(),
            self.origin,
            self.inv_dir,
            self.slack,
            self.t_min,
            t_max,
        )
    }
}

impl Bvh {
    /// The closest hit: the first in the ray's range by the hits' order ([`Hit::order`]: the
    /// smallest `t`, ties going to the smaller primitive index).
    ///
    /// `leaf(slot, ray)` tests the primitive in leaf slot `slot` (see
    /// [`Bvh::primitive_order`]) against `ray`, whose `t_max` shrinks to the closest hit found
    /// so far (inclusive, so that an equal-`t` hit with a smaller index can still win). It
    /// returns a [`Hit`] whose `triangle` field is the primitive's original index, or any
    /// other [`RayHit`] (a scene's hit names its instance); hits outside the ray's range are
    /// ignored. Children are visited near-first and subtrees beyond the
    /// closest hit are skipped. A degenerate ray ([`Ray::is_valid`]) or an empty hierarchy
    /// gives `None` without calling `leaf`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::Z, Vec3::Z + Vec3::X, Vec3::Z + Vec3::Y),
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    /// ];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// // Keep the triangles in leaf order, as a mesh would.
    /// let leaf_order: Vec<Triangle> =
    ///     bvh.primitive_order().iter().map(|&i| triangles[i as usize]).collect();
    /// let ray = Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z);
    /// let hit = bvh
    ///     .cast(&ray, |slot, ray| {
    ///         let index = bvh.primitive_order()[slot as usize];
    ///         Some(leaf_order[slot as usize].intersect(ray)?.with_triangle(index))
    ///     })
    ///     .ok_or("miss")?;
    /// assert_eq!((hit.triangle, hit.t), (1, 1.0));
    /// # Ok::<(), &str>(())
    /// ```
    pub fn cast<H: RayHit, F: FnMut(u32, &Ray) -> Option<H>>(
        &self,
        ray: &Ray,
        mut leaf: F,
    ) -> Option<H> {
        self.walk::<false, H>(ray, &mut leaf)
    }

    /// Whether any primitive is hit in the ray's range (occlusion, shadow rays): stops at the
    /// first hit that `leaf` reports (`leaf` as in [`Bvh::cast`], returning whether slot
    /// `slot` is hit). A degenerate ray or an empty hierarchy gives `false`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y)];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let leaf = |slot: u32, ray: &Ray| triangles[slot as usize].intersect(ray).is_some();
    /// let blocked = Ray::segment(Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, 1.0));
    /// let clear = Ray::segment(Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, -0.5));
    /// assert!(bvh.occluded(&blocked, leaf));
    /// assert!(!bvh.occluded(&clear, leaf));
    /// ```
    pub fn occluded<F: FnMut(u32, &Ray) -> bool>(&self, ray: &Ray, mut leaf: F) -> bool {
        let mut found = |slot, ray: &Ray| leaf(slot, ray).then_some(Hit::new(ray.t_min, 0.0, 0.0));
        self.walk::<true, Hit>(ray, &mut found).is_some()
    }

    /// Every hit in the ray's range, sorted by their order ([`Hit::order`]: `t`, then
    /// primitive index; `leaf` as in [`Bvh::cast`], and the range it is given never shrinks). A degenerate ray or an empty
    /// hierarchy gives no hit.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::Z, Vec3::Z + Vec3::X, Vec3::Z + Vec3::Y),
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    /// ];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let hits = bvh.cast_all_primitives(&triangles, &Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z));
    /// let order: Vec<(u32, f32)> = hits.iter().map(|h| (h.triangle, h.t)).collect();
    /// assert_eq!(order, [(1, 1.0), (0, 2.0)]);
    /// ```
    pub fn cast_all<H: RayHit, F: FnMut(u32, &Ray) -> Option<H>>(
        &self,
        ray: &Ray,
        mut leaf: F,
    ) -> Vec<H> {
        let mut hits = Vec::new();
        self.visit(ray, |slot, ray| {
            hits.extend(leaf(slot, ray).filter(|h| ray.contains_t(h.t())));
        });
        hits.sort_unstable_by(H::order);
        hits
    }

    /// Calls `leaf(slot, ray)` for every leaf slot whose boxes the ray's range enters, in the
    /// order of the walk (the range it is given never shrinks): for leaves that report many
    /// hits each, or none. A degenerate ray or an empty hierarchy calls nothing.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    ///     Triangle::new(Vec3::X * 5.0, Vec3::X * 6.0, Vec3::X * 5.0 + Vec3::Y),
    /// ];
    /// let one_per_leaf = BuildOptions { max_leaf_primitives: 1, ..BuildOptions::default() };
    /// let bvh = Bvh::build_primitives(&triangles, &one_per_leaf);
    /// let mut reached = Vec::new();
    /// bvh.visit(&Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z), |slot, _| {
    ///     reached.push(bvh.primitive_order()[slot as usize]);
    /// });
    /// assert_eq!(reached, [0]);
    /// ```
    pub fn visit<F: FnMut(u32, &Ray)>(&self, ray: &Ray, mut leaf: F) {
        // The any-hit walk with a leaf that reports nothing visits every leaf the ray enters.
        self.walk::<true, Hit>(ray, &mut |slot, ray: &Ray| {
            leaf(slot, ray);
            None
        });
    }

    /// The traversal loop: closest hit (children near first, the range shrinking to the best
    /// hit), or with `ANY` the first hit `leaf` reports (children in order, the range fixed).
    fn walk<const ANY: bool, H: RayHit>(
        &self,
        ray: &Ray,
        leaf: &mut impl FnMut(u32, &Ray) -> Option<H>,
    ) -> Option<H> {
        let nodes = self.nodes.as_slice();
        if nodes.is_empty() || !ray.is_valid() {
            return None;
        }
        let slab_ray = SlabRay::new(ray, &nodes[0]);
        let mut t_max = ray.t_max;
        let (entry, exit) = slab_ray.test(&nodes[0], t_max);
        if entry > exit {
            return None;
        }
        let mut best: Option<H> = None;
        let mut stack: SmallVec<[(u32, f32); STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut current = 0usize;
        loop {
            let node = &nodes[current];
            if node.is_leaf() {
                let mut range = ray.with_range(ray.t_min, t_max);
                for slot in node.offset()..node.offset() + node.count() {
                    let Some(hit) = leaf(slot, &range) else {
                        continue;
                    };
                    if ANY {
                        return Some(hit);
                    }
                    if best.is_none_or(|b| hit.is_closer_than(&b)) && range.contains_t(hit.t()) {
                        best = Some(hit);
                        t_max = hit.t();
                        range.t_max = t_max;
                    }
                }
            } else {
                let first = node.offset() as usize;
                let (a, b) = (&nodes[first], &nodes[first + 1]);
                let (entry_a, exit_a) = slab_ray.test(a, t_max);
                let (entry_b, exit_b) = slab_ray.test(b, t_max);
                match (entry_a <= exit_a, entry_b <= exit_b) {
                    (true, true) => {
                        // Near first (closest hit): the other child waits with its entry.
                        if !ANY && entry_b < entry_a {
                            stack.push((first as u32, entry_a));
                            current = first + 1;
                        } else {
                            stack.push((first as u32 + 1, entry_b));
                            current = first;
                        }
                        continue;
                    }
                    (true, false) => {
                        current = first;
                        continue;
                    }
                    (false, true) => {
                        current = first + 1;
                        continue;
                    }
                    (false, false) => {}
                }
            }
            // Pop the next subtree that may still hold a hit no farther than the best.
            loop {
                match stack.pop() {
                    None => return best,
                    Some((index, entry)) if ANY || entry <= t_max => {
                        current = index as usize;
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }
}
