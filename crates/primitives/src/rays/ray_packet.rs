//! A packet's rays lane by lane: each component of every ray in one array ("structure of
//! arrays"), so that what the packet code asks of all its rays (which are valid, which way
//! they point, how far apart they are) is a few operations on whole registers rather than a
//! loop over rays.

use glam::{Mat4, Vec3, Vec4};

use crate::lanes::{Lanes, Simd, ALL_LANES, PACKET_WIDTH};
use crate::rays::Ray;

/// [`PACKET_WIDTH`] rays, lane by lane: `origin[axis][lane]` is coordinate `axis` of ray
/// `lane`'s origin.
///
/// # Examples
/// ```
/// use glam::{Mat4, Vec3, Vec4};
/// use meshcast_primitives::{Portable, Ray, RayPacket, PACKET_WIDTH};
///
/// let mut rays = [Ray::new(Vec3::ZERO, Vec3::NEG_Z); PACKET_WIDTH];
/// rays[1] = Ray::new(Vec3::ZERO, Vec3::ZERO); // no direction: invalid
/// rays[2] = Ray::new(Vec3::ZERO, Vec3::new(0.0, 2.0, -1.0)); // mostly along +y
/// let packet = RayPacket::new(&rays);
/// assert_eq!(packet.ray(2), rays[2]);
/// assert_eq!(packet.valid(Portable) & 0b111, 0b101);
/// // Lanes 0 and 2 point to -z, but only lane 0 runs mostly along z.
/// assert_eq!(packet.classes(Portable).like(0) & 0b101, 0b001);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RayPacket {
    /// The origins' coordinates, one array per axis.
    pub origin: [[f32; PACKET_WIDTH]; 3],
    /// The directions' components, one array per axis.
    pub dir: [[f32; PACKET_WIDTH]; 3],
    /// The smallest accepted distances.
    pub t_min: [f32; PACKET_WIDTH],
    /// The largest accepted distances.
    pub t_max: [f32; PACKET_WIDTH],
}

impl RayPacket {
    /// The packet of `rays`, ray `i` in lane `i`.
    ///
    /// Four rays at a time, as two 4x4 transposes in registers: writing the lanes one by one
    /// and reading them back four at a time would stall each read (a store is forwarded to a
    /// load of the same size only).
    #[inline]
    pub fn new(rays: &[Ray; PACKET_WIDTH]) -> Self {
        let mut packet = Self::default();
        for (group, four) in rays.chunks_exact(4).enumerate() {
            let lanes = 4 * group..4 * group + 4;
            let [a, b, c, d] = [&four[0], &four[1], &four[2], &four[3]];
            let front = |r: &Ray| Vec4::new(r.origin.x, r.origin.y, r.origin.z, r.dir.x);
            let back = |r: &Ray| Vec4::new(r.dir.y, r.dir.z, r.t_min, r.t_max);
            let front = Mat4::from_cols(front(a), front(b), front(c), front(d)).transpose();
            let back = Mat4::from_cols(back(a), back(b), back(c), back(d)).transpose();
            front
                .x_axis
                .write_to_slice(&mut packet.origin[0][lanes.clone()]);
            front
                .y_axis
                .write_to_slice(&mut packet.origin[1][lanes.clone()]);
            front
                .z_axis
                .write_to_slice(&mut packet.origin[2][lanes.clone()]);
            front
                .w_axis
                .write_to_slice(&mut packet.dir[0][lanes.clone()]);
            back.x_axis
                .write_to_slice(&mut packet.dir[1][lanes.clone()]);
            back.y_axis
                .write_to_slice(&mut packet.dir[2][lanes.clone()]);
            back.z_axis.write_to_slice(&mut packet.t_min[lanes.clone()]);
            back.w_axis.write_to_slice(&mut packet.t_max[lanes]);
        }
        packet
    }

    /// The ray in lane `lane`.
    #[inline]
    pub fn ray(&self, lane: usize) -> Ray {
        let [ox, oy, oz] = self.origin.map(|o| o[lane]);
        let [dx, dy, dz] = self.dir.map(|d| d[lane]);
        Ray {
            origin: Vec3::new(ox, oy, oz),
            dir: Vec3::new(dx, dy, dz),
            t_min: self.t_min[lane],
            t_max: self.t_max[lane],
        }
    }

    /// The rays, ray `i` from lane `i`.
    #[inline]
    pub fn rays(&self) -> [Ray; PACKET_WIDTH] {
        core::array::from_fn(|lane| self.ray(lane))
    }

    /// The directions' components in the lanes of `simd`.
    #[inline(always)]
    pub fn dir_lanes<S: Simd>(&self, simd: S) -> [Lanes<S>; 3] {
        [
            Lanes::from_array(simd, self.dir[0]),
            Lanes::from_array(simd, self.dir[1]),
            Lanes::from_array(simd, self.dir[2]),
        ]
    }

    /// The origins' coordinates in the lanes of `simd`.
    #[inline(always)]
    pub fn origin_lanes<S: Simd>(&self, simd: S) -> [Lanes<S>; 3] {
        [
            Lanes::from_array(simd, self.origin[0]),
            Lanes::from_array(simd, self.origin[1]),
            Lanes::from_array(simd, self.origin[2]),
        ]
    }

    /// The lanes whose ray is valid ([`Ray::is_valid`]), as bits.
    #[inline(always)]
    pub fn valid<S: Simd>(&self, simd: S) -> u32 {
        let zero = Lanes::splat(simd, 0.0);
        let inf = Lanes::splat(simd, f32::INFINITY);
        let neg_inf = Lanes::splat(simd, f32::NEG_INFINITY);
        let [ox, oy, oz] = self.origin_lanes(simd);
        let [dx, dy, dz] = self.dir_lanes(simd);
        let t_min = Lanes::from_array(simd, self.t_min);
        let t_max = Lanes::from_array(simd, self.t_max);
        // `x * 0` is zero for a finite `x` and NaN for an infinity or NaN, so the sum is zero
        // exactly when all six are finite: one comparison instead of six.
        let finite =
            (ox * zero + oy * zero + oz * zero + dx * zero + dy * zero + dz * zero).eq(zero);
        // A sum of magnitudes is zero only if each is: adding non-negative numbers never rounds
        // to zero.
        let nonzero = (dx.abs() + dy.abs() + dz.abs()).ne(zero);
        finite & nonzero & t_min.le(t_max) & t_min.lt(inf) & neg_inf.lt(t_max)
    }

    /// Per axis, the lanes whose direction component is negative (`-0.0` included), as bits:
    /// the octant the node tests choose their planes by.
    #[inline(always)]
    pub fn negative<S: Simd>(&self, simd: S) -> [u32; 3] {
        self.dir_lanes(simd).map(Lanes::sign_bits)
    }

    /// The lanes whose direction runs mostly along y, and those mostly along z, as bits: the
    /// first largest component's axis, as [`glam::Vec3::max_position`] of the components'
    /// magnitudes picks it (the watertight test's `kz`). The other lanes run mostly along x.
    #[inline(always)]
    pub fn dominant<S: Simd>(&self, simd: S) -> [u32; 2] {
        let [x, y, z] = self.dir_lanes(simd).map(Lanes::abs);
        let z_wins = x.max(y).lt(z);
        let y_wins = x.lt(y) & !z_wins;
        [y_wins, z_wins]
    }

    /// The rays' classes: the sign of each direction component and the dominant axis, which
    /// is what the packet walk and the packet triangle test need the rays of one packet to
    /// share.
    #[inline(always)]
    pub fn classes<S: Simd>(&self, simd: S) -> RayClasses {
        let [x, y, z] = self.negative(simd);
        let [along_y, along_z] = self.dominant(simd);
        RayClasses([x, y, z, along_y, along_z])
    }
}

/// The classes of a packet's rays ([`RayPacket::classes`]), as bits per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayClasses([u32; 5]);

impl RayClasses {
    /// The lanes whose ray is of lane `lane`'s class, as bits.
    #[inline(always)]
    pub fn like(&self, lane: usize) -> u32 {
        self.0
            .iter()
            .fold(ALL_LANES, |lanes, &bits| lanes & lanes_like(bits, lane))
    }
}

/// The lanes where `bits` holds what it holds in lane `lane`, as bits (lanes past
/// [`PACKET_WIDTH`] included).
#[inline(always)]
pub fn lanes_like(bits: u32, lane: usize) -> u32 {
    if bits & (1 << lane) != 0 {
        bits
    } else {
        !bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Xorshift;
    use crate::Portable;

    fn check<S: Simd>(simd: S, rays: &[Ray; PACKET_WIDTH]) {
        let packet = RayPacket::new(rays);
        let valid = packet.valid(simd);
        let negative = packet.negative(simd);
        let [along_y, along_z] = packet.dominant(simd);
        for (lane, ray) in rays.iter().enumerate() {
            // Bit for bit, NaNs included.
            let bits = |r: Ray| {
                let [o, d] = [r.origin, r.dir].map(|v| v.to_array().map(f32::to_bits));
                (o, d, r.t_min.to_bits(), r.t_max.to_bits())
            };
            assert_eq!(bits(packet.ray(lane)), bits(*ray));
            let bit = |bits: u32| bits & (1 << lane) != 0;
            assert_eq!(bit(valid), ray.is_valid(), "{ray:?}");
            let d = ray.dir.to_array();
            for axis in 0..3 {
                assert_eq!(bit(negative[axis]), d[axis].is_sign_negative(), "{ray:?}");
            }
            if ray.is_valid() {
                let axis = ray.dir.abs().max_position();
                assert_eq!(
                    (bit(along_y), bit(along_z)),
                    (axis == 1, axis == 2),
                    "{ray:?}"
                );
                let class = packet.classes(simd).like(lane);
                for (other, o) in rays.iter().enumerate() {
                    let same = o.is_valid()
                        && o.dir.abs().max_position() == axis
                        && (0..3).all(|a| o.dir[a].is_sign_negative() == d[a].is_sign_negative());
                    if o.is_valid() {
                        assert_eq!(class & (1 << other) != 0, same, "{ray:?} {o:?}");
                    }
                }
            }
        }
    }

    fn check_every_instruction_set(rays: &[Ray; PACKET_WIDTH]) {
        check(Portable, rays);
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = crate::Avx2::detect() {
            check(avx2, rays);
        }
    }

    #[test]
    fn lanes_answer_what_each_ray_answers() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-40,
            f32::MAX,
            -f32::MAX,
        ];
        for round in 0..500 {
            let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|lane| {
                let mut ray = Ray::new(rng.point(10.0), rng.point(1.0));
                // Ties between components, signed zeros and non-finite values.
                let pick = |rng: &mut Xorshift| {
                    specials[(rng.next() * specials.len() as f32) as usize % specials.len()]
                };
                match (round + lane) % 6 {
                    0 => ray.dir.y = ray.dir.x,
                    1 => ray.dir = Vec3::new(pick(&mut rng), pick(&mut rng), pick(&mut rng)),
                    2 => ray.origin.z = pick(&mut rng),
                    3 => ray = ray.with_range(pick(&mut rng), pick(&mut rng)),
                    4 => ray.dir.z = -ray.dir.y,
                    _ => {}
                }
                ray
            });
            check_every_instruction_set(&rays);
        }
    }
}
