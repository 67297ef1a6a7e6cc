//! `meshcast build` writes a cache that every command takes in place of the mesh, with the
//! same answers and no build.

use crate::support::{arg, assert_clean_failure, run, scratch};
use meshcast::{Mesh, MeshFiles, Quality, RayQueries};
use meshcast_testkit::{asset, incoherent_rays};

#[test]
fn build_writes_a_cache_that_commands_load_without_a_build() {
    let dir = scratch("cache-build");
    let obj = asset("cow.obj");
    let cache = dir.join("cow.mcache");
    let built = run(&["build", arg(&obj), "-o", arg(&cache), "--quality", "high"]);
    assert!(built.success, "{}", built.stderr);
    let mesh = Mesh::load(&cache).expect("a cache");
    assert_eq!(mesh.build_options().quality, Quality::High);
    assert!(built
        .stdout
        .contains(&format!("triangles      {}", mesh.triangle_count())));
    assert!(
        built.stdout.contains("bytes per triangle"),
        "{}",
        built.stdout
    );

    // A cache under any name: the magic number tells.
    let renamed = dir.join("cow.bin");
    std::fs::copy(&cache, &renamed).expect("copied");
    for path in [&cache, &renamed] {
        let info = run(&["info", arg(path)]);
        assert!(info.success, "{}", info.stderr);
        assert!(
            info.stdout.contains("loaded from a cache (high quality)"),
            "{}",
            info.stdout
        );
    }

    let rays = incoherent_rays(mesh.bounds(), 200, 3);
    let lines: String = rays
        .iter()
        .map(|r| {
            let (o, d) = (r.origin, r.dir);
            format!("{} {} {} {} {} {}\n", o.x, o.y, o.z, d.x, d.y, d.z)
        })
        .collect();
    let file = dir.join("rays.txt");
    std::fs::write(&file, lines).expect("written");
    let from_cache = run(&["cast", arg(&cache), "--rays", arg(&file)]);
    assert!(from_cache.success, "{}", from_cache.stderr);
    let hits = from_cache
        .stdout
        .lines()
        .filter(|l| !l.starts_with("miss"))
        .count();
    let expected = rays.iter().filter(|r| mesh.cast(*r).is_some()).count();
    assert_eq!(hits, expected);
    assert!(hits > 0);
}

#[test]
fn a_damaged_cache_is_a_clean_error() {
    let dir = scratch("cache-damaged");
    let cache = dir.join("woody.mcache");
    let built = run(&["build", arg(&asset("woody.obj")), "-o", arg(&cache)]);
    assert!(built.success, "{}", built.stderr);
    let mut bytes = std::fs::read(&cache).expect("written");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&cache, bytes).expect("written");
    let info = run(&["info", arg(&cache)]);
    assert_clean_failure(&info, "do not match their checksum");
    let missing = run(&[
        "build",
        arg(&asset("woody.obj")),
        "-o",
        arg(&dir.join("no/such.mcache")),
    ]);
    assert_clean_failure(&missing, "no/such.mcache");
}
