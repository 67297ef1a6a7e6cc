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
pub(crate) fn by_class(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> impl Iterator<Item = u32> {
    // The eight classes as the bytes of one word, so that the lanes of a class are found by a
    // few word operations rather than a loop.
    let classes = rays.iter().enumerate().fold(0u64, |word, (lane, ray)| {
        word | u64::from(RayClass::of(ray).0) << (8 * lane)
    });
    let mut left = lanes;
    core::iter::from_fn(move || {
        let first = left.checked_next()?;
        let group = equal_bytes(classes, (classes >> (8 * first)) & 0xff) & left;
        left &= !group;
        Some(group)
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

/// The packets among the rays of `rays` in `lanes` (bits, valid rays): bits per packet, each
/// of one [`RayClass`], and the bits of the rays that walk alone.
#[inline]
pub(crate) fn coherent(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (Packets, u32) {
    let mut packets = Packets::new();
    let mut alone = 0;
    // Classes first, which are cheap: random rays rarely have enough of one, and then need
    // nothing more.
    for class in by_class(rays, lanes) {
        if class.count_ones() < PACKET_MIN_RAYS {
            alone |= class;
            continue;
        }
        let mut left = class;
        while let Some(first) = left.checked_next() {
            let (lead, length) = (rays[first], rays[first].dir.length());
            let unit = lead.dir / length;
            let group = select(left, |lane| {
                let ray = &rays[lane];
                ray.dir.dot(unit) >= PACKET_CONE_COS * ray.dir.length()
                    && ray.origin.distance(lead.origin) <= PACKET_ORIGIN_SPREAD * length
            }) | 1 << first;
            left &= !group;
            if group.count_ones() >= PACKET_MIN_RAYS {
                packets.push(group);
            } else {
                alone |= group;
            }
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
    fn equal_bytes_are_found_exactly() {
        let word = u64::from_le_bytes([3, 0, 3, 255, 128, 3, 1, 3]);
        assert_eq!(equal_bytes(word, 3), 0b1010_0101);
        assert_eq!(equal_bytes(word, 0), 0b0000_0010);
        assert_eq!(equal_bytes(word, 255), 0b0000_1000);
        assert_eq!(equal_bytes(word, 128), 0b0001_0000);
        assert_eq!(equal_bytes(word, 2), 0);
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
