//! `meshcast bench`: load, build and ray throughput of meshes, each figure a median of runs.
//!
//! For careful, statistically checked figures use the criterion benches (`cargo bench`); this
//! command gives quick numbers on any mesh file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use meshcast::gpu::Gpu;
use meshcast::{Camera, Kernel, LeafTest, Mesh, Quality, Ray, RayQueries, TraversalCounts};
use rayon::prelude::*;

use crate::camera_options::DEFAULT_FOV_DEGREES;
use crate::loading;
use crate::progress::Progress;
use crate::timing::{median, median_of, timed};

mod gpu;
mod rays;
mod report;

use gpu::{bench_gpu, GpuBench};
use rays::incoherent_rays;
use report::{write_json, write_table};

/// The most triangles `--subdivide` may produce: about 10 GB of mesh and hierarchy. A mesh
/// file benchmarked as it is may be larger: it was read whole, and a build that does not fit
/// is a typed out-of-memory error.
const MAX_SUBDIVIDED_TRIANGLES: u64 = 100_000_000;

/// The seed of the incoherent rays, so runs compare.
const INCOHERENT_SEED: u64 = 0x6d65_7368;

/// Measure load and build time and rays per second (closest and any hit; camera and random
/// rays; one ray at a time and as one batch, which traces coherent rays as packets; one
/// thread and all threads). The build runs on the "all threads" pool, so `--threads 1`
/// times a one-thread build. `--gpu` measures the same rays on the GPU too.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Mesh files (OBJ, glTF, PLY, STL; a glTF scene flattened into one mesh).
    #[arg(value_name = "MESH", required = true)]
    meshes: Vec<PathBuf>,

    /// Subdivide each triangle into four this many times before building (for big meshes).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=6))]
    subdivide: u32,

    /// Rays per measurement (the camera grid is the nearest 4:3 image).
    #[arg(long, value_name = "N", default_value_t = 262_144,
          value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    rays: u64,

    /// Threads for the "all threads" figures (default: one per core)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// The build quality: faster builds or faster rays.
    #[arg(long, value_enum, default_value_t = QualityArg::Balanced)]
    quality: QualityArg,

    /// The ray–triangle test at the hierarchy's leaves: watertight (the default) or the
    /// precomputed transform, which is not watertight.
    #[arg(long, value_enum, value_name = "TEST", default_value_t = LeafTestChoice::Watertight)]
    leaf_test: LeafTestChoice,

    /// Runs per figure; the median is reported.
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,

    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,

    /// The node kernel: portable, avx2 or avx512 (default: the fastest this CPU runs, or the
    /// one named by the MESHCAST_KERNEL environment variable).
    #[arg(long, value_name = "KERNEL")]
    kernel: Option<Kernel>,

    /// Also count, per ray, the nodes, leaves and triangle blocks each query visits (a
    /// separate, untimed pass: the timed queries count nothing).
    #[arg(long)]
    counters: bool,

    /// Also measure on the GPU (the best adapter, or the first named like the MESHCAST_GPU
    /// environment variable): the upload, and the closest and any hit of the same rays, plus
    /// a camera image whose rays the GPU makes; kernel time (rays already on the GPU, best of
    /// `--runs`) and end to end (rays from the host, answers read back, open rays finished on
    /// the CPU's "all threads" pool; median).
    #[arg(long)]
    gpu: bool,
}

/// The steps of [`Quality`], as the command line spells them.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QualityArg {
    /// A Morton-code linear BVH: the fastest build.
    Fast,
    /// Binned SAH: the default.
    Balanced,
    /// Binned SAH polished by reinsertion: the fastest rays.
    High,
}

impl QualityArg {
    pub(crate) fn quality(self) -> Quality {
        match self {
            Self::Fast => Quality::Fast,
            Self::Balanced => Quality::Balanced,
            Self::High => Quality::High,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Fast => "fast",
            Self::Balanced => "balanced",
            Self::High => "high",
        }
    }
}

/// The `--leaf-test` choices, one per [`LeafTest`].
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum LeafTestChoice {
    /// [`LeafTest::Watertight`].
    Watertight,
    /// [`LeafTest::Transform`].
    Transform,
}

impl LeafTestChoice {
    fn leaf_test(self) -> LeafTest {
        match self {
            Self::Watertight => LeafTest::Watertight,
            Self::Transform => LeafTest::Transform,
        }
    }

    /// The name used on the command line.
    fn name(self) -> &'static str {
        match self {
            Self::Watertight => "watertight",
            Self::Transform => "transform",
        }
    }
}

/// Which rays a throughput figure uses.
#[derive(Clone, Copy, Debug)]
enum RaySet {
    /// A camera framing the mesh: neighbouring rays visit the same nodes.
    Coherent,
    /// From a sphere around the mesh towards random points in its box.
    Incoherent,
}

impl RaySet {
    fn name(self) -> &'static str {
        match self {
            Self::Coherent => "coherent",
            Self::Incoherent => "incoherent",
        }
    }
}

/// How a throughput figure hands the rays to the library.
#[derive(Clone, Copy, Debug)]
enum Method {
    /// Each ray by `cast` or `occluded`, on its own; the rays shared among the threads.
    Single,
    /// All rays in one `cast_batch` or `occluded_batch`, which traces coherent neighbours
    /// as packets.
    Batch,
}

impl Method {
    /// The name in JSON.
    fn name(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Batch => "batch",
        }
    }

    /// What the table adds after the query: packets where the rays are coherent enough to
    /// form them, otherwise just the batch.
    fn label(self, rays: RaySet) -> &'static str {
        match (self, rays) {
            (Self::Single, _) => "",
            (Self::Batch, RaySet::Coherent) => " (packets)",
            (Self::Batch, RaySet::Incoherent) => " (batch)",
        }
    }
}

/// Which query a throughput figure measures.
#[derive(Clone, Copy, Debug)]
enum Query {
    Closest,
    Any,
}

impl Query {
    fn name(self) -> &'static str {
        match self {
            Self::Closest => "closest",
            Self::Any => "any",
        }
    }
}

/// What one query visited on one ray set, summed over its rays.
struct Visits {
    rays: RaySet,
    query: Query,
    counts: TraversalCounts,
}

impl Visits {
    fn per_ray(&self, n: u64) -> f64 {
        n as f64 / self.counts.rays.max(1) as f64
    }
}

/// One throughput figure.
struct Throughput {
    rays: RaySet,
    query: Query,
    method: Method,
    threads: usize,
    count: usize,
    hits: usize,
    time: Duration,
}

/// Everything measured on one mesh.
struct MeshBench {
    path: PathBuf,
    triangles: usize,
    load_time: Duration,
    build_time: Duration,
    nodes: usize,
    depth: usize,
    sah_cost: f64,
    bvh_bytes_per_triangle: f64,
    kernel: Kernel,
    throughput: Vec<Throughput>,
    visits: Vec<Visits>,
    gpu: Option<GpuBench>,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let threads = match args.threads {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let pools = [1, threads]
        .into_iter()
        .map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .with_context(|| format!("starting {n} threads"))
        })
        .collect::<Result<Vec<_>>>()?;
    let runs = args.runs as usize;
    let gpu = if args.gpu {
        if args.leaf_test != LeafTestChoice::Watertight {
            bail!("--gpu runs the watertight leaf test; leave out --leaf-test or --gpu");
        }
        Some(Gpu::new()?)
    } else {
        None
    };
    // Load, build, and 16 throughput figures: 2 ray sets x 2 methods x 2 queries x 2 pools;
    // on the GPU the upload and 5 figures.
    let steps = if gpu.is_some() { 24 } else { 18 };
    let mut progress = Progress::new(args.meshes.len() as u64 * steps);
    let mut results = Vec::new();
    for path in &args.meshes {
        results.push(bench_mesh(
            path,
            args,
            &pools,
            gpu.as_ref(),
            runs,
            &mut progress,
        )?);
    }
    drop(progress);
    if args.json {
        write_json(out, args, threads, gpu.as_ref(), &results)
    } else {
        write_table(out, args, threads, gpu.as_ref(), &results)
    }
}

fn bench_mesh(
    path: &Path,
    args: &Args,
    pools: &[rayon::ThreadPool],
    gpu: Option<&Gpu>,
    runs: usize,
    progress: &mut Progress,
) -> Result<MeshBench> {
    let name = path.display().to_string();
    progress.step(format!("{name}: load"));
    let (tri_mesh, load_time) = median(runs, || loading::read_mesh(path));
    let tri_mesh = tri_mesh?;
    let subdivided = (tri_mesh.triangle_count() as u64).saturating_mul(4u64.pow(args.subdivide));
    if args.subdivide > 0 && subdivided > MAX_SUBDIVIDED_TRIANGLES {
        bail!(
            "--subdivide {} would make {name} {subdivided} triangles, more than {MAX_SUBDIVIDED_TRIANGLES}",
            args.subdivide
        );
    }
    let tri_mesh = tri_mesh
        .subdivide(args.subdivide)
        .with_context(|| format!("subdividing {name}"))?;
    progress.done();

    progress.step(format!("{name}: build"));
    let mut build_times = Vec::with_capacity(runs);
    let mut mesh = None;
    for _ in 0..runs {
        let copy = tri_mesh.clone();
        let build_pool = pools.last().context("no thread pool")?;
        let leaf_test = args.leaf_test.leaf_test();
        let (built, time) = build_pool.install(|| {
            timed(|| {
                loading::build(copy, args.quality.quality()).map(|m| m.with_leaf_test(leaf_test))
            })
        });
        build_times.push(time);
        mesh = Some(built?);
    }
    let mut mesh: Mesh = mesh.context("no build run")?;
    if let Some(kernel) = args.kernel {
        mesh.set_kernel(kernel)
            .with_context(|| format!("choosing the {kernel} kernel"))?;
    }
    let build_time = median_of(&mut build_times);
    drop(tri_mesh);
    progress.done();

    let count = args.rays as usize;
    let width = ((count as f64 * 4.0 / 3.0).sqrt().round() as u32).max(1);
    let height = ((count as f64 / width as f64).round() as u32).max(1);
    let camera =
        Camera::framing(mesh.bounds(), DEFAULT_FOV_DEGREES, 1.0).with_image_aspect(width, height);
    let ray_sets = [
        (RaySet::Coherent, camera.pixel_rays(width, height).collect()),
        (
            RaySet::Incoherent,
            incoherent_rays(mesh.bounds(), count, INCOHERENT_SEED),
        ),
    ];
    let mut throughput = Vec::new();
    for (set, rays) in &ray_sets {
        for method in [Method::Single, Method::Batch] {
            for query in [Query::Closest, Query::Any] {
                for pool in pools {
                    let threads = pool.current_num_threads();
                    progress.step(format!(
                        "{name}: {} {}{}, {threads} thread(s)",
                        set.name(),
                        query.name(),
                        method.label(*set)
                    ));
                    let (hits, time) = median(runs, || {
                        pool.install(|| count_hits(&mesh, rays, query, method))
                    });
                    throughput.push(Throughput {
                        rays: *set,
                        query,
                        method,
                        threads,
                        count: rays.len(),
                        hits,
                        time,
                    });
                    progress.done();
                }
            }
        }
    }
    let mut visits = Vec::new();
    if args.counters {
        for (set, rays) in &ray_sets {
            for query in [Query::Closest, Query::Any] {
                visits.push(Visits {
                    rays: *set,
                    query,
                    counts: count_visits(&mesh, rays, query),
                });
            }
        }
    }
    let mesh = Arc::new(mesh);
    let gpu = match gpu {
        Some(gpu) => {
            let pool = pools.last().context("no thread pool")?;
            let camera_image = (&camera, width, height);
            let measured = bench_gpu(
                gpu,
                &mesh,
                &ray_sets,
                camera_image,
                pool,
                runs,
                &name,
                progress,
            )
            .with_context(|| format!("measuring {name} on {}", gpu.adapter().name))?;
            Some(measured)
        }
        None => None,
    };
    let stats = mesh.bvh().stats();
    Ok(MeshBench {
        path: path.to_path_buf(),
        triangles: mesh.tri_mesh().triangle_count(),
        load_time,
        build_time,
        nodes: stats.node_count,
        depth: stats.depth,
        sah_cost: stats.sah_cost,
        bvh_bytes_per_triangle: mesh.acceleration_bytes() as f64
            / mesh.triangle_count().max(1) as f64,
        kernel: mesh.kernel(),
        throughput,
        visits,
        gpu,
    })
}

/// What `query` visits over `rays`, on this thread.
fn count_visits(mesh: &Mesh, rays: &[Ray], query: Query) -> TraversalCounts {
    let mut counts = TraversalCounts::default();
    for ray in rays {
        match query {
            Query::Closest => {
                mesh.cast_counted(ray, &mut counts);
            }
            Query::Any => {
                mesh.occluded_counted(ray, &mut counts);
            }
        }
    }
    counts
}

/// Answers every ray in the current rayon pool, the way `method` says, and counts the hits.
fn count_hits(mesh: &Mesh, rays: &[Ray], query: Query, method: Method) -> usize {
    match (query, method) {
        (Query::Closest, Method::Single) => one_by_one(rays, |ray| mesh.cast(ray))
            .iter()
            .flatten()
            .count(),
        (Query::Closest, Method::Batch) => mesh.cast_batch(rays).iter().flatten().count(),
        (Query::Any, Method::Single) => one_by_one(rays, |ray| mesh.occluded(ray))
            .iter()
            .filter(|&&hit| hit)
            .count(),
        (Query::Any, Method::Batch) => mesh.occluded_batch(rays).iter().filter(|&&hit| hit).count(),
    }
}

/// Rays one task answers in [`one_by_one`], as many as the library's batch calls give one,
/// so that the single-ray and batch figures differ only in how each task traces its rays.
const SINGLE_RAY_GRAIN: usize = 64;

/// The answer of each ray, in order, asked one ray at a time in the current rayon pool: the
/// work of a batch call without its packets.
fn one_by_one<A: Copy + Default + Send>(rays: &[Ray], answer: impl Fn(&Ray) -> A + Sync) -> Vec<A> {
    let mut answers = vec![A::default(); rays.len()];
    rays.par_chunks(SINGLE_RAY_GRAIN)
        .zip(answers.par_chunks_mut(SINGLE_RAY_GRAIN))
        .for_each(|(rays, answers)| {
            for (ray, slot) in rays.iter().zip(answers) {
                *slot = answer(ray);
            }
        });
    answers
}
