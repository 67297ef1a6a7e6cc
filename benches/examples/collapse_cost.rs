//! Compares the two collapses of a mesh's binary tree into the eight-wide tree: the greedy
//! one (`WideBvh::from_binary_greedy`) and the SAH-optimal one (`WideBvh::from_binary_with`,
//! Ylitie, Karras, Laine 2017): nodes, leaves, depth, the SAH cost at the build's costs (a
//! node visit costs `traversal_cost` blocks of four triangle tests, leaves counted in whole
//! blocks, as the collapse weighs them), `BvhStats::sah_cost` (unit costs, triangles) and the
//! best collapse time of ROUNDS.
//!
//! ```text
//! cargo run --release -p meshcast-benches --example collapse_cost -- MESH [LEVELS [ROUNDS]]
//! ```
//!
//! `RAYON_NUM_THREADS=1 BUILD_SEQUENTIAL=1` collapses on one thread.

use std::time::{Duration, Instant};

use meshcast::TriMeshFiles;
use meshcast_bvh::{BuildOptions, Bvh, Parallel, WideBvh, WideLane, LEAF_ALIGNMENT};
use meshcast_mesh::TriMesh;
use meshcast_primitives::Aabb;

/// The SAH cost of `wide` as the collapse weighs it, divided by the root's area.
fn block_cost(wide: &WideBvh, traversal: f64) -> f64 {
    let Some(root) = wide.nodes().first() else {
        return 0.0;
    };
    let mut cost = 0.0;
    let mut stack = vec![(root, f64::from(wide.bounds().surface_area()))];
    while let Some((node, area)) = stack.pop() {
        cost += traversal * area;
        for lane in 0..8 {
            let lane_area = f64::from(node.bounds(lane).surface_area());
            match node.lane(lane) {
                WideLane::Node(child) => stack.push((&wide.nodes()[child as usize], lane_area)),
                WideLane::Leaf(slots) => {
                    let kept = wide.primitive_order()[slots.start as usize..slots.end as usize]
                        .iter()
                        .filter(|&&p| p != meshcast_bvh::PADDING_SLOT)
                        .count();
                    cost += kept.div_ceil(LEAF_ALIGNMENT) as f64 * lane_area;
                }
                WideLane::Empty => {}
            }
        }
    }
    cost / f64::from(wide.bounds().surface_area())
}

fn main() -> Result<(), meshcast_mesh::Error> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: collapse_cost MESH [LEVELS [ROUNDS]]");
    let levels: u32 = args.next().map_or(0, |a| a.parse().expect("LEVELS"));
    let rounds: usize = args.next().map_or(5, |a| a.parse().expect("ROUNDS"));
    let parallel = if std::env::var_os("BUILD_SEQUENTIAL").is_some() {
        Parallel::Sequential
    } else {
        Parallel::Rayon
    };
    let mesh = TriMesh::from_path(&path)?.subdivide(levels)?;
    let boxes: Vec<Aabb> = mesh
        .indices()
        .iter()
        .map(|triangle| {
            let [a, b, c] = triangle.map(|i| mesh.positions()[i as usize]);
            Aabb::new(a.min(b).min(c), a.max(b).max(c))
        })
        .collect();
    // The options a mesh builds and collapses with.
    let options = BuildOptions {
        parallel,
        leaf_block: LEAF_ALIGNMENT,
        ..BuildOptions::default()
    };
    let binary = Bvh::build(&boxes, &options);
    println!("{path} x{levels}: {} triangles", boxes.len());
    let collapses: [(&str, &dyn Fn() -> WideBvh); 2] = [
        ("greedy", &|| WideBvh::from_binary_greedy(&binary, parallel)),
        ("sah", &|| WideBvh::from_binary_with(&binary, &options)),
    ];
    for (name, collapse) in collapses {
        let mut best = Duration::MAX;
        let mut wide = WideBvh::default();
        for _ in 0..rounds {
            let start = Instant::now();
            wide = collapse();
            best = best.min(start.elapsed());
        }
        wide.validate(&boxes).expect("a valid tree");
        let stats = wide.stats();
        println!(
            "{name:>6}: nodes {} leaves {} slots {} depth {} cost {:.3} unit SAH {:.3} \
             collapse {:.2} ms",
            stats.node_count,
            stats.leaf_count,
            wide.primitive_order().len(),
            stats.depth,
            block_cost(&wide, f64::from(options.traversal_cost)),
            stats.sah_cost,
            best.as_secs_f64() * 1e3,
        );
    }
    Ok(())
}
