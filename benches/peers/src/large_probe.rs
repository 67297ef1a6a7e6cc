//! The large-mesh probe: one library, one mesh, one process, so that meshes of tens of
//! millions of triangles are measured one library at a time (the benchmark keeps every
//! library's build alive at once) and each build's memory is the process's alone. It loads
//! the mesh (a named one, `bunny-x256` and `bunny-x1024` among them, or a mesh file),
//! builds it on every thread, and prints one line: the build's time, the resident memory
//! the build added per triangle (the process's `RssAnon` before and after; the library's
//! own count beside it where it keeps one), and Mrays/s of coherent (a camera image) and
//! incoherent rays, closest hit, one ray at a time on one thread and as the library's batch
//! on one thread and on every thread, best of three.
//!
//! ```sh
//! benches/peers/target/release/meshcast-peers --large-probe meshcast|embree MESH RAYS
//! ```

use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::tracer::{Geometry, Library, Threads};
use crate::workload::{mesh_spec, Workload};

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
    let Some(library) = libraries
        .iter()
        .find(|lib| lib.name().eq_ignore_ascii_case(library))
    else {
        bail!("unknown library {library:?}");
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let all = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
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
    let tracer = all.install(|| library.build(&geometry, Threads::All))?;
    let build = start.elapsed().as_secs_f64();
    let resident = (resident_anonymous()? - before) as f64 / triangles;
    let own = tracer
        .bytes_per_triangle()
        .map_or_else(String::new, |b| format!(" (its own count {b:.1})"));
    let best = |run: &dyn Fn() -> usize, rays: usize| {
        (0..ROUNDS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(run());
                rays as f64 / start.elapsed().as_secs_f64() / 1e6
            })
            .fold(0.0, f64::max)
    };
    let (coherent, incoherent) = (&workload.coherent, &workload.incoherent);
    let single = |rays: &[_]| best(&|| one.install(|| tracer.count_closest(rays)), rays.len());
    let batch = |pool: &rayon::ThreadPool, rays: &[_]| {
        best(
            &|| pool.install(|| tracer.count_batch(rays, false, Threads::All)),
            rays.len(),
        )
    };
    println!(
        "{} {}: {} triangles, loaded in {load:.1} s; build on {threads} threads {build:.2} s, \
         {resident:.1} resident bytes/triangle{own}; Mrays/s coherent / incoherent: one \
         thread {:.2} / {:.2}, its batch on one thread {:.2} / {:.2}, {threads} threads \
         {:.2} / {:.2}",
        library.name(),
        workload.name,
        workload.triangle_count(),
        single(coherent),
        single(incoherent),
        batch(&one, coherent),
        batch(&one, incoherent),
        batch(&all, coherent),
        batch(&all, incoherent),
    );
    drop(tracer);
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
