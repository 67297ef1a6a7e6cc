//! The main job, run by `meshcast` without a command (`cargo run --release`): the bundled
//! bunny loaded, its BVH built, a picture rendered to `bunny.png`, the centre pixel picked.

use std::io::Write;
use std::path::Path;

use meshcast::RayQueries;

use crate::camera_options::{default_camera, Size, DEFAULT_FOV_DEGREES};
use crate::loading;
use crate::render;
use crate::timing::{millions_per_second, ms};
use anyhow::Result;

/// Where the picture goes, in the current folder.
const PICTURE: &str = "bunny.png";

pub fn run(out: &mut impl Write) -> Result<()> {
    let path = loading::bundled_bunny();
    let loaded = loading::load(&path)?;
    let mesh = &loaded.mesh;
    let tri_mesh = mesh.tri_mesh();
    let triangles = tri_mesh.triangle_count();
    let stats = mesh.bvh().stats();
    writeln!(out, "meshcast: {}", path.display())?;
    writeln!(
        out,
        "  mesh    {triangles} triangles, {} vertices, loaded in {:.1} ms",
        tri_mesh.vertex_count(),
        ms(loaded.load_time)
    )?;
    writeln!(
        out,
        "  bvh     built in {:.1} ms ({:.2} Mtris/s): {} nodes, depth {}, SAH cost {:.1}, {:.1} bytes/triangle",
        ms(loaded.build_time),
        millions_per_second(triangles, loaded.build_time),
        stats.node_count,
        stats.depth,
        stats.sah_cost,
        mesh.acceleration_bytes() as f64 / mesh.triangle_count().max(1) as f64
    )?;

    let size = Size::DEFAULT;
    let aspect = size.width as f32 / size.height as f32;
    let camera = default_camera(mesh, DEFAULT_FOV_DEGREES, aspect);
    let report = render::render_to_file(mesh, &camera, size, Path::new(PICTURE))?;
    writeln!(
        out,
        "  render  {PICTURE} ({size}, {:.0}% covered) in {:.1} ms: {:.2} Mrays/s camera rays, {:.2} Mrays/s with {} shadow and occlusion rays",
        100.0 * report.covered_pixels as f64 / size.pixel_count() as f64,
        ms(report.total_time),
        millions_per_second(report.primary_rays, report.primary_time),
        report.total_rate(),
        report.secondary_rays
    )?;

    let (column, row) = (size.width / 2, size.height / 2);
    let ray = camera.ray_through_pixel(column, row, size.width, size.height);
    match mesh
        .cast(&ray)
        .and_then(|hit| Some((hit, mesh.surface(&hit)?)))
    {
        Some((hit, surface)) => {
            let point = surface.point;
            writeln!(
                out,
                "  pick    pixel {column},{row}: triangle {} at {:.4} {:.4} {:.4}, distance {:.4}",
                hit.triangle, point.x, point.y, point.z, hit.t
            )?;
        }
        None => writeln!(out, "  pick    pixel {column},{row}: nothing")?,
    }
    Ok(())
}
