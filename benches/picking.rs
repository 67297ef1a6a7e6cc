//! Editor picking on a 1,000-instance scene (the ogre, 124k triangles, instanced with random
//! rotations, non-uniform scales and translations): picks per second through a 1920 x 1080
//! viewport (with the mouse over an ogre, and at random pixels), closest-point queries per second, marquee selection time, and the time to move
//! 100 instances and refit the top level.
//!
//! `cargo bench -p meshcast-benches --bench picking -- --warm-up-time 1 --measurement-time 3`

use std::sync::Arc;

use criterion::{criterion_main, Criterion, Throughput};
use glam::{Affine3A, Quat, Vec2, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{Containment, Instance, InstanceId, Mesh, PointQueries, QueryOptions, Scene};
use meshcast_primitives::{Camera, ClipPlanes, DepthConvention, Ray, Viewport, Volume};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const INSTANCES: usize = 1000;
const QUERIES: usize = 1000;
const MOVED: usize = 100;
const SEED: u64 = 0x7069_636b;
const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;

fn random_transform(rng: &mut Pcg64, spread: f32) -> Affine3A {
    let axis = Vec3::new(rng.gen(), rng.gen(), rng.gen()) - 0.5;
    let rotation = Quat::from_axis_angle(axis.normalize_or(Vec3::Y), rng.gen_range(0.0..6.3));
    let scale = Vec3::new(
        rng.gen_range(0.5..2.0),
        rng.gen_range(0.5..2.0),
        rng.gen_range(0.5..2.0),
    );
    let translation = (Vec3::new(rng.gen(), rng.gen(), rng.gen()) - 0.5) * spread;
    Affine3A::from_scale_rotation_translation(scale, rotation, translation)
}

struct Workload {
    scene: Scene,
    viewport: Viewport,
    rays: Vec<Ray>,
    random_rays: Vec<Ray>,
    points: Vec<Vec3>,
}

fn workload() -> Workload {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/ogre.obj");
    let ogre = Arc::new(Mesh::from_obj(path).expect("the ogre loads"));
    let mut rng = Pcg64::seed_from_u64(SEED);
    // Spread the ogres over a cube about twice as wide as their grid would be.
    let spread = ogre.bounds().extent().max_element() * (INSTANCES as f32).cbrt() * 2.0;
    let scene = Scene::from_instances((0..INSTANCES).map(|_| {
        Instance::new(ogre.clone(), random_transform(&mut rng, spread)).expect("invertible")
    }));
    let camera = Camera::framing(scene.bounds(), 50.0, WIDTH as f32 / HEIGHT as f32);
    let distance = camera.eye.distance(camera.target);
    let viewport = camera
        .viewport(
            WIDTH,
            HEIGHT,
            ClipPlanes::new(distance * 1e-3, f32::INFINITY),
            DepthConvention::ReversedZ,
        )
        .expect("valid camera");
    // The mouse over an ogre: pixels where random points of random instances' surfaces
    // appear (another ogre may be in front).
    let rays: Vec<Ray> = (0..QUERIES)
        .map(|_| {
            let id = InstanceId::from_index(rng.gen_range(0..INSTANCES as u32));
            let instance = scene.instance(id).expect("held");
            let triangle = rng.gen_range(0..instance.mesh().triangle_count());
            let point = instance
                .world_triangle(triangle)
                .expect("in range")
                .centroid();
            let pixel = viewport.project(point).expect("in front");
            viewport.ray_through(pixel.x, pixel.y)
        })
        .collect();
    let random_rays: Vec<Ray> = (0..QUERIES)
        .map(|_| {
            viewport.ray_through(
                rng.gen_range(0.0..WIDTH as f32),
                rng.gen_range(0.0..HEIGHT as f32),
            )
        })
        .collect();
    let hits = rays
        .iter()
        .filter(|ray| scene.pick(*ray, &QueryOptions::new()).is_some())
        .count();
    let random_hits = random_rays
        .iter()
        .filter(|ray| scene.pick(*ray, &QueryOptions::new()).is_some())
        .count();
    eprintln!("{hits} of {QUERIES} aimed and {random_hits} of {QUERIES} random pick rays hit");
    let bounds = scene.bounds();
    let points = (0..QUERIES)
        .map(|_| bounds.min + bounds.extent() * Vec3::new(rng.gen(), rng.gen(), rng.gen()))
        .collect();
    Workload {
        scene,
        viewport,
        rays,
        random_rays,
        points,
    }
}

fn picking(c: &mut Criterion) {
    let Workload {
        scene,
        viewport,
        rays,
        random_rays,
        points,
    } = workload();
    let options = QueryOptions::new();
    let mut group = c.benchmark_group("picking");
    group.sample_size(10);

    group.throughput(Throughput::Elements(rays.len() as u64));
    group.bench_function("pick_over_an_ogre", |b| {
        b.iter(|| {
            rays.iter()
                .filter(|ray| scene.pick(*ray, &options).is_some())
                .count()
        })
    });
    group.bench_function("pick_random_pixel", |b| {
        b.iter(|| {
            random_rays
                .iter()
                .filter(|ray| scene.pick(*ray, &options).is_some())
                .count()
        })
    });

    // Snapping within a radius (a tenth of an ogre), and unbounded.
    let ogre_size = scene
        .instances()
        .next()
        .map_or(1.0, |(_, i)| i.mesh().bounds().extent().max_element());
    let near = options.with_max_distance(ogre_size * 0.1);
    group.bench_function("closest_point_within_radius", |b| {
        b.iter(|| {
            points
                .iter()
                .filter(|&&p| scene.closest_point(p, &near).is_some())
                .count()
        })
    });
    group.bench_function("closest_point_unbounded", |b| {
        b.iter(|| {
            points
                .iter()
                .filter(|&&p| scene.closest_point(p, &options).is_some())
                .count()
        })
    });

    // A marquee over a quarter of the screen.
    let marquee = viewport
        .marquee(
            Vec2::new(WIDTH as f32 * 0.25, HEIGHT as f32 * 0.25),
            Vec2::new(WIDTH as f32 * 0.75, HEIGHT as f32 * 0.75),
        )
        .expect("has area");
    let volume = Volume::Frustum(marquee);
    group.throughput(Throughput::Elements(1));
    group.bench_function("marquee_intersecting_instances", |b| {
        b.iter(|| {
            scene
                .select(&volume, Containment::Intersecting, &options)
                .len()
        })
    });
    group.bench_function("marquee_inside_instances", |b| {
        b.iter(|| scene.select(&volume, Containment::Inside, &options).len())
    });

    // Move 100 instances back and forth; each move refits the top level.
    let mut moving = scene.clone();
    let mut rng = Pcg64::seed_from_u64(SEED + 1);
    let spread = scene.bounds().extent().max_element() * 0.5;
    let targets: Vec<[Affine3A; 2]> = (0..MOVED)
        .map(|_| {
            [
                random_transform(&mut rng, spread),
                random_transform(&mut rng, spread),
            ]
        })
        .collect();
    let mut flip = 0;
    group.bench_function("move_100_instances_and_refit", |b| {
        b.iter(|| {
            flip ^= 1;
            for (i, pair) in targets.iter().enumerate() {
                let id = InstanceId::from_index((i * (INSTANCES / MOVED)) as u32);
                moving.set_transform(id, pair[flip]).expect("held");
            }
        })
    });
    let mut batch = scene.clone();
    group.bench_function("move_100_instances_one_refit", |b| {
        b.iter(|| {
            flip ^= 1;
            let moves = targets.iter().enumerate().map(|(i, pair)| {
                (
                    InstanceId::from_index((i * (INSTANCES / MOVED)) as u32),
                    pair[flip],
                )
            });
            batch.set_transforms(moves).expect("held");
        })
    });
    group.finish();
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which would otherwise need docs.
mod group {
    criterion::criterion_group!(benches, super::picking);
}
criterion_main!(group::benches);
