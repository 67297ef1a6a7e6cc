//! `meshcast info`: what a mesh holds and what its BVH costs, and with `--gpu` the GPU
//! adapters and what the mesh takes on the GPU.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use meshcast::gpu::Gpu;
use meshcast::{LeafTest, Mesh};

use crate::loading;
use crate::timing::{millions_per_second, ms, timed};

/// Print counts, bounds, load and build times, memory and BVH statistics of each mesh.
///
/// With `--gpu`, first the GPU adapter in use and every adapter found, then for each mesh
/// its GPU memory and upload time.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Mesh files (OBJ, glTF, PLY, STL; a glTF scene flattened into one mesh), or cache files
    /// from `meshcast build`.
    #[arg(value_name = "MESH", required_unless_present = "gpu")]
    meshes: Vec<PathBuf>,

    /// Name the GPU adapter in use (the best one, or the first named like the MESHCAST_GPU
    /// environment variable) and every adapter found, and upload each mesh to it.
    #[arg(long)]
    gpu: bool,
}

/// Prints the GPU block with `--gpu`, then one block per mesh, blocks separated by a blank
/// line.
pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let gpu = if args.gpu {
        let gpu = Gpu::new()?;
        writeln!(out, "gpu            {}", gpu.adapter())?;
        if let Some(device) = gpu.cuda_device() {
            writeln!(out, "gpu cuda       {device} (closest and any-hit batches)")?;
        }
        for adapter in Gpu::adapters() {
            writeln!(out, "gpu adapter    {adapter}")?;
        }
        Some(gpu)
    } else {
        None
    };
    for (i, path) in args.meshes.iter().enumerate() {
        let loaded = loading::load(path)?;
        let mesh = Arc::new(loaded.mesh);
        let tri_mesh = mesh.tri_mesh();
        let stats = mesh.bvh().stats();
        let bounds = mesh.bounds();
        let triangles = tri_mesh.triangle_count();
        let groups = tri_mesh.group_names();

        if i > 0 || gpu.is_some() {
            writeln!(out)?;
        }
        writeln!(out, "mesh           {}", path.display())?;
        writeln!(out, "triangles      {triangles}")?;
        writeln!(out, "vertices       {}", tri_mesh.vertex_count())?;
        if groups.is_empty() {
            writeln!(out, "groups         0")?;
        } else {
            writeln!(
                out,
                "groups         {} ({})",
                groups.len(),
                groups.join(", ")
            )?;
        }
        if bounds.is_empty() {
            writeln!(out, "bounds         empty")?;
        } else {
            let (min, max) = (bounds.min, bounds.max);
            let size = bounds.extent();
            writeln!(
                out,
                "bounds         {} {} {} .. {} {} {} (size {} {} {})",
                min.x, min.y, min.z, max.x, max.y, max.z, size.x, size.y, size.z
            )?;
        }
        writeln!(
            out,
            "degenerate     {} (zero area, never hit)",
            tri_mesh.degenerate_count()
        )?;
        for warning in tri_mesh.warnings() {
            writeln!(out, "warning        {warning}")?;
        }
        writeln!(out, "load           {:.2} ms", ms(loaded.load_time))?;
        if loaded.from_cache {
            let quality = format!("{:?}", mesh.build_options().quality).to_lowercase();
            writeln!(
                out,
                "build          none: loaded from a cache ({quality} quality)"
            )?;
        } else {
            writeln!(
                out,
                "build          {:.2} ms ({:.2} Mtris/s)",
                ms(loaded.build_time),
                millions_per_second(triangles, loaded.build_time)
            )?;
        }
        writeln!(
            out,
            "bvh nodes      {} ({} leaves)",
            stats.node_count, stats.leaf_count
        )?;
        writeln!(out, "bvh depth      {}", stats.depth)?;
        writeln!(out, "bvh sah cost   {:.2}", stats.sah_cost)?;
        writeln!(
            out,
            "mesh memory    {} bytes ({:.1} bytes per triangle, positions, triangles and attributes)",
            tri_mesh.bytes(),
            tri_mesh.bytes() as f64 / triangles.max(1) as f64
        )?;
        writeln!(
            out,
            "bvh memory     {} bytes ({:.1} bytes per triangle, nodes and leaf triangles)",
            mesh.acceleration_bytes(),
            mesh.acceleration_bytes() as f64 / triangles.max(1) as f64
        )?;
        if let Some(peak) = peak_resident_bytes() {
            let kept = tri_mesh.bytes() + mesh.acceleration_bytes();
            writeln!(
                out,
                "peak memory    {peak} bytes ({:.2} times the mesh and its bvh; the process's \
                 peak resident set so far)",
                peak as f64 / kept.max(1) as f64
            )?;
        }
        if let Some(gpu) = &gpu {
            // The GPU runs the watertight test; a cache may hold leaves for another, which
            // does not change the GPU's layout.
            let watertight = if mesh.leaf_test() == LeafTest::Watertight {
                Arc::clone(&mesh)
            } else {
                Arc::new(Mesh::clone(&mesh).with_leaf_test(LeafTest::Watertight))
            };
            let (on_gpu, upload_time) = timed(|| gpu.upload(watertight));
            let bytes = on_gpu?.gpu_bytes();
            writeln!(
                out,
                "gpu memory     {bytes} bytes ({:.1} bytes per triangle, nodes and leaf triangles)",
                bytes as f64 / triangles.max(1) as f64
            )?;
            writeln!(out, "gpu upload     {:.2} ms", ms(upload_time))?;
        }
    }
    Ok(())
}

/// The process's peak resident set so far (`VmHWM` in `/proc/self/status`), where the
/// system tells it (Linux).
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
