//! Forged caches: headers and sections whose checksums were made to match, as a hostile
//! writer would, are still refused with typed errors, without large allocations.

use super::header::{Header, HEADER_BYTES};
use super::*;
use crate::MeshFiles;
use crate::{CacheProblem, CacheSection};

/// A small closed mesh: a tetrahedron.
fn tetrahedron() -> Mesh {
    let corners = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    Mesh::from_triangles(&corners, &[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).expect("valid")
}

/// Makes every checksum and the geometry hash match the bytes, as a forger would.
fn reseal(bytes: &mut [u8]) {
    let sum_at = HEADER_BYTES - 8;
    let seal = |bytes: &mut [u8]| {
        let sum = checksum(&bytes[..sum_at]);
        bytes[sum_at..HEADER_BYTES].copy_from_slice(&sum.to_le_bytes());
    };
    seal(bytes);
    let header = Header::decode(bytes).expect("a readable header");
    let lengths = header.section_lengths().expect("consistent counts");
    let mut start = HEADER_BYTES;
    let mut sums = Vec::new();
    for length in lengths {
        let end = (start + length as usize).min(bytes.len());
        sums.push(checksum(&bytes[start.min(end)..end]));
        start = end;
    }
    for (i, sum) in sums.iter().enumerate() {
        bytes[128 + 8 * i..136 + 8 * i].copy_from_slice(&sum.to_le_bytes());
    }
    let hash = geometry_hash(sums[0], sums[1]);
    bytes[120..128].copy_from_slice(&hash.to_le_bytes());
    seal(bytes);
}

fn problem(bytes: &[u8]) -> CacheProblem {
    match Mesh::from_bytes(bytes) {
        Err(Error::Cache { problem, .. }) => problem,
        other => panic!("expected a cache error, got {other:?}"),
    }
}

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Makes the header's checksum match the header (only).
fn seal_header(bytes: &mut [u8]) {
    let sum = checksum(&bytes[..HEADER_BYTES - 8]);
    set_u64(bytes, HEADER_BYTES - 8, sum);
}

#[test]
fn resealed_bytes_load() {
    let mut bytes = tetrahedron().to_bytes();
    reseal(&mut bytes);
    let mesh = Mesh::from_bytes(&bytes).expect("unchanged bytes load");
    assert!(mesh.is_closed());
    assert_eq!(mesh.tri_mesh().degenerate_count(), 0);
}

#[test]
fn huge_counts_are_refused_before_any_allocation() {
    // Counts: vertices at 56, triangles at 64, nodes at 104, slots at 112.
    for (at, value) in [
        (56, u64::from(u32::MAX)),
        (64, u64::from(u32::MAX)),
        (104, u64::MAX / 256),
        (112, u64::MAX / 4),
    ] {
        let mut bytes = tetrahedron().to_bytes();
        set_u64(&mut bytes, at, value);
        seal_header(&mut bytes);
        assert!(
            matches!(problem(&bytes), CacheProblem::Truncated { .. }),
            "count at {at}"
        );
    }
    for (at, value) in [(56, 1u64 << 40), (104, u64::MAX), (72, 5)] {
        let mut bytes = tetrahedron().to_bytes();
        set_u64(&mut bytes, at, value);
        seal_header(&mut bytes);
        assert!(
            matches!(problem(&bytes), CacheProblem::InconsistentCount { .. }),
            "count at {at}"
        );
    }
}

#[test]
fn forged_fields_are_refused() {
    let bytes = tetrahedron().to_bytes();
    for (at, value, field) in [
        (32, 2u8, "leaf test"),
        (33, 3, "quality"),
        (34, 16, "flags"),
    ] {
        let mut forged = bytes.clone();
        forged[at] = value;
        seal_header(&mut forged);
        assert_eq!(
            problem(&forged),
            CacheProblem::InvalidField {
                field,
                value: value.into()
            }
        );
    }
    let mut forged = bytes.clone();
    forged[36..40].copy_from_slice(&f32::NAN.to_le_bytes());
    seal_header(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::InvalidField {
            field: "traversal cost",
            ..
        }
    ));
    let mut forged = bytes.clone();
    forged[20..24].copy_from_slice(&128u32.to_le_bytes());
    seal_header(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::UnsupportedLayout {
            what: "node bytes",
            found: 128,
            expected: 256
        }
    ));
    for (axis, value) in [(0, f64::NAN), (2, f64::INFINITY)] {
        let mut forged = bytes.clone();
        let at = 208 + 8 * axis;
        set_u64(&mut forged, at, value.to_bits());
        seal_header(&mut forged);
        assert_eq!(
            problem(&forged),
            CacheProblem::InvalidField {
                field: "origin",
                value: value.to_bits()
            },
            "origin axis {axis}"
        );
    }
    let mut forged = bytes.clone();
    set_u64(&mut forged, 120, 42);
    seal_header(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::GeometryHashMismatch { stored: 42, .. }
    ));
}

#[test]
fn forged_geometry_is_refused() {
    let bytes = tetrahedron().to_bytes();
    let positions = HEADER_BYTES;
    let indices = positions + 4 * 12;
    let mut forged = bytes.clone();
    forged[positions + 12..positions + 16].copy_from_slice(&f32::INFINITY.to_le_bytes());
    reseal(&mut forged);
    assert_eq!(
        problem(&forged),
        CacheProblem::NonFiniteValue {
            section: CacheSection::Positions,
            index: 1
        }
    );
    let mut forged = bytes.clone();
    forged[indices + 16..indices + 20].copy_from_slice(&9u32.to_le_bytes());
    reseal(&mut forged);
    assert_eq!(
        problem(&forged),
        CacheProblem::IndexOutOfRange {
            section: CacheSection::Indices,
            element: 1,
            index: 9,
            count: 4
        }
    );
    // A triangle made degenerate: the hierarchy holds a triangle a build drops.
    let mut forged = bytes.clone();
    forged[indices + 12..indices + 24].copy_from_slice(&[0; 12]);
    reseal(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::InvalidTree(meshcast_bvh::Error::PrimitiveDropped { primitive: 1 })
    ));
    // A vertex moved out of its leaf's box.
    let mut forged = bytes.clone();
    forged[positions..positions + 4].copy_from_slice(&(-5.0f32).to_le_bytes());
    reseal(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::InvalidTree(meshcast_bvh::Error::GroupNotContained { .. })
    ));
}

#[test]
fn forged_trees_are_refused() {
    let bytes = tetrahedron().to_bytes();
    let order_at = bytes.len() - 4 * tetrahedron().bvh().primitive_order().len();
    let nodes_at = order_at - 256;
    // A slot naming a triangle twice.
    let mut forged = bytes.clone();
    let first: [u8; 4] = forged[order_at..order_at + 4].try_into().expect("4 bytes");
    forged[order_at + 4..order_at + 8].copy_from_slice(&first);
    reseal(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::InvalidTree(meshcast_bvh::Error::PrimitiveRepeated { .. })
    ));
    // The root's first lane made a child of itself.
    let mut forged = bytes.clone();
    let count_at = nodes_at + 4 * (48 + 8);
    forged[count_at..count_at + 4].copy_from_slice(&0u32.to_le_bytes());
    reseal(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::InvalidTree(meshcast_bvh::Error::ChildOutOfRange { .. })
    ));
    // An empty lane given a box a ray could enter.
    let mut forged = bytes.clone();
    let lane = 7;
    forged[nodes_at + 4 * lane..nodes_at + 4 * lane + 4].copy_from_slice(&0f32.to_le_bytes());
    reseal(&mut forged);
    assert!(matches!(
        problem(&forged),
        CacheProblem::InvalidTree(meshcast_bvh::Error::MalformedLane { node: 0, lane: 7 })
    ));
}

#[test]
fn group_names_must_be_whole_utf8() {
    let tri = TriMesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
        .and_then(|m| m.with_groups(vec!["ab".into()], vec![0]))
        .expect("valid");
    let bytes = Mesh::from_tri_mesh(tri, &meshcast_bvh::BuildOptions::default()).to_bytes();
    // Header, 3 positions, 1 triangle, then the names: length 2, "ab".
    let names = HEADER_BYTES + 36 + 12;
    assert_eq!(&bytes[names..names + 6], b"\x02\0\0\0ab");
    let mut forged = bytes.clone();
    forged[names + 4] = 0xff;
    reseal(&mut forged);
    assert_eq!(
        problem(&forged),
        CacheProblem::InvalidGroupName { group: 0 }
    );
    let mut forged = bytes.clone();
    forged[names] = 3;
    reseal(&mut forged);
    assert_eq!(
        problem(&forged),
        CacheProblem::InvalidGroupName { group: 0 }
    );
    let loaded = Mesh::from_bytes(&bytes).expect("loads");
    assert_eq!(loaded.tri_mesh().group_name(0), Some("ab"));
}
