//! STL loading through the public API on small files written here: both encodings, how
//! they are told apart, welding, and errors that name their triangle.

use glam::Vec3;
use meshcast_io::{Error, Format, Place, Result, TriMeshFiles};
use meshcast_mesh::TriMesh;

fn read(bytes: &[u8]) -> Result<TriMesh> {
    TriMesh::from_bytes(bytes, Some(Format::Stl))
}

/// The unit square's two triangles, sharing the edge from (0,0,0) to (1,1,0).
const SQUARE: [[[f32; 3]; 3]; 2] = [
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
    [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
];

fn binary(header: &[u8], triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut bytes = header.to_vec();
    bytes.resize(80, b' ');
    bytes.extend((triangles.len() as u32).to_le_bytes());
    for corners in triangles {
        bytes.extend([0u8; 12]); // the facet normal
        for c in corners.iter().flatten() {
            bytes.extend(c.to_le_bytes());
        }
        bytes.extend([0u8; 2]);
    }
    bytes
}

fn ascii(first_line: &str, triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut text = format!("{first_line}\n");
    for corners in triangles {
        text.push_str("facet normal 0 0 1\n outer loop\n");
        for [x, y, z] in corners {
            text.push_str(&format!("  vertex {x:?} {y:?} {z:?}\n"));
        }
        text.push_str(" endloop\nendfacet\n");
    }
    text.push_str("endsolid square\n");
    text.into_bytes()
}

fn place(err: &Error) -> Option<&Place> {
    match err {
        Error::NonFiniteValue { at, .. }
        | Error::Truncated { at, .. }
        | Error::Malformed { at, .. }
        | Error::NoFaces { at } => Some(&at.place),
        _ => None,
    }
}

#[test]
fn both_encodings_weld_shared_corners_in_order_of_first_use() -> Result<()> {
    for bytes in [
        binary(b"", &SQUARE),
        binary(b"solid square", &SQUARE),
        ascii("solid square", &SQUARE),
        ascii("solid", &SQUARE),
        ascii("  SOLID\r", &SQUARE),
    ] {
        let mesh = read(&bytes)?;
        assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 2, 3]]);
        assert_eq!(mesh.vertex_count(), 4);
        assert_eq!(mesh.positions()[3], Vec3::Y);
        assert_eq!(TriMesh::from_bytes(&bytes, None)?, mesh);
    }
    Ok(())
}

/// `-0.0` and `0.0` are the same point, so they weld: the shared edge stays shared.
#[test]
fn negative_zero_welds_with_zero() -> Result<()> {
    let mut triangles = SQUARE;
    triangles[1][0] = [-0.0, 0.0, -0.0];
    let mesh = read(&binary(b"", &triangles))?;
    assert_eq!(mesh.vertex_count(), 4);
    assert_eq!(mesh.indices()[1][0], 0);
    Ok(())
}

/// A closed surface stays closed: the tetrahedron's corners weld across its faces.
#[test]
fn a_tetrahedron_read_from_stl_is_closed() -> Result<()> {
    let p = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let triangles: Vec<[[f32; 3]; 3]> = faces.iter().map(|f| f.map(|i| p[i])).collect();
    for bytes in [binary(b"solid", &triangles), ascii("solid t", &triangles)] {
        let mesh = read(&bytes)?;
        assert_eq!(mesh.vertex_count(), 4);
        assert!(mesh.is_closed());
    }
    Ok(())
}

#[test]
fn non_finite_coordinates_name_their_triangle() {
    let mut triangles = SQUARE;
    triangles[1][2][1] = f32::NAN;
    let err = read(&binary(b"", &triangles)).expect_err("NaN");
    assert!(matches!(err, Error::NonFiniteValue { .. }), "{err}");
    let second = Some(&Place::Element {
        kind: "triangle",
        index: 1,
    });
    assert_eq!(place(&err), second);
    let text = String::from_utf8(ascii("solid s", &SQUARE)).unwrap();
    let text = text.replacen("vertex 1.0 1.0 0.0", "vertex 1.0 1e39 0.0", 2);
    let err = read(text.as_bytes()).expect_err("infinite");
    assert!(
        matches!(&err, Error::NonFiniteValue { found, .. } if found == "inf"),
        "{err}"
    );
    assert_eq!(
        place(&err),
        Some(&Place::Element {
            kind: "triangle",
            index: 0
        })
    );
}

#[test]
fn truncated_and_malformed_files_are_typed_errors() {
    let whole = binary(b"", &SQUARE);
    for cut in [0, 10, 80, 83, 84, 100, whole.len() - 1] {
        let err = read(&whole[..cut]).expect_err("truncated");
        assert!(matches!(err, Error::Truncated { .. }), "{cut}: {err}");
    }
    let mut longer = whole.clone();
    longer.push(0);
    assert!(matches!(read(&longer), Err(Error::Malformed { .. })));
    // A count of four billion triangles in a small file: truncated, nothing allocated.
    let mut hostile = whole.clone();
    hostile[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(read(&hostile), Err(Error::Truncated { .. })));
    // A binary file whose header says `solid` and which lost its end is still binary.
    let solid = binary(b"solid square", &SQUARE);
    assert!(matches!(read(&solid[..120]), Err(Error::Truncated { .. })));

    let text = ascii("solid s", &SQUARE);
    let cut = text.len() - "endloop\nendfacet\nendsolid square\n".len();
    let err = read(&text[..cut]).expect_err("truncated text");
    assert!(matches!(err, Error::Truncated { .. }), "{err}");
    assert_eq!(
        place(&err),
        Some(&Place::Element {
            kind: "triangle",
            index: 1
        })
    );
    let garbled = String::from_utf8(text.clone())
        .unwrap()
        .replacen("outer loop", "outer space", 1);
    let err = read(garbled.as_bytes()).expect_err("garbled");
    assert!(matches!(err, Error::Malformed { .. }), "{err}");
    let empty = b"solid nothing\nendsolid nothing\n";
    assert!(matches!(read(empty), Err(Error::NoFaces { .. })));
    assert!(matches!(
        read(&binary(b"", &[])),
        Err(Error::NoFaces { .. })
    ));
}

#[test]
fn detection_tells_binary_that_starts_with_solid_from_ascii() {
    let binary = binary(b"solid but binary", &SQUARE);
    assert_eq!(Format::detect(&binary), Some(Format::Stl));
    assert_eq!(
        Format::detect(&ascii("solid s", &SQUARE)),
        Some(Format::Stl)
    );
}

/// An ASCII file may hold several solids; their triangles follow one another.
#[test]
fn every_solid_of_an_ascii_file_is_read() -> Result<()> {
    let mut text = ascii("solid first", &SQUARE[..1]);
    text.extend_from_slice(b"\n\n");
    text.extend(ascii("  solid second", &SQUARE[1..]));
    text.extend_from_slice(b"some trailing words\n");
    let mesh = read(&text)?;
    assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 2, 3]]);
    let mut broken = text.clone();
    let at = broken.len() - 60;
    broken.truncate(at);
    let err = read(&broken).expect_err("the second solid is cut");
    assert_eq!(
        place(&err),
        Some(&Place::Element {
            kind: "triangle",
            index: 1
        })
    );
    Ok(())
}

/// `triangles` strips of a height field, many sharing corners: enough for several of the
/// streamed reader's windows.
fn strips(count: usize) -> Vec<[[f32; 3]; 3]> {
    let corner = |i: usize, j: usize| [i as f32, j as f32, ((i * 7 + j * 3) % 5) as f32];
    (0..count)
        .map(|t| {
            let (i, j) = (t / 2 % 300, t / 600);
            match t % 2 {
                0 => [corner(i, j), corner(i + 1, j), corner(i + 1, j + 1)],
                _ => [corner(i, j), corner(i + 1, j + 1), corner(i, j + 1)],
            }
        })
        .collect()
}

#[test]
fn a_binary_file_streamed_from_disk_reads_as_its_bytes_do() -> Result<()> {
    let folder = std::env::temp_dir().join(format!("meshcast-stl-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut triangles = strips(40_000);
    let bytes = binary(b"solid strips", &triangles);
    let streamed = folder.join("strips.stl");
    std::fs::write(&streamed, &bytes).unwrap();
    // The same bytes under another name are read whole.
    let whole = folder.join("strips.bin");
    std::fs::write(&whole, &bytes).unwrap();
    let mesh = read(&bytes)?;
    assert_eq!(mesh.triangle_count(), 40_000);
    assert!(mesh.vertex_count() < 30_000, "corners are welded");
    // The ASCII reader welds with the weld table alone, without the recent vertices.
    assert_eq!(read(&ascii("solid strips", &triangles))?, mesh);
    assert_eq!(TriMesh::from_path(&streamed)?, mesh);
    assert_eq!(TriMesh::from_path(&whole)?, mesh);

    // A coordinate that is not finite, past the first window, names its triangle either way.
    triangles[33_333][1][2] = f32::INFINITY;
    std::fs::write(&streamed, binary(b"", &triangles)).unwrap();
    let err = TriMesh::from_path(&streamed).expect_err("infinite");
    assert!(
        matches!(&err, Error::NonFiniteValue { found, .. } if found == "inf"),
        "{err}"
    );
    let at = Some(&Place::Element {
        kind: "triangle",
        index: 33_333,
    });
    assert_eq!(place(&err), at);
    assert_eq!(place(&read(&binary(b"", &triangles)).unwrap_err()), at);

    // A file named `.stl` whose size does not say binary is read whole, as its content says.
    std::fs::write(&streamed, ascii("solid square", &SQUARE)).unwrap();
    assert_eq!(
        TriMesh::from_path(&streamed)?.indices(),
        &[[0, 1, 2], [0, 2, 3]]
    );
    std::fs::remove_dir_all(&folder).unwrap();
    Ok(())
}
