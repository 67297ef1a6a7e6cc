//! The repository's meshes, an independent reading of OBJ text to check the loader against,
//! and scratch paths for generated files.

use std::path::{Path, PathBuf};

use meshcast::glam::Vec3;
use meshcast::Aabb;

/// The repository's `assets/` folder.
pub fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
}

/// An asset by file name.
pub fn asset(name: &str) -> PathBuf {
    assets_dir().join(name)
}

/// Every `.obj` file in `assets/`, sorted by name.
pub fn all_assets() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(assets_dir())
        .expect("assets/ exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "obj"))
        .collect();
    paths.sort();
    paths
}

/// A fresh path in the system's temporary folder (per process and name), for generated files.
pub fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshcast-testkit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir.join(name)
}

/// Counts an OBJ text's triangles without any loader: a face line (`f`) with `n` corners is
/// `n - 2` triangles.
pub fn count_obj_triangles(text: &str) -> usize {
    text.lines()
        .map(|line| {
            let mut words = line.split_whitespace();
            if words.next() == Some("f") {
                words.count().saturating_sub(2)
            } else {
                0
            }
        })
        .sum()
}

/// The box of every vertex (`v` line) of an OBJ text, parsed here independently.
pub fn obj_vertex_bounds(text: &str) -> Aabb {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("v")).then(|| {
                let c: Vec<f32> = words
                    .take(3)
                    .map(|w| w.parse().expect("a number"))
                    .collect();
                Vec3::new(c[0], c[1], c[2])
            })
        })
        .fold(Aabb::EMPTY, Aabb::grow)
}
