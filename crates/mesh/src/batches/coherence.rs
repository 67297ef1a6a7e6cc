//! Which neighbouring rays of a chunk of a batch are coherent enough to walk a hierarchy
//! together ([`coherent`]), and the tests that tell ([`RayClass`], the cone, the spread and
//! [`PacketSpan`]).
//!
//! Rays go into one packet when they share
//! what the packet walk and the packet triangle test need shared (the signs of their direction
//! components and their dominant axis, [`RayClass`]), their directions lie within
//! [`PACKET_CONE_COS`] of each other and their origins within [`PACKET_ORIGIN_SPREAD`], and,
//! where the level gives a [`PacketSpan`], they lie within a few triangle widths of each other
//! anywhere in the mesh: neighbouring pixels of a camera image, a lidar's neighbouring beams,
//! shadow rays from nearby points towards one light. Every ray of a packet is checked against
//! its first, except in a camera image's tiles ([`PacketFinder::image`]), whose rows the batch
//! has already recognised: there a chunk whose first and last rays agree is taken whole. A
//! packet needs at least [`PACKET_MIN_RAYS`] rays; the others walk alone. Random rays are
//! recognised by a look at two pairs of neighbours and walk alone without being sorted, so
//! incoherent batches pay next to nothing for the search.
//!
//! Rays whose origins are close but whose directions part (random rays sorted by origin) once
//! made packets, taken whole on a look at a chunk's ends, whose walks visited the union of their
//! rays' paths: a batch of them ran at 0.04x-0.24x a loop of single rays (issue 44). Checking
//! every ray and bounding the packet's width at the mesh ([`PacketSpan`]) keeps such rays apart.
//!
//! [`PacketFinder::image`]: crate::batches::finder::PacketFinder::image

use glam::{Vec3, Vec3A};
use meshcast_primitives::{Aabb, Lanes, Portable, Ray, RayPacket, ALL_LANES, PACKET_WIDTH};
use smallvec::SmallVec;

use crate::batches::at_least;

/// The packets of one chunk of a batch: bits per packet.
pub(crate) type PacketLanes = SmallVec<[u32; 2]>;

/// The fewest rays traced as a packet; fewer coherent rays walk one by one.
pub(crate) const PACKET_MIN_RAYS: u32 = 4;

/// How far from a packet's first ray's origin another ray's origin may lie, in units of the
/// first ray's direction: packets are walked with the interval of their origins, which must
/// stay small against the distances the rays travel.
pub(crate) const PACKET_ORIGIN_SPREAD: f32 = 0.01;

/// How far apart, anywhere in the mesh, a packet's rays may lie, in typical triangle widths
/// ([`PacketSpan`]).
pub(crate) const PACKET_MAX_SPAN: f32 = 16.0;

/// How far apart, anywhere in the mesh, the end rays of a chunk of a camera image's tile may
/// lie, in typical triangle widths, for the chunk to walk as one packet ([`coherent`]).
///
/// A packet's walk tests the interval of its rays against each node, so once a tile's pixels
/// each cover many triangles it enters every box between its rays. Measured, one thread, a
/// 512 x 512 camera image (40° field of view) through `cast_batch_serial` four rows a call
/// against a loop of `Mesh::cast` over the same rays, the bunny subdivided: with no span for
/// an image's chunks, 1.14-1.34x at 4.4M triangles, 0.98x at 17.8M and 0.70-0.74x at 71M;
/// with 32 widths, 1.12-1.24x, 1.00x and 1.01-1.03x; with 64 widths, 1.16-1.23x, 1.02x and
/// 0.93-0.99x.
pub(crate) const IMAGE_CHUNK_MAX_SPAN: f32 = 32.0;

/// How wide a packet may be: while its rays lie within [`PACKET_MAX_SPAN`] typical triangle
/// widths of its first ray anywhere in the mesh's bounding sphere. Past that, the rays share
/// few nodes below the top of the hierarchy, and the packet's interval lets it into every box
/// any of its rays enters. Measured, one thread, a batch against a loop of single rays over
/// the same rays (`batch_orders`), bunny: random rays sorted by direction octant and origin
/// 0.59x with no span, 0.91x at 32 widths, 0.92x at 16, 0.91x at 8; a lidar's scan 1.70x with
/// no span, 1.19x at 32, 1.10x at 16, 0.87x at 8.
#[derive(Clone, Copy, Debug)]
pub struct PacketSpan {
    /// The centre of the mesh's bounding sphere.
    centre: Vec3,
    /// Its radius squared.
    radius_squared: f32,
    /// The largest span squared: [`PACKET_MAX_SPAN`] squared times a typical triangle's width
    /// squared, the root box's area shared among the triangles.
    limit_squared: f32,
}

impl PacketSpan {
    /// The span of a mesh with root box `bounds` and `triangles` triangles.
    pub(crate) fn of_mesh(bounds: Aabb, triangles: usize) -> Self {
        let width_squared = bounds.surface_area() / triangles.max(1) as f32;
        Self {
            centre: bounds.centroid(),
            radius_squared: 0.25 * bounds.extent().length_squared(),
            limit_squared: PACKET_MAX_SPAN * PACKET_MAX_SPAN * width_squared,
        }
    }

    /// The span of an image's chunks, [`IMAGE_CHUNK_MAX_SPAN`] typical triangle widths.
    #[inline(always)]
    fn for_image_chunks(&self) -> Self {
        const WIDER: f32 = IMAGE_CHUNK_MAX_SPAN / PACKET_MAX_SPAN;
        Self {
            limit_squared: WIDER * WIDER * self.limit_squared,
            ..*self
        }
    }

    /// A bound on how far from `origin` the mesh's bounding sphere reaches, squared, without a
    /// root: `(|c - o| + r)² ≤ 2 (|c - o|² + r²)`.
    #[inline(always)]
    fn reach_squared(&self, origin: Vec3) -> f32 {
        2.0 * ((self.centre - origin).length_squared() + self.radius_squared)
    }

    /// Whether `ray` lies within the span of `lead`. The span is bounded without roots: the
    /// directions turn by an angle whose sine is `|a × b| / (|a| |b|)` over at most the reach
    /// of the sphere from the lead's origin, the origins lie `|o₂ - o₁|` apart, and
    /// `(x + y)² ≤ 2 (x² + y²)`.
    #[inline(always)]
    fn allows(&self, lead: &Ray, ray: &Ray) -> bool {
        let (a, b) = (lead.dir, ray.dir);
        let lengths = a.length_squared() * b.length_squared();
        let cross = a.cross(b).length_squared();
        let apart = (ray.origin - lead.origin).length_squared();
        2.0 * (cross * self.reach_squared(lead.origin) + apart * lengths)
            <= self.limit_squared * lengths
    }
}

/// The cosine of the widest angle between the directions of a packet's first ray and any
/// other of its rays (about 8 degrees).
pub(crate) const PACKET_CONE_COS: f32 = 0.99;

/// What the rays of one packet share: the sign of each direction component (`-0.0` counted as
/// negative, as the node tests choose planes) and the dominant axis (the watertight test's
/// `kz`), as [`meshcast_primitives::RayClasses`] tells them for a whole packet.
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
pub(crate) fn by_class(rays: &RayPacket, lanes: u32) -> impl Iterator<Item = u32> {
    let classes = rays.classes(Portable);
    let mut left = lanes;
    core::iter::from_fn(move || {
        let group = classes.like(left.checked_next()?) & left;
        left &= !group;
        Some(group)
    })
}

/// The packets among the rays of `rays` in `lanes` (bits) and the bits of the rays that walk
/// alone. If there are packets, `packet` holds the rays lane by lane.
///
/// Each packet holds valid rays of one class, each within the cone, spread and span of the
/// packet's first ray ([`near_lanes`]); degenerate rays walk alone. In an `image`'s tiles a
/// whole chunk whose first and last rays share a class, cone and spread, and lie within
/// [`IMAGE_CHUNK_MAX_SPAN`] triangle widths of each other, is one packet, the rays between
/// taken on trust, as the rays of a camera row can be: a ray that breaks ranks costs time,
/// never its answer, since the walks leave out degenerate rays ([`Ray::is_valid`]), split a
/// packet by direction octant and test leaves ray by ray when axes differ.
///
/// Random rays seldom hold a packet, so a batch of them should pay next to nothing here: unless
/// one of two pairs of neighbouring lanes shares a class, as neighbours in a camera image or a
/// fan of shadow rays do, every ray walks alone without a closer look.
#[inline]
pub(crate) fn coherent(
    rays: &[Ray; PACKET_WIDTH],
    lanes: u32,
    packet: &mut RayPacket,
    span: Option<&PacketSpan>,
    image: bool,
) -> (PacketLanes, u32) {
    let class = |lane: usize| RayClass::of(&rays[lane]);
    let last = PACKET_WIDTH - 1;
    if image
        && lanes == ALL_LANES
        && class(0) == class(last)
        && near(
            &rays[0],
            &rays[last],
            span.map(PacketSpan::for_image_chunks).as_ref(),
        )
    {
        *packet = RayPacket::new(rays);
        let mut packets = PacketLanes::new();
        packets.push(lanes);
        return (packets, 0);
    }
    if class(0) != class(1) && class(PACKET_WIDTH - 2) != class(PACKET_WIDTH - 1) {
        return (PacketLanes::new(), lanes);
    }
    *packet = RayPacket::new(rays);
    let valid = packet.valid(Portable) & lanes;
    let (packets, alone) = coherent_valid(packet, valid, span);
    (packets, alone | (lanes & !valid))
}

/// Whether `ray` lies within the cone, spread and span of `lead` ([`PACKET_CONE_COS`],
/// [`PACKET_ORIGIN_SPREAD`], [`PacketSpan`]), as [`near_lanes`] tests a packet's rays.
#[inline]
pub(super) fn near(lead: &Ray, ray: &Ray, span: Option<&PacketSpan>) -> bool {
    let lead_length_squared = lead.dir.length_squared();
    let dot = lead.dir.dot(ray.dir);
    dot > 0.0
        && PACKET_CONE_COS * PACKET_CONE_COS * lead_length_squared * ray.dir.length_squared()
            <= dot * dot
        && (ray.origin - lead.origin).length_squared()
            <= PACKET_ORIGIN_SPREAD * PACKET_ORIGIN_SPREAD * lead_length_squared
        && span.is_none_or(|span| span.allows(lead, ray))
}

/// The lanes of `rays` (bits) that lie within the cone, spread and span of `lead`, as [`near`]
/// tests one ray, in squares, which need no root or quotient.
#[inline]
pub(super) fn near_lanes(rays: &RayPacket, lead: &Ray, span: Option<&PacketSpan>) -> u32 {
    let simd = Portable;
    let splat = |value: f32| Lanes::splat(simd, value);
    let [ox, oy, oz] = rays.origin_lanes(simd);
    let [dx, dy, dz] = rays.dir_lanes(simd);
    let (l, o) = (lead.dir, lead.origin);
    let length_squared = dx * dx + dy * dy + dz * dz;
    let lead_length_squared = l.length_squared();
    let dot = dx * splat(l.x) + dy * splat(l.y) + dz * splat(l.z);
    let (ex, ey, ez) = (ox - splat(o.x), oy - splat(o.y), oz - splat(o.z));
    let apart = ex * ex + ey * ey + ez * ez;
    let cone = splat(PACKET_CONE_COS * PACKET_CONE_COS * lead_length_squared);
    let spread = splat(PACKET_ORIGIN_SPREAD * PACKET_ORIGIN_SPREAD * lead_length_squared);
    let near = splat(0.0).lt(dot) & (cone * length_squared).le(dot * dot) & apart.le(spread);
    let Some(span) = span else {
        return near;
    };
    let (cx, cy, cz) = (
        dy * splat(l.z) - dz * splat(l.y),
        dz * splat(l.x) - dx * splat(l.z),
        dx * splat(l.y) - dy * splat(l.x),
    );
    let cross = cx * cx + cy * cy + cz * cz;
    let lengths = length_squared * splat(lead_length_squared);
    let two = splat(2.0);
    let wide = two * (cross * splat(span.reach_squared(o)) + apart * lengths);
    near & wide.le(splat(span.limit_squared) * lengths)
}

/// [`coherent`] of the valid rays of `rays` in `lanes`.
#[inline]
fn coherent_valid(rays: &RayPacket, lanes: u32, span: Option<&PacketSpan>) -> (PacketLanes, u32) {
    let classes = rays.classes(Portable);
    let mut packets = PacketLanes::new();
    let mut alone = 0;
    // Classes first, which are cheap: random rays rarely have enough of one, and then need
    // nothing more. Once too few rays are left for a packet, the rest walk alone.
    let mut unsorted = lanes;
    while at_least(unsorted, PACKET_MIN_RAYS) {
        let class = classes.like(unsorted.trailing_zeros() as usize) & unsorted;
        unsorted &= !class;
        if !at_least(class, PACKET_MIN_RAYS) {
            alone |= class;
            continue;
        }
        let mut left = class;
        while at_least(left, PACKET_MIN_RAYS) {
            let first = left.trailing_zeros() as usize;
            let group = (near_lanes(rays, &rays.ray(first), span) & left) | 1 << first;
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
    use crate::batches::finder::PacketFinder;
    use glam::Vec3;

    fn rays(dirs: [Vec3; PACKET_WIDTH]) -> [Ray; PACKET_WIDTH] {
        dirs.map(|dir| Ray::new(Vec3::ZERO, dir))
    }

    /// [`coherent`]'s packets (none for `None`) and the rays that walk alone, in a batch.
    fn found(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (Vec<u32>, u32) {
        found_with(rays, lanes, None, false)
    }

    /// [`coherent`]'s packets in an image's tiles.
    fn found_in_image(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (Vec<u32>, u32) {
        found_with(rays, lanes, None, true)
    }

    fn found_with(
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        span: Option<&PacketSpan>,
        image: bool,
    ) -> (Vec<u32>, u32) {
        let mut packet = RayPacket::new(rays);
        let (packets, alone) = coherent(rays, lanes, &mut packet, span, image);
        if !packets.is_empty() {
            // As text, so that NaN lanes compare equal.
            assert_eq!(format!("{packet:?}"), format!("{:?}", RayPacket::new(rays)));
        }
        (packets.to_vec(), alone)
    }

    fn classes(rays: &[Ray; PACKET_WIDTH], lanes: u32) -> Vec<u32> {
        by_class(&RayPacket::new(rays), lanes).collect()
    }

    #[test]
    fn chunks_whose_neighbours_differ_walk_alone_without_a_closer_look() {
        let mut dirs: [Vec3; PACKET_WIDTH] =
            core::array::from_fn(|i| Vec3::new(0.01 * i as f32, 0.02, -1.0));
        dirs[0].x = -0.0; // lanes 0 and 1 differ in class
        dirs[PACKET_WIDTH - 1].z = 1.0; // and so do the last two
        let packet = rays(dirs);
        // Lanes 1 to 6 would make a packet, but random rays look like this and are not sorted.
        assert_eq!(found(&packet, 0xff), (vec![], 0xff));
        dirs[PACKET_WIDTH - 1].z = -1.0;
        assert_eq!(found(&rays(dirs), 0xff), (vec![0b1111_1110], 0b0000_0001));
    }

    #[test]
    fn invalid_rays_walk_alone_unless_taken_on_trust() {
        let mut packet = rays(core::array::from_fn(|i| {
            Vec3::new(0.01 * i as f32, 0.02, -1.0)
        }));
        packet[3].origin.x = f32::NAN;
        packet[5] = packet[5].with_range(2.0, 1.0);
        // Sorted ray by ray, the invalid rays walk alone.
        assert_eq!(found(&packet, 0x7f), (vec![0b0101_0111], 0b0010_1000));
        assert_eq!(found(&packet, 0xff), (vec![0b1101_0111], 0b0010_1000));
        assert_eq!(
            found_in_image(&packet, 0x7f),
            (vec![0b0101_0111], 0b0010_1000)
        );
        // Between a whole chunk's ends in an image's tile they are taken on trust: the walk
        // leaves them out.
        assert_eq!(found_in_image(&packet, 0xff), (vec![0xff], 0));
    }

    #[test]
    fn a_chunk_whose_ends_agree_is_one_packet() {
        let mut dirs: [Vec3; PACKET_WIDTH] =
            core::array::from_fn(|i| Vec3::new(0.01 * i as f32, 0.02, -1.0));
        dirs[3] = Vec3::X; // another class, taken on trust in an image's tile
        let mut packet = rays(dirs);
        packet[5].origin.x = f32::NAN;
        assert_eq!(found_in_image(&packet, 0xff), (vec![0xff], 0));
        // Outside an image, and for part of a chunk, rays are sorted ray by ray.
        assert_eq!(found(&packet, 0xff), (vec![0b1101_0111], 0b0010_1000));
        assert_eq!(
            found_in_image(&packet, 0x7f),
            (vec![0b0101_0111], 0b0010_1000)
        );
        // Ends too far apart: sorted ray by ray too.
        packet[7].dir = Vec3::new(0.3, 0.02, -1.0);
        assert_eq!(
            found_in_image(&packet, 0xff),
            (vec![0b0101_0111], 0b1010_1000)
        );
    }

    #[test]
    fn packets_are_no_wider_than_the_span() {
        // A fan from one point, `step` degrees between neighbours, towards a unit box two
        // units away.
        let fan = |step: f32| {
            rays(core::array::from_fn(|i| {
                let angle = (step * i as f32).to_radians();
                Vec3::new(angle.sin(), 0.0, -angle.cos())
            }))
        };
        let unit = Aabb::new(Vec3::new(-0.5, -0.5, -2.5), Vec3::new(0.5, 0.5, -1.5));
        // The mesh's sphere reaches 2.87 units from the fan's origin. At 600 triangles (0.1
        // wide) sixteen widths allow 23 degrees; at 600,000 (0.003 wide), 0.7 degrees.
        let coarse = PacketSpan::of_mesh(unit, 600);
        let fine = PacketSpan::of_mesh(unit, 600_000);
        assert_eq!(
            found_with(&fan(1.0), 0xff, Some(&coarse), false),
            (vec![0xff], 0)
        );
        assert_eq!(
            found_with(&fan(1.0), 0xff, Some(&fine), false),
            (vec![], 0xff)
        );
        assert_eq!(
            found_with(&fan(0.25), 0xff, Some(&fine), false),
            (vec![], 0xff)
        );
        assert_eq!(
            found_with(&fan(0.08), 0xff, Some(&fine), false),
            (vec![0xff], 0)
        );
        // Without a span, the cone (8.1 degrees) alone splits a fan.
        assert_eq!(
            found_with(&fan(2.0), 0xff, None, false),
            (vec![0b1_1111], 0b1110_0000)
        );
        // Pairs are held to the span too.
        let mut finder = PacketFinder::new(Some(fine));
        let narrow = |first: usize| {
            rays(core::array::from_fn(|i| {
                let angle = (0.001 * (first + i) as f32).to_radians();
                Vec3::new(angle.sin(), 0.0, -angle.cos())
            }))
        };
        assert!(finder.find_pair(&narrow(0), &narrow(PACKET_WIDTH)));
        assert!(!finder.find_pair(&fan(0.25), &fan(0.25)));
        // An image's chunk is taken whole within twice the span (1.4 degrees end to end
        // here), and otherwise sorted ray by ray as any chunk.
        assert_eq!(
            found_with(&fan(0.15), 0xff, Some(&fine), true),
            (vec![0xff], 0)
        );
        assert_eq!(
            found_with(&fan(0.15), 0xff, Some(&fine), false),
            (vec![0b1_1111], 0b1110_0000)
        );
        assert_eq!(
            found_with(&fan(0.25), 0xff, Some(&fine), true),
            (vec![], 0xff)
        );
    }

    #[test]
    fn camera_neighbours_are_one_packet() {
        let packet = rays(core::array::from_fn(|i| {
            Vec3::new(0.01 * i as f32, 0.02, -1.0)
        }));
        assert_eq!(found(&packet, 0xff), (vec![0xff], 0));
        assert_eq!(found(&packet, 0b1011), (vec![], 0b1011));
        assert_eq!(classes(&packet, 0xff), [0xff]);
    }

    #[test]
    fn signs_axes_and_wide_angles_split_packets() {
        let mut dirs: [Vec3; PACKET_WIDTH] =
            core::array::from_fn(|i| Vec3::new(0.01 * i as f32, 0.02, -1.0));
        dirs[0].x = -0.0; // another octant
        dirs[1] = Vec3::new(2.0, 0.0, -1.0); // another dominant axis
        dirs[2] = Vec3::new(0.3, 0.02, -1.0); // the right signs and axis, 17 degrees off
        let packet = rays(dirs);
        assert_eq!(found(&packet, 0xff), (vec![0b1111_1000], 0b0000_0111));
        assert_eq!(
            classes(&packet, 0xff),
            [0b0000_0001, 0b0000_0010, 0b1111_1100]
        );
    }
}
