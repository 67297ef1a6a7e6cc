//! `--gpu` on `info`, `cast` and `bench`: the GPU's answers are the CPU's, line for line.
//!
//! A test that needs a GPU adapter skips, saying why, where there is none, unless the
//! environment variable `CI` is set: then it fails.

use crate::support::{arg, assert_clean_failure, ray_lines, run_with_env};
use glam::Vec3;
use meshcast::gpu::Gpu;
use meshcast::{Camera, Mesh, MeshFiles, Ray};
use meshcast_testkit::{asset, incoherent_rays};

/// The GPU, or `None` (with the reason printed) where there is none and `CI` is not set.
fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::new() {
        Ok(gpu) => Some(gpu),
        Err(err) if std::env::var_os("CI").is_some() => {
            panic!("{test}: CI is set but there is no GPU adapter: {err}")
        }
        Err(err) => {
            eprintln!("skipping {test}: {err}");
            None
        }
    }
}

/// Random rays at the mesh, camera rays (neighbours, many through shared edges' pixels),
/// rays along a vertex's axes, a miss, and rays the GPU leaves to the CPU (a zero and a huge
/// direction).
fn test_rays(mesh: &Mesh) -> Vec<Ray> {
    let mut rays = incoherent_rays(mesh.bounds(), 2000, 7);
    let camera = Camera::framing(mesh.bounds(), 40.0, 1.0);
    rays.extend(camera.pixel_rays(40, 40));
    let vertex = mesh.tri_mesh().positions()[0];
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        rays.push(Ray::new(vertex - axis, axis));
    }
    rays.push(Ray::new(mesh.bounds().max + Vec3::splat(10.0), Vec3::X));
    rays.push(Ray::new(Vec3::ZERO, Vec3::ZERO));
    rays.push(Ray::new(mesh.bounds().min - Vec3::ONE, Vec3::splat(1e35)));
    rays
}

#[test]
fn cast_on_the_gpu_prints_the_cpus_lines() {
    let test = "gpu-cast";
    if gpu_or_skip(test).is_none() {
        return;
    }
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    let input = ray_lines(&test_rays(&mesh));
    let modes: [&[&str]; 7] = [
        &[],
        &["--any"],
        &["--all"],
        &["--t-min", "1.5", "--t-max", "1e9"],
        &["--contacts", "tie-rule"],
        &["--any", "--contacts", "tie-rule"],
        &["--all", "--contacts", "tie-rule"],
    ];
    for extra in modes {
        let mut args = vec!["cast", arg(&path), "--rays", "-"];
        args.extend(extra);
        let cpu = run_with_env(None, &args, input.as_bytes(), &[]);
        args.push("--gpu");
        let gpu = run_with_env(None, &args, input.as_bytes(), &[]);
        assert!(cpu.success, "{extra:?}: {}", cpu.stderr);
        assert!(gpu.success, "{extra:?} --gpu: {}", gpu.stderr);
        assert!(cpu.stdout.contains("hit"), "{extra:?}: no hits");
        assert_eq!(cpu.stdout.lines().count(), input.lines().count());
        for (i, (c, g)) in cpu.stdout.lines().zip(gpu.stdout.lines()).enumerate() {
            assert_eq!(c, g, "{extra:?}: ray {i}");
        }
        assert_eq!(cpu.stdout, gpu.stdout, "{extra:?}");
    }
}

#[test]
fn cast_on_the_gpu_streams_more_rays_than_one_chunk() {
    let test = "gpu-stream";
    if gpu_or_skip(test).is_none() {
        return;
    }
    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    // More than the 65536 lines that are read and answered at a time.
    let input = ray_lines(&incoherent_rays(mesh.bounds(), 70_000, 5));
    let args = ["cast", arg(&path), "--rays", "-"];
    let cpu = run_with_env(None, &args, input.as_bytes(), &[]);
    let gpu = run_with_env(
        None,
        &[&args[..], &["--gpu"]].concat(),
        input.as_bytes(),
        &[],
    );
    assert!(gpu.success, "{}", gpu.stderr);
    assert_eq!(gpu.stdout.lines().count(), 70_000);
    assert!(cpu.stdout == gpu.stdout, "the GPU's lines differ");
}

#[test]
fn cast_on_the_gpu_refuses_what_it_cannot_answer() {
    let test = "gpu-refuse";
    if gpu_or_skip(test).is_none() {
        return;
    }
    let scene = asset("gltf/Box.gltf");
    let out = run_with_env(
        None,
        &["cast", arg(&scene), "--rays", "-", "--gpu"],
        b"0 0 5 0 0 -1\n",
        &[],
    );
    assert_clean_failure(&out, "glTF scene");
}

#[test]
fn info_names_the_adapter_and_the_meshs_gpu_memory() {
    let test = "gpu-info";
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    let alone = run_with_env(None, &["info", "--gpu"], b"", &[]);
    assert!(alone.success, "{}", alone.stderr);
    let lines: Vec<&str> = alone.stdout.lines().collect();
    assert_eq!(lines[0], format!("gpu            {}", gpu.adapter()));
    let adapters: Vec<String> = Gpu::adapters().iter().map(|a| a.to_string()).collect();
    let listed: Vec<&str> = lines[1..]
        .iter()
        .map(|line| line.strip_prefix("gpu adapter    ").expect(line))
        .collect();
    assert_eq!(listed, adapters);
    assert!(adapters.contains(&gpu.adapter().to_string()));

    let path = asset("cow.obj");
    let mesh = Mesh::from_obj(&path).unwrap();
    let triangles = mesh.triangle_count();
    let bytes = gpu.upload(mesh).unwrap().gpu_bytes();
    let with_mesh = run_with_env(None, &["info", "--gpu", arg(&path)], b"", &[]);
    assert!(with_mesh.success, "{}", with_mesh.stderr);
    let value = |key: &str| {
        with_mesh
            .stdout
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .map(|rest| rest.trim().to_owned())
            .unwrap_or_else(|| panic!("no {key} in {}", with_mesh.stdout))
    };
    assert_eq!(value("triangles"), triangles.to_string());
    assert_eq!(
        value("gpu memory"),
        format!(
            "{bytes} bytes ({:.1} bytes per triangle, nodes and leaf triangles)",
            bytes as f64 / triangles as f64
        )
    );
    assert!(value("gpu upload").ends_with(" ms"));
}

#[test]
fn no_adapter_is_one_error_line() {
    let cow = asset("cow.obj");
    let none = [("MESHCAST_GPU", "no adapter is called this")];
    let commands: [&[&str]; 4] = [
        &["info", "--gpu"],
        &["info", "--gpu", arg(&cow)],
        &["cast", arg(&cow), "--rays", "-", "--gpu"],
        &["bench", arg(&cow), "--rays", "100", "--runs", "1", "--gpu"],
    ];
    for args in commands {
        let out = run_with_env(None, args, b"0 0 5 0 0 -1\n", &none);
        assert_clean_failure(&out, "no GPU adapter");
    }
}

#[test]
fn bench_on_the_gpu_reports_every_figure_with_the_cpus_hits() {
    let test = "gpu-bench";
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    let cow = asset("cow.obj");
    let args = [
        "bench",
        arg(&cow),
        "--rays",
        "2000",
        "--runs",
        "2",
        "--threads",
        "2",
        "--gpu",
    ];
    let out = run_with_env(None, &[&args[..], &["--json"]].concat(), b"", &[]);
    assert!(out.success, "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("valid JSON");
    assert_eq!(doc["gpu_adapter"], gpu.adapter().to_string());
    let mesh = &doc["meshes"][0];
    let on_gpu = &mesh["gpu"];
    for key in ["upload_ms", "gpu_bytes", "gpu_bytes_per_triangle"] {
        assert!(
            on_gpu[key].as_f64().is_some_and(|v| v > 0.0),
            "{key}: {on_gpu}"
        );
    }
    let figures = on_gpu["throughput"].as_array().unwrap();
    let named: Vec<String> = figures
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["rays"].as_str().unwrap(),
                f["query"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            "coherent closest",
            "coherent any",
            "incoherent closest",
            "incoherent any",
            "camera closest"
        ]
    );
    for figure in figures {
        for key in ["kernel_mrays_per_s", "end_to_end_mrays_per_s"] {
            assert!(
                figure[key].as_f64().is_some_and(|v| v > 0.0),
                "{key}: {figure}"
            );
        }
        let count = figure["count"].as_u64().unwrap();
        assert!(figure["hits"].as_u64().is_some_and(|h| h > 0), "{figure}");
        assert!(
            figure["finished_on_cpu"]
                .as_u64()
                .is_some_and(|n| n <= count),
            "{figure}"
        );
        if figure["rays"] == "camera" {
            continue;
        }
        // The same rays as the CPU's batch figures, and the same answers.
        let cpu = mesh["throughput"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| {
                f["rays"] == figure["rays"]
                    && f["query"] == figure["query"]
                    && f["method"] == "batch"
            })
            .unwrap();
        assert_eq!(cpu["count"], figure["count"], "{figure}");
        assert_eq!(cpu["hits"], figure["hits"], "{figure}");
    }

    let table = run_with_env(None, &args, b"", &[]);
    assert!(table.success, "{}", table.stderr);
    assert!(
        table
            .stdout
            .contains(&format!("  gpu    {}", gpu.adapter())),
        "{}",
        table.stdout
    );
    let header = table
        .stdout
        .lines()
        .position(|line| line.trim_start().starts_with("GPU Mrays/s"))
        .expect("a GPU table");
    let rows: Vec<&str> = table.stdout.lines().skip(header + 1).collect();
    assert_eq!(rows.len(), 5, "{}", table.stdout);
    assert!(rows[4].trim_start().starts_with("camera"), "{}", rows[4]);
}

#[test]
fn bench_on_the_gpu_refuses_the_transform_leaf_test() {
    let out = run_with_env(
        None,
        &[
            "bench",
            arg(&asset("cow.obj")),
            "--leaf-test",
            "transform",
            "--gpu",
        ],
        b"",
        &[],
    );
    assert_clean_failure(&out, "watertight");
}

/// The GPU stack prints nothing of its own, with `XDG_RUNTIME_DIR` unset or empty (as in
/// containers and on servers, where libwayland would complain) or set: `info --gpu` leaves
/// stderr empty, and a failure leaves exactly its one error line. Each adapter is listed once.
#[test]
fn the_gpu_stack_is_quiet_without_a_runtime_directory() {
    if gpu_or_skip("gpu-quiet").is_none() {
        return;
    }
    let cow = asset("cow.obj");
    let temp = std::env::temp_dir();
    for runtime in [None, Some(""), temp.to_str()] {
        let run = |adapter: Option<&str>| {
            let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_meshcast"));
            command.args(["info", "--gpu", arg(&cow)]);
            match runtime {
                None => command.env_remove("XDG_RUNTIME_DIR"),
                Some(dir) => command.env("XDG_RUNTIME_DIR", dir),
            };
            if let Some(adapter) = adapter {
                command.env("MESHCAST_GPU", adapter);
            }
            let output = command.output().expect("start meshcast");
            let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
            (
                output.status.success(),
                text(&output.stdout),
                text(&output.stderr),
            )
        };
        let (ok, stdout, stderr) = run(None);
        assert!(ok, "XDG_RUNTIME_DIR={runtime:?}: {stderr}");
        assert_eq!(stderr, "", "XDG_RUNTIME_DIR={runtime:?}");
        // Each device once: its name before the back end in parentheses.
        let names: Vec<&str> = stdout
            .lines()
            .filter_map(|line| line.strip_prefix("gpu adapter"))
            .map(|adapter| adapter.trim().split(" (").next().unwrap_or(adapter))
            .collect();
        let mut distinct = names.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(
            !names.is_empty() && distinct.len() == names.len(),
            "{stdout}"
        );
        let (ok, _, stderr) = run(Some("no adapter is called this"));
        assert!(!ok);
        assert_eq!(
            stderr.lines().count(),
            1,
            "XDG_RUNTIME_DIR={runtime:?}: {stderr}"
        );
        assert!(
            stderr.starts_with("error:") && stderr.contains("no GPU adapter"),
            "{stderr}"
        );
    }
}
