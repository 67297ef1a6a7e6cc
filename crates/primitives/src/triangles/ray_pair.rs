//! [`RayPair`]: two rays of a [`WatertightPacket`] against the four triangles of a
//! [`TriangleBlock`] in one eight-lane test, each lane answering what the scalar watertight
//! test answers.

use crate::lanes::{Lanes, Simd, ALL_LANES, PACKET_WIDTH};
use crate::triangles::{TriangleBlock, WatertightPacket, BLOCK_WIDTH};

use super::watertight_packet::{Axis, LaneRays, PacketHits};

/// Two rays of a [`WatertightPacket`] against the four triangles of a [`TriangleBlock`] in
/// one eight-lane test ([`WatertightPacket::pair`]): lanes 0 to 3 test the first ray against
/// the block's triangles 0 to 3, lanes 4 to 7 the second. Where few rays of a packet reach a
/// leaf, a block costs one test per two rays instead of one per triangle.
#[derive(Clone, Copy, Debug)]
pub struct RayPair<'p, S: Simd> {
    packet: &'p WatertightPacket,
    rays: [usize; 2],
    lanes: LaneRays<S>,
    /// The first ray's `t_max` in lanes 0 to 3, the second's in lanes 4 to 7.
    t_max: Lanes<S>,
}

impl<S: Simd> RayPair<'_, S> {
    /// The `t_max` of ray `r` (0 or 1) of the pair.
    #[inline(always)]
    pub fn t_max(&self, r: usize) -> f32 {
        self.t_max.lane(BLOCK_WIDTH * r)
    }

    /// Cuts the range of ray `r` (0 or 1) of the pair to end at `t`.
    #[inline(always)]
    pub fn shorten(&mut self, r: usize, t: f32) {
        let half = 0xf << (BLOCK_WIDTH * r);
        self.t_max = Lanes::splat(self.t_max.simd(), t).select(half, self.t_max);
    }

    /// Tests the block's triangles, each ray accepting `t` in `[t_min, t_max]`. Lane
    /// `4 r + i` hits exactly when [`WatertightRay::intersect`](crate::WatertightRay::intersect)
    /// of ray `r` hits triangle `i` with that range, with the same `t`, `u` and `v` bit for
    /// bit.
    #[inline(always)]
    pub fn intersect(&self, block: &TriangleBlock) -> PacketHits<S> {
        let simd = self.t_max.simd();
        let [kx, ky, kz] = self.packet.axes;
        let corners = [
            [
                twice(simd, block, 0, kx),
                twice(simd, block, 0, ky),
                twice(simd, block, 0, kz),
            ],
            [
                twice(simd, block, 1, kx),
                twice(simd, block, 1, ky),
                twice(simd, block, 1, kz),
            ],
            [
                twice(simd, block, 2, kx),
                twice(simd, block, 2, ky),
                twice(simd, block, 2, kz),
            ],
        ];
        let (mut hits, mut redo) = self.lanes.intersect(corners, self.t_max, ALL_LANES);
        while redo != 0 {
            let lane = redo.trailing_zeros() as usize;
            redo &= redo - 1;
            let (ray, triangle) = (lane / BLOCK_WIDTH, block.triangle(lane % BLOCK_WIDTH));
            let single = self.packet.ray(self.rays[ray], self.t_max(ray));
            if let Some(hit) = single.intersect(triangle.v0, triangle.v1, triangle.v2) {
                hits.t = hits.t.with_lane(lane, hit.t);
                hits.u = hits.u.with_lane(lane, hit.u);
                hits.v = hits.v.with_lane(lane, hit.v);
                hits.lanes |= 1 << lane;
            }
        }
        hits
    }
}

impl WatertightPacket {
    /// Rays `a` and `b` set up for [`RayPair::intersect`], with the ranges ending at their
    /// lanes of `t_max`: ray `a` in the first four lanes, ray `b` in the last four.
    #[inline(always)]
    pub fn pair<S: Simd>(&self, a: usize, b: usize, t_max: Lanes<S>) -> RayPair<'_, S> {
        let simd = t_max.simd();
        let [o, s] = [&self.origin, &self.shear];
        RayPair {
            packet: self,
            rays: [a, b],
            lanes: LaneRays {
                origin: [
                    paired(simd, &o[0], a, b),
                    paired(simd, &o[1], a, b),
                    paired(simd, &o[2], a, b),
                ],
                shear: [
                    paired(simd, &s[0], a, b),
                    paired(simd, &s[1], a, b),
                    paired(simd, &s[2], a, b),
                ],
                t_min: paired(simd, &self.t_min, a, b),
            },
            t_max: t_max.pair(a, b),
        }
    }
}

/// Lane `a` of `values` in the first four lanes, lane `b` in the last four.
#[inline(always)]
fn paired<S: Simd>(simd: S, values: &[f32; PACKET_WIDTH], a: usize, b: usize) -> Lanes<S> {
    Lanes::from_array(simd, *values).pair(a, b)
}

/// Coordinate `axis` of corner `corner` of `block`'s four triangles, in both halves.
#[inline(always)]
fn twice<S: Simd>(simd: S, block: &TriangleBlock, corner: usize, axis: Axis) -> Lanes<S> {
    let lanes = block.coordinates(corner, axis as usize);
    Lanes::from_halves(simd, [lanes, lanes])
}
