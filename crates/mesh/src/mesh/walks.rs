//! [`Mesh`]'s ray walks, each for every query kind: one ray's, and packets' walked together;
//! the counted walks of the benchmarks; and the [`RayQueries`] and `LevelWalks`
//! implementations over them.

use meshcast_bvh::TraversalCounts;
use meshcast_primitives::{Hit, Ray, RayPacket, PACKET_WIDTH};

use crate::batches::coherence::PacketSpan;
use crate::batches::BatchFrame;
use crate::mesh::Mesh;
use crate::queries::{
    batch_packets, sealed, serial_batch_packets, Any, Closest, Filter, HitRules, LevelWalks,
    PacketKind, PacketWalks, QueryKind, QueryOptions, RayQueries,
};
use crate::triangles::MeshLeaves;

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
        self.leaves().trace(ray, rules, |_| true, Closest, counts)
    }

    /// [`RayQueries::occluded`], adding what it visited to `counts` (see [`Mesh::cast_counted`]).
    pub fn occluded_counted(&self, ray: &Ray, counts: &mut TraversalCounts) -> bool {
        let rules = HitRules::first_hit(&QueryOptions::new());
        self.leaves().trace(ray, rules, |_| true, Any, counts)
    }
}

impl sealed::Level for Mesh {}

impl RayQueries for Mesh {
    type Hit = Hit;
    type Candidate = u32;
}

impl LevelWalks<Ray, Hit, u32> for Mesh {
    #[inline]
    fn walk<Q: QueryKind, F: Filter<u32>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<Hit> {
        // The level's tier of a ray's road: the options become the leaves' rules and keep.
        let keep = |triangle| options.filter.keep(triangle);
        self.leaves()
            .trace(ray, kind.rules(options), keep, kind, &mut ())
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.acceleration_bytes())
    }

    #[inline]
    fn batch<Q: PacketKind + Sync, F: Filter<u32> + Sync>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<Hit>],
    ) where
        Q::Answer<Hit>: Copy + Default + Send + Sync,
    {
        batch_packets(self, rays, options, kind, answers);
    }

    #[inline]
    fn batch_serial<Q: PacketKind, F: Filter<u32>>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<Hit>],
    ) where
        Q::Answer<Hit>: Copy + Default,
    {
        serial_batch_packets(self, rays, options, kind, answers);
    }
}

impl PacketWalks<Hit, u32> for Mesh {
    fn walk_packets<Q: PacketKind, F: Filter<u32>, const P: usize>(
        &self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        options: &QueryOptions<F>,
        kind: Q,
        answers: [&mut [Q::Answer<Hit>; PACKET_WIDTH]; P],
    ) {
        let keep = |triangle| options.filter.keep(triangle);
        self.leaves()
            .trace_packets(rays, lanes, kind.rules(options), &keep, kind, answers);
    }

    fn packet_span(&self) -> Option<PacketSpan> {
        Some(PacketSpan::of_mesh(self.bounds(), self.triangle_count()))
    }
}
