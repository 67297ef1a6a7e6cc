//! The BVH cache: a mesh read back from its cache bytes (`Mesh::to_bytes` / `from_bytes`), its
//! cache file (`save` / `load`) or any path (`Mesh::from_path`) answers every ray bit for bit
//! like the mesh that wrote it, for both leaf tests, with its attributes and options kept; the
//! bytes are deterministic; and every damaged, truncated or foreign file is a typed error.

use meshcast::glam::{DVec3, Vec2, Vec3};
use meshcast::{
    BuildOptions, CacheProblem, CacheSection, DRay, Format, IoError, LeafTest, Mesh, MeshFiles,
    Quality, Ray, RayQueries, TriMesh, TriMeshFiles, VertexAttribute,
};
use meshcast_testkit::{
    adversarial_rays, asset, cube, incoherent_rays, random_rays, same_hit, temp_path,
};

/// Rays of every kind over `mesh`: random, incoherent, and aimed at edges and vertices.
fn rays(mesh: &Mesh, count: usize, seed: u64) -> Vec<Ray> {
    let triangles: Vec<_> = mesh.tri_mesh().triangles().collect();
    let mut rays = random_rays(mesh.bounds(), count, seed);
    rays.extend(incoherent_rays(mesh.bounds(), count, seed + 1));
    rays.extend(adversarial_rays(&triangles, count, seed + 2));
    rays
}

/// Every box and lane of the hierarchy as bits, and the leaf order.
fn tree_bits(mesh: &Mesh) -> (Vec<[u8; 256]>, Vec<u32>) {
    let nodes = mesh.bvh().nodes().iter().map(|n| n.to_le_bytes()).collect();
    (nodes, mesh.bvh().primitive_order().to_vec())
}

/// Checks that `loaded` is `original` as a cache keeps it, and answers every ray alike.
fn assert_same_mesh(original: &Mesh, loaded: &Mesh, rays: &[Ray]) {
    let (a, b) = (original.tri_mesh(), loaded.tri_mesh());
    assert_eq!(a.positions(), b.positions());
    assert_eq!(a.indices(), b.indices());
    assert_eq!(a.normals(), b.normals());
    assert_eq!(a.uvs(), b.uvs());
    assert_eq!(a.group_names(), b.group_names());
    assert!((0..a.triangle_count()).all(|t| a.triangle_group(t) == b.triangle_group(t)));
    assert_eq!(a.is_closed(), b.is_closed());
    assert_eq!(a.degenerate_count(), b.degenerate_count());
    assert_eq!(a.geometry_hash(), b.geometry_hash());
    assert_eq!(tree_bits(original), tree_bits(loaded));
    assert_eq!(original.bounds(), loaded.bounds());
    assert_eq!(original.bvh().stats().depth, loaded.bvh().stats().depth);
    assert_eq!(original.leaf_test(), loaded.leaf_test());
    assert_eq!(original.build_options(), loaded.build_options());
    assert_eq!(original.origin(), loaded.origin());
    for (i, ray) in rays.iter().enumerate() {
        assert!(
            same_hit(original.cast(ray), loaded.cast(ray)),
            "ray {i}: {ray:?}"
        );
        assert_eq!(original.occluded(ray), loaded.occluded(ray), "ray {i}");
        let (all_a, all_b) = (original.cast_all(ray), loaded.cast_all(ray));
        assert_eq!(all_a.len(), all_b.len(), "ray {i}");
        assert!(all_a
            .iter()
            .zip(&all_b)
            .all(|(x, y)| same_hit(Some(*x), Some(*y))));
    }
}

/// The cube with normals, texture coordinates and two groups on every other triangle.
fn decorated_cube() -> TriMesh {
    let mesh = cube(1.0, 2);
    let triangles = mesh.indices().to_vec();
    let count = triangles.len();
    let normals: Vec<Vec3> = mesh.positions().iter().map(|p| p.normalize()).collect();
    let uvs: Vec<Vec2> = mesh.positions().iter().map(|p| p.truncate()).collect();
    let mut uv_corners: Vec<Option<[u32; 3]>> = triangles.iter().copied().map(Some).collect();
    uv_corners[3] = None;
    let groups = (0..count as u32).map(|t| t % 2).collect();
    mesh.with_normals(VertexAttribute::per_vertex(normals, &triangles))
        .and_then(|m| m.with_uvs(VertexAttribute::new(uvs, uv_corners)))
        .and_then(|m| m.with_groups(vec!["even".into(), "odd".into()], groups))
        .expect("valid attributes")
}

#[test]
fn round_trips_answer_bit_for_bit_like_the_original() {
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny");
    let suzanne = TriMesh::from_obj(asset("suzanne.obj")).expect("suzanne has normals");
    let spot = TriMesh::from_obj(asset("spot.obj")).expect("spot has texture coordinates");
    assert!(suzanne.normals().is_some() && spot.uvs().is_some());
    let high = BuildOptions {
        quality: Quality::High,
        bins: 8,
        ..BuildOptions::default()
    };
    let cases = [
        ("bunny", bunny, BuildOptions::default()),
        ("suzanne", suzanne, high),
        ("spot", spot, BuildOptions::default()),
        (
            "cube",
            decorated_cube(),
            BuildOptions {
                quality: Quality::Fast,
                ..BuildOptions::default()
            },
        ),
    ];
    for (name, tri_mesh, options) in cases {
        for leaf_test in [LeafTest::Watertight, LeafTest::Transform] {
            let original =
                Mesh::from_tri_mesh(tri_mesh.clone(), &options).with_leaf_test(leaf_test);
            let rays = rays(&original, 1500, 7);
            let bytes = original.to_bytes();
            let from_bytes = Mesh::from_bytes(&bytes).expect("cache bytes load");
            assert_same_mesh(&original, &from_bytes, &rays);

            let path = temp_path(&format!(
                "{name}-{leaf_test:?}.{}",
                meshcast::CACHE_EXTENSION
            ));
            original.save(&path).expect("saved");
            assert_eq!(std::fs::read(&path).expect("written"), bytes);
            assert_same_mesh(&original, &Mesh::load(&path).expect("loads"), &rays);
            assert_same_mesh(&original, &Mesh::from_path(&path).expect("loads"), &rays);
            // Without the extension, the magic number tells.
            let unnamed = temp_path(&format!("{name}-{leaf_test:?}.data"));
            std::fs::rename(&path, &unnamed).expect("renamed");
            assert_same_mesh(&original, &Mesh::from_path(&unnamed).expect("loads"), &rays);
            let flat = TriMesh::from_path(&unnamed).expect("a cache is a mesh file");
            assert_eq!(flat.indices(), tri_mesh.indices());
            std::fs::remove_file(&unnamed).expect("removed");
        }
    }
}

#[test]
fn a_far_mesh_keeps_its_origin_through_the_cache() {
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny");
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    let positions: Vec<[f64; 3]> = bunny
        .positions()
        .iter()
        .map(|p| (p.as_dvec3() + offset).to_array())
        .collect();
    let far = Mesh::from_world_triangles(&positions, bunny.indices()).expect("a far bunny");
    assert_ne!(far.origin(), DVec3::ZERO);
    let loaded = Mesh::from_bytes(&far.to_bytes()).expect("cache bytes load");
    assert_same_mesh(&far, &loaded, &rays(&far, 500, 57));
    let down = DRay::new(
        far.to_world(far.bounds().centroid()) + DVec3::Z,
        DVec3::NEG_Z,
    );
    assert_eq!(far.cast(&down), loaded.cast(&down));
}

#[test]
fn cache_bytes_are_deterministic() {
    let tri_mesh = TriMesh::from_obj(asset("cow.obj")).expect("cow");
    let mesh = Mesh::from_tri_mesh(tri_mesh.clone(), &BuildOptions::default());
    let bytes = mesh.to_bytes();
    assert_eq!(mesh.to_bytes(), bytes);
    assert_eq!(Mesh::from_bytes(&bytes).expect("loads").to_bytes(), bytes);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let again = pool
            .install(|| Mesh::from_tri_mesh(tri_mesh.clone(), &BuildOptions::default()).to_bytes());
        assert_eq!(again, bytes, "{threads} threads");
    }
    assert_eq!(Format::detect(&bytes), Some(Format::Cache));
}

/// Whether loading `bytes` fails with an `IoError::Cache` (never a panic: a panic fails the
/// test).
fn is_cache_error(bytes: &[u8]) -> bool {
    matches!(Mesh::from_bytes(bytes), Err(IoError::Cache { .. }))
}

#[test]
fn every_flipped_byte_is_an_error() {
    let mesh = Mesh::from_tri_mesh(decorated_cube(), &BuildOptions::default());
    let bytes = mesh.to_bytes();
    assert!(
        bytes.len() > 4000,
        "every section is exercised: {}",
        bytes.len()
    );
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            assert!(is_cache_error(&damaged), "byte {at} ^ {flip:#x}");
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = Mesh::from_tri_mesh(decorated_cube(), &BuildOptions::default()).to_bytes();
    for length in 0..bytes.len() {
        assert!(is_cache_error(&bytes[..length]), "length {length}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let err = Mesh::from_bytes(&longer).unwrap_err();
    assert!(matches!(
        err,
        IoError::Cache {
            problem: CacheProblem::TrailingBytes { count: 1 },
            ..
        }
    ));
}

#[test]
fn damage_is_named_by_its_section() {
    let mesh = Mesh::from_tri_mesh(decorated_cube(), &BuildOptions::default());
    let bytes = mesh.to_bytes();
    // The last byte is in the leaf order; the 300th in the positions.
    let mut damaged = bytes.clone();
    *damaged.last_mut().expect("bytes") ^= 4;
    let err = Mesh::from_bytes(&damaged).unwrap_err();
    assert!(matches!(
        err,
        IoError::Cache {
            problem: CacheProblem::ChecksumMismatch {
                section: CacheSection::PrimitiveOrder
            },
            ..
        }
    ));
    let mut damaged = bytes.clone();
    damaged[300] ^= 4;
    let message = Mesh::from_bytes(&damaged).unwrap_err().to_string();
    assert_eq!(
        message,
        "<bytes>: byte 240: cache positions do not match their checksum: the file is damaged"
    );
}

#[test]
fn other_versions_and_foreign_files_are_typed_errors() {
    let bytes = Mesh::from_tri_mesh(cube(1.0, 0), &BuildOptions::default()).to_bytes();
    for version in [0u32, 1, 3, u32::MAX] {
        let mut other = bytes.clone();
        other[12..16].copy_from_slice(&version.to_le_bytes());
        let err = Mesh::from_bytes(&other).unwrap_err();
        assert!(
            matches!(
                &err,
                IoError::Cache {
                    problem: CacheProblem::UnsupportedVersion { found, supported: 2 },
                    ..
                } if *found == version
            ),
            "{err}"
        );
    }
    let mut swapped = bytes.clone();
    swapped[8..12].reverse();
    assert!(matches!(
        Mesh::from_bytes(&swapped),
        Err(IoError::Cache {
            problem: CacheProblem::WrongEndianness,
            ..
        })
    ));
    for foreign in [&b""[..], b"v 0 0 0\n", b"MESHCAST"] {
        assert!(is_cache_error(foreign));
    }
    let err = Mesh::from_bytes(b"solid cube\n").unwrap_err();
    assert!(matches!(
        err,
        IoError::Cache {
            problem: CacheProblem::NotACache,
            ..
        }
    ));
    // A cache's extension on another file: `Mesh::load` reads only caches.
    let path = temp_path("not-a-cache.mcache");
    std::fs::write(&path, "v 0 0 0\n").expect("written");
    let err = Mesh::load(&path).unwrap_err();
    assert!(err.to_string().contains("not-a-cache.mcache"), "{err}");
    assert!(matches!(
        err,
        IoError::Cache {
            problem: CacheProblem::NotACache,
            ..
        }
    ));
}

#[test]
fn save_replaces_the_file_whole_and_reports_io_errors() {
    let mesh = Mesh::from_tri_mesh(cube(1.0, 1), &BuildOptions::default());
    let path = temp_path("replaced.mcache");
    std::fs::write(&path, "old").expect("written");
    mesh.save(&path).expect("saved");
    assert_eq!(std::fs::read(&path).expect("read"), mesh.to_bytes());
    let folder = path.parent().expect("a folder");
    let leftovers = std::fs::read_dir(folder)
        .expect("listed")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(leftovers, 0, "no temporary file is left behind");
    let missing = folder.join("no-such-folder").join("mesh.mcache");
    assert!(matches!(mesh.save(&missing), Err(IoError::Io { path, .. }) if path == missing));
    assert!(matches!(Mesh::load(&missing), Err(IoError::Io { .. })));
}
