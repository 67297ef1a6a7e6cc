//! Times a camera image over a scene of instances on one thread: single rays (`cast`,
//! `occluded` in a loop) against coherent batches (`cast_batch_serial`,
//! `occluded_batch_serial`, which trace packets of eight rays), and checks that both give the
//! same answers.
//!
//! `scene_packets [MESH] [SIDE] [WIDTH HEIGHT] [PASSES]`: SIDE x SIDE copies of MESH (default
//! the bunny, 4 x 4) on a floor grid, a WIDTH x HEIGHT image (default 1024 x 768) framing
//! them; prints the best Mrays/s of PASSES timed passes (default 5). `MESHCAST_KERNEL` picks
//! the node kernel.
//!
//! ```sh
//! cargo run --release -p meshcast-benches --example scene_packets
//! ```

use std::sync::Arc;
use std::time::Instant;

use glam::{Affine3A, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{Instance, Mesh, RayQueries, Scene, SceneHit};
use meshcast_primitives::{Camera, Ray};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or(default.to_owned());
    let path = arg(
        0,
        concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/stanford-bunny.obj"),
    );
    let side: usize = arg(1, "4").parse().expect("grid side");
    let width: u32 = arg(2, "1024").parse().expect("width");
    let height: u32 = arg(3, "768").parse().expect("height");
    let passes: usize = arg(4, "5").parse().expect("passes");

    let mesh = Arc::new(Mesh::from_obj(&path).expect("mesh"));
    let step = mesh.bounds().extent() * 1.1;
    let scene = Scene::from_instances((0..side * side).map(|i| {
        let offset = Vec3::new((i % side) as f32 * step.x, 0.0, (i / side) as f32 * step.z);
        Instance::new(mesh.clone(), Affine3A::from_translation(offset)).expect("transform")
    }));
    let camera = Camera::framing(scene.bounds(), 60.0, width as f32 / height as f32);
    let rays: Vec<Ray> = camera.pixel_rays(width, height).collect();

    let single: Vec<Option<SceneHit>> = rays.iter().map(|ray| scene.cast(ray)).collect();
    let mut batch = vec![None; rays.len()];
    scene.cast_batch_serial(&rays, &mut batch);
    let same = single.iter().zip(&batch).all(|(a, b)| match (a, b) {
        (Some(a), Some(b)) => {
            (a.instance, a.hit.triangle, a.hit.t.to_bits())
                == (b.instance, b.hit.triangle, b.hit.t.to_bits())
        }
        (a, b) => a.is_none() && b.is_none(),
    });
    assert!(same, "batch answers differ from single rays");
    let hits = single.iter().flatten().count();
    println!(
        "{} instances of {path}, {} triangles each; {width} x {height} rays, {:.1}% hit",
        scene.len(),
        mesh.triangle_count(),
        100.0 * hits as f64 / rays.len() as f64
    );

    let best = |trace: &mut dyn FnMut()| {
        let seconds = (0..passes)
            .map(|_| {
                let start = Instant::now();
                trace();
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        rays.len() as f64 / seconds / 1e6
    };
    let mut hits = vec![None; rays.len()];
    let mut blocked = vec![false; rays.len()];
    let cast_single = best(&mut || {
        for (ray, hit) in rays.iter().zip(&mut hits) {
            *hit = scene.cast(ray);
        }
        std::hint::black_box(&hits);
    });
    let cast_batch = best(&mut || {
        scene.cast_batch_serial(&rays, &mut hits);
        std::hint::black_box(&hits);
    });
    let occluded_single = best(&mut || {
        for (ray, hit) in rays.iter().zip(&mut blocked) {
            *hit = scene.occluded(ray);
        }
        std::hint::black_box(&blocked);
    });
    let occluded_batch = best(&mut || {
        scene.occluded_batch_serial(&rays, &mut blocked);
        std::hint::black_box(&blocked);
    });
    println!("closest: cast {cast_single:.2} Mrays/s, cast_batch_serial {cast_batch:.2} Mrays/s ({:.2}x)", cast_batch / cast_single);
    println!(
        "any:     occluded {occluded_single:.2} Mrays/s, occluded_batch_serial {occluded_batch:.2} Mrays/s ({:.2}x)",
        occluded_batch / occluded_single
    );
}
