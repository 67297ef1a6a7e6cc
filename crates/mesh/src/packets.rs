//! Finding packets in a batch: which neighbouring rays are coherent enough to walk a
//! hierarchy together.
//!
//! A batch is read [`PACKET_WIDTH`] rays at a time. Rays go into one packet when they share
//! what the packet walk and the packet triangle test need shared (the signs of their direction
//! components and their dominant axis, [`RayClass`]) and their directions lie within
//! [`PACKET_CONE_COS`] of each other and their origins within [`PACKET_ORIGIN_SPREAD`], so
//! that they tend to enter the same boxes: neighbouring
//! pixels of a camera image, shadow rays from nearby points towards one light. A packet needs
//! at least [`PACKET_MIN_RAYS`] rays; the others walk alone, so incoherent batches pay only
//! this sorting.

use meshcast_primitives::{Ray, PACKET_WIDTH};
use smallvec::SmallVec;

/// The packets found among a batch's rays: bits per packet.
pub(crate) type Packets = SmallVec<[u32; PACKET_WIDTH]>;

/// The fewest rays traced as a packet; fewer coherent rays walk one by one.
pub(crate) const PACKET_MIN_RAYS: u32 = 4;

/// How far from a packet's first ray's origin another ray's origin may lie, in units of the
/// first ray's direction: packets are walked with the interval of their origins, which must
/// stay small against the distances the rays travel.
pub(crate) const PACKET_ORIGIN_SPREAD: f32 = 0.01;

/// The cosine of the widest angle between the directions of a packet's first ray and any
/// other of its rays (about 8 degrees).
pub(crate) const PACKET_CONE_COS: f32 = 0.99;

/// What the rays of one packet share: the sign of each direction component (`-0.0` counted as
/// negative, as the node tests choose planes) and the dominant axis (the watertight test's
/// `kz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RayClass(u8);

impl RayClass {
    #[inline]
    pub(crate) fn of(ray: &Ray) -> Self {
        let d = ray.dir;
        let signs = u8::from(d.x.is_sign_negative())
            | u8::from(d.y.is_sign_negative()) << 1
            | u8::from(d.z.is_sign_negative()) << 2;
        Self(signs | (d.abs().max_position() as u8) << 3)
    }
}

/// The lanes of `rays` in `lanes` (bits), split into groups of one [`RayClass`]: bits per group.
#[inline]
pub(crate) fn by_class(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> impl Iterator<Item = u32> + '_ {
    let classes = rays.map(|ray| RayClass::of(&ray));
    let mut left = lanes;
    core::iter::from_fn(move || {
        let first = classes[left.checked_next()?];
        let group = select(left, |lane| classes[lane] == first);
        left &= !group;
        Some(group)
    })
}

/// The packets among the rays of `rays` in `lanes` (bits, valid rays): bits per packet, each
/// of one [`RayClass`], and the bits of the rays that walk alone.
#[inline]
pub(crate) fn coherent(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (Packets, u32) {
    let mut classes = [RayClass(0); PACKET_WIDTH];
    let mut unit = [glam::Vec3::ZERO; PACKET_WIDTH];
    let mut length = [0.0f32; PACKET_WIDTH];
    for (lane, ray) in rays.iter().enumerate() {
        classes[lane] = RayClass::of(ray);
        length[lane] = ray.dir.length();
        unit[lane] = ray.dir / length[lane];
    }
    let mut packets = Packets::new();
    let mut alone = 0;
    let mut left = lanes;
    while let Some(first) = left.checked_next() {
        let group = select(left, |lane| {
            classes[lane] == classes[first]
                && unit[lane].dot(unit[first]) >= PACKET_CONE_COS
                && rays[lane].origin.distance(rays[first].origin)
                    <= PACKET_ORIGIN_SPREAD * length[first]
        }) | 1 << first;
        left &= !group;
        if group.count_ones() >= PACKET_MIN_RAYS {
            packets.push(group);
        } else {
            alone |= group;
        }
    }
    (packets, alone)
}

/// The lanes of `lanes` for which `keep` holds, as bits.
#[inline]
fn select(lanes: u32, keep: impl Fn(usize) -> bool) -> u32 {
    (0..PACKET_WIDTH)
        .filter(|&lane| lanes & (1 << lane) != 0 && keep(lane))
        .fold(0, |bits, lane| bits | 1 << lane)
}

/// The lowest set bit's index, `None` for no bits.
trait NextLane {
    fn checked_next(self) -> Option<usize>;
}

impl NextLane for u32 {
    #[inline]
    fn checked_next(self) -> Option<usize> {
        (self != 0).then(|| self.trailing_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn rays(dirs: [Vec3; PACKET_WIDTH]) -> [Ray; PACKET_WIDTH] {
        dirs.map(|dir| Ray::new(Vec3::ZERO, dir))
    }

    #[test]
    fn camera_neighbours_are_one_packet() {
        let packet = rays(core::array::from_fn(|i| {
            Vec3::new(0.01 * i as f32, 0.02, -1.0)
        }));
        assert_eq!(coherent(&packet, 0xff), (Packets::from_slice(&[0xff]), 0));
        assert_eq!(coherent(&packet, 0b1011), (Packets::new(), 0b1011));
        assert_eq!(by_class(&packet, 0xff).collect::<Vec<_>>(), [0xff]);
    }

    #[test]
    fn signs_axes_and_wide_angles_split_packets() {
        let mut dirs: [Vec3; PACKET_WIDTH] =
            core::array::from_fn(|i| Vec3::new(0.01 * i as f32, 0.02, -1.0));
        dirs[0].x = -0.0; // another octant
        dirs[1] = Vec3::new(2.0, 0.0, -1.0); // another dominant axis
        dirs[2] = Vec3::new(0.3, 0.02, -1.0); // the right signs and axis, 17 degrees off
        let packet = rays(dirs);
        let (packets, alone) = coherent(&packet, 0xff);
        assert_eq!(packets.as_slice(), [0b1111_1000]);
        assert_eq!(alone, 0b0000_0111);
        let classes: Vec<u32> = by_class(&packet, 0xff).collect();
        assert_eq!(classes, [0b0000_0001, 0b0000_0010, 0b1111_1100]);
    }
}
