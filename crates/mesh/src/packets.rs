//! Finding packets in a batch: which neighbouring rays are coherent enough to walk a
//! hierarchy together.
//!
//! A batch is read [`PACKET_WIDTH`] rays at a time. Rays go into one packet when they share
//! what the packet walk and the packet triangle test need shared (the signs of their direction
//! components and their dominant axis, [`RayClass`]) and their directions lie within
//! [`PACKET_CONE_COS`] of each other and their origins within [`PACKET_ORIGIN_SPREAD`], so
//! that they tend to enter the same boxes: neighbouring
//! pixels of a camera image, shadow rays from nearby points towards one light. A packet needs
//! at least [`PACKET_MIN_RAYS`] rays; the others walk alone. Random rays are recognised by a
//! look at two pairs of neighbours and walk alone without being sorted, so incoherent batches
//! pay next to nothing for the search.

use glam::Vec3A;
use meshcast_primitives::{Ray, PACKET_WIDTH};
use smallvec::SmallVec;

use crate::ray_queries::{at_least, valid_lanes};

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
        let d = Vec3A::from(ray.dir);
        // The sign bits in one move (`-0.0` negative).
        let signs = d.is_negative_bitmask() as u8;
        // `Vec3::max_position` (the first largest), without branches.
        let a = d.abs();
        let y_wins = a.y > a.x;
        let axis = if a.z > a.x.max(a.y) {
            2
        } else {
            u8::from(y_wins)
        };
        Self(signs | axis << 3)
    }
}

/// The lanes of `rays` in `lanes` (bits), split into groups of one [`RayClass`]: bits per group.
#[inline]
pub(crate) fn by_class(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> impl Iterator<Item = u32> {
    let classes = class_bytes(rays);
    let mut left = lanes;
    core::iter::from_fn(move || {
        let first = left.checked_next()?;
        let group = equal_bytes(classes, (classes >> (8 * first)) & 0xff) & left;
        left &= !group;
        Some(group)
    })
}

/// The [`RayClass`] of each ray as the bytes of one word, so that the lanes of a class are
/// found by a few word operations rather than a loop.
#[inline]
fn class_bytes(rays: &[Ray; PACKET_WIDTH]) -> u64 {
    rays.iter().enumerate().fold(0u64, |word, (lane, ray)| {
        word | u64::from(RayClass::of(ray).0) << (8 * lane)
    })
}

/// The bytes of `word` equal to `byte`, a bit each.
#[inline]
fn equal_bytes(word: u64, byte: u64) -> u32 {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let diff = word ^ (byte * 0x0101_0101_0101_0101);
    // 0x80 in each byte of `diff` that is zero, exactly (no carries between bytes).
    let zero = !(((diff & LOW) + LOW) | diff | LOW);
    // Gathers the eight high bits into the top byte.
    ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// The packets among the rays of `rays` in `lanes` (bits): bits per packet, each of valid
/// rays ([`Ray::is_valid`]) of one [`RayClass`], and the bits of the rays that walk alone,
/// invalid ones included.
///
/// Random rays seldom hold a packet, so a batch of them should pay next to nothing here: unless
/// one of two pairs of neighbouring lanes shares a class, as neighbours in a camera image or a
/// fan of shadow rays do, every ray walks alone without a closer look.
#[inline]
pub(crate) fn coherent(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (Packets, u32) {
    // Two pairs of neighbours first; the other classes only if one pair shares its class.
    let class = |lane: usize| u64::from(RayClass::of(&rays[lane]).0);
    let (first, second) = (class(0), class(1));
    let (last_but_one, last) = (class(PACKET_WIDTH - 2), class(PACKET_WIDTH - 1));
    if first != second && last_but_one != last {
        return (Packets::new(), lanes);
    }
    let classes = (2..PACKET_WIDTH - 2).fold(
        first
            | second << 8
            | last_but_one << (8 * (PACKET_WIDTH - 2))
            | last << (8 * (PACKET_WIDTH - 1)),
        |word, lane| word | class(lane) << (8 * lane),
    );
    let valid = valid_lanes(rays, lanes);
    let (packets, alone) = coherent_valid(rays, classes, valid);
    (packets, alone | (lanes & !valid))
}

/// [`coherent`] of the valid rays in `lanes`, whose classes are the bytes of `classes`.
#[inline]
fn coherent_valid(rays: &[Ray; PACKET_WIDTH], classes: u64, lanes: u32) -> (Packets, u32) {
    let mut packets = Packets::new();
    let mut alone = 0;
    // Classes first, which are cheap: random rays rarely have enough of one, and then need
    // nothing more. Once too few rays are left for a packet, the rest walk alone.
    let mut unsorted = lanes;
    while at_least(unsorted, PACKET_MIN_RAYS) {
        let first = unsorted.trailing_zeros();
        let class = equal_bytes(classes, (classes >> (8 * first)) & 0xff) & unsorted;
        unsorted &= !class;
        if !at_least(class, PACKET_MIN_RAYS) {
            alone |= class;
            continue;
        }
        let mut left = class;
        while at_least(left, PACKET_MIN_RAYS) {
            let first = left.trailing_zeros() as usize;
            let lead = &rays[first];
            // The cone and the spread in squares, which need no root or quotient.
            let length_squared = lead.dir.length_squared();
            let cone = PACKET_CONE_COS * PACKET_CONE_COS * length_squared;
            let spread = PACKET_ORIGIN_SPREAD * PACKET_ORIGIN_SPREAD * length_squared;
            let mut group = 0;
            let mut rest = left;
            while let Some(lane) = rest.checked_next() {
                rest &= rest - 1;
                let ray = &rays[lane];
                let dot = ray.dir.dot(lead.dir);
                let near = (dot > 0.0)
                    & (dot * dot >= cone * ray.dir.length_squared())
                    & (ray.origin.distance_squared(lead.origin) <= spread);
                group |= u32::from(near) << lane;
            }
            group |= 1 << first;
            left &= !group;
            if at_least(group, PACKET_MIN_RAYS) {
                packets.push(group);
            } else {
                alone |= group;
            }
        }
        alone |= left;
    }
    (packets, alone | unsorted)
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
    fn equal_bytes_are_found_exactly() {
        let word = u64::from_le_bytes([3, 0, 3, 255, 128, 3, 1, 3]);
        assert_eq!(equal_bytes(word, 3), 0b1010_0101);
        assert_eq!(equal_bytes(word, 0), 0b0000_0010);
        assert_eq!(equal_bytes(word, 255), 0b0000_1000);
        assert_eq!(equal_bytes(word, 128), 0b0001_0000);
        assert_eq!(equal_bytes(word, 2), 0);
    }

    #[test]
    fn chunks_whose_neighbours_differ_walk_alone_without_a_closer_look() {
        let mut dirs: [Vec3; PACKET_WIDTH] =
            core::array::from_fn(|i| Vec3::new(0.01 * i as f32, 0.02, -1.0));
        dirs[0].x = -0.0; // lanes 0 and 1 differ in class
        dirs[PACKET_WIDTH - 1].z = 1.0; // and so do the last two
        let packet = rays(dirs);
        // Lanes 1 to 6 would make a packet, but random rays look like this and are not sorted.
        assert_eq!(coherent(&packet, 0xff), (Packets::new(), 0xff));
        dirs[PACKET_WIDTH - 1].z = -1.0;
        let (packets, alone) = coherent(&rays(dirs), 0xff);
        assert_eq!(
            (packets.as_slice(), alone),
            (&[0b1111_1110][..], 0b0000_0001)
        );
    }

    #[test]
    fn invalid_rays_walk_alone() {
        let mut packet = rays(core::array::from_fn(|i| {
            Vec3::new(0.01 * i as f32, 0.02, -1.0)
        }));
        packet[3].origin.x = f32::NAN;
        packet[5] = packet[5].with_range(2.0, 1.0);
        assert_eq!(
            coherent(&packet, 0xff),
            (Packets::from_slice(&[0b1101_0111]), 0b0010_1000)
        );
    }

    #[test]
    fn at_least_counts_bits() {
        for bits in 0..=0x1ffu32 {
            for count in 1..=9 {
                assert_eq!(
                    at_least(bits, count),
                    bits.count_ones() >= count,
                    "{bits:b} {count}"
                );
            }
        }
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
