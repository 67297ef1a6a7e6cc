//! The single-ray profile probe: one library traces the same rays as the benchmark, one ray at a
//! time on the calling thread, so that a profiler counts what each query costs. Half the rays are
//! the camera image's (every other pixel of the benchmark's image, in order) and half the
//! incoherent set's, `RAYS` in all. With a fourth argument `packet`, the probe traces the
//! benchmark's whole camera image instead (`RAYS` pixels), as the packet row does: Embree's
//! `rtcIntersect16` over 4 x 4 tiles, meshcast's `Mesh::cast_batch_serial` four rows at a time
//! (`--toggle-collect='*count_packet_closest*'`).
//!
//! ```sh
//! cargo build --release --features embree --manifest-path benches/peers/Cargo.toml
//! valgrind --tool=callgrind --toggle-collect='*count_closest*' \
//!     benches/peers/target/release/meshcast-peers --trace-probe embree bunny 40000
//! valgrind --tool=callgrind --toggle-collect='*count_closest*' \
//!     benches/peers/target/release/meshcast-peers --trace-probe meshcast bunny 40000
//! ```
//!
//! callgrind's count inside the toggled function, over `RAYS`, is the instructions per ray.
//! `--toggle-collect='*count_closest*'` counts the whole per-ray call of either library alike,
//! the tracer's loop included; `--toggle-collect=rtcIntersect1` counts Embree's own call
//! alone. With a fourth argument `any`, the probe runs the any-hit query
//! instead (`--toggle-collect='*count_occluded*'`).

use std::time::Instant;

use anyhow::{bail, Context, Result};
use meshcast::Ray;

use crate::tracer::{Geometry, Library, Threads};
use crate::workload::{mesh_spec, Workload};

/// The hidden command-line flag that makes the benchmark the probe:
/// `--trace-probe meshcast|embree MESH RAYS [any|packet]`.
pub const PROBE_FLAG: &str = "--trace-probe";

/// The rounds of the packet probe, whose median it prints beside the count.
const PACKET_ROUNDS: usize = 5;

/// The probe, with the arguments after the flag.
pub fn probe(args: &[String], libraries: &[Box<dyn Library>]) -> Result<()> {
    let (library, mesh, rays, query) = match args {
        [library, mesh, rays] => (library, mesh, rays, "closest"),
        [library, mesh, rays, query] if query == "any" || query == "packet" => {
            (library, mesh, rays, query.as_str())
        }
        _ => bail!("usage: {PROBE_FLAG} meshcast|embree MESH RAYS [any|packet]"),
    };
    let count: usize = rays.parse().context("rays")?;
    let library = crate::library_named(libraries, library)?;
    let workload = Workload::load(&crate::repository_root(), mesh_spec(mesh)?, count)?;
    let geometry = Geometry {
        positions: &workload.positions,
        indices: &workload.indices,
    };
    let tracer = library.build(&geometry, Threads::One)?;
    if query == "packet" {
        // Five rounds, the median timed: the first pays for cold caches.
        let mut times = Vec::new();
        let mut hits = 0;
        for _ in 0..PACKET_ROUNDS {
            let start = Instant::now();
            hits = tracer.count_packet_closest(&workload.coherent, workload.width);
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let seconds = times[times.len() / 2];
        println!(
            "{hits} hits of {} camera rays, {} to a row, {PACKET_ROUNDS} rounds, median {:.1} ms \
             ({:.2} Mrays/s)",
            workload.coherent.len(),
            workload.width,
            1e3 * seconds,
            workload.coherent.len() as f64 / seconds / 1e6
        );
        return Ok(());
    }
    let rays: Vec<Ray> = workload
        .coherent
        .iter()
        .step_by(2)
        .chain(workload.incoherent.iter().take(count / 2))
        .copied()
        .collect();
    let hits = if query == "any" {
        tracer.count_occluded(&rays)
    } else {
        tracer.count_closest(&rays)
    };
    println!("{hits} hits of {} rays", rays.len());
    Ok(())
}
