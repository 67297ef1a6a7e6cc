//! Determinism: the same input gives the same tree, bit for bit, and the same answers with
//! `Parallel::Sequential` and `Parallel::Rayon`, on rayon pools of one and of two threads,
//! for every quality. The inputs are large enough that every parallel path runs: the boxes
//! are prepared and (for `Fast`) Morton-sorted with rayon above 2^14 primitives, nodes of 2^16
//! or more bin with rayon, subtrees above 2^12 are built under `rayon::join`, and a mesh makes
//! its triangle boxes and leaf blocks with rayon. The bunny subdivided once (277,804
//! triangles) checks trees and answers; boxes with `0.0` and `-0.0` check that parts computed
//! apart are merged in order.

use meshcast::bvh::{Node, WideBvh, WideLane, WIDE_WIDTH};
use meshcast::glam::Vec3;
use meshcast::{
    Aabb, BuildOptions, Bvh, Hit, Mesh, Parallel, Quality, Ray, RayQueries, TriMesh, TriMeshFiles,
};
use meshcast_testkit::{adversarial_rays, asset, random_rays};

const QUALITIES: [Quality; 3] = [Quality::Fast, Quality::Balanced, Quality::High];

/// The thread counts of the pools each build runs in.
const THREADS: [usize; 2] = [1, 2];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Every way to build: sequential or rayon, each in a pool of one and of two threads.
fn configurations() -> Vec<(Parallel, usize)> {
    [Parallel::Sequential, Parallel::Rayon]
        .into_iter()
        .flat_map(|parallel| THREADS.map(|threads| (parallel, threads)))
        .collect()
}

fn bunny_subdivided() -> TriMesh {
    TriMesh::from_obj(asset("stanford-bunny.obj"))
        .expect("bunny loads")
        .subdivide(1)
        .expect("fits")
}

fn box_bits(b: Aabb) -> [u32; 6] {
    let [x0, y0, z0] = b.min.to_array().map(f32::to_bits);
    let [x1, y1, z1] = b.max.to_array().map(f32::to_bits);
    [x0, y0, z0, x1, y1, z1]
}

/// A binary node as bits: its box, then its children or its slots.
type NodeBits = ([u32; 6], Option<[u32; 2]>, Option<core::ops::Range<u32>>);

fn node_bits(node: &Node) -> NodeBits {
    (box_bits(node.bounds()), node.children(), node.slots())
}

/// A wide node as bits: each lane's box and what the lane holds.
fn wide_node_bits(wide: &WideBvh) -> Vec<[([u32; 6], WideLane); WIDE_WIDTH]> {
    wide.nodes()
        .iter()
        .map(|node| std::array::from_fn(|lane| (box_bits(node.bounds(lane)), node.lane(lane))))
        .collect()
}

/// A hit as bits: `t`, `u`, `v` and the triangle.
type HitBits = [u32; 4];

fn hit_bits(hit: &Hit) -> HitBits {
    [
        hit.t.to_bits(),
        hit.u.to_bits(),
        hit.v.to_bits(),
        hit.triangle,
    ]
}

/// Panics naming the first index where `a` and `b` differ, rather than printing both.
fn assert_same<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!(
            "{what}: first difference at {i}: {:?} against {:?}",
            a[i], b[i]
        );
    }
}

/// Keeps the first pair of lists it is given in `first` and checks each later pair against
/// it; `names` name the two lists in a failure.
fn check_against_first<A, B>(
    first: &mut Option<(Vec<A>, Vec<B>)>,
    next: (Vec<A>, Vec<B>),
    names: [&str; 2],
    what: &str,
) where
    A: PartialEq + std::fmt::Debug,
    B: PartialEq + std::fmt::Debug,
{
    match first {
        None => *first = Some(next),
        Some((a, b)) => {
            assert_same(a, &next.0, &format!("{what}: {}", names[0]));
            assert_same(b, &next.1, &format!("{what}: {}", names[1]));
        }
    }
}

/// Builds `boxes` in every configuration and quality and checks that each tree equals the
/// first one built, bit for bit.
fn check_binary_builds(boxes: &[Aabb], input: &str) {
    for quality in QUALITIES {
        let mut reference: Option<(Vec<NodeBits>, Vec<u32>)> = None;
        for (parallel, threads) in configurations() {
            let options = BuildOptions {
                quality,
                parallel,
                ..BuildOptions::default()
            };
            let bvh = pool(threads).install(|| Bvh::build(boxes, &options));
            let what = format!("{input}, {quality:?}, {parallel:?} on {threads} threads");
            bvh.validate(boxes).expect(&what);
            let tree = (
                bvh.nodes().iter().map(node_bits).collect(),
                bvh.primitive_order().to_vec(),
            );
            check_against_first(&mut reference, tree, ["nodes", "primitive order"], &what);
        }
    }
}

#[test]
fn binary_trees_are_the_same_on_any_thread_count() {
    let tri_mesh = bunny_subdivided();
    let boxes: Vec<Aabb> = tri_mesh.triangles().map(|t| t.bounds()).collect();
    check_binary_builds(&boxes, "bunny");
}

#[test]
fn meshes_and_their_answers_are_the_same_on_any_thread_count() {
    let tri_mesh = bunny_subdivided();
    let triangles: Vec<_> = tri_mesh.triangles().collect();
    let bounds = tri_mesh.bounds();
    let mut rays = random_rays(bounds, 3000, 11);
    // Not those from a million sizes away: their slab slack is so wide that they enter most
    // of the tree, and they took nine tenths of this test's time.
    let near =
        |ray: &Ray| (ray.origin - bounds.centroid()).length() < 10.0 * bounds.extent().length();
    rays.extend(
        adversarial_rays(&triangles, 1000, 12)
            .into_iter()
            .filter(near),
    );
    // The reference answers come from the first mesh built; every mesh is exact, so all
    // qualities answer the same.
    let mut reference = None;
    for quality in QUALITIES {
        let mut reference_tree = None;
        for (parallel, threads) in configurations() {
            let options = BuildOptions {
                quality,
                parallel,
                ..BuildOptions::default()
            };
            let what = format!("{quality:?}, {parallel:?} on {threads} threads");
            let mesh = pool(threads).install(|| Mesh::from_tri_mesh(tri_mesh.clone(), &options));
            let tree = (
                wide_node_bits(mesh.bvh()),
                mesh.bvh().primitive_order().to_vec(),
            );
            let names = ["wide nodes", "primitive order"];
            check_against_first(&mut reference_tree, tree, names, &what);
            let closest: Vec<_> = rays
                .iter()
                .map(|ray| mesh.cast(ray).as_ref().map(hit_bits))
                .collect();
            assert!(closest.iter().filter(|hit| hit.is_some()).count() > 1000);
            let all: Vec<Vec<_>> = rays
                .iter()
                .map(|ray| mesh.cast_all(ray).iter().map(hit_bits).collect())
                .collect();
            check_against_first(&mut reference, (closest, all), ["cast", "cast_all"], &what);
        }
    }
}

/// Flat boxes at `z = 0` whose `min.z` and `max.z` are `0.0` in some and `-0.0` in others:
/// `min` and `max` keep one of two equal values, so a box's bits depend on the order in which
/// boxes are merged, and only order-keeping merges give every thread count the same nodes.
/// 160,000 boxes: the root and both its children bin with rayon. With some boxes unusable,
/// the boxes are prepared in parts, merged afterwards.
#[test]
fn signed_zeros_give_the_same_boxes_on_any_thread_count() {
    let side = 400;
    let boxes: Vec<Aabb> = (0..side * side)
        .map(|i| {
            let (x, y) = ((i % side) as f32, (i / side) as f32);
            // Two well-mixed bits of the index choose the signs.
            let bits = (i as u32).wrapping_mul(0x9e37_79b9);
            let zero = |bit: u32| if bits >> bit & 1 == 1 { -0.0 } else { 0.0 };
            Aabb::new(
                Vec3::new(x, y, zero(31)),
                Vec3::new(x + 1.0, y + 1.0, zero(30)),
            )
        })
        .collect();
    check_binary_builds(&boxes, "signed zeros");
    let some_unusable: Vec<Aabb> = boxes
        .iter()
        .enumerate()
        .map(|(i, &b)| if i % 1000 == 999 { Aabb::EMPTY } else { b })
        .collect();
    check_binary_builds(&some_unusable, "signed zeros, some boxes unusable");
}
