//! The large-mesh probe: one library, one mesh, one process, so that meshes of tens of
//! millions of triangles are measured one library at a time (the benchmark keeps every
//! library's build alive at once) and each build's memory is the process's alone. It loads
//! the mesh (a named one, `bunny-x256` and `bunny-x1024` among them, or a mesh file),
//! builds it on every thread, and prints one line: the build's time, the resident memory
//! the build added per triangle (the process's `RssAnon` before and after; the library's
//! own count beside it where it keeps one), and Mrays/s, closest hit, best of three, on one
//! thread and on every thread, through the benchmark's own loops: a camera image one ray at a
//! time and as packets over 4 x 4 tiles (Embree's `rtcIntersect16`), random rays one at a
//! time and as one batch call (Embree's `rtcIntersect1M`).
//!
//! ```sh
//! benches/peers/target/release/meshcast-peers --large-probe meshcast|embree MESH RAYS
//! ```

use std::time::Instant;

use anyhow::{bail, Context, Result};

use meshcast::Ray;

use crate::tracer::{Geometry, Library, Threads};
use crate::workload::{mesh_spec, Workload};
use crate::Query;

/// The hidden command-line flag that makes the benchmark the probe.
pub const PROBE_FLAG: &str = "--large-probe";

/// Timed rounds of each figure; the best is printed.
const ROUNDS: usize = 3;

/// The probe, with the arguments after the flag.
pub fn probe(args: &[String], libraries: &[Box<dyn Library>]) -> Result<()> {
    let [library, mesh, rays] = args else {
        bail!("usage: {PROBE_FLAG} meshcast|embree MESH RAYS");
    };
    let count: usize = rays.parse().context("rays")?;
    let library = crate::library_named(libraries, library)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pools = [crate::pool(1)?, crate::pool(threads)?];
    let start = Instant::now();
    let workload = Workload::load(&crate::repository_root(), mesh_spec(mesh)?, count)?;
    let load = start.elapsed().as_secs_f64();
    let geometry = Geometry {
        positions: &workload.positions,
        indices: &workload.indices,
    };
    let triangles = workload.triangle_count() as f64;
    let before = resident_anonymous()?;
    let start = Instant::now();
    let tracer = pools[1].install(|| library.build(&geometry, Threads::All))?;
    let build = start.elapsed().as_secs_f64();
    let resident = (resident_anonymous()? - before) as f64 / triangles;
    let own = tracer
        .bytes_per_triangle()
        .map_or_else(String::new, |b| format!(" (its own count {b:.1})"));
    // The benchmark's own timed loops, each library used as its users use it: camera images
    // as packets over 4 x 4 tiles (Embree's `rtcIntersect16`), arrays of random rays as one
    // batch call (Embree's `rtcIntersect1M`).
    let best = |rays: &[Ray], query: Query, threads: Threads| {
        let pool = crate::pool_for(&pools, threads);
        (0..ROUNDS)
            .map(|_| {
                let (_, time) = crate::trace(tracer.as_ref(), rays, query, pool, threads);
                crate::mrays(rays.len(), time)
            })
            .fold(0.0, f64::max)
    };
    let (coherent, incoherent) = (&workload.coherent, &workload.incoherent);
    let packets = Query::Packets {
        width: workload.width,
    };
    let batch = Query::Batch { occluded: false };
    println!(
        "{} {}: {} triangles, loaded in {load:.1} s; build on {threads} threads {build:.2} s, \
         {resident:.1} resident bytes/triangle{own}; Mrays/s, closest hit, one thread / \
         {threads} threads: coherent one by one {:.2} / {:.2}, as packets {:.2} / {:.2}; \
         incoherent one by one {:.2} / {:.2}, as a batch {:.2} / {:.2}",
        library.name(),
        workload.name,
        workload.triangle_count(),
        best(coherent, Query::Closest, Threads::One),
        best(coherent, Query::Closest, Threads::All),
        best(coherent, packets, Threads::One),
        best(coherent, packets, Threads::All),
        best(incoherent, Query::Closest, Threads::One),
        best(incoherent, Query::Closest, Threads::All),
        best(incoherent, batch, Threads::One),
        best(incoherent, batch, Threads::All),
    );
    Ok(())
}

/// The process's resident anonymous memory in bytes (`RssAnon` in `/proc/self/status`).
fn resident_anonymous() -> Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status").context("/proc/self/status")?;
    let kb = status
        .lines()
        .find_map(|line| line.strip_prefix("RssAnon:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .context("no RssAnon in /proc/self/status")?;
    Ok(kb * 1024)
}
