//! [`Instance`]'s ray walks, each for every query kind: one ray's, carried into the mesh's
//! space, and packets', carried as packets of rays; and the [`RayQueries`] and `LevelWalks`
//! implementations over them.

use meshcast_primitives::{Hit, Portable, Ray, RayPacket, PACKET_WIDTH};

use crate::batches::{coherence, for_each_lane, BatchFrame};
use crate::queries::{
    batch_packets, sealed, serial_batch_packets, Filter, HitRules, LevelWalks, PacketKind,
    PacketWalks, QueryKind, QueryOptions, RayQueries,
};
use crate::scene::Instance;

impl Instance {
    /// The answer of `kind` for a world ray (cut to its distance limit) among the triangles
    /// that `filter` keeps and `rules` accept, as seen in the world (culling sees fronts as
    /// the world does, mirroring included): the instance's walk, for [`RayQueries`] on
    /// instances and scenes.
    #[inline]
    pub(crate) fn answer<Q: QueryKind>(
        &self,
        ray: &Ray,
        rules: HitRules,
        filter: &impl Filter<u32>,
        kind: Q,
    ) -> Q::Answer<Hit> {
        let rules = rules.mirrored(self.mirrored);
        let keep = |triangle| filter.keep(triangle);
        self.mesh
            .leaves()
            .trace(&self.to_local(ray), rules, keep, kind, &mut ())
    }

    /// Leaves in `answers[i]` the answer of `kind` for the world ray in each lane `i` of
    /// `rays` in `lanes` (bits; degenerate rays miss), as [`Instance::answer`]
    /// answers it: the packet is carried into the mesh's space as a packet
    /// ([`Instance::packet_to_local`]) and traced there, one packet per
    /// [`coherence::RayClass`] its rays fall into.
    pub(crate) fn answer_packet<Q: PacketKind>(
        &self,
        rays: &RayPacket,
        lanes: u32,
        rules: HitRules,
        filter: &impl Filter<u32>,
        kind: Q,
        answers: &mut [Q::Answer<Hit>; PACKET_WIDTH],
    ) {
        let rules = rules.mirrored(self.mirrored);
        let local = self.packet_to_local(rays);
        // A world ray carried into the mesh's space can overflow (a huge direction through a
        // shrinking transform), and then hits nothing, as the single-ray walk answers.
        let valid = local.valid(Portable) & lanes;
        for_each_lane(lanes & !valid, |lane| answers[lane] = Q::nothing());
        let keep = |triangle| filter.keep(triangle);
        for class in coherence::by_class(&local, valid) {
            self.mesh.leaves().trace_packets(
                [&local],
                [class],
                rules,
                &keep,
                kind,
                [&mut *answers],
            );
        }
    }
}

impl sealed::Level for Instance {}

impl RayQueries for Instance {
    type Hit = Hit;
    type Candidate = u32;
}

impl LevelWalks<Ray, Hit, u32> for Instance {
    /// The answer of `kind`: nothing when the instance's layers miss the options' mask;
    /// culling sees fronts as the world does (mirroring included).
    #[inline]
    fn walk<Q: QueryKind, F: Filter<u32>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<Hit> {
        if !options.matches_layers(self.layers) {
            return Q::nothing();
        }
        self.answer(ray, kind.rules(options), &options.filter, kind)
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.mesh().acceleration_bytes())
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

impl PacketWalks<Hit, u32> for Instance {
    /// Each packet carried into the mesh's space and traced there ([`Instance::answer_packet`]);
    /// none when the instance's layers miss the options' mask.
    fn walk_packets<Q: PacketKind, F: Filter<u32>, const P: usize>(
        &self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        options: &QueryOptions<F>,
        kind: Q,
        answers: [&mut [Q::Answer<Hit>; PACKET_WIDTH]; P],
    ) {
        let (layers, rules) = (options.matches_layers(self.layers), kind.rules(options));
        for ((rays, lanes), answers) in rays.into_iter().zip(lanes).zip(answers) {
            if layers {
                self.answer_packet(rays, lanes, rules, &options.filter, kind, answers);
            } else {
                for_each_lane(lanes, |lane| answers[lane] = Q::nothing());
            }
        }
    }
}
