//! [`Mesh`]'s ray walks: one ray's walk for every query kind, a packet's and packets' walked
//! together, the counted walks of the benchmarks, and the [`RayQueries`] and
//! `LevelWalks` implementations over them.

use meshcast_bvh::TraversalCounts;
use meshcast_primitives::{Hit, Ray, RayPacket, PACKET_WIDTH};

use crate::batches::coherence::{PacketSpan, PACKET_MIN_RAYS};
use crate::batches::{at_least, for_each_lane, BatchFrame};
use crate::mesh::Mesh;
use crate::queries::{sealed, Any, Closest, HitRules, LevelWalks, QueryKind};
use crate::triangles::MeshLeaves;
use crate::{Filter, QueryOptions, RayQueries};

impl Mesh {
    /// The leaf blocks with the hierarchy and triangles they are laid out from.
    #[inline]
    pub(crate) fn leaves(&self) -> MeshLeaves<'_> {
        MeshLeaves {
            blocks: &self.blocks,
            wide: &self.wide,
            tri_mesh: &self.tri_mesh,
        }
    }

    /// The answer of `kind` for `ray` among the triangles that `filter` keeps and `rules`
    /// accept (culling, contacts): the mesh's walk, for every level's [`RayQueries`].
    #[inline]
    pub(crate) fn walk_with_rules<Q: QueryKind>(
        &self,
        ray: &Ray,
        rules: HitRules,
        filter: &impl Filter<u32>,
        kind: Q,
    ) -> Q::Answer<Hit> {
        let keep = |triangle| filter.keep(triangle);
        self.leaves().walk(ray, rules, keep, kind, None)
    }

    /// Writes to `hits[p][i]` the closest hit of each ray `rays[p][i]` in `lanes[p]` (bits;
    /// coherent as [`crate::batches::coherence::coherent`] groups them, degenerate rays among
    /// them), as [`Mesh::walk_with_rules`] answers it: the `H` packets traced together when
    /// each has [`PACKET_MIN_RAYS`] rays, else ray by ray.
    pub(crate) fn closest_packets<const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        rules: HitRules,
        filter: &impl Filter<u32>,
        hits: [&mut [Option<Hit>; PACKET_WIDTH]; H],
    ) {
        if !enough_rays(lanes) {
            for ((rays, lanes), hits) in rays.into_iter().zip(lanes).zip(hits) {
                for_each_lane(lanes, |lane| {
                    hits[lane] = self.walk_with_rules(&rays.ray(lane), rules, filter, Closest)
                });
            }
            return;
        }
        let keep = |triangle| filter.keep(triangle);
        self.leaves().cast_packets(rays, lanes, rules, &keep, hits);
    }

    /// Which rays of `rays[p]` in `lanes[p]` hit anything (as [`Mesh::closest_packets`]), as
    /// bits per packet.
    pub(crate) fn any_packets<const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        rules: HitRules,
        filter: &impl Filter<u32>,
    ) -> [u32; H] {
        if !enough_rays(lanes) {
            return core::array::from_fn(|p| {
                let mut hit = 0;
                for_each_lane(lanes[p], |lane| {
                    if self.walk_with_rules(&rays[p].ray(lane), rules, filter, Any) {
                        hit |= 1 << lane;
                    }
                });
                hit
            });
        }
        let keep = |triangle| filter.keep(triangle);
        self.leaves().occluded_packets(rays, lanes, rules, &keep)
    }

    /// [`RayQueries::cast`], adding the nodes, leaves and triangle blocks it visited to `counts`
    /// (a separate path: [`RayQueries::cast`] counts nothing and pays nothing for it).
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{Mesh, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let mut counts = meshcast_bvh::TraversalCounts::default();
    /// let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
    /// assert_eq!(tri.cast_counted(&ray, &mut counts), tri.cast(&ray));
    /// assert_eq!((counts.rays, counts.nodes, counts.blocks), (1, 1, 1));
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn cast_counted(&self, ray: &Ray, counts: &mut TraversalCounts) -> Option<Hit> {
        let rules = HitRules::first_hit(&QueryOptions::new());
        self.leaves()
            .walk(ray, rules, |_| true, Closest, Some(counts))
    }

    /// [`RayQueries::occluded`], adding what it visited to `counts` (see [`Mesh::cast_counted`]).
    pub fn occluded_counted(&self, ray: &Ray, counts: &mut TraversalCounts) -> bool {
        let rules = HitRules::first_hit(&QueryOptions::new());
        self.leaves().walk(ray, rules, |_| true, Any, Some(counts))
    }
}

impl sealed::Level for Mesh {}

impl RayQueries for Mesh {
    type Hit = Hit;
    type Candidate = u32;
}

impl LevelWalks<Hit, u32> for Mesh {
    #[inline]
    fn walk<Q: QueryKind, F: Filter<u32>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<Hit> {
        self.walk_with_rules(ray, kind.rules(options), &options.filter, kind)
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.acceleration_bytes())
    }

    fn walk_closest_packets<F: Filter<u32>, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        options: &QueryOptions<F>,
        hits: [&mut [Option<Hit>; PACKET_WIDTH]; H],
    ) {
        let rules = HitRules::first_hit(options);
        self.closest_packets(rays, lanes, rules, &options.filter, hits);
    }

    fn walk_any_packets<F: Filter<u32>, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        options: &QueryOptions<F>,
    ) -> [u32; H] {
        let rules = HitRules::first_hit(options);
        self.any_packets(rays, lanes, rules, &options.filter)
    }

    fn packet_span(&self) -> Option<PacketSpan> {
        Some(PacketSpan::of_mesh(self.bounds(), self.triangle_count()))
    }
}

/// Whether every packet has enough rays to share a walk ([`PACKET_MIN_RAYS`]).
#[inline]
fn enough_rays<const H: usize>(lanes: [u32; H]) -> bool {
    lanes.iter().all(|&lanes| at_least(lanes, PACKET_MIN_RAYS))
}
