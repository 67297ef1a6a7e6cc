//! Bad input ends with one clear line on stderr and a non-zero exit, never a panic.

use crate::support::{arg, assert_clean_failure, run, run_in, scratch};
use meshcast_testkit::asset;

#[test]
fn missing_mesh_file() {
    let out = run(&["info", "no-such-mesh.obj"]);
    assert_clean_failure(&out, "no-such-mesh.obj");
    let out = run_in(
        None,
        &["cast", "no-such-mesh.obj", "--rays", "-"],
        b"0 0 0 0 0 1\n",
    );
    assert_clean_failure(&out, "no-such-mesh.obj");
}

#[test]
fn mesh_that_is_not_an_obj_file() {
    let dir = scratch("not-obj");
    let file = dir.join("garbage.obj");
    std::fs::write(&file, "v 1 2 three\nf 1 2 3\n").unwrap();
    let out = run(&["info", arg(&file)]);
    assert_clean_failure(&out, "garbage.obj");
}

#[test]
fn missing_rays_file() {
    let out = run(&["cast", arg(&asset("cow.obj")), "--rays", "no-such-rays.txt"]);
    assert_clean_failure(&out, "no-such-rays.txt");
}

#[test]
fn malformed_ray_line_names_its_line_and_keeps_earlier_answers() {
    let input = b"0 0 10 0 0 -1\n# comment\n1 2 3 4 5\n0 0 10 0 0 -1\n";
    let out = run_in(
        None,
        &["cast", arg(&asset("cow.obj")), "--rays", "-"],
        input,
    );
    assert_clean_failure(&out, "line 3");
    assert!(out.stderr.contains("expected 6 numbers"), "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().count(),
        1,
        "the answer before the bad line is printed"
    );

    let out = run_in(
        None,
        &["cast", arg(&asset("cow.obj")), "--rays", "-"],
        b"0 0 x 0 0 1\n",
    );
    assert_clean_failure(&out, "line 1: `x` is not a number");
}

#[test]
fn malformed_point_line_names_its_line_and_keeps_earlier_answers() {
    let cow = asset("cow.obj");
    for command in ["contains", "distance"] {
        let input = b"0 0 0\n# comment\n\n1 2\n0 0 0\n";
        let out = run_in(None, &[command, arg(&cow), "--points", "-"], input);
        assert_clean_failure(
            &out,
            "reading points from standard input: line 4: expected 3 numbers `x y z`, found 2",
        );
        assert_eq!(
            out.stdout.lines().count(),
            1,
            "{command}: the answer before the bad line is printed"
        );
        for (line, word) in [
            ("0 0 nan\n", "nan"),
            ("inf 0 0\n", "inf"),
            ("0 1e40 0\n", "1e40"),
        ] {
            let out = run_in(
                None,
                &[command, arg(&cow), "--points", "-"],
                line.as_bytes(),
            );
            assert_clean_failure(&out, &format!("line 1: `{word}` is not a finite number"));
        }
        let out = run_in(None, &[command, arg(&cow), "--points", "-"], b"0 zero 0\n");
        assert_clean_failure(&out, "line 1: `zero` is not a number");
    }
}

#[test]
fn missing_points_file_or_option() {
    let cow = asset("cow.obj");
    for command in ["contains", "distance"] {
        let out = run(&[command, arg(&cow), "--points", "no-such-points.txt"]);
        assert_clean_failure(&out, "opening points file no-such-points.txt");
        let out = run(&[command, arg(&cow)]);
        assert_clean_failure(&out, "--points");
        assert_eq!(out.code, Some(2), "usage errors exit with 2");
        let out = run_in(
            None,
            &[command, "no-such-mesh.obj", "--points", "-"],
            b"0 0 0\n",
        );
        assert_clean_failure(&out, "no-such-mesh.obj");
    }
}

#[test]
fn bad_options() {
    let cow = asset("cow.obj");
    let out = dir_png("bad-size");
    for size in ["800", "0x600", "800x-6", "axb"] {
        let run = run(&["render", arg(&cow), "-o", &out, "--size", size]);
        assert_clean_failure(&run, size);
        assert_eq!(run.code, Some(2), "usage errors exit with 2");
    }
    assert_clean_failure(&run(&["pick", arg(&cow), "--pixel", "800,10"]), "outside");
    assert_clean_failure(&run(&["pick", arg(&cow), "--pixel", "a,b"]), "a,b");
    assert_clean_failure(
        &run(&["pick", arg(&cow), "--pixel", "1,1", "--eye", "1,2"]),
        "1,2",
    );
    assert_clean_failure(
        &run(&["pick", arg(&cow), "--pixel", "1,1", "--fov", "0"]),
        "--fov",
    );
    assert_clean_failure(
        &run(&["render", arg(&cow), "-o", &out, "--mode", "wireframe"]),
        "wireframe",
    );
    assert_clean_failure(&run(&["cast", arg(&cow)]), "--rays");
    assert_clean_failure(
        &run(&["cast", arg(&cow), "--rays", "-", "--any", "--all"]),
        "--all",
    );
    assert_clean_failure(
        &run(&[
            "cast",
            arg(&cow),
            "--rays",
            "-",
            "--t-min",
            "2",
            "--t-max",
            "1",
        ]),
        "--t-min",
    );
    assert_clean_failure(&run(&["frobnicate"]), "frobnicate");
    assert_clean_failure(&run(&["bench", arg(&cow), "--rays", "0"]), "--rays");
    let bunny = asset("stanford-bunny.obj");
    let huge = run(&["bench", arg(&bunny), "--subdivide", "6", "--runs", "1"]);
    assert_clean_failure(&huge, "more than");
}

#[test]
fn unwritable_output() {
    let out = run(&[
        "render",
        arg(&asset("cow.obj")),
        "-o",
        "/no/such/folder/out.png",
        "--size",
        "8x8",
    ]);
    assert_clean_failure(&out, "/no/such/folder/out.png");
}

#[test]
fn help_goes_to_stdout_and_succeeds() {
    for command in [
        &["--help"][..],
        &["cast", "--help"],
        &["contains", "--help"],
        &["distance", "--help"],
        &["render", "--help"],
        &["bench", "--help"],
    ] {
        let out = run(command);
        assert!(out.success, "{command:?}");
        assert!(out.stdout.contains("Usage"), "{command:?}: {}", out.stdout);
        assert!(out.stderr.is_empty());
    }
}

fn dir_png(test: &str) -> String {
    scratch(test).join("out.png").to_str().unwrap().to_owned()
}

/// Issue 72: a file larger than the memory the process may use is one line and a non-zero
/// exit, not an abort (signal 6). The files are sparse (8 GiB that take no disk), and an
/// address-space limit of 2 GB refuses, for an OBJ file, the buffer for its bytes, and for a
/// PLY file, streamed, the positions of the 500 million vertices its header declares.
#[cfg(target_os = "linux")]
#[test]
fn a_mesh_larger_than_memory_is_an_error_not_an_abort() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;

    let dir = scratch("out-of-memory");
    for (name, head, error) in [
        (
            "huge.obj",
            &b"v 0 0 0\n"[..],
            "out of memory: the file's bytes needs 8589934592 bytes",
        ),
        (
            "huge.ply",
            b"ply\nformat binary_little_endian 1.0\nelement vertex 500000000\n\
              property float x\nproperty float y\nproperty float z\nelement face 1\n\
              property list uchar int vertex_indices\nend_header\n",
            "out of memory: the PLY file's vertices needs 6000000000 bytes",
        ),
    ] {
        let file = dir.join(name);
        let mut mesh = std::fs::File::create(&file).unwrap();
        mesh.write_all(head).unwrap();
        mesh.set_len(8 << 30).unwrap();
        drop(mesh);
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2000000 && exec \"$0\" info \"$1\"")
            .arg(env!("CARGO_BIN_EXE_meshcast"))
            .arg(&file)
            .output()
            .expect("run meshcast under sh");
        assert_eq!(
            output.status.signal(),
            None,
            "{name} killed by a signal: {output:?}"
        );
        let out = crate::support::Run::from(output);
        assert_eq!(out.code, Some(1), "{name}: {}", out.stderr);
        assert_clean_failure(&out, error);
        assert!(out.stderr.contains(name), "{}", out.stderr);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
