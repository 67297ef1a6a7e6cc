//! The wgpu half of the CUDA diagnosis (`benches/gpu_cuda`, BENCHMARKS.md "Where the GPU's
//! time goes"): times the kernel through wgpu on the rays of `gpu_vs_warp.py` (random rays
//! from a sphere around the mesh towards points of its box, and a square pinhole image) and,
//! with `--write DIR`, writes what the kernel read and the CPU's answers, so that the same
//! traversal compiled by nvcc runs on the same bytes and is checked against the same answers.
//!
//! ```sh
//! cargo run --release -p meshcast-gpu --example kernel_inputs -- \
//!     [--rays N] [--image SIDE] [--repeat K] [--write DIR] [--check] MESH[:SUBDIVISIONS]...
//! ```
//!
//! `--uploads U` uploads each mesh U times and times every upload (the process-to-process
//! spread: does it follow the upload?).
//!
//! `--check` also casts every ray through `GpuMesh::cast_batch` (the kernel, then the CPU
//! for the rays it leaves open) and prints how many answers name another triangle than the
//! CPU's `Mesh::cast_batch`: a variant of the kernel under test must print 0.
//!
//! Prints one line per mesh, ray set and query: `wgpu MESH SET QUERY MRAYS_PER_S` (the best
//! of K launches, submission to completion), then the whole call from the host's rays to
//! the answers (`GpuMesh::cast_batch`, `occluded_batch`, open rays finished on the CPU), best
//! of K: `e2e BACKEND MESH SET QUERY MRAYS_PER_S`, for wgpu alone and, where the CUDA back end
//! opens, for it (`MESHCAST_GPU_PROFILE=1` adds its kernel's own time per launch). Files per mesh under `DIR/NAME/`: `nodes.bin`,
//! `triangles.bin`, `ids.bin` (the mesh's triangle of each kernel triangle, `u32`), and per
//! ray set `SET.rays` (32 bytes a ray), `SET.closest` (the CPU's triangle as `u32`, `u32::MAX`
//! for a miss, then its `t` as `f32`, per ray) and `SET.any` (one byte per ray).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::Vec3;
use meshcast::{Hit, Mesh, RayQueries, TriMesh, TriMeshFiles};
use meshcast_gpu::{Backend, Gpu, GpuMesh, GpuOptions, GpuQuery, KernelInputs};
use meshcast_primitives::Ray;
use rand::{Rng, SeedableRng};

struct Args {
    rays: usize,
    image: u32,
    repeat: usize,
    write: Option<PathBuf>,
    check: bool,
    uploads: usize,
    meshes: Vec<String>,
}

fn args() -> Args {
    let mut args = Args {
        rays: 1 << 22,
        image: 2048,
        repeat: 7,
        write: None,
        check: false,
        uploads: 1,
        meshes: Vec::new(),
    };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = || words.next().expect("a value after each option");
        match word.as_str() {
            "--rays" => args.rays = value().parse().expect("--rays N"),
            "--image" => args.image = value().parse().expect("--image SIDE"),
            "--repeat" => args.repeat = value().parse().expect("--repeat K"),
            "--write" => args.write = Some(PathBuf::from(value())),
            "--check" => args.check = true,
            "--uploads" => args.uploads = value().parse().expect("--uploads U"),
            _ => args.meshes.push(word),
        }
    }
    args
}

/// `PATH` or `PATH:K`, subdivided K times, with the name files are written under.
fn load(spec: &str) -> (String, Mesh) {
    let (path, levels) = match spec.rsplit_once(':') {
        Some((path, levels)) => (path, levels.parse().expect("MESH:SUBDIVISIONS")),
        None => (spec, 0),
    };
    let tri_mesh = TriMesh::from_obj(path)
        .expect("an OBJ mesh")
        .subdivide(levels)
        .expect("subdivision");
    let stem = Path::new(path).file_stem().expect("a file name");
    let name = format!("{}-x{}", stem.to_string_lossy(), 1u32 << (2 * levels));
    (name, Mesh::from_tri_mesh(tri_mesh, &Default::default()))
}

/// `gpu_vs_warp.py`'s random rays: from a sphere of 0.75 box diagonals around the box's
/// centre towards uniform points of the box.
fn random_rays(mesh: &Mesh, count: usize) -> Vec<Ray> {
    let bounds = mesh.bounds();
    let (low, high) = (bounds.min, bounds.max);
    let centre = 0.5 * (low + high);
    let radius = 0.75 * (high - low).length();
    let mut random = rand::rngs::StdRng::seed_from_u64(7);
    let mut unit = || loop {
        let v = Vec3::new(
            random.gen_range(-1.0..1.0),
            random.gen_range(-1.0..1.0),
            random.gen_range(-1.0..1.0),
        );
        let length = v.length();
        if length > 1e-3 && length <= 1.0 {
            break v / length;
        }
    };
    let mut random = rand::rngs::StdRng::seed_from_u64(11);
    (0..count)
        .map(|_| {
            let origin = centre + radius * unit();
            let target = low + (high - low) * Vec3::from(random.gen::<[f32; 3]>());
            Ray::new(origin, (target - origin).normalize())
        })
        .collect()
}

/// `gpu_vs_warp.py`'s camera: a 45° pinhole 1.6 box diagonals above the box along z.
fn camera_rays(mesh: &Mesh, side: u32) -> Vec<Ray> {
    let bounds = mesh.bounds();
    let (low, high) = (bounds.min, bounds.max);
    let eye = 0.5 * (low + high) + Vec3::new(0.0, 0.0, 1.6 * (high - low).length());
    let half = (22.5f32).to_radians().tan();
    let side_f = side as f32;
    (0..side * side)
        .map(|pixel| {
            let (x, y) = ((pixel % side) as f32, (pixel / side) as f32);
            let px = (2.0 * (x + 0.5) / side_f - 1.0) * half;
            let py = (1.0 - 2.0 * (y + 0.5) / side_f) * half;
            Ray::new(eye, Vec3::new(px, py, -1.0).normalize())
        })
        .collect()
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// One ray set, with the CPU's closest hits on it where `--write` or `--check` needs them
/// (empty otherwise), computed once for both.
struct RaySet {
    name: &'static str,
    rays: Vec<Ray>,
    closest: Vec<Option<Hit>>,
}

fn write_answers(dir: &Path, set: &RaySet, mesh: &Mesh) {
    let name = set.name;
    let mut closest = Vec::with_capacity(set.rays.len() * 8);
    for hit in &set.closest {
        let (triangle, t) = hit.map_or((u32::MAX, f32::INFINITY), |h| (h.triangle, h.t));
        closest.extend_from_slice(&triangle.to_le_bytes());
        closest.extend_from_slice(&t.to_le_bytes());
    }
    write(&dir.join(format!("{name}.closest")), &closest);
    let any: Vec<u8> = mesh
        .occluded_batch(&set.rays)
        .into_iter()
        .map(u8::from)
        .collect();
    write(&dir.join(format!("{name}.any")), &any);
    write(
        &dir.join(format!("{name}.rays")),
        &KernelInputs::rays(&set.rays),
    );
}

fn main() {
    let args = args();
    // The inputs are laid out without an adapter, so that the CUDA side runs even where
    // wgpu finds none.
    let gpu = Gpu::with_options(None, wgpu_alone())
        .inspect(|gpu| eprintln!("adapter {}; {}", gpu.adapter(), gpu.kernel_options()))
        .inspect_err(|error| eprintln!("no GPU adapter, nothing timed: {error}"))
        .ok();
    // The CUDA back end beside it, where it opens.
    let cuda = Gpu::with_options(
        None,
        GpuOptions {
            backend: Backend::Auto,
            ..GpuOptions::from_env().expect("options")
        },
    )
    .ok()
    .filter(|gpu| gpu.cuda_device().is_some())
    .inspect(|gpu| eprintln!("CUDA back end on {:?}", gpu.cuda_device()));
    let options = gpu.as_ref().map_or_else(
        || GpuOptions::from_env().expect("options"),
        Gpu::kernel_options,
    );
    let mut out = std::io::stdout().lock();
    for spec in &args.meshes {
        let (name, mesh) = load(spec);
        let mesh = Arc::new(mesh);
        let answered = args.write.is_some() || args.check;
        let sets = [
            ("random", random_rays(&mesh, args.rays)),
            ("camera", camera_rays(&mesh, args.image)),
        ]
        .map(|(name, rays)| RaySet {
            name,
            closest: if answered {
                mesh.cast_batch(&rays)
            } else {
                Vec::new()
            },
            rays,
        });
        if let Some(root) = &args.write {
            let dir = root.join(&name);
            std::fs::create_dir_all(&dir).expect("the output folder");
            let inputs = KernelInputs::of(&mesh, &options).expect("the kernel's inputs");
            write(&dir.join("nodes.bin"), &inputs.nodes);
            write(&dir.join("triangles.bin"), &inputs.triangles);
            let ids: Vec<u8> = inputs
                .triangle_ids
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect();
            write(&dir.join("ids.bin"), &ids);
            for set in &sets {
                write_answers(&dir, set, &mesh);
            }
        }
        let Some(gpu) = &gpu else { continue };
        for upload in 0..args.uploads {
            let on_gpu = gpu.upload(Arc::clone(&mesh)).expect("upload");
            let name = if args.uploads > 1 {
                format!("{name}#{upload}")
            } else {
                name.clone()
            };
            time(&args, &mut out, &name, &on_gpu, &sets);
            if let Some(cuda) = &cuda {
                let on_cuda = cuda.upload(Arc::clone(&mesh)).expect("upload");
                end_to_end(&args, &mut out, &name, &on_cuda, &sets);
            }
        }
    }
}

/// The options of the environment, with wgpu tracing every query.
fn wgpu_alone() -> GpuOptions {
    GpuOptions {
        backend: Backend::Wgpu,
        ..GpuOptions::from_env().expect("options")
    }
}

/// Times whole calls, rays from the host to answers, on every ray set: the best of K, after
/// one call that makes the buffers; with `--check`, counts answers that differ from the CPU's.
fn end_to_end(args: &Args, out: &mut impl Write, name: &str, on_gpu: &GpuMesh, sets: &[RaySet]) {
    let backend = on_gpu.gpu().cuda_device().map_or("wgpu", |_| "cuda");
    for set in sets {
        let best = |call: &dyn Fn()| {
            call();
            (0..args.repeat)
                .map(|_| {
                    let clock = std::time::Instant::now();
                    call();
                    clock.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let closest = best(&|| drop(on_gpu.cast_batch(&set.rays).expect("cast_batch")));
        let any = best(&|| drop(on_gpu.occluded_batch(&set.rays).expect("occluded_batch")));
        for (query, seconds) in [("closest", closest), ("any", any)] {
            let mrays = set.rays.len() as f64 / seconds / 1e6;
            writeln!(out, "e2e {backend} {name} {} {query} {mrays:.1}", set.name).expect("stdout");
        }
        if args.check {
            let answers = on_gpu.cast_batch(&set.rays).expect("cast_batch");
            let differ = set
                .closest
                .iter()
                .zip(&answers)
                .filter(|(a, b)| a.map(|h| h.triangle) != b.map(|h| h.triangle))
                .count();
            writeln!(
                out,
                "check {backend} {name} {} closest: {differ} answers differ",
                set.name
            )
            .expect("stdout");
        }
    }
}

/// Checks and times one upload on every ray set.
fn time(args: &Args, out: &mut impl Write, name: &str, on_gpu: &GpuMesh, sets: &[RaySet]) {
    for RaySet {
        name: set, rays, ..
    } in sets
    {
        for (query, kind) in [("closest", GpuQuery::Closest), ("any", GpuQuery::Any)] {
            let resident = on_gpu.resident_rays(rays, kind).expect("resident rays");
            let best = on_gpu.time(&resident, kind, args.repeat).expect("timing");
            let mrays = rays.len() as f64 / best.as_secs_f64() / 1e6;
            writeln!(out, "wgpu {name} {set} {query} {mrays:.1}").expect("stdout");
        }
    }
    end_to_end(args, out, name, on_gpu, sets);
}
