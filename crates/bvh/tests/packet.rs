//! The binary tree's packet walk ([`Bvh::walk_packet`], closest and any hit) gives each
//! ray of the packet its single-ray answer ([`Bvh::cast`], [`Bvh::occluded`]) bit for bit, on
//! random triangles and boxes, coherent and incoherent packets, mixed direction signs,
//! degenerate rays among the lanes and empty trees.

use crate::common::*;
use glam::Vec3;
use meshcast_bvh::{Any, BuildOptions, Bvh, Closest};
use meshcast_primitives::{Aabb, Hit, Ray, Triangle, ALL_LANES, PACKET_WIDTH};
use rand::Rng;
use rand_pcg::Pcg64;

/// The lanes of `bits` (the first [`PACKET_WIDTH`]), lowest first.
fn lanes_of(bits: u32) -> impl Iterator<Item = usize> {
    (0..PACKET_WIDTH).filter(move |&lane| bits & (1 << lane) != 0)
}

/// Runs both packet walks over `rays` in `mask` with the leaf test `test(slot, ray)` and
/// compares every lane with the single-ray walks of the same test; returns how many lanes
/// hit something.
fn check_packet(
    bvh: &Bvh,
    rays: &[Ray; PACKET_WIDTH],
    mask: u32,
    test: &impl Fn(u32, &Ray) -> Option<Hit>,
    case: &str,
) -> u32 {
    let valid = lanes_of(mask)
        .filter(|&lane| rays[lane].is_valid())
        .fold(0, |bits, lane| bits | 1 << lane);

    let mut best = [None::<Hit>; PACKET_WIDTH];
    bvh.walk_packet(rays, mask, Closest, |slot, lanes, t_max| {
        assert!(lanes != 0, "{case}: leaf called with no ray");
        assert_eq!(
            lanes & !valid,
            0,
            "{case}: leaf given a lane out of the packet"
        );
        for lane in lanes_of(lanes) {
            let range = rays[lane].with_range(rays[lane].t_min, t_max[lane]);
            let Some(hit) = test(slot, &range) else {
                continue;
            };
            if range.contains_t(hit.t) && best[lane].is_none_or(|b| hit.is_closer_than(&b)) {
                best[lane] = Some(hit);
                t_max[lane] = hit.t;
            }
        }
        0
    });

    let mut answered = 0;
    let occluded = bvh.walk_packet(rays, mask, Any, |slot, lanes, _| {
        assert!(lanes != 0, "{case}: leaf called with no ray");
        assert_eq!(
            lanes & !valid,
            0,
            "{case}: leaf given a lane out of the packet"
        );
        assert_eq!(lanes & answered, 0, "{case}: an answered ray walked on");
        let found = lanes_of(lanes)
            .filter(|&lane| test(slot, &rays[lane]).is_some())
            .fold(0, |bits, lane| bits | 1 << lane);
        answered |= found;
        found
    });
    assert_eq!(occluded & !valid, 0, "{case}: a lane out of the packet hit");

    for (lane, ray) in rays.iter().enumerate() {
        let in_packet = mask & (1 << lane) != 0;
        let expected = in_packet.then(|| bvh.walk(ray, Closest, test)).flatten();
        assert_eq!(
            best[lane].as_ref().map(key),
            expected.as_ref().map(key),
            "{case}: closest hit of lane {lane} (mask {mask:#b}) differs for {ray:?}"
        );
        let expected = in_packet && bvh.walk::<_, Hit>(ray, Any, |slot, r| test(slot, r).is_some());
        assert_eq!(
            occluded & (1 << lane) != 0,
            expected,
            "{case}: any hit of lane {lane} (mask {mask:#b}) differs for {ray:?}"
        );
    }
    occluded.count_ones()
}

/// Asserts that enough lanes hit for the comparison to mean something.
fn assert_enough_hits(hits: u32, lanes: usize, case: &str) {
    assert!(
        hits as usize * 5 > lanes,
        "{case}: too few hits ({hits} of {lanes} lanes) for a meaningful test"
    );
}

/// `ray` made degenerate in one of the ways a query must treat as a miss.
fn degenerate(ray: Ray, kind: usize) -> Ray {
    match kind % 7 {
        0 => Ray {
            origin: Vec3::new(f32::NAN, ray.origin.y, ray.origin.z),
            ..ray
        },
        1 => Ray {
            dir: Vec3::new(ray.dir.x, f32::NAN, ray.dir.z),
            ..ray
        },
        2 => Ray {
            dir: Vec3::ZERO,
            ..ray
        },
        3 => Ray {
            dir: Vec3::new(f32::INFINITY, ray.dir.y, ray.dir.z),
            ..ray
        },
        4 => ray.with_range(2.0, 1.0),
        5 => ray.with_range(ray.t_min, f32::NAN),
        _ => ray.with_range(f32::INFINITY, f32::INFINITY),
    }
}

/// Packets over the box `b`: incoherent rays of mixed signs (from [`mixed_rays`] when
/// `triangles` is given), camera tiles, axis-parallel rays with `±0` components, and some of
/// each with degenerate lanes; each with a few masks (every lane, random bits beyond the
/// packet included, one lane).
fn packets(
    r: &mut Pcg64,
    b: &Aabb,
    incoherent: Vec<Ray>,
    count: usize,
) -> Vec<([Ray; PACKET_WIDTH], u32)> {
    let mut packets = Vec::new();
    for i in 0..count {
        let mut rays: [Ray; PACKET_WIDTH] = match i % 3 {
            0 => core::array::from_fn(|lane| {
                incoherent[(i * PACKET_WIDTH + lane) % incoherent.len()]
            }),
            1 => {
                // A 4 x 2 camera tile looking at a point of the box.
                let eye = point_around(r, b);
                let target = point_in(r, b);
                let forward = target - eye;
                let right = forward.any_orthonormal_vector() * forward.length() * 0.01;
                let up = forward.cross(right).normalize() * forward.length() * 0.01;
                core::array::from_fn(|lane| {
                    let (x, y) = ((lane % 4) as f32 - 1.5, (lane / 4) as f32 - 0.5);
                    Ray::new(eye, forward + right * x + up * y)
                })
            }
            _ => {
                // Axis-parallel rays, some with the origin on a box plane, directions `±0`
                // off the axis.
                let axis = r.gen_range(0..3);
                core::array::from_fn(|lane| {
                    let mut origin = point_in(r, b);
                    if lane % 2 == 0 {
                        origin[(axis + 1) % 3] = b.min[(axis + 1) % 3];
                    }
                    let mut dir = Vec3::ZERO;
                    dir[(axis + 1) % 3] = if lane % 4 < 2 { 0.0 } else { -0.0 };
                    dir[axis] = if lane % 3 == 0 { -1.0 } else { 1.0 };
                    origin[axis] = if dir[axis] > 0.0 {
                        b.min[axis] - 1.0
                    } else {
                        b.max[axis] + 1.0
                    };
                    Ray::new(origin, dir)
                })
            }
        };
        if i % 4 == 3 {
            for ray in &mut rays {
                if r.gen_bool(0.4) {
                    *ray = degenerate(*ray, r.gen_range(0..7));
                }
            }
        }
        packets.push((rays, ALL_LANES));
        packets.push((rays, r.gen::<u32>()));
        packets.push((rays, 1 << r.gen_range(0..PACKET_WIDTH)));
    }
    packets
}

#[test]
fn packet_walks_match_single_ray_walks_on_random_soups() {
    for seed in 0..5 {
        let count = [1, 2, 9, 200, 2000][seed as usize];
        let soup = random_soup(seed + 40, count);
        let mut r = rng(seed + 140);
        let rays = mixed_rays(&soup, seed + 240, 400);
        let packets = packets(&mut r, &bounds(&soup), rays, 60);
        for options in all_options() {
            let bvh = build(&soup, &options);
            let order = bvh.primitive_order();
            let test = |slot: u32, ray: &Ray| {
                let index = order[slot as usize];
                Some(soup[index as usize].intersect(ray)?.with_triangle(index))
            };
            let mut hits = 0;
            for (i, (rays, mask)) in packets.iter().enumerate() {
                let case = format!("soup seed {seed} ({count}) {options:?} packet {i}");
                hits += check_packet(&bvh, rays, *mask, &test, &case);
            }
            if count >= 200 {
                assert_enough_hits(hits, packets.len() * 4, &format!("soup seed {seed}"));
            }
        }
    }
}

#[test]
fn packet_walks_match_single_ray_walks_on_an_asset() {
    let triangles = load_mesh("suzanne.obj");
    let mut r = rng(7);
    let rays = mixed_rays(&triangles, 8, 400);
    let packets = packets(&mut r, &bounds(&triangles), rays, 80);
    let bvh = build(&triangles, &BuildOptions::default());
    let order = bvh.primitive_order();
    let test = |slot: u32, ray: &Ray| {
        let index = order[slot as usize];
        Some(
            triangles[index as usize]
                .intersect(ray)?
                .with_triangle(index),
        )
    };
    let mut hits = 0;
    for (i, (rays, mask)) in packets.iter().enumerate() {
        hits += check_packet(&bvh, rays, *mask, &test, &format!("suzanne packet {i}"));
    }
    assert_enough_hits(hits, packets.len() * 4, "suzanne");
}

/// Random boxes, one per leaf as a scene's top level holds its instances, hit at their entry
/// distance: many exact ties between overlapping boxes that a ray starts inside.
#[test]
fn packet_walks_match_single_ray_walks_on_random_boxes() {
    for seed in 0..4 {
        let mut r = rng(seed + 500);
        let count = [1, 3, 16, 300][seed as usize];
        let boxes: Vec<Aabb> = (0..count)
            .map(|_| {
                let corner = Vec3::new(r.gen(), r.gen(), r.gen()) * 10.0;
                let size = Vec3::new(r.gen(), r.gen(), r.gen()) * 3.0;
                Aabb::new(corner, corner + size)
            })
            .collect();
        let world = boxes.iter().fold(Aabb::EMPTY, |b, x| b.union(*x));
        let incoherent: Vec<Ray> = (0..200)
            .map(|_| {
                let origin = if r.gen_bool(0.3) {
                    point_in(&mut r, &world)
                } else {
                    point_around(&mut r, &world)
                };
                Ray::new(origin, point_in(&mut r, &world) - origin)
            })
            .collect();
        let packets = packets(&mut r, &world, incoherent, 60);
        for options in [
            BuildOptions {
                max_leaf_primitives: 1,
                ..BuildOptions::default()
            },
            BuildOptions::default(),
        ] {
            let bvh = Bvh::build(&boxes, &options);
            bvh.validate(&boxes).expect("a valid hierarchy");
            let order = bvh.primitive_order();
            let test = |slot: u32, ray: &Ray| {
                let index = order[slot as usize];
                let (entry, _) = boxes[index as usize].intersect(ray)?;
                Some(Hit::new(entry, 0.0, 0.0).with_triangle(index))
            };
            let mut hits = 0;
            for (i, (rays, mask)) in packets.iter().enumerate() {
                let case = format!("boxes seed {seed} ({count}) {options:?} packet {i}");
                hits += check_packet(&bvh, rays, *mask, &test, &case);
            }
            if count >= 16 {
                assert_enough_hits(hits, packets.len() * 4, &format!("boxes seed {seed}"));
            }
        }
    }
}

#[test]
fn packet_walks_of_an_empty_tree_call_nothing() {
    let rays: [Ray; PACKET_WIDTH] =
        core::array::from_fn(|lane| Ray::new(Vec3::X * lane as f32, Vec3::Z));
    for bvh in [Bvh::empty(), Bvh::build(&[], &BuildOptions::default())] {
        bvh.walk_packet(&rays, ALL_LANES, Closest, |_, _, _| unreachable!());
        assert_eq!(
            bvh.walk_packet(&rays, ALL_LANES, Any, |_, _, _| unreachable!()),
            0
        );
    }
}

#[test]
fn packet_walks_of_degenerate_rays_call_nothing() {
    let triangles = [Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y)];
    let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    let through = Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z);
    let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|lane| degenerate(through, lane));
    bvh.walk_packet(&rays, ALL_LANES, Closest, |_, _, _| unreachable!());
    assert_eq!(
        bvh.walk_packet(&rays, ALL_LANES, Any, |_, _, _| unreachable!()),
        0
    );
    // No lanes at all, or only lanes beyond the packet.
    let rays = [through; PACKET_WIDTH];
    bvh.walk_packet(&rays, !ALL_LANES, Closest, |_, _, _| unreachable!());
    assert_eq!(bvh.walk_packet(&rays, 0, Any, |_, _, _| unreachable!()), 0);
}
