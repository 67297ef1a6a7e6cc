//! Times what viewpoints see and how open a surface is, on one mesh (the Stanford bunny by
//! default), in rays per second:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example views_timing -- [MESH] [--threads N]
//! ```
//!
//! - `visible_vertices`: every vertex from each of four eyes around the mesh, one eye per
//!   call (a ray per vertex and eye), against the same rays made by hand and traced one by
//!   one with `occluded` on the same threads (no packets);
//! - `visible_triangles_in_view`: a 512 x 512 perspective image (a ray per pixel);
//! - `visible_triangles`: every triangle from the four eyes, sampled at about 4 points per
//!   triangle (rays: the samples of the triangles not yet seen, counted beforehand);
//! - `ambient_occlusion`: 64 rays per vertex, unlimited and limited to 5% of the box's
//!   diagonal, against as many rays from the vertices in random directions in their normals'
//!   hemispheres (no packets) through `occluded_batch`, and those rays lifted a thousandth
//!   of the diagonal off the surface (what starting exactly at a vertex costs);
//! - `thickness`: 64 rays per vertex in a cone of half-angle 60 degrees.
//!
//! Each runs until a second has passed (at least three times); the median time is printed.
//! A measurement, not a benchmark.

use glam::Vec3;
use meshcast::{Camera, ClipPlanes, DepthConvention, Mesh, MeshFiles, Ray, RayQueries};
use meshcast_benches::{median_run, MedianRun, TimingArgs};
use meshcast_testkit::{random_direction, rng};
use rayon::prelude::*;

const AO_RAYS: usize = 64;

type Failure = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Failure> {
    let args = TimingArgs::from_env();
    let path = args.mesh_path();
    let pool = args.pool()?;
    let mesh = Mesh::from_path(&path)?;
    let vertices = mesh.tri_mesh().vertex_count();
    println!(
        "{}: {} triangles, {vertices} vertices, {} rayon threads",
        path.display(),
        mesh.triangle_count(),
        pool.current_num_threads()
    );
    let (centre, size) = (
        mesh.bounds().centroid(),
        mesh.bounds().extent().max_element(),
    );
    let eyes = [
        Vec3::new(2.0, 1.0, 1.5),
        Vec3::new(-1.5, 0.5, -2.0),
        Vec3::new(0.2, 3.0, 0.4),
        Vec3::new(-2.0, -0.5, 1.0),
    ]
    .map(|offset| centre + offset * size);
    pool.install(|| -> Result<(), Failure> {
        let pairs = vertices * eyes.len();
        let seen = time("visible_vertices, 4 eyes", pairs, &mut || {
            let counts = eyes.map(|eye| mesh.visible_vertices(&[eye]).map(count));
            format!("{:?} seen", counts.map(|c| c.unwrap_or(0)))
        });
        let positions = mesh.tri_mesh().positions();
        let single = time("  the same rays one by one", pairs, &mut || {
            let hidden: usize = eyes
                .iter()
                .map(|&eye| {
                    positions
                        .par_iter()
                        .filter(|&&p| mesh.occluded(&Ray::new(p, eye - p).with_range(1e-45, 1.0)))
                        .count()
                })
                .sum();
            format!("{} seen", pairs - hidden)
        });
        println!("  the batch: {:.2}x the single rays' rate", seen / single);

        let (width, height) = (512, 512);
        let camera = Camera::framing(mesh.bounds(), 40.0, 1.0);
        let viewport = camera.viewport(
            width,
            height,
            ClipPlanes::new(size * 0.01, f32::INFINITY),
            DepthConvention::ZeroToOne,
        )?;
        time(
            "visible_triangles_in_view, 512 x 512",
            (width * height) as usize,
            &mut || format!("{} seen", count(mesh.visible_triangles_in_view(&viewport))),
        );

        let area: f32 = mesh.tri_mesh().triangles().map(|t| t.area()).sum();
        let density = 4.0 * mesh.triangle_count() as f32 / area;
        let samples = sampled_rays(&mesh, &eyes, density)?;
        time(
            "visible_triangles, 4 eyes, ~4 samples a triangle",
            samples,
            &mut || {
                format!(
                    "{} seen",
                    count(mesh.visible_triangles(&eyes, density).unwrap_or_default())
                )
            },
        );

        let ao_rays = vertices * AO_RAYS;
        let reach = mesh.bounds().extent().length() * 0.05;
        let normals = mesh.tri_mesh().vertex_normals();
        for (name, limit) in [
            ("unlimited", f32::INFINITY),
            ("within 5% of the diagonal", reach),
        ] {
            let occlusion = time(
                &format!("ambient_occlusion, {AO_RAYS} rays, {name}"),
                ao_rays,
                &mut || {
                    let occlusion = mesh
                        .ambient_occlusion(AO_RAYS, limit, 1)
                        .unwrap_or_default();
                    let mean =
                        occlusion.iter().filter(|a| !a.is_nan()).sum::<f32>() / vertices as f32;
                    format!("mean {mean:.3}")
                },
            );
            // As many rays from the vertices, each in its own random direction in the
            // normal's hemisphere: no two neighbours alike, so no packets.
            let mut rng = rng(9);
            let rays: Vec<Ray> = (0..AO_RAYS)
                .flat_map(|_| positions.iter().zip(normals))
                .map(|(&p, &n)| {
                    let d = random_direction(&mut rng);
                    let d = if d.dot(n) < 0.0 { -d } else { d };
                    Ray::new(p, d).with_range(1e-45, limit)
                })
                .collect();
            let random = time(
                "  random directions, occluded_batch",
                rays.len(),
                &mut || {
                    let hidden = mesh
                        .occluded_batch(&rays)
                        .into_iter()
                        .filter(|&h| h)
                        .count();
                    format!("{:.3} blocked", hidden as f64 / rays.len() as f64)
                },
            );
            println!(
                "  ambient_occlusion: {:.2}x the random rays' rate",
                occlusion / random
            );
            // The random rays again from a thousandth of the diagonal above each vertex:
            // what starting exactly at the vertex costs (its own triangles are tested, met
            // at t = 0 through the exact fallback for zero edge functions, and rejected).
            let lift = mesh.bounds().extent().length() * 1e-3;
            let lifted: Vec<Ray> = rays
                .iter()
                .zip((0..AO_RAYS).flat_map(|_| normals))
                .map(|(ray, &n)| Ray {
                    origin: ray.origin + n * lift,
                    ..*ray
                })
                .collect();
            let off = time(
                "  random directions, lifted off the surface",
                rays.len(),
                &mut || {
                    let hidden = mesh
                        .occluded_batch(&lifted)
                        .into_iter()
                        .filter(|&h| h)
                        .count();
                    format!("{:.3} blocked", hidden as f64 / rays.len() as f64)
                },
            );
            println!(
                "  from the vertex: {:.2}x the lifted rays' rate",
                random / off
            );
        }
        time(
            &format!("thickness, {AO_RAYS} rays, 60 degrees"),
            ao_rays,
            &mut || {
                let thickness = mesh.thickness(AO_RAYS, 60.0, 1).unwrap_or_default();
                let hit = thickness.hits.iter().filter(|&&h| h > 0).count();
                format!("{hit} vertices hit the far side")
            },
        );
        Ok(())
    })
}

fn count(flags: Vec<bool>) -> usize {
    flags.into_iter().filter(|&f| f).count()
}

/// The rays `visible_triangles` traces: each eye's samples of the triangles that the eyes
/// before it did not see (the sample counts of its docs).
fn sampled_rays(mesh: &Mesh, eyes: &[Vec3], density: f32) -> Result<usize, Failure> {
    let per_triangle: Vec<usize> = mesh
        .tri_mesh()
        .triangles()
        .map(|t| {
            let k = ((t.area() as f64 * density as f64).sqrt().ceil() as usize).max(1);
            if t.is_degenerate() {
                0
            } else {
                k * k
            }
        })
        .collect();
    let mut rays = 0;
    for at in 0..eyes.len() {
        let seen_before = if at == 0 {
            vec![false; per_triangle.len()]
        } else {
            mesh.visible_triangles(&eyes[..at], density)?
        };
        rays += per_triangle
            .iter()
            .zip(&seen_before)
            .filter(|(_, &seen)| !seen)
            .map(|(n, _)| n)
            .sum::<usize>();
    }
    Ok(rays)
}

/// Times `query` ([`median_run`]), prints the median time and rays per second, and
/// returns the rate.
fn time(name: &str, rays: usize, query: &mut dyn FnMut() -> String) -> f64 {
    let MedianRun { median, answer, .. } = median_run(query);
    let median = median.as_secs_f64();
    let rate = rays as f64 / median;
    println!(
        "{name:<52} {:>9.2} ms  {:>7.2} Mrays/s  ({rays} rays; {answer})",
        median * 1e3,
        rate / 1e6
    );
    rate
}
