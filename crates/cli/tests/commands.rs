//! Every subcommand on a bundled mesh, its output checked against the library.

use std::fmt::Write as _;

use crate::support::{arg, ray_lines, run, run_in, scratch};
use glam::Vec3;
use meshcast::{Camera, Mesh, MeshFiles, Ray, RayQueries};
use meshcast_testkit::{asset, incoherent_rays};

/// The camera `pick` and `render` use by default for a `width` x `height` image.
fn default_camera(mesh: &Mesh, width: u32, height: u32) -> Camera {
    let aspect = width as f32 / height as f32;
    Camera::framing_points(mesh.tri_mesh().positions(), 40.0, aspect)
}

/// Seeded rays at the cow, plus rays that miss, one that grazes nothing, and a degenerate one.
fn cow_rays(mesh: &Mesh) -> Vec<Ray> {
    let mut rays = incoherent_rays(mesh.bounds(), 300, 11);
    let far = mesh.bounds().max + Vec3::splat(10.0);
    rays.push(Ray::new(far, Vec3::X));
    rays.push(Ray::new(
        mesh.bounds().centroid(),
        Vec3::new(0.0, -0.0, 1.0),
    ));
    rays.push(Ray::new(Vec3::ZERO, Vec3::ZERO));
    rays
}

fn parse_f32(word: &str) -> f32 {
    word.parse()
        .unwrap_or_else(|_| panic!("`{word}` is not a float"))
}

#[test]
fn cast_prints_the_librarys_closest_hits_in_order() {
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    let rays = cow_rays(&mesh);
    let dir = scratch("cast");
    let file = dir.join("rays.txt");
    std::fs::write(&file, format!("# seeded rays\n{}", ray_lines(&rays))).unwrap();

    let from_file = run(&["cast", arg(&path), "--rays", arg(&file)]);
    assert!(from_file.success, "{}", from_file.stderr);
    let from_stdin = run_in(
        None,
        &["cast", arg(&path), "--rays", "-"],
        ray_lines(&rays).as_bytes(),
    );
    assert_eq!(from_file.stdout, from_stdin.stdout);

    let lines: Vec<&str> = from_file.stdout.lines().collect();
    assert_eq!(lines.len(), rays.len());
    let mut hits = 0;
    for (i, (line, ray)) in lines.iter().zip(&rays).enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        match mesh.cast(ray) {
            Some(hit) => {
                hits += 1;
                assert_eq!(words.len(), 5, "ray {i}: {line}");
                assert_eq!(words[0], "hit");
                assert_eq!(parse_f32(words[1]).to_bits(), hit.t.to_bits(), "ray {i}");
                assert_eq!(words[2].parse::<u32>().unwrap(), hit.triangle, "ray {i}");
                assert_eq!(parse_f32(words[3]).to_bits(), hit.u.to_bits(), "ray {i}");
                assert_eq!(parse_f32(words[4]).to_bits(), hit.v.to_bits(), "ray {i}");
            }
            None => assert_eq!(*line, "miss", "ray {i}"),
        }
    }
    assert!(
        hits > 100,
        "only {hits} hits: the rays should mostly hit the cow"
    );
}

#[test]
fn cast_streams_more_rays_than_one_chunk_in_order() {
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    // More than the 65536 lines that are read and answered at a time.
    let rays = incoherent_rays(mesh.bounds(), 70_000, 5);
    let out = run_in(
        None,
        &["cast", arg(&path), "--rays", "-"],
        ray_lines(&rays).as_bytes(),
    );
    assert!(out.success, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), rays.len());
    for (i, (line, ray)) in lines.iter().zip(&rays).enumerate() {
        let expected = match mesh.cast(ray) {
            Some(hit) => format!("hit {} {} {} {}", hit.t, hit.triangle, hit.u, hit.v),
            None => "miss".to_owned(),
        };
        assert_eq!(*line, expected, "ray {i}");
    }
}

#[test]
fn cast_any_all_and_range_match_the_library() {
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    let rays = cow_rays(&mesh);
    let input = ray_lines(&rays);

    let any = run_in(
        None,
        &["cast", arg(&path), "--rays", "-", "--any"],
        input.as_bytes(),
    );
    assert!(any.success, "{}", any.stderr);
    let expected: Vec<&str> = rays
        .iter()
        .map(|ray| if mesh.occluded(ray) { "hit" } else { "miss" })
        .collect();
    assert_eq!(any.stdout.lines().collect::<Vec<_>>(), expected);

    let all = run_in(
        None,
        &["cast", arg(&path), "--rays", "-", "--all"],
        input.as_bytes(),
    );
    assert!(all.success, "{}", all.stderr);
    let mut several = 0;
    for (line, ray) in all.stdout.lines().zip(&rays) {
        let hits = mesh.cast_all(ray);
        if hits.is_empty() {
            assert_eq!(line, "miss");
            continue;
        }
        several += usize::from(hits.len() > 1);
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words[0], "hits");
        assert_eq!(words[1].parse::<usize>().unwrap(), hits.len());
        for (k, hit) in hits.iter().enumerate() {
            let group = &words[2 + 4 * k..6 + 4 * k];
            assert_eq!(parse_f32(group[0]).to_bits(), hit.t.to_bits());
            assert_eq!(group[1].parse::<u32>().unwrap(), hit.triangle);
        }
        let ts: Vec<f32> = hits.iter().map(|h| h.t).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]), "sorted by t");
    }
    assert!(several > 10, "a closed mesh is crossed twice by most rays");

    // A range that ends before the cow: everything misses; one that starts past the first hit
    // gives the library's answer for that range.
    let t_max = run_in(
        None,
        &["cast", arg(&path), "--rays", "-", "--t-max", "0.001"],
        input.as_bytes(),
    );
    assert!(t_max.stdout.lines().all(|line| line == "miss"));
    let t_min = run_in(
        None,
        &[
            "cast",
            arg(&path),
            "--rays",
            "-",
            "--t-min",
            "1.5",
            "--t-max",
            "1e9",
        ],
        input.as_bytes(),
    );
    for (line, ray) in t_min.stdout.lines().zip(&rays) {
        let expected = mesh.cast(&ray.with_range(1.5, 1e9));
        assert_eq!(line == "miss", expected.is_none(), "{line}");
    }
}

#[test]
fn cast_rays_touching_a_cube_hit_it_unless_the_tie_rule_is_asked_for() {
    // A cube of side 2, and rays straight down its vertical faces' middles and its vertical
    // edges: each touches the top face on its rim, and runs in the plane of the sides.
    let dir = scratch("touching");
    let path = dir.join("cube.obj");
    let mut obj = String::new();
    for i in 0..8 {
        let c = [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { 1 } else { -1 });
        writeln!(obj, "v {} {} {}", c[0], c[1], c[2]).unwrap();
    }
    for [a, b, c, d] in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        writeln!(obj, "f {a} {b} {c}\nf {a} {c} {d}").unwrap();
    }
    std::fs::write(&path, obj).unwrap();
    let spots = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ];
    let input: String = spots
        .iter()
        .map(|(x, y)| format!("{x} {y} 5 0 0 -1\n"))
        .collect();
    let answers = |extra: &[&str]| {
        let mut args = vec!["cast", arg(&path), "--rays", "-"];
        args.extend(extra);
        let out = run_in(None, &args, input.as_bytes());
        assert!(out.success, "{}", out.stderr);
        out.stdout.lines().map(str::to_owned).collect::<Vec<_>>()
    };
    let touching = answers(&[]);
    assert!(
        touching.iter().all(|line| line.starts_with("hit 4 ")),
        "{touching:?}"
    );
    assert_eq!(answers(&["--any"]), vec!["hit"; spots.len()]);
    // By the tie rule some of these rays pass: the top's rim is half-open there, and the
    // sides are edge-on.
    let tie_rule = answers(&["--contacts", "tie-rule"]);
    assert!(tie_rule.iter().any(|line| line == "miss"), "{tie_rule:?}");
    assert!(tie_rule
        .iter()
        .all(|line| line == "miss" || line.starts_with("hit 4 ")));
    let out = run_in(
        None,
        &["cast", arg(&path), "--rays", "-", "--contacts", "some"],
        b"",
    );
    assert!(!out.success);
    assert!(out.stderr.contains("--contacts"), "{}", out.stderr);
}

#[test]
fn info_reports_the_librarys_counts() {
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    let out = run(&["info", arg(&path), arg(&asset("woody.obj"))]);
    assert!(out.success, "{}", out.stderr);
    let value = |key: &str| {
        out.stdout
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .map(|rest| rest.trim().to_owned())
            .unwrap_or_else(|| panic!("no {key} in {}", out.stdout))
    };
    assert_eq!(value("triangles"), mesh.triangle_count().to_string());
    assert_eq!(
        value("vertices"),
        mesh.tri_mesh().vertex_count().to_string()
    );
    for key in [
        "bounds",
        "degenerate",
        "load",
        "build",
        "bvh nodes",
        "bvh depth",
        "bvh sah cost",
        "bvh memory",
    ] {
        value(key);
    }
    assert!(value("mesh memory").starts_with(&format!("{} bytes", mesh.tri_mesh().bytes())));
    assert!(value("bvh memory").contains("bytes per triangle"));
    if cfg!(target_os = "linux") {
        // The peak resident set holds at least the mesh and its hierarchy.
        let bytes = |key: &str| -> u64 {
            let text = value(key);
            text.split_whitespace().next().unwrap().parse().unwrap()
        };
        let peak = value("peak memory");
        assert!(peak.contains("times the mesh and its bvh"), "{peak}");
        assert!(
            bytes("peak memory") >= bytes("mesh memory") + bytes("bvh memory"),
            "{}",
            out.stdout
        );
    }
    let blocks = out.stdout.lines().filter(|l| l.starts_with("mesh  "));
    assert_eq!(blocks.count(), 2, "one block per mesh");
}

#[test]
fn pick_matches_the_librarys_hit_under_the_pixel() {
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    let camera = default_camera(&mesh, 200, 100);
    let ray = camera.ray_through_pixel(100, 50, 200, 100);
    let hit = mesh
        .cast(&ray)
        .expect("the cow is at the centre of its framing");

    let out = run(&["pick", arg(&path), "--size", "200x100", "--pixel", "100,50"]);
    assert!(out.success, "{}", out.stderr);
    assert!(
        out.stdout
            .contains(&format!("triangle  {}\n", hit.triangle)),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!("distance  {}\n", hit.t)),
        "{}",
        out.stdout
    );
    let shading = mesh
        .surface(&hit)
        .expect("a hit of the mesh")
        .shading_normal;
    assert!(
        out.stdout.contains(&format!(
            "shading   {} {} {}\n",
            shading.x, shading.y, shading.z
        )),
        "{}",
        out.stdout
    );
    for key in ["group", "point", "normal"] {
        assert!(
            out.stdout.lines().any(|l| l.starts_with(key)),
            "{key}: {}",
            out.stdout
        );
    }

    // The top-left corner of the framing shows only background.
    assert!(mesh
        .cast(&camera.ray_through_pixel(0, 0, 200, 100))
        .is_none());
    let corner = run(&["pick", arg(&path), "--size", "200x100", "--pixel", "0,0"]);
    assert_eq!(corner.stdout, "nothing\n");

    // An explicit camera: looking down the -z axis at the cow's centre.
    let centre = mesh.bounds().centroid();
    let eye = centre + Vec3::new(0.0, 0.0, 10.0);
    let explicit = Camera::new(eye, centre, Vec3::Y, 30.0, 1.0);
    let expected = mesh.cast(&explicit.ray_through_pixel(32, 32, 64, 64));
    let eye_arg = format!("{},{},{}", eye.x, eye.y, eye.z);
    let target_arg = format!("{},{},{}", centre.x, centre.y, centre.z);
    let out = run(&[
        "pick",
        arg(&path),
        "--size",
        "64x64",
        "--pixel",
        "32,32",
        "--eye",
        &eye_arg,
        "--target",
        &target_arg,
        "--fov",
        "30",
    ]);
    assert!(out.success, "{}", out.stderr);
    match expected {
        Some(hit) => assert!(out
            .stdout
            .contains(&format!("triangle  {}\n", hit.triangle))),
        None => assert_eq!(out.stdout, "nothing\n"),
    }
}

/// Decodes an 8-bit RGB PNG into its size and pixels.
fn decode_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

#[test]
fn render_writes_a_png_of_the_asked_size_in_every_mode() {
    let dir = scratch("render");
    for mode in ["shaded", "depth", "normal"] {
        let file = dir.join(format!("cow-{mode}.png"));
        let out = run(&[
            "render",
            arg(&asset("cow.obj")),
            "-o",
            arg(&file),
            "--size",
            "96x64",
            "--mode",
            mode,
        ]);
        assert!(out.success, "{}", out.stderr);
        assert!(out.stdout.contains("Mrays/s"), "{}", out.stdout);
        let (width, height, pixels) = decode_png(&file);
        assert_eq!((width, height), (96, 64));
        let first = &pixels[..3];
        assert!(
            pixels.chunks(3).any(|p| p != first),
            "{mode}: every pixel is the same"
        );
        // The centre shows the cow, the corner the background: they differ.
        let at = |x: usize, y: usize| &pixels[3 * (y * 96 + x)..3 * (y * 96 + x) + 3];
        assert_ne!(at(48, 32), at(0, 0), "{mode}");
    }
}

#[test]
fn main_job_renders_the_bunny_and_picks_its_centre() {
    // Run away from the repository root: the bunny is found through the build's source path.
    let dir = scratch("main-job");
    let out = run_in(Some(&dir), &[], b"");
    assert!(out.success, "{}", out.stderr);
    for word in [
        "stanford-bunny.obj",
        "triangles",
        "built in",
        "Mrays/s",
        "pick",
        "triangle",
    ] {
        assert!(out.stdout.contains(word), "{word}: {}", out.stdout);
    }
    let (width, height, pixels) = decode_png(&dir.join("bunny.png"));
    assert_eq!((width, height), (800, 600));
    let first = &pixels[..3];
    assert!(pixels.chunks(3).any(|p| p != first));
}

/// `collide` and `self-intersections` print what the library answers.
#[test]
fn collide_and_self_intersections_answer_as_the_library() {
    use meshcast::glam::Affine3A;

    let cow_path = asset("cow.obj");
    let cow_text = cow_path.to_str().expect("a UTF-8 path");
    let cow = Mesh::from_path(&cow_path).expect("cow");

    let out = run(&["self-intersections", cow_text]);
    assert!(out.success, "{}", out.stderr);
    let pairs = cow.self_intersections();
    let mut want = format!("pairs          {}\n", pairs.len());
    for (a, b) in &pairs {
        want += &format!("pair {a} {b}\n");
    }
    assert_eq!(out.stdout, want);
    assert!(!pairs.is_empty(), "the cow folds over itself somewhere");

    let shift = cow.bounds().extent().x * 0.5;
    let out = run(&[
        "collide",
        cow_text,
        cow_text,
        "--transform",
        &format!("{shift},0,0"),
        "--pairs",
    ]);
    assert!(out.success, "{}", out.stderr);
    let moved = Affine3A::from_translation(Vec3::new(shift, 0.0, 0.0));
    let pairs = cow.intersecting_pairs(&cow, &moved);
    assert!(
        out.stdout.starts_with(&format!(
            "intersects     true\npairs          {}\n",
            pairs.len()
        )),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("distance       0 "), "{}", out.stdout);

    let far = cow.bounds().extent().length() * 3.0;
    let out = run(&[
        "collide",
        cow_text,
        cow_text,
        "--transform",
        &format!("0,{far},0"),
    ]);
    assert!(out.success, "{}", out.stderr);
    let apart = cow
        .mesh_distance(
            &cow,
            &Affine3A::from_translation(Vec3::new(0.0, far, 0.0)),
            None,
        )
        .expect("a distance");
    assert!(
        out.stdout.starts_with(&format!(
            "intersects     false\ndistance       {} ",
            apart.distance
        )),
        "{}",
        out.stdout
    );

    let out = run(&["collide", cow_text, cow_text, "--transform", "1,2"]);
    assert!(!out.success);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

/// `collide --hausdorff` prints both directed distances as the library answers them, and
/// refuses a negative error in one line.
#[test]
fn collide_prints_the_hausdorff_distance_of_the_library() {
    use meshcast::glam::Affine3A;

    let path = asset("suzanne.obj");
    let text = path.to_str().expect("a UTF-8 path");
    let suzanne = Mesh::from_path(&path).expect("suzanne");
    let out = run(&[
        "collide",
        text,
        text,
        "--transform",
        "0.5,0,0",
        "--hausdorff",
        "1e-4",
    ]);
    assert!(out.success, "{}", out.stderr);
    let moved = Affine3A::from_translation(Vec3::new(0.5, 0.0, 0.0));
    let h = suzanne
        .hausdorff_distance(&suzanne, &moved, 1e-4)
        .expect("non-empty");
    for (name, d) in [("A to B", h.self_to_other), ("B to A", h.other_to_self)] {
        let line = format!(
            "hausdorff      {name} {} (at most {}; from triangle {} ",
            d.distance, d.bound, d.from_triangle
        );
        assert!(out.stdout.contains(&line), "{line}\n{}", out.stdout);
    }
    let out = run(&["collide", text, text, "--hausdorff"]);
    assert!(out.success, "{}", out.stderr);
    // On itself: zero but for the rounding of points inside triangles.
    let distance: f64 = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("hausdorff      A to B "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|d| d.parse().ok())
        .expect("a hausdorff line");
    assert!(distance <= 1e-12, "{}", out.stdout);
    let out = run(&["collide", text, text, "--hausdorff=-1"]);
    assert!(!out.success);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}
