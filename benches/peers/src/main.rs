//! meshcast against its peers: the same meshes and rays through meshcast, obvhs, parry3d, the
//! bvh crate and (with the `embree` feature) Embree, measured in interleaved rounds.
//!
//! `main` reads the options and runs the rounds; each library's adapter, the correctness
//! check, the scaling check and the report are in their own files.

#![deny(unsafe_code)]

mod bvh_peer;
mod chart;
mod check;
#[cfg(feature = "embree")]
mod embree;
#[cfg(feature = "embree")]
mod embree_build;
#[cfg(feature = "embree")]
mod embree_isa;
#[cfg(feature = "embree")]
mod embree_peer;
mod large_probe;
mod meshcast_peer;
mod obvhs_peer;
mod parry_peer;
mod report;
mod results;
mod scaling;
mod summary;
mod table;
mod trace_probe;
mod tracer;
mod workload;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use meshcast::Ray;
use rayon::prelude::*;
use rayon::ThreadPool;

use crate::results::{Figure, MeshResult, Row, MESHCAST};
use crate::tracer::{Geometry, Library, Threads, Tracer, TILE};
use crate::workload::{mesh_spec, MeshSpec, Workload, MESHES};

/// Rays per work item in the all-threads loops of single rays (and per `rtcIntersect1M` call
/// of Embree's stream row): large enough that scheduling costs nothing. The packet rows share
/// an image among threads in bands of four rows; meshcast's batch row leaves the sharing to
/// meshcast.
pub const CHUNK: usize = 256;

const USAGE: &str = "\
usage: meshcast-peers [options]

Compares meshcast's ray casting with obvhs, parry3d, bvh and (feature `embree`) Embree.

options:
  --rays N          rays per set (coherent and incoherent); default 1048576
  --rounds N        rounds; each figure is the median over rounds; default 5
  --meshes A,B      meshes among bunny, ogre, bunny-x16, bunny-x64; default all
  --threads N       threads for the all-threads figures; default one per core
  --check-rays N    rays per set for the correctness check; default 2000
  --write           write BENCHMARKS.md and benches/peers/chart.png
  -h, --help        this text";

/// The command line.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rays per set.
    pub rays: usize,
    /// Rounds.
    pub rounds: usize,
    /// Meshes.
    pub meshes: Vec<MeshSpec>,
    /// Threads of the all-threads figures.
    pub threads: usize,
    /// Rays per set for the correctness check.
    pub check_rays: usize,
    /// Whether to write the report and chart.
    pub write: bool,
}

impl Options {
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Self>> {
        let mut options = Self {
            rays: 1 << 20,
            rounds: 5,
            meshes: MESHES.to_vec(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            check_rays: 2000,
            write: false,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
                None => (arg.clone(), None),
            };
            let mut value = || {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .with_context(|| format!("{flag} needs a value"))
            };
            match flag.as_str() {
                "-h" | "--help" => return Ok(None),
                "--write" => options.write = true,
                "--rays" => options.rays = count(&flag, &value()?)?,
                "--rounds" => options.rounds = count(&flag, &value()?)?,
                "--threads" => options.threads = count(&flag, &value()?)?,
                "--check-rays" => options.check_rays = count(&flag, &value()?)?,
                "--meshes" => {
                    options.meshes = value()?
                        .split(',')
                        .filter(|name| !name.is_empty())
                        .map(mesh_spec)
                        .collect::<Result<_>>()?;
                    if options.meshes.is_empty() {
                        bail!("--meshes names no mesh");
                    }
                }
                _ => bail!("unknown option {arg:?} (see --help)"),
            }
        }
        Ok(Some(options))
    }
}

/// A positive count.
fn count(flag: &str, value: &str) -> Result<usize> {
    match value.replace('_', "").parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => bail!("{flag} takes a positive whole number, not {value:?}"),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("meshcast-peers: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root: where `assets/` is, from the current folder or from this crate's
/// source folder.
pub fn repository_root() -> PathBuf {
    let here = Path::new(".");
    if here.join("assets").is_dir() {
        return here.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The libraries, in table order.
fn libraries() -> Result<Vec<Box<dyn Library>>> {
    #[allow(unused_mut)]
    let mut libraries: Vec<Box<dyn Library>> = vec![
        Box::new(meshcast_peer::Meshcast),
        Box::new(obvhs_peer::Obvhs),
        Box::new(parry_peer::Parry),
        Box::new(bvh_peer::BvhCrate),
    ];
    #[cfg(feature = "embree")]
    {
        let embree = embree_peer::Embree::new()?;
        let robust = embree.with_flags(embree::SceneFlags::Robust);
        libraries.push(Box::new(embree));
        libraries.push(Box::new(robust));
    }
    Ok(libraries)
}

/// The library of `libraries` called `name` (any case), for the probes.
fn library_named<'a>(libraries: &'a [Box<dyn Library>], name: &str) -> Result<&'a dyn Library> {
    libraries
        .iter()
        .find(|lib| lib.name().eq_ignore_ascii_case(name))
        .map(|lib| lib.as_ref())
        .with_context(|| format!("unknown library {name:?}"))
}

/// Embree's choice of kernels (see `embree_isa.rs`).
#[cfg(feature = "embree")]
fn embree_isa() -> Option<String> {
    Some(embree_isa::detect())
}

/// Nothing: Embree is not compared.
#[cfg(not(feature = "embree"))]
fn embree_isa() -> Option<String> {
    None
}

fn run() -> Result<()> {
    #[cfg(feature = "embree")]
    if std::env::args().nth(1).as_deref() == Some(embree_isa::PROBE_FLAG) {
        return embree_isa::probe();
    }
    #[cfg(feature = "embree")]
    if std::env::args().nth(1).as_deref() == Some(embree_build::PROBE_FLAG) {
        return embree_build::probe(&std::env::args().skip(2).collect::<Vec<_>>());
    }
    if std::env::args().nth(1).as_deref() == Some(large_probe::PROBE_FLAG) {
        let args: Vec<_> = std::env::args().skip(2).collect();
        return large_probe::probe(&args, &libraries()?);
    }
    if std::env::args().nth(1).as_deref() == Some(trace_probe::PROBE_FLAG) {
        let args: Vec<_> = std::env::args().skip(2).collect();
        return trace_probe::probe(&args, &libraries()?);
    }
    let started = Instant::now();
    let command_line = std::env::args().collect::<Vec<_>>().join(" ");
    let Some(options) = Options::parse(std::env::args().skip(1))? else {
        println!("{USAGE}");
        return Ok(());
    };
    let root = repository_root();
    for spec in &options.meshes {
        let path = root.join(spec.file);
        if !path.is_file() {
            bail!("mesh file {} is missing", path.display());
        }
    }
    let pools = [pool(1)?, pool(options.threads)?];
    let libraries = libraries()?;
    let embree_isa = embree_isa();
    if let Some(isa) = &embree_isa {
        println!("Embree's kernels: {isa}");
    }

    let scaling_start = scaling::two_thread_ratio();
    println!(
        "two-thread scaling check (start): {scaling_start:.2} (2.00 on a quiet two-core machine)"
    );

    let mut results = Vec::new();
    for spec in &options.meshes {
        let workload = Workload::load(&root, *spec, options.rays)?;
        println!(
            "{}: {} triangles, {} coherent and {} incoherent rays",
            workload.name,
            workload.triangle_count(),
            workload.coherent.len(),
            workload.incoherent.len()
        );
        let result = bench_mesh(&workload, &libraries, &pools, &options)?;
        report::print_mesh(&result, &options, &libraries);
        results.push(result);
    }

    let scaling_end = scaling::two_thread_ratio();
    println!("two-thread scaling check (end): {scaling_end:.2}");
    let elapsed = started.elapsed();
    print!("{}", summary::text(&results, options.threads));
    println!("total time {:.0} s", elapsed.as_secs_f64());

    if options.write {
        let run = report::Run {
            command_line,
            options: options.clone(),
            scaling: (scaling_start, scaling_end),
            elapsed,
            embree_isa,
            libraries: libraries
                .iter()
                .map(|lib| report::LibraryInfo {
                    name: lib.name(),
                    version: lib.version(),
                    notes: lib.notes(),
                })
                .collect(),
        };
        let chart_path = root.join("benches/peers/chart.png");
        chart::draw(&chart_path, &results, &options)?;
        let path = root.join("BENCHMARKS.md");
        // The GPU's figures come from `meshcast bench --gpu` on a GPU machine, not from this
        // run: their section is kept as it is.
        let gpu_section = std::fs::read_to_string(&path)
            .ok()
            .and_then(|old| old.find(GPU_SECTION).map(|at| old[at..].to_owned()))
            .unwrap_or_default();
        let markdown = report::markdown(&run, &results) + &gpu_section;
        std::fs::write(&path, markdown).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {} and {}", path.display(), chart_path.display());
    }
    Ok(())
}

/// The heading of BENCHMARKS.md's last section, written by hand from `meshcast bench --gpu`.
const GPU_SECTION: &str = "\n## On the GPU";

/// A rayon pool of `threads` threads.
fn pool(threads: usize) -> Result<ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .with_context(|| format!("starting {threads} threads"))
}

/// The pool of a thread setting.
fn pool_for(pools: &[ThreadPool; 2], threads: Threads) -> &ThreadPool {
    match threads {
        Threads::One => &pools[0],
        Threads::All => &pools[1],
    }
}

/// A timed query loop over rays.
#[derive(Clone, Copy)]
enum Query {
    Closest,
    Occluded,
    /// The packet path over a camera image of rows this many rays wide.
    Packets {
        width: usize,
    },
    /// The batch call over the whole array of rays, any hit if `occluded` and closest
    /// otherwise; the adapter shares it among the pool's threads.
    Batch {
        occluded: bool,
    },
}

/// Runs `query` over `rays` on one thread or on every thread of the pool; returns the hits
/// and the time.
fn trace(
    tracer: &dyn Tracer,
    rays: &[Ray],
    query: Query,
    pool: &ThreadPool,
    threads: Threads,
) -> (usize, Duration) {
    let run = |chunk: &[Ray]| match query {
        Query::Closest => tracer.count_closest(chunk),
        Query::Occluded => tracer.count_occluded(chunk),
        Query::Packets { width } => tracer.count_packet_closest(chunk, width),
        Query::Batch { occluded } => tracer.count_batch(chunk, occluded, threads),
    };
    // An image is shared among threads in bands of whole tile rows; a batch is not split
    // here.
    let chunk = match query {
        Query::Packets { width } => Some(TILE * width),
        Query::Batch { .. } => None,
        Query::Closest | Query::Occluded => Some(CHUNK),
    };
    let start = Instant::now();
    let hits = pool.install(|| match (threads, chunk) {
        (Threads::All, Some(chunk)) => rays.par_chunks(chunk).map(run).sum(),
        _ => run(rays),
    });
    (hits, start.elapsed())
}

/// Millions of rays per second.
fn mrays(rays: usize, time: Duration) -> f64 {
    rays as f64 / time.as_secs_f64().max(1e-9) / 1e6
}

/// Checks, then measures every library on one mesh in interleaved rounds.
fn bench_mesh(
    workload: &Workload,
    libraries: &[Box<dyn Library>],
    pools: &[ThreadPool; 2],
    options: &Options,
) -> Result<MeshResult> {
    let geometry = Geometry {
        positions: &workload.positions,
        indices: &workload.indices,
    };
    let mut rows: Vec<Row> = libraries.iter().map(|lib| Row::new(lib.name())).collect();
    let mut packet_rows: Vec<(usize, Row)> = Vec::new();
    let mut batch_rows: Vec<(usize, Row)> = Vec::new();
    let mut tracers: Vec<Option<Box<dyn Tracer>>> = libraries.iter().map(|_| None).collect();
    let mut meshcast_bytes = None;

    let elsewhere = libraries
        .iter()
        .map(|library| library.one_thread_builds(workload.name, options.rounds))
        .collect::<Result<Vec<_>>>()?;
    for round in 0..options.rounds {
        eprintln!(
            "  {}: round {}/{}",
            workload.name,
            round + 1,
            options.rounds
        );
        // Builds: each library once per thread setting; the last build is the one traced.
        for threads in [Threads::One, Threads::All] {
            for (i, library) in libraries.iter().enumerate() {
                if threads == Threads::All && !library.builds_in_parallel() {
                    continue;
                }
                if let (Threads::One, Some(times)) = (threads, &elsewhere[i]) {
                    rows[i].push(Figure::Build, threads, times[round]);
                    continue;
                }
                tracers[i] = None;
                let start = Instant::now();
                let tracer = pool_for(pools, threads)
                    .install(|| library.build(&geometry, threads))
                    .with_context(|| format!("building {} on {}", library.name(), workload.name))?;
                rows[i].push(Figure::Build, threads, start.elapsed().as_secs_f64() * 1e3);
                tracers[i] = Some(tracer);
            }
        }
        if round == 0 {
            for (i, tracer) in tracers.iter().enumerate() {
                let tracer = tracer.as_deref().context("no build")?;
                rows[i].occlusion_note = tracer.occlusion_note();
                if libraries[i].name() == MESHCAST {
                    meshcast_bytes = tracer.bytes_per_triangle();
                }
                if let Some(name) = tracer.packet_name() {
                    packet_rows.push((i, Row::new(name)));
                }
                if let Some(name) = tracer.batch_name() {
                    batch_rows.push((i, Row::new(name)));
                }
            }
        }
        let measures = [
            (Figure::Coherent, &workload.coherent, Query::Closest),
            (Figure::Incoherent, &workload.incoherent, Query::Closest),
            (Figure::Occlusion, &workload.incoherent, Query::Occluded),
        ];
        for (figure, rays, query) in measures {
            for threads in [Threads::One, Threads::All] {
                let pool = pool_for(pools, threads);
                for (i, tracer) in tracers.iter().enumerate() {
                    let tracer = tracer.as_deref().context("no build")?;
                    let (hits, time) = trace(tracer, rays, query, pool, threads);
                    rows[i].push(figure, threads, mrays(rays.len(), time));
                    rows[i].hits[figure as usize] = hits;
                }
                // The extra rows of this figure: packets on the coherent rays, batches on the
                // incoherent ones.
                let (extra_rows, extra) = match figure {
                    Figure::Coherent => (
                        &mut packet_rows,
                        Query::Packets {
                            width: workload.width,
                        },
                    ),
                    Figure::Incoherent => (&mut batch_rows, Query::Batch { occluded: false }),
                    Figure::Occlusion => (&mut batch_rows, Query::Batch { occluded: true }),
                    Figure::Build => continue,
                };
                for (i, row) in extra_rows {
                    let tracer = tracers[*i].as_deref().context("no build")?;
                    let (hits, time) = trace(tracer, rays, extra, pool, threads);
                    row.push(figure, threads, mrays(rays.len(), time));
                    row.hits[figure as usize] = hits;
                }
            }
        }
    }

    // The correctness check, on the last builds.
    let per_set = check::sample_size(options.check_rays, workload.triangle_count());
    let mut sample = check::sample(&workload.coherent, per_set);
    sample.extend(check::sample(&workload.incoherent, per_set));
    eprintln!(
        "  {}: checking {} rays against brute force",
        workload.name,
        sample.len()
    );
    let reference =
        pools[1].install(|| check::brute_force(&workload.positions, &workload.indices, &sample));
    let mut checks = Vec::new();
    for (library, tracer) in libraries.iter().zip(&tracers) {
        let tracer = tracer.as_deref().context("no build")?;
        let exact = library.name() == MESHCAST;
        checks.push(check::check_tracer(
            library.name(),
            tracer,
            &sample,
            &reference,
            exact,
        ));
    }
    for (i, row) in &packet_rows {
        let tracer = tracers[*i].as_deref().context("no build")?;
        let exact = libraries[*i].name() == MESHCAST;
        let sets = [&workload.coherent[..], &workload.incoherent[..]];
        let sets = sets.map(|set| (set, workload.width));
        checks.push(pools[1].install(|| {
            check::check_packets(&row.name, tracer, &sample, &reference, &sets, exact)
        }));
    }
    for (i, row) in &batch_rows {
        let tracer = tracers[*i].as_deref().context("no build")?;
        let exact = libraries[*i].name() == MESHCAST;
        checks.push(pools[1].install(|| {
            check::check_batch(
                &row.name,
                tracer,
                &sample,
                &reference,
                &workload.incoherent,
                exact,
            )
        }));
    }
    for check in &checks {
        if check.exact && check.disagreements() > 0 {
            eprintln!(
                "meshcast-peers: warning: {} on {} disagrees {} times with exact answers (see \
                 the correctness table)",
                check.name,
                workload.name,
                check.disagreements()
            );
        }
    }

    rows.extend(packet_rows.into_iter().map(|(_, row)| row));
    rows.extend(batch_rows.into_iter().map(|(_, row)| row));
    Ok(MeshResult {
        name: workload.name,
        triangles: workload.triangle_count(),
        rays: workload.coherent.len().max(workload.incoherent.len()),
        rows,
        meshcast_bytes_per_triangle: meshcast_bytes,
        check: checks,
        checked_rays: per_set,
    })
}
