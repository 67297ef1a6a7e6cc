//! [`Instance`]'s ray walks: one ray's for every query kind, carried into the mesh's space;
//! packets carried as packets of rays; and the [`RayQueries`] and `LevelWalks`
//! implementations over them.

use meshcast_primitives::{Hit, Portable, Ray, RayPacket, PACKET_WIDTH};

use crate::batches::{coherence, for_each_lane, BatchFrame};
use crate::queries::{sealed, HitRules, LevelWalks, QueryKind};
use crate::{Filter, Instance, QueryOptions, RayQueries};

impl Instance {
    /// The answer of `kind` for a world ray (cut to its distance limit) among the triangles
    /// that `filter` keeps and `rules` accept, as seen in the world (culling sees fronts as
    /// the world does, mirroring included): the instance's walk, for [`RayQueries`] on
    /// instances and scenes.
    #[inline]
    pub(crate) fn walk_with_rules<Q: QueryKind>(
        &self,
        ray: &Ray,
        rules: HitRules,
        filter: &impl Filter<u32>,
        kind: Q,
    ) -> Q::Answer<Hit> {
        let rules = rules.mirrored(self.mirrored);
        self.mesh
            .walk_with_rules(&self.to_local(ray), rules, filter, kind)
    }

    /// Writes to `hits[i]` the closest hit of each world ray `rays[i]` in `lanes` (bits;
    /// degenerate rays miss), as [`Instance::walk_with_rules`] answers it: the rays are carried into
    /// the mesh's space together and traced there as packets, one per [`coherence::RayClass`]
    /// they fall into.
    pub(crate) fn closest_packet(
        &self,
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        rules: HitRules,
        filter: &impl Filter<u32>,
        hits: &mut [Option<Hit>; PACKET_WIDTH],
    ) {
        let rules = rules.mirrored(self.mirrored);
        let local = RayPacket::new(&rays.map(|ray| self.to_local(&ray)));
        // A world ray carried into the mesh's space can overflow (a huge direction through a
        // shrinking transform), and then hits nothing, as the single-ray walk answers.
        let valid = local.valid(Portable) & lanes;
        for_each_lane(lanes & !valid, |lane| hits[lane] = None);
        for class in coherence::by_class(&local, valid) {
            self.mesh
                .closest_packets([&local], [class], rules, filter, [&mut *hits]);
        }
    }

    /// Which world rays of `rays` in `lanes` hit the instance (as [`Instance::closest_packet`]),
    /// as bits.
    pub(crate) fn any_packet(
        &self,
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        rules: HitRules,
        filter: &impl Filter<u32>,
    ) -> u32 {
        let rules = rules.mirrored(self.mirrored);
        let local = RayPacket::new(&rays.map(|ray| self.to_local(&ray)));
        coherence::by_class(&local, local.valid(Portable) & lanes)
            .map(|class| self.mesh.any_packets([&local], [class], rules, filter)[0])
            .fold(0, |hit, class_hit| hit | class_hit)
    }
}

impl sealed::Level for Instance {}

impl RayQueries for Instance {
    type Hit = Hit;
    type Candidate = u32;
}

impl LevelWalks<Hit, u32> for Instance {
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
        self.walk_with_rules(ray, kind.rules(options), &options.filter, kind)
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.mesh().acceleration_bytes())
    }

    /// Each packet carried into the mesh's space and traced there
    /// ([`Instance::closest_packet`]); none when the instance's layers miss the options' mask.
    fn walk_closest_packets<F: Filter<u32>, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        options: &QueryOptions<F>,
        hits: [&mut [Option<Hit>; PACKET_WIDTH]; H],
    ) {
        let (layers, rules) = (
            options.matches_layers(self.layers),
            HitRules::first_hit(options),
        );
        for ((rays, lanes), hits) in rays.into_iter().zip(lanes).zip(hits) {
            if layers {
                self.closest_packet(&rays.rays(), lanes, rules, &options.filter, hits);
            } else {
                for_each_lane(lanes, |lane| hits[lane] = None);
            }
        }
    }

    fn walk_any_packets<F: Filter<u32>, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        options: &QueryOptions<F>,
    ) -> [u32; H] {
        if !options.matches_layers(self.layers) {
            return [0; H];
        }
        let rules = HitRules::first_hit(options);
        core::array::from_fn(|p| self.any_packet(&rays[p].rays(), lanes[p], rules, &options.filter))
    }
}
