//! `meshcast bench` on bundled meshes: every figure of its JSON report, every node kernel
//! this CPU runs and every build quality.

use crate::support::{arg, run};
use meshcast::{Mesh, MeshFiles};
use meshcast_testkit::asset;

/// `meshcast bench` on the cow with `rays` rays per set, one run, `options` and `--json`: its
/// report, once the command is asserted to have succeeded (`label` names the case).
fn bench_json(label: &str, rays: &str, options: &[&str]) -> serde_json::Value {
    let cow = asset("cow.obj");
    let mut args = vec!["bench", arg(&cow), "--rays", rays, "--runs", "1"];
    args.extend(options);
    args.push("--json");
    let out = run(&args);
    assert!(out.success, "{label}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("valid JSON")
}

#[test]
fn bench_json_has_every_figure() {
    let doc = bench_json("two threads", "2000", &["--threads", "2"]);
    let mesh = &doc["meshes"][0];
    assert_eq!(
        mesh["triangles"],
        Mesh::from_obj(asset("cow.obj")).unwrap().triangle_count()
    );
    for key in [
        "load_ms",
        "build_ms",
        "build_mtris_per_s",
        "bvh_bytes_per_triangle",
    ] {
        assert!(mesh[key].as_f64().is_some_and(|v| v > 0.0), "{key}: {mesh}");
    }
    let figures = mesh["throughput"].as_array().unwrap();
    assert_eq!(
        figures.len(),
        16,
        "coherent/incoherent x single/batch x closest/any x 1/all threads"
    );
    for figure in figures {
        assert!(
            figure["mrays_per_s"].as_f64().is_some_and(|v| v > 0.0),
            "{figure}"
        );
        assert!(figure["hits"].as_u64().is_some_and(|h| h > 0), "{figure}");
    }
    // Each ray set, query and pool is measured both ways, and both ways answer alike.
    for rays in ["coherent", "incoherent"] {
        for query in ["closest", "any"] {
            for threads in [1, 2] {
                let hits = |method: &str| {
                    let found: Vec<_> = figures
                        .iter()
                        .filter(|f| {
                            f["rays"] == rays
                                && f["query"] == query
                                && f["threads"] == threads
                                && f["method"] == method
                        })
                        .collect();
                    assert_eq!(found.len(), 1, "{rays} {query} {threads} {method}");
                    found[0]["hits"].as_u64()
                };
                assert_eq!(hits("single"), hits("batch"), "{rays} {query} {threads}");
            }
        }
    }

    // The transform leaf test keeps more bytes per triangle and says so.
    let transform = bench_json("transform", "500", &["--leaf-test", "transform"]);
    assert_eq!(doc["leaf_test"], "watertight");
    assert_eq!(transform["leaf_test"], "transform");
    let bytes = |doc: &serde_json::Value| doc["meshes"][0]["bvh_bytes_per_triangle"].as_f64();
    assert!(bytes(&transform) > bytes(&doc), "{transform}");

    let table = run(&[
        "bench",
        arg(&asset("cow.obj")),
        "--rays",
        "500",
        "--runs",
        "1",
        "--subdivide",
        "1",
    ]);
    assert!(table.success, "{}", table.stderr);
    assert!(
        table.stdout.contains("subdivided 1 time"),
        "{}",
        table.stdout
    );
    // One row per ray set and query, asked one ray at a time and then as one batch.
    let rows: Vec<String> = table
        .stdout
        .lines()
        .filter(|line| line.ends_with('%'))
        .map(|line| {
            let words = line.split_whitespace();
            let label: Vec<&str> = words.take_while(|w| w.parse::<f64>().is_err()).collect();
            label.join(" ")
        })
        .collect();
    assert_eq!(
        rows,
        [
            "coherent closest",
            "coherent any",
            "coherent closest (packets)",
            "coherent any (packets)",
            "incoherent closest",
            "incoherent any",
            "incoherent closest (batch)",
            "incoherent any (batch)",
        ],
        "{}",
        table.stdout
    );
}

#[test]
fn bench_counts_visits_with_every_kernel_and_rejects_unknown_ones() {
    for kernel in meshcast::Kernel::supported() {
        let options = ["--kernel", kernel.name(), "--counters"];
        let doc = bench_json(kernel.name(), "1000", &options);
        let mesh = &doc["meshes"][0];
        assert_eq!(mesh["kernel"], kernel.name());
        let counters = mesh["counters"].as_array().unwrap();
        assert_eq!(counters.len(), 4, "coherent/incoherent x closest/any");
        for c in counters {
            let nodes = c["nodes_per_ray"].as_f64().unwrap();
            let blocks = c["blocks_per_ray"].as_f64().unwrap();
            // Every ray tests the root; random rays aimed at the mesh reach leaves.
            assert!(nodes >= 1.0, "{c}");
            if c["rays"] == "incoherent" {
                assert!(blocks > 0.5, "{c}");
            }
        }
    }
    let out = run(&["bench", arg(&asset("cow.obj")), "--kernel", "sse9"]);
    assert!(!out.success);
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains("sse9"), "{}", out.stderr);
}

#[test]
fn bench_takes_every_build_quality() {
    for quality in ["fast", "balanced", "high"] {
        let doc = bench_json(quality, "500", &["--threads", "1", "--quality", quality]);
        assert_eq!(doc["quality"], quality);
        let figures = doc["meshes"][0]["throughput"].as_array().unwrap();
        assert!(
            figures
                .iter()
                .all(|f| f["hits"].as_u64().is_some_and(|h| h > 0)),
            "{quality}: {doc}"
        );
    }
    let bad = run(&["bench", arg(&asset("cow.obj")), "--quality", "best"]);
    assert!(!bad.success);
    assert!(bad.stderr.contains("--quality"), "{}", bad.stderr);
}
