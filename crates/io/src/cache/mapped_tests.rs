//! The cache read from a mapping and from a copy of the file: the same mesh, bit for bit,
//! and the same errors for damaged files.

use std::path::PathBuf;

use super::*;
use crate::mapped::{file_bytes, CacheRead, FileBytes};
use crate::MeshFiles;

/// A bumpy grid of 2 (n - 1)^2 triangles, large enough that its cache is mapped.
fn grid(n: u32) -> Mesh {
    let corners: Vec<[f32; 3]> = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32, (i / n) as f32);
            [x, y, (x * 0.7).sin() * (y * 0.3).cos()]
        })
        .collect();
    let mut triangles = Vec::new();
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let i = y * n + x;
            triangles.push([i, i + 1, i + n]);
            triangles.push([i + 1, i + n + 1, i + n]);
        }
    }
    Mesh::from_triangles(&corners, &triangles).expect("a valid grid")
}

/// A file of `bytes` in the temporary folder, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> Self {
        let file = format!("meshcast-mapped-{}-{name}.mcache", std::process::id());
        let path = std::env::temp_dir().join(file);
        std::fs::write(&path, bytes).expect("a temporary file");
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The mesh in the file at `path`, its bytes brought in as `how` says.
fn open(path: &std::path::Path, how: CacheRead) -> Result<Mesh> {
    let bytes = file_bytes(path, how)?;
    assert_eq!(
        matches!(bytes, FileBytes::Mapped(_)),
        how == CacheRead::Map,
        "a file this large is mapped when asked"
    );
    read_file_bytes(bytes, Source::file(path))
}

#[test]
fn mapped_and_read_caches_give_the_same_mesh() {
    let mesh = grid(60);
    let bytes = mesh.to_bytes();
    assert!(bytes.len() > 1 << 16);
    let file = TempFile::new("same", &bytes);
    let mapped = open(&file.0, CacheRead::Map).expect("mapped");
    let read = open(&file.0, CacheRead::Read).expect("read");
    for loaded in [&mapped, &read] {
        assert_eq!(loaded.to_bytes(), bytes);
        assert_eq!(loaded.bvh().nodes(), mesh.bvh().nodes());
        assert_eq!(loaded.bvh().primitive_order(), mesh.bvh().primitive_order());
        assert_eq!(
            loaded.tri_mesh().degenerate_count(),
            mesh.tri_mesh().degenerate_count()
        );
    }
    assert_eq!(Mesh::load(&file.0).expect("load").to_bytes(), bytes);
    assert_eq!(
        Mesh::from_path(&file.0).expect("from_path").to_bytes(),
        bytes
    );
}

#[test]
fn mapped_caches_answer_as_the_built_mesh_for_both_leaf_tests() {
    use meshcast_mesh::{LeafTest, RayQueries};
    use meshcast_primitives::Ray;

    let rays: Vec<Ray> = (0..400)
        .map(|i| {
            let (x, y) = ((i % 20) as f32 * 2.9 + 0.3, (i / 20) as f32 * 2.9 + 0.2);
            Ray::new(
                glam::Vec3::new(x, y, 5.0),
                glam::Vec3::new(0.1, -0.05, -1.0),
            )
        })
        .collect();
    for leaf_test in [LeafTest::Watertight, LeafTest::Transform] {
        let built = grid(60).with_leaf_test(leaf_test);
        let file = TempFile::new("answers", &built.to_bytes());
        let loaded = open(&file.0, CacheRead::Map).expect("mapped");
        assert_eq!(loaded.leaf_test(), leaf_test);
        let mut hits = 0;
        for ray in &rays {
            let (a, b) = (built.cast(ray), loaded.cast(ray));
            assert_eq!(
                a.map(|h| (h.triangle, h.t.to_bits())),
                b.map(|h| (h.triangle, h.t.to_bits()))
            );
            hits += usize::from(a.is_some());
        }
        assert!(hits > 300, "{hits} of the rays hit");
    }
}

#[test]
fn damaged_mapped_caches_are_errors() {
    let bytes = grid(60).to_bytes();
    let truncated = TempFile::new("truncated", &bytes[..bytes.len() - 100]);
    let mut flipped = bytes.clone();
    flipped[header::HEADER_BYTES + 1000] ^= 1;
    let flipped = TempFile::new("flipped", &flipped);
    for how in [CacheRead::Map, CacheRead::Read] {
        assert!(matches!(
            open(&truncated.0, how),
            Err(Error::Cache {
                problem: CacheProblem::Truncated { .. },
                ..
            })
        ));
        assert!(matches!(
            open(&flipped.0, how),
            Err(Error::Cache {
                problem: CacheProblem::ChecksumMismatch {
                    section: CacheSection::Positions
                },
                ..
            })
        ));
    }
}
