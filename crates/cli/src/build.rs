//! `meshcast build`: a mesh's BVH built once and saved with the mesh as a cache file, which
//! every command then loads without a build.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::bench::QualityArg;
use crate::loading;
use crate::timing::{ms, timed};
use meshcast::MeshFiles;

/// Build a mesh's BVH and save both to a cache file (advised extension: .mcache), which every
/// command takes in place of the mesh and loads without a build.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The mesh file (a cache file too: its mesh is built again).
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// The cache file to write; an existing file is replaced whole.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,

    /// The build quality: faster builds or faster rays.
    #[arg(long, value_enum, default_value_t = QualityArg::Balanced)]
    quality: QualityArg,
}

/// Loads, builds, saves, and prints what it did.
pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let path = &args.mesh;
    let (tri_mesh, load_time) = timed(|| loading::read_mesh(path));
    let tri_mesh = tri_mesh?;
    let triangles = tri_mesh.triangle_count();
    let (mesh, build_time) = timed(|| loading::build(tri_mesh, args.quality.quality()));
    let mesh = mesh?;
    let (saved, save_time) = timed(|| mesh.save(&args.output));
    saved.with_context(|| format!("writing cache {}", args.output.display()))?;
    let size = std::fs::metadata(&args.output)
        .with_context(|| format!("reading back {}", args.output.display()))?
        .len();
    writeln!(out, "mesh           {}", path.display())?;
    writeln!(out, "triangles      {triangles}")?;
    writeln!(out, "load           {:.2} ms", ms(load_time))?;
    writeln!(
        out,
        "build          {:.2} ms ({} quality)",
        ms(build_time),
        args.quality.name()
    )?;
    writeln!(
        out,
        "cache          {} ({size} bytes, {:.1} bytes per triangle, written in {:.2} ms)",
        args.output.display(),
        size as f64 / triangles.max(1) as f64,
        ms(save_time)
    )?;
    Ok(())
}
