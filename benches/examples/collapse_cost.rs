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

use meshcast_benches::BuildMeasurement;
use meshcast_bvh::{BuildOptions, Bvh, WideBvh, WideLane, LEAF_ALIGNMENT};
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

fn main() -> Result<(), meshcast::Error> {
    let BuildMeasurement {
        path,
        levels,
        mesh,
        rounds,
        parallel,
    } = BuildMeasurement::from_args(None, "collapse_cost MESH [LEVELS [ROUNDS]]")?;
    let boxes: Vec<Aabb> = mesh.triangles().map(|t| t.bounds()).collect();
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
