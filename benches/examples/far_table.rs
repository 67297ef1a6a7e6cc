//! The table of issue 57: a radius-1 icosphere (1,280 triangles) moved by each offset, 2,000
//! parallel rays along -z from 5 m above it, answers compared with the same mesh and rays at
//! the origin; once with everything rounded to `f32` in world coordinates (what every engine
//! does, and meshcast did), once through the mesh's own origin and `f64` rays:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example far_table
//! ```

use glam::{DVec3, Vec3};
use meshcast::{DRay, Hit, Mesh, Ray, RayQueries};
use meshcast_testkit::{icosphere, rng};
use rand::Rng;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let sphere = icosphere(3);
    let at_origin = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    let mut rng = rng(57);
    let rays: Vec<Ray> = (0..2000)
        .map(|_| {
            let (x, y) = (rng.gen_range(-1.1f32..1.1), rng.gen_range(-1.1f32..1.1));
            Ray::new(Vec3::new(x, y, 5.0), Vec3::NEG_Z)
        })
        .collect();
    let expected = at_origin.cast_batch(&rays);
    println!("| offset (m) | path | hit or miss differs | worst error in t | triangle differs |");
    println!("| --- | --- | --: | --: | --: |");
    for offset in [
        DVec3::new(1000.0, 0.0, 0.0),
        DVec3::new(500_123.37, 5_000_456.71, 100.0),
        DVec3::new(6_378_137.0, 0.0, 0.0),
        DVec3::new(1e7, 1e7, 1e7),
    ] {
        let moved: Vec<[f64; 3]> = sphere
            .positions()
            .iter()
            .map(|p| (p.as_dvec3() + offset).to_array())
            .collect();
        // Rounded to f32 in world coordinates.
        let rounded: Vec<[f32; 3]> = moved.iter().map(|p| p.map(|c| c as f32)).collect();
        let world32 = Mesh::from_triangles(&rounded, sphere.indices())?;
        let answers32: Vec<Option<f64>> = rays
            .iter()
            .map(|ray| {
                let origin = (ray.origin.as_dvec3() + offset).as_vec3();
                let hit = world32.cast(&Ray::new(origin, ray.dir));
                hit.map(|h| f64::from(h.t))
            })
            .collect();
        let triangles32: Vec<Option<u32>> = rays
            .iter()
            .map(|ray| {
                let origin = (ray.origin.as_dvec3() + offset).as_vec3();
                world32.cast(&Ray::new(origin, ray.dir)).map(|h| h.triangle)
            })
            .collect();
        // Through the mesh's origin, rays in f64.
        let far = Mesh::from_world_triangles(&moved, sphere.indices())?;
        let world64: Vec<DRay> = rays
            .iter()
            .map(|ray| DRay::new(ray.origin.as_dvec3() + offset, DVec3::NEG_Z))
            .collect();
        let answers64 = far.cast_batch(&world64);
        let row =
            |path: &str, t: &dyn Fn(usize) -> Option<f64>, tri: &dyn Fn(usize) -> Option<u32>| {
                let (mut hit_miss, mut worst, mut triangles) = (0, 0.0f64, 0);
                for (i, near) in expected.iter().enumerate() {
                    let near: &Option<Hit> = near;
                    match (near, t(i)) {
                        (Some(near), Some(t)) => {
                            worst = worst.max((t - f64::from(near.t)).abs());
                            triangles += usize::from(tri(i) != Some(near.triangle));
                        }
                        (None, None) => {}
                        _ => hit_miss += 1,
                    }
                }
                println!(
                    "| ({}, {}, {}) | {path} | {hit_miss} of 2000 | {worst:.1e} m | {triangles} |",
                    offset.x, offset.y, offset.z
                );
            };
        row("f32 world coordinates", &|i| answers32[i], &|i| {
            triangles32[i]
        });
        row(
            "the mesh's origin, f64 rays",
            &|i| answers64[i].map(|h| h.t),
            &|i| answers64[i].map(|h| h.triangle),
        );
    }
    Ok(())
}
