//! A packet's rays as intervals, for the packet walk's node test (`packet.rs`): interval
//! arithmetic over the rays' origins and reciprocal directions (Boulos, Wald, Benthin,
//! *Geometric and Arithmetic Culling Methods for Entire Ray Packets*, 2006), which bounds
//! each ray's own slab test. It is exact with respect to that test: rounding is monotonic,
//! so computing the slab test's operations at the ends of the intervals bounds every ray's
//! computed entry and exit, and a box that some ray's single-ray test enters (with its
//! widening and its `t_max`) passes the packet's test. At a leaf, [`PacketInterval`] tests
//! the rays one by one with their own set-ups (`RayLanes`), so a leaf is tested only with
//! the rays whose single-ray test enters its box.
//!
//! Uses the contracts (`contracts.rs`: the planes and the set-up's arithmetic) and the node
//! layout (`layout.rs`).

use glam::Vec3;
use meshcast_primitives::{
    overflow_safe_reciprocal, Aabb, Lanes, RayPacket, Simd, ALL_LANES, PACKET_WIDTH, SLAB_SLACK,
    SLACK_FLOOR,
};

use crate::contracts::{near_far_planes, Plane};
use crate::layout::{WideNode, WIDE_WIDTH};

/// A walk's rays as intervals, for the node test: on each axis the origin that bounds the
/// rays' distances to a near plane and the one that bounds them to a far plane, the smallest
/// and largest reciprocal direction, the largest widening and the smallest `t_min`, splatted
/// over the eight boxes of a node.
pub(crate) struct PacketInterval<S: Simd, const H: usize> {
    /// Each ray's own slab test set-up, lane by lane ([`RaySetup::new`](crate::contracts::RaySetup::new)'s values), for the
    /// test of the rays that reach a leaf.
    rays: RayLanes<S, H>,
    /// Per axis, the largest origin coordinate if the rays run up the axis, else the smallest.
    near_origin: [Lanes<S>; 3],
    /// Per axis, the other end of the origins.
    far_origin: [Lanes<S>; 3],
    inv_dir: [[Lanes<S>; 2]; 3],
    slack: Lanes<S>,
    t_min: Lanes<S>,
    neg_inf: Lanes<S>,
    inf: Lanes<S>,
    near: [Plane; 3],
    far: [Plane; 3],
}

/// Each ray's own slab test set-up, lane by lane, packet by packet: `origin[axis][p]` holds
/// the origins of packet `p`.
struct RayLanes<S: Simd, const H: usize> {
    origin: [[Lanes<S>; H]; 3],
    inv_dir: [[Lanes<S>; H]; 3],
    slack: [Lanes<S>; H],
    t_min: [Lanes<S>; H],
}

impl<S: Simd, const H: usize> RayLanes<S, H> {
    /// The set-ups of the rays of `rays`, whose reciprocal directions are `inv_dir`, in a
    /// hierarchy whose root box is `bounds`.
    #[inline(always)]
    fn new(rays: [&RayPacket; H], inv_dir: &[[Lanes<S>; 3]; H], bounds: &Aabb) -> Self {
        let simd = inv_dir[0][0].simd();
        let zero = [Lanes::splat(simd, 0.0); H];
        let mut set_up = Self {
            origin: [zero; 3],
            inv_dir: [zero; 3],
            slack: zero,
            t_min: zero,
        };
        // Loops, and no closures or `map` here: those would be compiled apart from the
        // caller's instruction set, and the lanes' intrinsics would not be inlined into them.
        for p in 0..H {
            let origin = rays[p].origin_lanes(simd);
            let dir = rays[p].dir_lanes(simd);
            // Along each ray's dominant axis: the origin, the root's planes and the component.
            let along = rays[p].dominant(simd);
            let axis_origin = on_axis(along, origin);
            let axis_min = on_axis(along, splat3(simd, bounds.min));
            let axis_max = on_axis(along, splat3(simd, bounds.max));
            let axis_dir = on_axis(along, dir);
            let reach = (axis_min - axis_origin)
                .abs()
                .max((axis_max - axis_origin).abs());
            // `slab_slack`'s widening, bounded as `RaySetup::new` bounds it (`bounded_slack`).
            set_up.slack[p] = (reach / axis_dir.abs() * Lanes::splat(simd, SLAB_SLACK)
                + Lanes::splat(simd, SLACK_FLOOR))
            .min(Lanes::splat(simd, f32::MAX));
            set_up.t_min[p] = Lanes::from_array(simd, rays[p].t_min);
            for axis in 0..3 {
                set_up.origin[axis][p] = origin[axis];
                set_up.inv_dir[axis][p] = inv_dir[p][axis];
            }
            // A ray with a zero component, or one whose reciprocal overflows, walks alone;
            // the latter gets `RaySetup::new`'s safe reciprocal, lane by lane.
            let inf = Lanes::splat(simd, f32::INFINITY);
            let [ix, iy, iz] = inv_dir[p];
            if !(ix.abs().lt(inf) & iy.abs().lt(inf) & iz.abs().lt(inf)) & ALL_LANES != 0 {
                let mut inv = [ix.to_array(), iy.to_array(), iz.to_array()];
                let mut slack = set_up.slack[p].to_array();
                let dir = [dir[0].to_array(), dir[1].to_array(), dir[2].to_array()];
                overflow_safe_lanes(dir, &mut inv, &mut slack);
                for (axis, inv) in inv.into_iter().enumerate() {
                    set_up.inv_dir[axis][p] = Lanes::from_array(simd, inv);
                }
                set_up.slack[p] = Lanes::from_array(simd, slack);
            }
        }
        set_up
    }
}

/// [`overflow_safe_reciprocal`] of each lane's ray (`dir[axis][lane]`), in place.
#[cold]
#[inline(never)]
fn overflow_safe_lanes(
    dir: [[f32; PACKET_WIDTH]; 3],
    inv_dir: &mut [[f32; PACKET_WIDTH]; 3],
    slack: &mut [f32; PACKET_WIDTH],
) {
    for lane in 0..PACKET_WIDTH {
        let of = |v: &[[f32; PACKET_WIDTH]; 3]| Vec3::new(v[0][lane], v[1][lane], v[2][lane]);
        let (inv, safe_slack) = overflow_safe_reciprocal(of(&dir), of(inv_dir), slack[lane]);
        for axis in 0..3 {
            inv_dir[axis][lane] = inv[axis];
        }
        slack[lane] = safe_slack;
    }
}

/// The first ray in `lanes` of the packets `rays`.
#[inline(always)]
fn lead_ray<const H: usize>(rays: [&RayPacket; H], lanes: [u32; H]) -> meshcast_primitives::Ray {
    let mut packet = 0;
    while packet + 1 < H && lanes[packet] == 0 {
        packet += 1;
    }
    rays[packet].ray(lanes[packet].trailing_zeros() as usize % PACKET_WIDTH)
}

impl<S: Simd, const H: usize> PacketInterval<S, H> {
    /// The intervals of the rays of packets `rays` in `lanes` (valid rays of one direction
    /// octant, with finite reciprocal directions `inv_dir`) in a hierarchy whose root box is
    /// `bounds`. Each ray's values are those of its [`RaySetup::new`](crate::contracts::RaySetup::new), bit for bit
    /// (correctly rounded quotients, computed eight at once).
    #[inline(always)]
    pub(super) fn new(
        rays: [&RayPacket; H],
        inv_dir: &[[Lanes<S>; 3]; H],
        lanes: [u32; H],
        bounds: &Aabb,
    ) -> Self {
        let simd = inv_dir[0][0].simd();
        let set_up = RayLanes::new(rays, inv_dir, bounds);
        let lead = lead_ray(rays, lanes);
        let (near, far) = near_far_planes(&lead);
        // The rays share their direction's signs (or there is one ray).
        let [down_x, down_y, down_z] = lead.dir.to_array().map(f32::is_sign_negative);
        let x = ends(set_up.origin[0], lanes);
        let y = ends(set_up.origin[1], lanes);
        let z = ends(set_up.origin[2], lanes);
        let inv_dir = [
            ends(set_up.inv_dir[0], lanes),
            ends(set_up.inv_dir[1], lanes),
            ends(set_up.inv_dir[2], lanes),
        ];
        Self {
            near_origin: [
                x[usize::from(!down_x)],
                y[usize::from(!down_y)],
                z[usize::from(!down_z)],
            ],
            far_origin: [
                x[usize::from(down_x)],
                y[usize::from(down_y)],
                z[usize::from(down_z)],
            ],
            inv_dir,
            slack: Lanes::splat(simd, largest_of(set_up.slack, lanes)),
            t_min: Lanes::splat(simd, smallest_of(set_up.t_min, lanes)),
            neg_inf: Lanes::splat(simd, f32::NEG_INFINITY),
            inf: Lanes::splat(simd, f32::INFINITY),
            rays: set_up,
            near,
            far,
        }
    }

    /// The lanes of `node` whose box some ray of the packet may enter within
    /// `[t_min, t_max]`, as bits, and a lower bound of the rays' entry distances per lane.
    ///
    /// The single-ray test of `simd/` (`LaneRay::test`) with each product taken at the
    /// corners of its operands' intervals: the smallest bounds the near distances, the
    /// largest the far ones, and the widening and range are taken at their most generous.
    #[inline(always)]
    pub(super) fn test(&self, node: &WideNode, t_max: f32) -> (u32, [f32; WIDE_WIDTH]) {
        let simd = self.slack.simd();
        let near_x = self.smallest(plane(simd, node, self.near[0]), 0);
        let near_y = self.smallest(plane(simd, node, self.near[1]), 1);
        let near_z = self.smallest(plane(simd, node, self.near[2]), 2);
        let far_x = self.largest(plane(simd, node, self.far[0]), 0);
        let far_y = self.largest(plane(simd, node, self.far[1]), 1);
        let far_z = self.largest(plane(simd, node, self.far[2]), 2);
        let near = near_x.max(near_y.max(near_z.max(self.neg_inf)));
        let far = far_x.min(far_y.min(far_z.min(self.inf)));
        let entry = (near - self.slack).max(self.t_min);
        let exit = (far + self.slack).min(Lanes::splat(simd, t_max));
        (entry.le(exit), entry.to_array())
    }

    /// The rays among `lanes` of packet `packet` whose own slab test enters box `child` of
    /// `node` within `[t_min, t_max]`, as bits: the single-ray test of `simd/` (`LaneRay::test`), the
    /// same operations on the same values, one ray per lane, so that a ray reaches a leaf
    /// exactly when its own test of the leaf's box lets it in.
    ///
    /// The interval test lets a packet into a box if any of its rays might enter it; at a
    /// leaf, where each ray would test every triangle, this keeps out the rays that miss the
    /// leaf's box (on a camera image, most of them: leaves are about a pixel wide there).
    #[inline(always)]
    pub(super) fn rays_entering(
        &self,
        packet: usize,
        node: &WideNode,
        child: usize,
        t_max: Lanes<S>,
        lanes: u32,
    ) -> u32 {
        let simd = t_max.simd();
        let rays = &self.rays;
        let [x, y, z] = &rays.origin;
        let [ox, oy, oz] = [x[packet], y[packet], z[packet]];
        let [x, y, z] = &rays.inv_dir;
        let [ix, iy, iz] = [x[packet], y[packet], z[packet]];
        let (slack, t_min) = (rays.slack[packet], rays.t_min[packet]);
        let near_x = (box_plane(simd, node, self.near[0], child) - ox) * ix;
        let near_y = (box_plane(simd, node, self.near[1], child) - oy) * iy;
        let near_z = (box_plane(simd, node, self.near[2], child) - oz) * iz;
        let far_x = (box_plane(simd, node, self.far[0], child) - ox) * ix;
        let far_y = (box_plane(simd, node, self.far[1], child) - oy) * iy;
        let far_z = (box_plane(simd, node, self.far[2], child) - oz) * iz;
        let near = near_x.max(near_y.max(near_z.max(self.neg_inf)));
        let far = far_x.min(far_y.min(far_z.min(self.inf)));
        let entry = (near - slack).max(t_min);
        let exit = (far + slack).min(t_max);
        entry.le(exit) & lanes
    }

    /// The smallest `(plane - origin) * inv_dir` on `axis` over the intervals, for a near
    /// plane. The rays' reciprocals share their sign, and rounded differences and products
    /// keep the order of their operands, so over the origins the product is smallest at
    /// [`PacketInterval::near_origin`], and over the reciprocals at one of their two ends:
    /// the smallest of the intervals' four corners, found from two of them.
    #[inline(always)]
    fn smallest(&self, plane: Lanes<S>, axis: usize) -> Lanes<S> {
        let [i_lo, i_hi] = self.inv_dir[axis];
        let d = plane - self.near_origin[axis];
        (d * i_lo).min(d * i_hi)
    }

    /// The largest `(plane - origin) * inv_dir` on `axis` over the intervals, for a far plane
    /// (as [`PacketInterval::smallest`]).
    #[inline(always)]
    fn largest(&self, plane: Lanes<S>, axis: usize) -> Lanes<S> {
        let [i_lo, i_hi] = self.inv_dir[axis];
        let d = plane - self.far_origin[axis];
        (d * i_lo).max(d * i_hi)
    }
}

/// Lane by lane, the value of `values` on the lane's dominant axis (`along`: the lanes along
/// y and along z, [`RayPacket::dominant`]).
#[inline(always)]
fn on_axis<S: Simd>([along_y, along_z]: [u32; 2], [x, y, z]: [Lanes<S>; 3]) -> Lanes<S> {
    z.select(along_z, y.select(along_y, x))
}

/// The coordinates of `point`, each splatted.
#[inline(always)]
fn splat3<S: Simd>(simd: S, point: Vec3) -> [Lanes<S>; 3] {
    [
        Lanes::splat(simd, point.x),
        Lanes::splat(simd, point.y),
        Lanes::splat(simd, point.z),
    ]
}

/// The smallest lane among `lanes` (bits) of the packets' `values`, `+inf` if there is none.
#[inline(always)]
fn smallest_of<S: Simd, const H: usize>(values: [Lanes<S>; H], lanes: [u32; H]) -> f32 {
    if H == 1 {
        return values[0].min_of(lanes[0]);
    }
    let inf = Lanes::splat(values[0].simd(), f32::INFINITY);
    let mut all = inf;
    for (v, l) in values.iter().zip(lanes) {
        all = all.min(v.select(l, inf));
    }
    all.min_of(ALL_LANES)
}

/// The largest lane among `lanes` (bits) of the packets' `values`, `-inf` if there is none.
#[inline(always)]
pub(super) fn largest_of<S: Simd, const H: usize>(values: [Lanes<S>; H], lanes: [u32; H]) -> f32 {
    if H == 1 {
        return values[0].max_of(lanes[0]);
    }
    let neg_inf = Lanes::splat(values[0].simd(), f32::NEG_INFINITY);
    let mut all = neg_inf;
    for (v, l) in values.iter().zip(lanes) {
        all = all.max(v.select(l, neg_inf));
    }
    all.max_of(ALL_LANES)
}

/// The smallest and the largest lane among `lanes` (bits) of the packets' `values`, each
/// splatted.
#[inline(always)]
fn ends<S: Simd, const H: usize>(values: [Lanes<S>; H], lanes: [u32; H]) -> [Lanes<S>; 2] {
    let simd = values[0].simd();
    [
        Lanes::splat(simd, smallest_of(values, lanes)),
        Lanes::splat(simd, largest_of(values, lanes)),
    ]
}

/// Plane `p` of box `child` of `node`, splatted.
#[inline(always)]
fn box_plane<S: Simd>(simd: S, node: &WideNode, p: Plane, child: usize) -> Lanes<S> {
    Lanes::splat(
        simd,
        node.planes[p as usize][child / 4].to_array()[child % 4],
    )
}

/// Plane `p` of the eight boxes of `node`.
#[inline(always)]
fn plane<S: Simd>(simd: S, node: &WideNode, p: Plane) -> Lanes<S> {
    Lanes::from_halves(simd, node.planes[p as usize])
}
