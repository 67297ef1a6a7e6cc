//! An editor's queries on a scene built from OBJ files: pick what is under the mouse,
//! select with a marquee, snap to the nearest surface, move an instance while readers keep
//! querying, and keep a selection across frames while objects are deleted.
//!
//! `cargo run --release -p meshcast --example editor [MESH.obj ...]` (default: the cow and
//! spot from assets/).

use std::path::PathBuf;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Quat, Vec2, Vec3};
use meshcast::{
    Camera, ClipPlanes, Containment, Culling, DepthConvention, Instance, InstanceId, Mesh,
    MeshFiles, PointQueries, QueryOptions, Scene, SharedScene, Volume,
};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets");
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        paths = vec![assets.join("cow.obj"), assets.join("spot.obj")];
    }
    let meshes = paths
        .iter()
        .map(|path| Ok(Arc::new(Mesh::from_obj(path)?)))
        .collect::<meshcast::Result<Vec<_>>>()?;

    // A 6 x 6 grid of instances, turned and stretched; odd rows on layer 2.
    let size = meshes
        .iter()
        .map(|m| m.bounds().extent().max_element())
        .fold(0.0, f32::max);
    let mut scene = Scene::new();
    for row in 0..6 {
        for column in 0..6 {
            let mesh = meshes[(row * 6 + column) % meshes.len()].clone();
            let transform = Affine3A::from_scale_rotation_translation(
                Vec3::new(1.0, 1.0 + 0.1 * row as f32, 1.0),
                Quat::from_rotation_y(0.4 * column as f32),
                Vec3::new(column as f32, 0.0, -(row as f32)) * size * 1.5,
            );
            let layers = if row % 2 == 0 { 0b01 } else { 0b10 };
            scene.add(Instance::new(mesh, transform)?.with_layers(layers));
        }
    }
    println!(
        "scene: {} instances of {} mesh(es)",
        scene.len(),
        meshes.len()
    );

    // The camera that frames the scene, as a viewport with a reversed-Z infinite projection.
    let camera = Camera::framing(scene.bounds(), 45.0, WIDTH as f32 / HEIGHT as f32);
    let near = camera.eye.distance(camera.target) * 1e-3;
    let viewport = camera.viewport(
        WIDTH,
        HEIGHT,
        ClipPlanes::new(near, f32::INFINITY),
        DepthConvention::ReversedZ,
    )?;

    // What is under the mouse? Put it where the middle of instance 14 appears.
    let target = scene
        .instance(InstanceId::from_index(14))
        .ok_or("no instance 14")?
        .bounds()
        .centroid();
    let mouse = viewport
        .project(target)
        .ok_or("behind the camera")?
        .truncate();
    let ray = viewport.ray_through(mouse.x, mouse.y);
    let options = QueryOptions::new().with_culling(Culling::BackFaces);
    match scene.pick(&ray, &options) {
        Some(pick) => {
            println!(
                "pick at {mouse}: instance {} triangle {} of {:?}, {:?} face",
                pick.instance.index(),
                pick.hit.triangle,
                pick.surface.group.unwrap_or("-"),
                pick.facing
            );
            println!(
                "  point {:.3}, normal {:.3}, uv {:?}, distance {:.3}",
                pick.surface.point, pick.surface.geometric_normal, pick.surface.uv, pick.distance
            );
            let back = viewport
                .project(pick.surface.point)
                .ok_or("behind the camera")?;
            println!("  projects back to pixel ({:.2}, {:.2})", back.x, back.y);
            let under: Vec<u32> = scene
                .pick_instances(&ray, &options)
                .iter()
                .map(|p| p.instance.index())
                .collect();
            println!("  everything under the mouse, nearest first: {under:?}");
        }
        None => println!("pick at {mouse}: nothing"),
    }

    // A marquee over the left half of the window, on layer 1 only.
    let marquee = viewport
        .marquee(
            Vec2::new(0.0, 0.0),
            Vec2::new(WIDTH as f32 * 0.5, HEIGHT as f32),
        )
        .ok_or("the marquee has no area")?;
    let volume = Volume::Frustum(marquee);
    let layer_one = QueryOptions::new().with_mask(0b01);
    let touched = scene.select(&volume, Containment::Intersecting, &layer_one);
    let inside = scene.select(&volume, Containment::Inside, &layer_one);
    println!(
        "marquee (left half, layer 1): {} touched, {} entirely inside: {:?}",
        touched.len(),
        inside.len(),
        inside.iter().map(|id| id.index()).collect::<Vec<_>>()
    );

    // Snap a point above the first instance to the nearest surface within one mesh size.
    let first = InstanceId::from_index(0);
    let above = scene.instance(first).ok_or("no instance 0")?.bounds().max + Vec3::Y * size * 0.1;
    let snap = QueryOptions::new().with_max_distance(size);
    match scene.closest_point(above, &snap) {
        Some(closest) => println!(
            "closest to {above:.3}: instance {} triangle {} at {:.3} ({:.3} away, on {:?})",
            closest.instance.index(),
            closest.closest.triangle,
            closest.closest.point,
            closest.closest.distance,
            closest.closest.feature
        ),
        None => println!("nothing within {size} of {above:.3}"),
    }

    // The picked instance is selected: the editor keeps its hit.
    let mut selection = scene.pick(&ray, &options).map(|p| p.scene_hit());

    // Drag the picked instance away while another thread keeps picking on its snapshot.
    let shared = SharedScene::new(scene);
    let dragged = shared.snapshot().pick(&ray, &options).map(|p| p.instance);
    if let Some(dragged) = dragged {
        let before = shared.snapshot();
        std::thread::scope(|threads| {
            threads.spawn(|| {
                shared.update(|next| {
                    let moved = Affine3A::from_translation(Vec3::Y * size * 10.0)
                        * next
                            .instance(dragged)
                            .map_or(Affine3A::IDENTITY, |i| i.transform());
                    next.set_transform(dragged, moved)
                })
            });
            // Queries on the old snapshot are not disturbed by the edit.
            let still = before.pick(&ray, &options).map(|p| p.instance);
            println!("while dragging, the old snapshot still picks {still:?}");
        });
        let after = shared.snapshot().pick(&ray, &options).map(|p| p.instance);
        println!(
            "after moving instance {} away, the mouse is over {:?}",
            dragged.index(),
            after.map(InstanceId::index)
        );
    }

    // The frame loop: the selection is kept as a hit, and its surface is read every frame to
    // draw the highlight (where the instance is now: it follows the drag). When the user
    // deletes the object, the kept hit answers `None` (never a panic) and the editor drops it.
    for frame in 1..=3 {
        if frame == 2 {
            if let Some(selected) = selection {
                shared.update(|next| next.remove(selected.instance))?;
                println!(
                    "frame {frame}: the user deletes instance {}",
                    selected.instance.index()
                );
            }
        }
        let scene = shared.snapshot();
        match selection.map(|hit| (hit, scene.surface(&hit))) {
            Some((hit, Some(surface))) => println!(
                "frame {frame}: highlight instance {} at {:.3}",
                hit.instance.index(),
                surface.point
            ),
            Some((_, None)) => {
                selection = None;
                println!("frame {frame}: the selection no longer exists; cleared");
            }
            None => println!("frame {frame}: nothing selected"),
        }
    }
    Ok(())
}
