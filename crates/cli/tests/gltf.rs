//! A glTF file on the command line: `cast`, `pick` and `render` see its scene of instances,
//! the commands that take one mesh see the scene flattened.

use crate::support::{arg, run, run_in, scratch};
use glam::Vec3;
use meshcast::{Camera, RayQueries, Scene, SceneFiles};
use meshcast_testkit::asset;

fn simple_meshes() -> std::path::PathBuf {
    asset("gltf/SimpleMeshes.gltf")
}

#[test]
fn cast_answers_with_the_instance_of_each_hit() {
    let path = simple_meshes();
    let scene = Scene::from_path(&path).unwrap();
    // Straight down onto each instance's triangle, then a miss.
    let rays = "0.25 0.25 1 0 0 -1\n1.25 0.25 1 0 0 -1\n5 5 5 1 0 0\n";
    let out = run_in(None, &["cast", arg(&path), "--rays", "-"], rays.as_bytes());
    assert!(out.success, "{}", out.stderr);
    let mut expected = String::new();
    for (instance, x) in [(0, 0.25), (1, 1.25)] {
        let ray = meshcast::Ray::new(Vec3::new(x, 0.25, 1.0), -Vec3::Z);
        let hit = scene.cast(&ray).expect("a hit");
        assert_eq!(hit.instance.index(), instance);
        let h = hit.hit;
        expected += &format!("hit {} {} {} {} {instance}\n", h.t, h.triangle, h.u, h.v);
    }
    expected += "miss\n";
    assert_eq!(out.stdout, expected);

    let all = run_in(
        None,
        &["cast", arg(&path), "--rays", "-", "--all"],
        rays.as_bytes(),
    );
    assert!(all.success, "{}", all.stderr);
    let first = all.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("hits 1 1 0 ") && first.ends_with(" 0"),
        "{first}"
    );
}

#[test]
fn pick_names_the_instance_under_the_pixel() {
    let path = simple_meshes();
    let scene = Scene::from_path(&path).unwrap();
    let points: Vec<Vec3> = scene
        .instances()
        .flat_map(|(_, instance)| {
            let transform = instance.transform();
            let positions = instance.mesh().tri_mesh().positions().to_vec();
            positions
                .into_iter()
                .map(move |p| transform.transform_point3(p))
        })
        .collect();
    let camera = Camera::framing_points(&points, 40.0, 2.0);
    // The first pixel (on a coarse grid) that shows each instance, by the library.
    let mut found = [None, None];
    for y in (0..100).step_by(5) {
        for x in (0..200).step_by(5) {
            let ray = camera.ray_through_pixel(x, y, 200, 100);
            if let Some(hit) = scene.cast(&ray) {
                found[hit.instance.index() as usize].get_or_insert((x, y, hit));
            }
        }
    }
    let mut picked = Vec::new();
    for (x, y, hit) in found.into_iter().map(|f| f.expect("both instances show")) {
        let pixel = format!("{x},{y}");
        let out = run(&["pick", arg(&path), "--size", "200x100", "--pixel", &pixel]);
        assert!(out.success, "{}", out.stderr);
        let instance = format!("instance  {}\n", hit.instance.index());
        assert!(out.stdout.contains(&instance), "{}", out.stdout);
        assert!(
            out.stdout.contains(&format!("distance  {}\n", hit.hit.t)),
            "{}",
            out.stdout
        );
        assert!(out.stdout.contains("group     mesh0/0\n"), "{}", out.stdout);
        picked.push(hit.instance.index());
    }
    assert_eq!(picked, [0, 1], "the two pixels show the two instances");
}

#[test]
fn render_draws_the_scene() {
    let file = scratch("gltf-render").join("simple-meshes.png");
    let out = run(&[
        "render",
        arg(&simple_meshes()),
        "-o",
        arg(&file),
        "--size",
        "64x32",
    ]);
    assert!(out.success, "{}", out.stderr);
    let decoder = png::Decoder::new(std::fs::File::open(&file).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (64, 32));
    let at = |x: usize, y: usize| pixels[3 * (y * 64 + x)..3 * (y * 64 + x) + 3].to_vec();
    // Each triangle's lower-left part shows; the top right corner is background.
    assert_ne!(at(16, 20), at(63, 0));
    assert_ne!(at(44, 20), at(63, 0));
}

#[test]
fn one_mesh_commands_read_the_flattened_scene() {
    let out = run(&["info", arg(&asset("gltf/Box.gltf"))]);
    assert!(out.success, "{}", out.stderr);
    assert!(out.stdout.contains("12"), "{}", out.stdout);
    let points = run_in(
        None,
        &["contains", arg(&asset("gltf/Box.gltf")), "--points", "-"],
        b"0 0 0\n2 0 0\n",
    );
    assert!(points.success, "{}", points.stderr);
    assert_eq!(points.stdout, "inside\noutside\n");
}
