//! `meshcast info`: what a mesh holds and what its BVH costs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use crate::loading;
use crate::timing::{millions_per_second, ms};

/// Print counts, bounds, load and build times, memory and BVH statistics of each mesh.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Mesh files (OBJ, glTF, PLY, STL; a glTF scene flattened into one mesh), or cache files
    /// from `meshcast build`.
    #[arg(value_name = "MESH", required = true)]
    meshes: Vec<PathBuf>,
}

/// Prints one block per mesh, blocks separated by a blank line.
pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    for (i, path) in args.meshes.iter().enumerate() {
        let loaded = loading::load(path)?;
        let mesh = &loaded.mesh;
        let tri_mesh = mesh.tri_mesh();
        let stats = mesh.bvh().stats();
        let bounds = mesh.bounds();
        let triangles = tri_mesh.triangle_count();
        let groups = tri_mesh.group_names();

        if i > 0 {
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
    }
    Ok(())
}
