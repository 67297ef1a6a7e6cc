//! Quick start: load a mesh, ask where rays hit it, read the surface there, and ask about
//! points: the nearest surface, inside or outside, the signed distance.
//!
//! `cargo run --release -p meshcast --example quick_start [MESH.obj]` (default: the bunny in
//! assets/).

use std::path::PathBuf;

use meshcast::glam::Vec3;
use meshcast::{Camera, Culling, Mesh, MeshFiles, PointQueries, QueryOptions, Ray, RayQueries};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/stanford-bunny.obj"),
        PathBuf::from,
    );

    // 1. Load. Bad files are an `Error` naming the file and line, never a panic; the
    //    hierarchy (the BVH) is built on load.
    let mesh = Mesh::from_obj(&path)?;
    let bounds = mesh.bounds();
    println!(
        "{}: {} triangles, {} bytes of acceleration structure",
        path.display(),
        mesh.triangle_count(),
        mesh.acceleration_bytes()
    );

    // 2. The closest hit of one ray, from in front of the mesh towards its centre. `RayQueries`
    //    (in scope above) gives every query; `t` is in units of the ray's direction.
    let centre = bounds.centroid();
    let start = centre + Vec3::Z * bounds.extent().length();
    let ray = Ray::new(start, centre - start);
    match mesh.cast(&ray) {
        Some(hit) => {
            // The surface at the hit: point, normals, texture coordinates, group name.
            let surface = mesh.surface(&hit).ok_or("the hit is this mesh's")?;
            println!(
                "closest: triangle {} at t = {}, point {}, normal {}",
                hit.triangle, hit.t, surface.point, surface.geometric_normal
            );
        }
        None => println!("closest: the ray misses"),
    }

    // 3. Every hit along the ray, nearest first: each time it enters or leaves the surface.
    let hits = mesh.cast_all(&ray);
    println!("every hit: {} crossings", hits.len());

    // 4. Is anything in the way? A shadow test stops at the first hit it finds.
    let above = centre + Vec3::Y * bounds.extent().y * 2.0;
    println!(
        "occluded from above: {}",
        mesh.occluded(&Ray::segment(above, centre))
    );

    // 5. Options: a distance limit, back faces culled, a filter on triangles. The ray goes on
    //    past what the options reject.
    let options = QueryOptions::new()
        .with_max_distance(bounds.extent().length() * 2.0)
        .with_culling(Culling::BackFaces)
        .with_filter(|triangle: u32| triangle.is_multiple_of(2));
    let kept = mesh.cast_with(&ray, &options);
    println!(
        "closest even-numbered front face: {:?}",
        kept.map(|h| h.triangle)
    );

    // 6. Many rays at once, on every core, answered in the rays' order: a 320 x 240 camera
    //    image.
    let (width, height) = (320, 240);
    let camera = Camera::framing(bounds, 45.0, width as f32 / height as f32);
    let rays: Vec<Ray> = camera.pixel_rays(width, height).collect();
    let image = mesh.cast_batch(&rays);
    let covered = image.iter().filter(|hit| hit.is_some()).count();
    println!(
        "camera image: {covered} of {} pixels show the mesh",
        rays.len()
    );
    // Every hit of every ray, in one flat array indexed by ray.
    let lists = mesh.cast_all_batch(&rays);
    let most = (0..lists.len()).map(|i| lists[i].len()).max().unwrap_or(0);
    println!(
        "every hit of every pixel: {} hits, at most {most} on one ray",
        lists.hits().len()
    );

    // 7. Points (`PointQueries`): the nearest surface point and the face, edge or vertex it
    //    lies on; inside or outside (exact by one ray's crossings on a closed mesh, by the
    //    winding number on one with holes, like the bunny); the signed distance.
    let closest = mesh
        .closest_point(above, &QueryOptions::new())
        .ok_or("the mesh has triangles")?;
    println!(
        "nearest to {above}: {} on triangle {} ({:?}), {} away",
        closest.point, closest.triangle, closest.feature, closest.distance
    );
    println!(
        "closed: {}; the centre: inside {}, winding number {:.3}, signed distance {:?}",
        mesh.is_closed(),
        mesh.contains(centre),
        mesh.winding_number(centre),
        mesh.signed_distance(centre)
    );
    Ok(())
}
