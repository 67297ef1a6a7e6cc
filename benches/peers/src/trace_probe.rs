//! The single-ray profile probe: one library traces the same rays as the benchmark, one ray at a
//! time on the calling thread, so that a profiler counts what each query costs. Half the rays are
//! the camera image's (every other pixel of the benchmark's image, in order) and half the
//! incoherent set's, `RAYS` in all.
//!
//! ```sh
//! cargo build --release --features embree --manifest-path benches/peers/Cargo.toml
//! valgrind --tool=callgrind --toggle-collect=rtcIntersect1 \
//!     benches/peers/target/release/meshcast-peers --trace-probe embree bunny 40000
//! valgrind --tool=callgrind --toggle-collect='*MeshLeaves::walk*' \
//!     benches/peers/target/release/meshcast-peers --trace-probe meshcast bunny 40000
//! ```
//!
//! callgrind's count inside the toggled function, over `RAYS`, is the instructions per ray.
//! `--toggle-collect='*count_closest*'` counts the whole per-ray call of either library, the
//! tracer's loop included. With a fourth argument `any`, the probe runs the any-hit query
//! instead (`--toggle-collect='*count_occluded*'`).

use anyhow::{bail, Context, Result};
use meshcast::Ray;

use crate::tracer::{Geometry, Library, Threads};
use crate::workload::{mesh_spec, Workload};

/// The hidden command-line flag that makes the benchmark the probe:
/// `--trace-probe meshcast|embree MESH RAYS [any]`.
pub const PROBE_FLAG: &str = "--trace-probe";

/// The probe, with the arguments after the flag.
pub fn probe(args: &[String], libraries: &[Box<dyn Library>]) -> Result<()> {
    let (library, mesh, rays, any) = match args {
        [library, mesh, rays] => (library, mesh, rays, false),
        [library, mesh, rays, query] if query == "any" => (library, mesh, rays, true),
        _ => bail!("usage: {PROBE_FLAG} meshcast|embree MESH RAYS [any]"),
    };
    let count: usize = rays.parse().context("rays")?;
    let Some(library) = libraries
        .iter()
        .find(|lib| lib.name().eq_ignore_ascii_case(library))
    else {
        bail!("unknown library {library:?}");
    };
    let workload = Workload::load(&crate::repository_root(), mesh_spec(mesh)?, count)?;
    let geometry = Geometry {
        positions: &workload.positions,
        indices: &workload.indices,
    };
    let tracer = library.build(&geometry, Threads::One)?;
    let rays: Vec<Ray> = workload
        .coherent
        .iter()
        .step_by(2)
        .chain(workload.incoherent.iter().take(count / 2))
        .copied()
        .collect();
    let hits = if any {
        tracer.count_occluded(&rays)
    } else {
        tracer.count_closest(&rays)
    };
    println!("{hits} hits of {} rays", rays.len());
    Ok(())
}
