//! Bad input ends with one clear line on stderr and a non-zero exit, never a panic.

mod support;

use meshcast_testkit::asset;
use support::{arg, assert_clean_failure, run, run_in, scratch};

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
