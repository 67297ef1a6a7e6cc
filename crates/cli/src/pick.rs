//! `meshcast pick`: what lies under one pixel of a camera's image.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use glam::DVec3;

use crate::camera_options::CameraOptions;
use crate::loading::{self, Loaded};
use crate::target::{HitFields, Target};

/// Tell what is under a pixel: triangle, object/group, world point, normals, distance.
///
/// Prints `nothing` when the pixel shows no triangle. The default camera is the one
/// `meshcast render` uses, so a pixel of its picture can be picked.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The mesh file (OBJ, glTF, PLY, STL); a glTF file's nodes make a scene.
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// The pixel, column and row from the image's top-left corner.
    #[arg(long, value_name = "X,Y", value_parser = parse_pixel)]
    pixel: (u32, u32),

    #[command(flatten)]
    camera: CameraOptions,
}

/// Parses `X,Y` into whole pixel coordinates.
fn parse_pixel(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)));
    parsed.ok_or_else(|| format!("expected two whole numbers X,Y such as 400,300, found `{text}`"))
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let size = args.camera.size;
    let (column, row) = args.pixel;
    if column >= size.width || row >= size.height {
        bail!("--pixel {column},{row} is outside the {size} image");
    }
    let loaded = loading::load_target(&args.mesh)?;
    let origin = loaded.origin();
    match &loaded {
        Loaded::Mesh(mesh) => pick(mesh.as_ref(), origin, args, out),
        Loaded::Scene { scene, .. } => pick(scene, origin, args, out),
    }
}

/// Prints what the pixel's ray hits first in `mesh`, whose frame lies at `origin` in the
/// world: the triangle (and instance, in a scene), its group, the world point (in `f64`
/// with every digit it needs, for a frame away from the world's origin), the normals and the
/// distance.
fn pick(mesh: &impl Target, origin: DVec3, args: &Args, out: &mut impl Write) -> Result<()> {
    let size = args.camera.size;
    let (column, row) = args.pixel;
    let camera = args.camera.camera(mesh, origin)?;
    let ray = camera.ray_through_pixel(column, row, size.width, size.height);
    let Some((hit, surface)) = mesh
        .cast(&ray)
        .and_then(|hit| Some((hit, mesh.surface(&hit)?)))
    else {
        writeln!(out, "nothing")?;
        return Ok(());
    };
    let (point, normal) = (surface.point, surface.geometric_normal);
    let side = if normal.dot(ray.dir) <= 0.0 {
        "front"
    } else {
        "back"
    };
    if let Some(instance) = hit.instance() {
        writeln!(out, "instance  {instance}")?;
    }
    writeln!(out, "triangle  {}", hit.mesh_hit().triangle)?;
    writeln!(out, "group     {}", surface.group.unwrap_or("-"))?;
    if origin == DVec3::ZERO {
        writeln!(out, "point     {} {} {}", point.x, point.y, point.z)?;
    } else {
        let world = origin + point.as_dvec3();
        writeln!(out, "point     {} {} {}", world.x, world.y, world.z)?;
    }
    writeln!(
        out,
        "normal    {} {} {} ({side} face)",
        normal.x, normal.y, normal.z
    )?;
    let shading = surface.shading_normal;
    writeln!(out, "shading   {} {} {}", shading.x, shading.y, shading.z)?;
    // Camera rays have unit directions: t is the distance from the eye.
    writeln!(out, "distance  {}", hit.mesh_hit().t)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_parse() {
        assert_eq!(parse_pixel("400,300"), Ok((400, 300)));
        assert_eq!(parse_pixel(" 0, 7"), Ok((0, 7)));
        for bad in ["", "400", "400x300", "-1,2", "1.5,2", "a,b"] {
            assert!(parse_pixel(bad).is_err(), "{bad}");
        }
    }
}
