//! The watertight test of [`crate::watertight`] over eight lanes, for packets of rays that
//! share the test's axis permutation (rays of one camera tile, say): one triangle against up
//! to eight rays ([`WatertightPacket::intersect`]), or two rays against the four triangles of
//! a [`TriangleBlock`](crate::TriangleBlock)
//! ([`RayPair::intersect`](crate::RayPair::intersect), in `ray_pair.rs`), which is what a
//! packet's leaf test uses when only a few of its rays reach a leaf. Each lane evaluates the
//! same operations in the same order as [`WatertightRay::intersect`], and lanes whose edge
//! functions round to zero are redone by that test, so every lane answers what the scalar
//! test answers, bit for bit.
//!
//! Past 600 lines because its unit tests live beside it: the packet test is the first 350
//! lines, the rest holds every lane to the scalar test.

use glam::Vec3;

use super::edge_bounds::{lane_edge_bound, near_lanes, open_lanes, well_placed_lanes};
use crate::lanes::{Lanes, Simd, PACKET_WIDTH};
use crate::rays::{lanes_like, RayPacket};
use crate::triangles::{Contacts, Hit, Triangle, WatertightRay};

/// The watertight set-ups of up to eight rays that share their axes ([`WatertightRay`]'s
/// dominant axis and winding-preserving order), spread lane by lane.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Lanes, Portable, Ray, RayPacket, Triangle};
/// use meshcast_primitives::{WatertightPacket, WatertightRay};
///
/// let triangle = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// let rays: [Ray; 8] =
///     core::array::from_fn(|i| Ray::new(Vec3::new(0.13 * i as f32, 0.15, 1.0), Vec3::NEG_Z));
/// let packet = WatertightPacket::new(Portable, &RayPacket::new(&rays), 0xff);
/// let packet = packet.expect("shared axes");
/// let hits = packet.intersect(&triangle, Lanes::splat(Portable, f32::INFINITY), 0xff);
/// // The rays at x = 0, ..., 0.78 hit; the one at x = 0.91 passes beside the hypotenuse.
/// assert_eq!(hits.lanes(), 0b0111_1111);
/// let single = WatertightRay::new(&rays[3]).intersect(triangle.v0, triangle.v1, triangle.v2);
/// assert_eq!(hits.hit(3), single);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WatertightPacket {
    pub(super) axes: [Axis; 3],
    /// The origins' `kx`, `ky`, `kz` coordinates, lane by lane.
    pub(super) origin: [[f32; PACKET_WIDTH]; 3],
    /// The shears `sx`, `sy`, `sz`.
    pub(super) shear: [[f32; PACKET_WIDTH]; 3],
    /// The directions' `kx`, `ky`, `kz` coordinates, for the exact signs near edges.
    pub(super) dir: [[f32; PACKET_WIDTH]; 3],
    pub(super) t_min: [f32; PACKET_WIDTH],
    /// Which triangles own a point on an edge or a vertex, for every lane.
    pub(super) contacts: Contacts,
}

/// An axis of space, as an enum: indexing with it needs no bounds check (the pair test reads
/// a block's coordinates by the packet's axes at every block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    /// Axis `index` (0, 1 or 2; larger indices are z).
    fn of(index: usize) -> Self {
        match index {
            0 => Self::X,
            1 => Self::Y,
            _ => Self::Z,
        }
    }
}

/// What [`WatertightPacket::intersect`] found: `t`, `u`, `v` per lane and the lanes that hit.
#[derive(Clone, Copy, Debug)]
pub struct PacketHits<S: Simd> {
    pub(super) t: Lanes<S>,
    pub(super) u: Lanes<S>,
    pub(super) v: Lanes<S>,
    pub(super) lanes: u32,
}

impl<S: Simd> PacketHits<S> {
    /// A bit per lane that hit.
    #[inline(always)]
    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    /// Each lane's `t` (meaningful in the lanes that hit).
    #[inline(always)]
    pub fn t(&self) -> Lanes<S> {
        self.t
    }

    /// Each lane's `u`.
    #[inline(always)]
    pub fn u(&self) -> Lanes<S> {
        self.u
    }

    /// Each lane's `v`.
    #[inline(always)]
    pub fn v(&self) -> Lanes<S> {
        self.v
    }

    /// The hit in `lane` (its `triangle` field 0), or `None` if that lane missed.
    #[inline(always)]
    pub fn hit(&self, lane: usize) -> Option<Hit> {
        (self.lanes & (1 << lane) != 0)
            .then(|| Hit::new(self.t.lane(lane), self.u.lane(lane), self.v.lane(lane)))
    }
}

/// The ray half of the eight-lane watertight test: each lane's origin (`kx`, `ky`, `kz`),
/// shear and `t_min`.
#[derive(Clone, Copy, Debug)]
pub(super) struct LaneRays<S: Simd> {
    pub(super) origin: [Lanes<S>; 3],
    pub(super) shear: [Lanes<S>; 3],
    pub(super) t_min: Lanes<S>,
}

impl<S: Simd> LaneRays<S> {
    /// The watertight test of each lane's ray against each lane's triangle (`corners[c]`: the
    /// `kx`, `ky`, `kz` coordinates of corner `c`), with the operations of
    /// [`WatertightRay::intersect`] in its order, in the lanes of `lanes` (bits). Returns the
    /// hits and the lanes whose edge functions round to zero, which the scalar test redoes
    /// (not yet counted as hits).
    #[inline(always)]
    pub(super) fn intersect(
        &self,
        [a, b, c]: [[Lanes<S>; 3]; 3],
        t_max: Lanes<S>,
        lanes: u32,
    ) -> (PacketHits<S>, u32) {
        let simd = t_max.simd();
        let [ox, oy, oz] = self.origin;
        let [sx, sy, sz] = self.shear;
        // The corners relative to the origins, sheared so that each ray runs along +z.
        let a_z = a[2] - oz;
        let b_z = b[2] - oz;
        let c_z = c[2] - oz;
        let ax = (a[0] - ox) - sx * a_z;
        let ay = (a[1] - oy) - sy * a_z;
        let bx = (b[0] - ox) - sx * b_z;
        let by = (b[1] - oy) - sy * b_z;
        let cx = (c[0] - ox) - sx * c_z;
        let cy = (c[1] - oy) - sy * c_z;

        let e0 = cx * by - cy * bx;
        let e1 = ax * cy - ay * cx;
        let e2 = bx * ay - by * ax;
        let bound = lane_edge_bound([(ax, ay), (bx, by), (cx, cy)], [a_z, b_z, c_z]);
        let open = open_lanes([e0, e1, e2], bound, a_z) & lanes;
        let zero = Lanes::splat(simd, 0.0);
        if open == 0 {
            let none = PacketHits {
                t: zero,
                u: zero,
                v: zero,
                lanes: 0,
            };
            return (none, 0);
        }
        let negative = e0.lt(zero) | e1.lt(zero) | e2.lt(zero);
        let positive = zero.lt(e0) | zero.lt(e1) | zero.lt(e2);
        let det = e0 + e1 + e2;
        let candidates = !(negative & positive) & det.ne(zero) & lanes;
        let t_scaled = e0 * (sz * a_z) + e1 * (sz * b_z) + e2 * (sz * c_z);
        let inv_det = Lanes::splat(simd, 1.0) / det;
        let t = t_scaled * inv_det;
        // An edge function within its rounding of zero is decided exactly, and a hit the
        // `f32` arithmetic cannot place is placed in `f64`, by the scalar test.
        let misplaced = candidates & !well_placed_lanes(t_scaled, det, t);
        let redo = (near_lanes([e0, e1, e2], bound) | misplaced) & open;
        let in_range = self.t_min.le(t) & t.le(t_max);
        let hits = PacketHits {
            t,
            u: e1 * inv_det,
            v: e2 * inv_det,
            lanes: candidates & in_range & !redo,
        };
        (hits, redo)
    }
}

/// Each of `values`, splatted.
#[inline(always)]
fn splat3<S: Simd>(simd: S, [x, y, z]: [f32; 3]) -> [Lanes<S>; 3] {
    [
        Lanes::splat(simd, x),
        Lanes::splat(simd, y),
        Lanes::splat(simd, z),
    ]
}

/// `values` in `lanes` (bits), lane `first`'s value in the others.
#[inline(always)]
fn used<S: Simd>(simd: S, values: &[f32; PACKET_WIDTH], lanes: u32, first: usize) -> Lanes<S> {
    Lanes::from_array(simd, *values).select(lanes, Lanes::splat(simd, values[first]))
}

impl WatertightPacket {
    /// The packet of `rays`' lanes in `lanes` (bits), or `None` if those lanes do not all
    /// share their axes (or `lanes` is empty). Other lanes are never tested. A lane of a
    /// degenerate ray ([`crate::Ray::is_valid`]) may be among `lanes`, as a packet walk leaves
    /// such rays out: its set-up is made from what the ray holds and must not be tested. Each
    /// lane is the set-up [`WatertightRay::new`] makes for its ray, bit for bit: the same
    /// axes, and the shear's quotients, each correctly rounded, computed lane by lane, in the
    /// lanes of `simd`.
    #[inline(always)]
    pub fn new<S: Simd>(simd: S, rays: &RayPacket, lanes: u32) -> Option<Self> {
        if lanes == 0 {
            return None;
        }
        let first = lanes.trailing_zeros() as usize;
        let axes = WatertightRay::axes_of(&rays.ray(first));
        let [kx, ky, kz] = axes;
        // The lanes whose `kz` is the first's, and whose component along it has the same
        // sign, which decides the order of `kx` and `ky`.
        let [along_y, along_z] = rays.dominant(simd);
        let zero = Lanes::splat(simd, 0.0);
        let down = Lanes::from_array(simd, rays.dir[kz]).lt(zero);
        let like = |bits| lanes_like(bits, first);
        if lanes & !(like(along_y) & like(along_z) & like(down)) != 0 {
            return None;
        }
        // Lanes left out take the first ray's values, so that every lane computes with
        // ordinary numbers. No closures here: one would be compiled apart from the caller's
        // instruction set.
        let [dx, dy, dz] = [
            used(simd, &rays.dir[kx], lanes, first),
            used(simd, &rays.dir[ky], lanes, first),
            used(simd, &rays.dir[kz], lanes, first),
        ];
        let one = Lanes::splat(simd, 1.0);
        Some(Self {
            axes: axes.map(Axis::of),
            origin: [
                used(simd, &rays.origin[kx], lanes, first).to_array(),
                used(simd, &rays.origin[ky], lanes, first).to_array(),
                used(simd, &rays.origin[kz], lanes, first).to_array(),
            ],
            shear: [
                (dx / dz).to_array(),
                (dy / dz).to_array(),
                (one / dz).to_array(),
            ],
            dir: [dx.to_array(), dy.to_array(), dz.to_array()],
            t_min: used(simd, &rays.t_min, lanes, first).to_array(),
            contacts: Contacts::TieRule,
        })
    }

    /// The same packet with the given rule for rays through edges and vertices (the tie rule
    /// unless set, as [`WatertightRay::new`]).
    #[inline(always)]
    #[must_use]
    pub fn with_contacts(self, contacts: Contacts) -> Self {
        Self { contacts, ..self }
    }

    /// Tests `triangle` against the rays in `lanes` (bits), lane `i` accepting `t` in
    /// `[t_min, t_max[i]]`. Lane `i` hits exactly when [`WatertightRay::intersect`] of ray
    /// `i` hits with that range, with the same `t`, `u` and `v` bit for bit.
    #[inline(always)]
    pub fn intersect<S: Simd>(
        &self,
        triangle: &Triangle,
        t_max: Lanes<S>,
        lanes: u32,
    ) -> PacketHits<S> {
        let [kx, ky, kz] = self.axes.map(|axis| axis as usize);
        let simd = t_max.simd();
        // Written out rather than mapped: a closure would be compiled apart from the caller's
        // instruction set, and the lanes' intrinsics would not be inlined into it.
        let rays = LaneRays {
            origin: [
                Lanes::from_array(simd, self.origin[0]),
                Lanes::from_array(simd, self.origin[1]),
                Lanes::from_array(simd, self.origin[2]),
            ],
            shear: [
                Lanes::from_array(simd, self.shear[0]),
                Lanes::from_array(simd, self.shear[1]),
                Lanes::from_array(simd, self.shear[2]),
            ],
            t_min: Lanes::from_array(simd, self.t_min),
        };
        let [a, b, c] = [triangle.v0, triangle.v1, triangle.v2];
        let corners = [
            splat3(simd, [a[kx], a[ky], a[kz]]),
            splat3(simd, [b[kx], b[ky], b[kz]]),
            splat3(simd, [c[kx], c[ky], c[kz]]),
        ];
        let (mut hits, redo) = rays.intersect(corners, t_max, lanes);
        if redo != 0 {
            self.redo_lanes(triangle, t_max, redo, &mut hits);
        }
        hits
    }

    /// Replaces the lanes in `redo` with the scalar test's answers.
    #[cold]
    #[inline(never)]
    pub(super) fn redo_lanes<S: Simd>(
        &self,
        triangle: &Triangle,
        t_max: Lanes<S>,
        mut redo: u32,
        hits: &mut PacketHits<S>,
    ) {
        while redo != 0 {
            let lane = redo.trailing_zeros() as usize;
            redo &= redo - 1;
            let ray = self.ray(lane, t_max.lane(lane));
            if let Some(hit) = ray.intersect(triangle.v0, triangle.v1, triangle.v2) {
                hits.t = hits.t.with_lane(lane, hit.t);
                hits.u = hits.u.with_lane(lane, hit.u);
                hits.v = hits.v.with_lane(lane, hit.v);
                hits.lanes |= 1 << lane;
            }
        }
    }

    /// The single-ray set-up of `lane` with the range `[t_min, t_max]`, put back together from
    /// the lanes.
    pub(super) fn ray(&self, lane: usize, t_max: f32) -> WatertightRay {
        let (mut origin, mut dir) = (Vec3::ZERO, Vec3::ZERO);
        let axes = self.axes.map(|axis| axis as usize);
        for (k, &axis) in axes.iter().enumerate() {
            origin[axis] = self.origin[k][lane];
            dir[axis] = self.dir[k][lane];
        }
        let [sx, sy, sz] = self.shear.map(|s| s[lane]);
        WatertightRay {
            origin,
            dir,
            axes,
            shear: Vec3::new(sx, sy, sz),
            t_min: self.t_min[lane],
            t_max,
            contacts: self.contacts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{shared_vertex_fan, SharedVertexFan, Xorshift};
    use crate::{Portable, Ray};
    use crate::{TriangleBlock, BLOCK_WIDTH};

    /// Checks every lane of `rays` against the scalar test on `triangle`, in every instruction
    /// set this CPU runs, with either rule for contacts. Returns the lanes that hit by the
    /// tie rule.
    fn assert_lanes_match(rays: &[Ray; PACKET_WIDTH], triangle: &Triangle, t_max: [f32; 8]) -> u32 {
        let [hit, touching] = [Contacts::TieRule, Contacts::Hit].map(|contacts| {
            let hit = assert_lanes_match_in(Portable, contacts, rays, triangle, t_max);
            #[cfg(target_arch = "x86_64")]
            if let Some(avx2) = crate::Avx2::detect() {
                assert_eq!(
                    assert_lanes_match_in(avx2, contacts, rays, triangle, t_max),
                    hit
                );
            }
            hit
        });
        assert_eq!(hit & !touching, 0, "a crossing is a contact");
        hit
    }

    /// Checks every pair of lanes of `rays` that share their axes, both orders and each lane
    /// with itself, against the scalar test on each triangle of `triangles` (at most four,
    /// one block), in every instruction set this CPU runs. Returns the lanes that hit any.
    fn assert_pairs_match(
        rays: &[Ray; PACKET_WIDTH],
        triangles: &[Triangle],
        t_max: [f32; 8],
    ) -> u32 {
        let [hit, touching] = [Contacts::TieRule, Contacts::Hit].map(|contacts| {
            let hit = assert_pairs_match_in(Portable, contacts, rays, triangles, t_max);
            #[cfg(target_arch = "x86_64")]
            if let Some(avx2) = crate::Avx2::detect() {
                assert_eq!(
                    assert_pairs_match_in(avx2, contacts, rays, triangles, t_max),
                    hit
                );
            }
            hit
        });
        assert_eq!(hit & !touching, 0, "a crossing is a contact");
        hit
    }

    fn assert_pairs_match_in<S: Simd>(
        simd: S,
        contacts: Contacts,
        rays: &[Ray; PACKET_WIDTH],
        triangles: &[Triangle],
        t_max: [f32; 8],
    ) -> u32 {
        let block = TriangleBlock::new(triangles);
        let set_up = rays.map(|r| WatertightRay::new(&r).with_contacts(contacts));
        let bits = |h: Option<Hit>| h.map(|h| (h.t.to_bits(), h.u.to_bits(), h.v.to_bits()));
        let mut hit = 0;
        for a in 0..PACKET_WIDTH {
            let lanes = (0..PACKET_WIDTH)
                .filter(|&l| set_up[l].axes == set_up[a].axes)
                .fold(0, |m, l| m | 1 << l);
            let packet = WatertightPacket::new(simd, &RayPacket::new(rays), lanes)
                .expect("shared axes")
                .with_contacts(contacts);
            for b in (0..PACKET_WIDTH).filter(|&b| lanes & (1 << b) != 0) {
                let pair = packet.pair(a, b, Lanes::from_array(simd, t_max));
                assert_eq!([pair.t_max(0), pair.t_max(1)], [t_max[a], t_max[b]]);
                let hits = pair.intersect(&block);
                for (r, ray) in [a, b].into_iter().enumerate() {
                    for lane in 0..BLOCK_WIDTH {
                        let expected = triangles.get(lane).and_then(|t| {
                            set_up[ray]
                                .with_range(rays[ray].t_min, t_max[ray])
                                .intersect(t.v0, t.v1, t.v2)
                        });
                        let found = hits.hit(BLOCK_WIDTH * r + lane);
                        assert_eq!(
                            bits(found),
                            bits(expected),
                            "rays {a}, {b}, triangle {lane}"
                        );
                        if found.is_some() {
                            hit |= 1 << ray;
                        }
                    }
                }
            }
        }
        hit
    }

    fn assert_lanes_match_in<S: Simd>(
        simd: S,
        contacts: Contacts,
        rays: &[Ray; PACKET_WIDTH],
        triangle: &Triangle,
        t_max: [f32; 8],
    ) -> u32 {
        let set_up = rays.map(|r| WatertightRay::new(&r).with_contacts(contacts));
        // Group the lanes by axes, as a walk does, and test each group.
        let mut left = crate::ALL_LANES;
        let mut hit = 0;
        while left != 0 {
            let axes = set_up[left.trailing_zeros() as usize].axes;
            let lanes = (0..PACKET_WIDTH)
                .filter(|&l| left & (1 << l) != 0 && set_up[l].axes == axes)
                .fold(0, |m, l| m | 1 << l);
            left &= !lanes;
            let packet = WatertightPacket::new(simd, &RayPacket::new(rays), lanes)
                .expect("shared axes")
                .with_contacts(contacts);
            let hits = packet.intersect(triangle, Lanes::from_array(simd, t_max), lanes);
            assert_eq!(hits.lanes() & !lanes, 0);
            for lane in (0..PACKET_WIDTH).filter(|&l| lanes & (1 << l) != 0) {
                let expected = set_up[lane]
                    .with_range(rays[lane].t_min, t_max[lane])
                    .intersect(triangle.v0, triangle.v1, triangle.v2);
                let bits =
                    |h: Option<Hit>| h.map(|h| (h.t.to_bits(), h.u.to_bits(), h.v.to_bits()));
                assert_eq!(
                    bits(hits.hit(lane)),
                    bits(expected),
                    "lane {lane}, {:?}",
                    rays[lane]
                );
            }
            hit |= hits.lanes();
        }
        hit
    }

    #[test]
    fn lanes_equal_the_scalar_test_on_random_triangles_and_rays() {
        let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
        let (mut hits, mut pair_hits) = (0, 0);
        for round in 0..3000 {
            let scale = [1.0, 1e-3, 1e4][round % 3];
            let triangle = Triangle::new(rng.point(scale), rng.point(scale), rng.point(scale));
            let origin = rng.point(3.0 * scale);
            let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|_| {
                // A shared origin (a camera) or nearby ones (shadow rays), towards the triangle.
                let from = if round % 2 == 0 {
                    origin
                } else {
                    origin + rng.point(0.1 * scale)
                };
                Ray::new(from, triangle.centroid() + rng.point(0.6 * scale) - from)
            });
            let t_max = core::array::from_fn(|lane| [f32::INFINITY, 2.0, 0.5][(lane + round) % 3]);
            hits += assert_lanes_match(&rays, &triangle, t_max).count_ones();
            // In a block with up to three others, around the same centroid.
            let others = (0..round % 4).map(|_| {
                let shift = rng.point(0.5 * scale);
                Triangle::new(
                    triangle.v0 + shift,
                    triangle.v2 - shift,
                    triangle.v1 + shift,
                )
            });
            let block: Vec<Triangle> = core::iter::once(triangle).chain(others).collect();
            pair_hits += assert_pairs_match(&rays, &block, t_max).count_ones();
        }
        assert!(hits > 2500, "{hits}");
        assert!(pair_hits > 2500, "{pair_hits}");
    }

    #[test]
    fn lanes_equal_the_scalar_test_through_shared_edges_and_vertices() {
        // A fan around a shared vertex, hit through the vertex and along the spokes, with
        // signed zero direction components; the rays of one packet through all of them.
        let SharedVertexFan {
            centre,
            rim,
            triangles: fan,
        } = shared_vertex_fan();
        let targets = [
            centre,
            centre.lerp(rim[0], 0.5),
            centre.lerp(rim[1], 0.25),
            centre.lerp(rim[2], 0.75),
        ];
        let dirs = [
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(-0.0, -0.0, 1.0),
            Vec3::new(0.3, -0.2, -1.0),
            Vec3::new(-0.0, 0.1, -1.0),
        ];
        let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|i| {
            let (target, dir) = (targets[i % 4], dirs[i / 2]);
            Ray::new(target - dir * 2.0, dir)
        });
        let mut owned = 0;
        for triangle in &fan {
            owned |= assert_lanes_match(&rays, triangle, [f32::INFINITY; 8]);
        }
        assert_eq!(owned, crate::ALL_LANES, "a ray fell through the fan");
        // The fan as one block, two rays at a time.
        let owned = assert_pairs_match(&rays, &fan, [f32::INFINITY; 8]);
        assert_eq!(
            owned,
            crate::ALL_LANES,
            "a ray fell through the fan's block"
        );
    }

    /// Rays exactly through vertices and edges at oblique angles: every lane sent to the
    /// exact decision answers what the scalar test answers, one triangle at a time and in
    /// pairs of rays against blocks.
    #[test]
    fn lanes_equal_the_scalar_test_through_vertices_at_oblique_angles() {
        let rays = crate::test_rng::crease_rays();
        let patch: Vec<Triangle> = crate::test_rng::crease_patch()
            .iter()
            .map(|[a, b, c]| Triangle::new(*a, *b, *c))
            .collect();
        let mut crossed = 0;
        for triangle in &patch {
            crossed |= assert_lanes_match(&rays, triangle, [f32::INFINITY; 8]);
        }
        // Every ray from inside crosses the surface.
        assert_eq!(crossed & 0xf0, 0xf0);
        for block in patch.chunks(BLOCK_WIDTH) {
            assert_pairs_match(&rays, block, [f32::INFINITY; 8]);
        }
    }

    /// [`lanes_equal_the_scalar_test_through_vertices_at_oblique_angles`] at every scale,
    /// from subnormal coordinates to products beyond `f32`'s range, and with subnormal
    /// direction components.
    #[test]
    fn lanes_equal_the_scalar_test_at_every_scale() {
        for (_, patch, rays) in crate::test_rng::scaled_creases() {
            for triangle in &patch {
                assert_lanes_match(&rays, triangle, [f32::INFINITY; 8]);
            }
            for block in patch.chunks(BLOCK_WIDTH) {
                assert_pairs_match(&rays, block, [f32::INFINITY; 8]);
            }
        }
    }

    #[test]
    fn degenerate_rays_and_lanes_left_out_never_hit() {
        let triangle = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let good = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
        let rays = [
            good,
            Ray::new(Vec3::NAN, Vec3::NEG_Z),
            Ray::new(
                Vec3::new(0.2, 0.2, 1.0),
                Vec3::new(0.0, 0.0, -f32::INFINITY),
            ),
            good.with_range(2.0, 1.0),
            good,
            good,
            good,
            good,
        ];
        let hit = assert_lanes_match(&rays, &triangle, [f32::INFINITY; 8]);
        assert_eq!(hit, 0b1111_0001);
        let packet = WatertightPacket::new(Portable, &RayPacket::new(&rays), 0b1001_0000)
            .expect("shared axes");
        let hits = packet.intersect(
            &triangle,
            Lanes::splat(Portable, f32::INFINITY),
            0b1001_0000,
        );
        assert_eq!(hits.lanes(), 0b1001_0000);
        assert!(WatertightPacket::new(Portable, &RayPacket::new(&rays), 0).is_none());
        let mut mixed = rays;
        mixed[1] = Ray::new(Vec3::ZERO, Vec3::X);
        assert!(WatertightPacket::new(Portable, &RayPacket::new(&mixed), 0b11).is_none());
    }
}
