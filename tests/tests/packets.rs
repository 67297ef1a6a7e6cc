//! The batch calls trace coherent neighbours together, as packets of up to eight rays, and
//! each of their answers must be the single-ray call's, bit for bit. Checked for a mesh, a
//! mirrored, turned and stretched instance and a scene, with every node kernel this CPU runs
//! and both leaf tests, plain and with every option: on camera images, shadow rays and rays
//! converging on a point, and on packets built to be coherent but for one poisoned ray, or
//! aimed at a closed mesh's shared vertices and edges, along its faces, from a million units
//! away and from inside.
//!
//! Camera images, shadow rays and converging rays here; the designed and adversarial packets in
//! `packets_adversarial.rs`.

use std::sync::Arc;

use meshcast::glam::{Affine3A, Vec3};
use meshcast::{Camera, Instance, PointQueries, QueryOptions, Ray};

use crate::packet_checks::*;

#[test]
fn camera_images_on_meshes_match_single_rays() {
    for name in ["stanford-bunny.obj", "cow.obj"] {
        let mesh = load(name);
        for (variant, mesh) in variants(&mesh) {
            let label = format!("{name}, {variant}");
            let points = world_vertices(&mesh, Affine3A::IDENTITY);
            check_views(&label, &mesh, &points, every_third, 0);
        }
    }
}

#[test]
fn a_camera_inside_a_closed_mesh_matches_single_rays() {
    let cow = load("cow.obj");
    assert!(cow.is_closed());
    let eye = cow.bounds().centroid();
    assert!(
        cow.contains(eye),
        "the centre of the cow's box lies inside it"
    );
    let camera = Camera::new(eye, eye + Vec3::new(1.0, 0.2, -0.3), Vec3::Y, 12.0, 1.5);
    let rays: Vec<Ray> = camera.pixel_rays(27, 18).collect();
    assert!(packets_among(&rays) * 2 > rays.len() / 8);
    let limit = median_distance(&cow, &rays);
    for (variant, mesh) in variants(&cow) {
        let tally = check_level(&variant, &mesh, &rays, limit, every_third, 0);
        assert_eq!(
            tally.hits,
            rays.len(),
            "{variant}: every ray from inside hits"
        );
        assert!(tally.limited > 0 && tally.culled > 0, "{variant}");
        assert!(tally.filtered > 0, "{variant}");
    }
}

#[test]
fn camera_images_on_instances_match_single_rays() {
    let bunny = load("stanford-bunny.obj");
    for (variant, mesh) in variants(&bunny) {
        let instance = Instance::new(Arc::new(mesh), askew())
            .expect("invertible")
            .with_layers(0b010);
        assert!(instance.is_mirrored());
        let label = format!("bunny instance, {variant}");
        let points = world_vertices(instance.mesh(), instance.transform());
        check_views(&label, &instance, &points, every_third, 0b011);

        // Off the mask, the instance answers nothing, in batches as one by one.
        let rays = image(&points, 29, 17);
        let elsewhere = QueryOptions::new().with_mask(0b101);
        let hits = check_with(&label, &instance, &rays, &elsewhere);
        assert!(hits.iter().all(Option::is_none));
    }
}

#[test]
fn camera_images_in_scenes_match_single_rays() {
    let bunnies = variants(&load("stanford-bunny.obj"));
    let cows = variants(&load("cow.obj"));
    for ((variant, bunny), (_, cow)) in bunnies.into_iter().zip(cows) {
        let scene = bunny_scene(&Arc::new(bunny), &Arc::new(cow));
        let label = format!("bunny scene, {variant}");
        let points: Vec<Vec3> = scene
            .instances()
            .flat_map(|(_, instance)| world_vertices(instance.mesh(), instance.transform()))
            .collect();
        check_views(&label, &scene, &points, every_third_in_scene, 0b011);
        // The mask must change answers too (the mirrored bunny is on layer 4 alone).
        let rays = image(&points, 37, 29);
        let limit = median_distance(&scene, &rays);
        let tally = check_level(&label, &scene, &rays, limit, every_third_in_scene, 0b110);
        assert!(tally.masked > 0, "{label}");
    }
}
