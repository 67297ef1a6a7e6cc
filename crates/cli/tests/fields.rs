//! `meshcast sdf` and `meshcast sample`: their files and lines hold what the library
//! answers, and bad arguments end with one `error:` line.

use crate::support::{arg, assert_clean_failure, run, scratch};
use meshcast::glam::Vec3;
use meshcast::{Aabb, Mesh, MeshFiles};
use meshcast_testkit::asset;

/// An NPY file's shape and `<f4` values, read by its documented layout (format 1.0).
fn read_npy(bytes: &[u8]) -> (Vec<usize>, Vec<f32>) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "magic and version");
    let length = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + length) % 64, 0, "the data starts aligned");
    let header = std::str::from_utf8(&bytes[10..10 + length]).expect("an ASCII header");
    assert!(header.contains("'descr': '<f4'") && header.contains("'fortran_order': False"));
    let tuple = &header[header.find("'shape': (").expect("a shape") + 10..];
    let shape = tuple[..tuple.find(')').expect("a closed tuple")]
        .split(',')
        .filter(|n| !n.trim().is_empty())
        .map(|n| n.trim().parse().expect("a count"))
        .collect();
    let values = bytes[10 + length..]
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    (shape, values)
}

/// The numbers after a line's label.
fn numbers(stdout: &str, label: &str) -> Vec<f32> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label} line in {stdout}"));
    line[label.len()..]
        .split_whitespace()
        .map(|n| n.parse().expect("a number"))
        .collect()
}

#[test]
fn sdf_writes_the_librarys_grid_as_npy() {
    let path = asset("cow.obj");
    let mesh = Mesh::from_path(&path).expect("cow");
    let dir = scratch("sdf");
    for (shape_arg, band, shape) in [("6,5,4", None, [6, 5, 4]), ("5", Some("0.05"), [5, 5, 5])] {
        let out_file = dir.join("grid.npy");
        let mut args = vec![
            "sdf",
            arg(&path),
            "--shape",
            shape_arg,
            "--out",
            arg(&out_file),
        ];
        if let Some(band) = band {
            args.extend(["--band", band]);
        }
        let out = run(&args);
        assert!(out.success, "{}", out.stderr);
        assert_eq!(numbers(&out.stdout, "shape"), shape.map(|n| n as f32));
        let corners = numbers(&out.stdout, "bounds");
        let bounds = Aabb::new(
            Vec3::from_slice(&corners[..3]),
            Vec3::from_slice(&corners[3..]),
        );
        // The default padding: a tenth of the longest side.
        let margin = mesh.bounds().extent().max_element() * 0.1;
        assert_eq!(bounds.min, mesh.bounds().min - Vec3::splat(margin));

        let (read_shape, values) = read_npy(&std::fs::read(&out_file).expect("the file"));
        assert_eq!(read_shape, shape);
        let band = band.map(|b| b.parse().expect("a number"));
        let want = mesh.signed_distance_grid(bounds, shape, band);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&values), bits(&want));
        assert!(values.iter().any(|&d| d < 0.0) && values.iter().any(|&d| d > 0.0));
    }
}

#[test]
fn sample_prints_the_librarys_points() {
    let path = asset("spot.obj");
    let mesh = Mesh::from_path(&path).expect("spot");
    for even in [None, Some(None), Some(Some("0.02"))] {
        let mut args = vec!["sample", arg(&path), "-n", "300", "--seed", "7"];
        match even {
            Some(Some(radius)) => args.extend(["--even", radius]),
            Some(None) => args.push("--even"),
            None => {}
        }
        let out = run(&args);
        assert!(out.success, "{}", out.stderr);
        let want = match even {
            None => mesh.sample_surface(300, 7),
            Some(radius) => {
                let radius = radius.map(|r| r.parse().expect("a number"));
                mesh.sample_surface_even(300, radius, 7)
                    .expect("a valid radius")
            }
        };
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert_eq!(lines.len(), want.len());
        assert!(want.len() > 200);
        for (line, (p, t)) in lines.iter().zip(want.points.iter().zip(&want.triangles)) {
            let words: Vec<&str> = line.split(' ').collect();
            let xyz: Vec<f32> = words[..3]
                .iter()
                .map(|w| w.parse().expect("a float"))
                .collect();
            assert_eq!(Vec3::from_slice(&xyz), *p, "{line}");
            assert_eq!(words[3], t.to_string(), "{line}");
        }
    }
}

#[test]
fn bad_field_arguments_end_with_one_error_line() {
    let cow = asset("cow.obj");
    let dir = scratch("sdf-errors");
    let out_file = dir.join("grid.npy");
    let sdf = |extra: &[&str]| {
        let mut args = vec!["sdf", arg(&cow), "--out", arg(&out_file)];
        args.extend(extra);
        run(&args)
    };
    assert_clean_failure(&sdf(&["--shape", "0"]), "--shape");
    assert_clean_failure(&sdf(&["--shape", "4,5"]), "--shape");
    assert_clean_failure(&sdf(&["--shape", "99999999999"]), "--shape");
    assert_clean_failure(&sdf(&["--shape", "4", "--band", "-1"]), "--band");
    assert_clean_failure(&sdf(&["--shape", "4", "--padding", "NaN"]), "--padding");
    let nowhere = dir.join("no-such-folder").join("grid.npy");
    let out = run(&["sdf", arg(&cow), "--shape", "3", "--out", arg(&nowhere)]);
    assert_clean_failure(&out, "no-such-folder");
    assert_clean_failure(&run(&["sdf", arg(&cow), "--shape", "3"]), "--out");

    assert_clean_failure(&run(&["sample", arg(&cow)]), "-n");
    assert_clean_failure(
        &run(&["sample", arg(&cow), "-n", "10", "--even", "-1"]),
        "radius",
    );
    assert_clean_failure(
        &run(&["sample", "no-such-mesh.obj", "-n", "10"]),
        "no-such-mesh.obj",
    );
}
