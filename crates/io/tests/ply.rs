//! PLY loading through the public API on small files written here: encodings, index types,
//! attributes, polygons, and errors that name their element or line.

use glam::{Vec2, Vec3};
use meshcast_io::{Error, Format, IndexKind, Place, Result, TriMeshFiles};
use meshcast_mesh::{TriMesh, Warning};

fn read(bytes: &[u8]) -> Result<TriMesh> {
    TriMesh::from_bytes(bytes, Some(Format::Ply))
}

/// A header for `vertices` vertices with `vertex` properties and `faces` faces with `face`
/// properties.
fn header(encoding: &str, vertices: u64, vertex: &str, faces: u64, face: &str) -> Vec<u8> {
    format!(
        "ply\nformat {encoding} 1.0\ncomment made by a test\nelement vertex {vertices}\n{vertex}\
         element face {faces}\n{face}end_header\n"
    )
    .into_bytes()
}

const XYZ: &str = "property float x\nproperty float y\nproperty float z\n";
const INDICES: &str = "property list uchar int vertex_indices\n";

/// The unit square as two triangles, in ASCII.
fn ascii_square() -> Vec<u8> {
    let mut bytes = header("ascii", 4, XYZ, 1, INDICES);
    bytes.extend_from_slice(b"0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n");
    bytes
}

fn place(err: &Error) -> Option<&Place> {
    match err {
        Error::NonFiniteValue { at, .. }
        | Error::FaceIndexOutOfRange { at, .. }
        | Error::FaceTooSmall { at, .. }
        | Error::Truncated { at, .. }
        | Error::Malformed { at, .. }
        | Error::InvalidUtf8 { at }
        | Error::NoFaces { at } => Some(&at.place),
        _ => None,
    }
}

#[test]
fn an_ascii_quad_becomes_its_fan() -> Result<()> {
    let mesh = read(&ascii_square())?;
    assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 2, 3]]);
    assert_eq!(mesh.positions()[2], Vec3::new(1.0, 1.0, 0.0));
    assert!(mesh.warnings().is_empty());
    assert!(mesh.normals().is_none() && mesh.uvs().is_none());
    Ok(())
}

/// The same square in both binary byte orders, with double coordinates and every integer
/// type for the index list.
#[test]
fn binary_files_in_both_byte_orders_and_any_index_type() -> Result<()> {
    let expected = read(&ascii_square())?;
    let xyz = "property double x\nproperty double y\nproperty double z\n";
    for (count_type, index_type, index_bytes) in [
        ("uchar", "uchar", 1),
        ("ushort", "char", 1),
        ("uint", "short", 2),
        ("int", "ushort", 2),
        ("char", "int", 4),
        ("short", "uint", 4),
    ] {
        for big_endian in [false, true] {
            let encoding = if big_endian {
                "binary_big_endian"
            } else {
                "binary_little_endian"
            };
            let face = format!("property list {count_type} {index_type} vertex_index\n");
            let mut bytes = header(encoding, 4, xyz, 1, &face);
            let count_bytes = match count_type {
                "uchar" | "char" => 1,
                "ushort" | "short" => 2,
                _ => 4,
            };
            let int = |value: u64, width: usize| -> Vec<u8> {
                let le = value.to_le_bytes()[..width].to_vec();
                if big_endian {
                    le.into_iter().rev().collect()
                } else {
                    le
                }
            };
            for p in expected.positions() {
                for c in p.to_array() {
                    let c = f64::from(c);
                    bytes.extend(if big_endian {
                        c.to_be_bytes()
                    } else {
                        c.to_le_bytes()
                    });
                }
            }
            bytes.extend(int(4, count_bytes));
            for i in 0..4 {
                bytes.extend(int(i, index_bytes));
            }
            let mesh = read(&bytes)?;
            assert_eq!(
                mesh.positions(),
                expected.positions(),
                "{count_type} {index_type}"
            );
            assert_eq!(mesh.indices(), expected.indices());
        }
    }
    Ok(())
}

#[test]
fn normals_and_texture_coordinates_are_kept_per_vertex() -> Result<()> {
    for [s, t] in [["s", "t"], ["u", "v"], ["texture_u", "texture_v"]] {
        let vertex = format!(
            "{XYZ}property float nx\nproperty float ny\nproperty float nz\n\
             property uchar red\nproperty float {s}\nproperty float {t}\n"
        );
        let mut bytes = header("ascii", 3, &vertex, 1, INDICES);
        bytes.extend_from_slice(
            b"0 0 0 0 0 1 255 0 0\n1 0 0 0 0 1 0 1 0\n0 1 0 0 0 1 7 0 1\n3 0 1 2\n",
        );
        let mesh = read(&bytes)?;
        assert_eq!(
            mesh.normals().and_then(|n| n.corners(0)),
            Some([Vec3::Z; 3])
        );
        assert_eq!(
            mesh.uvs().and_then(|uv| uv.corners(0)),
            Some([Vec2::ZERO, Vec2::X, Vec2::Y]),
            "{s} {t}"
        );
    }
    Ok(())
}

/// Elements may come in any order, and elements meshcast does not use are skipped, in every
/// encoding.
#[test]
fn faces_before_vertices_and_other_elements_are_read() -> Result<()> {
    let text = "ply\nformat ascii 1.0\nelement material 2\nproperty uchar red\n\
        property list uchar float weights\nelement face 2\nproperty list uchar uint vertex_indices\n\
        property uchar flags\nelement vertex 4\nproperty int x\nproperty int y\nproperty int z\n\
        element edge 1\nproperty int vertex1\nend_header\n\
        1 2 0.5 0.5\n2 0\n3 0 1 2 9\n3 0 2 3 9\n0 0 0\n1 0 0\n1 1 0\n0 1 0\nnot even numbers\n";
    let mesh = read(text.as_bytes())?;
    assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 2, 3]]);
    assert_eq!(mesh.positions()[3], Vec3::Y);
    Ok(())
}

#[test]
fn a_concave_polygon_is_ear_clipped_with_a_warning() -> Result<()> {
    // An arrow head: corner 2 is reflex, so the fan from corner 0 would leave the polygon.
    let mut bytes = header("ascii", 5, XYZ, 2, INDICES);
    bytes.extend_from_slice(b"0 0 0\n2 0 0\n1 1 0\n2 2 0\n0 2 0\n3 0 1 2\n5 0 1 2 3 4\n");
    let mesh = read(&bytes)?;
    assert_eq!(mesh.triangle_count(), 1 + 3);
    assert_eq!(
        mesh.warnings(),
        &[Warning::ConcavePolygons {
            count: 1,
            first_face: 1
        }]
    );
    Ok(())
}

#[test]
fn bad_faces_name_their_element() {
    let face = |line: &[u8]| {
        let mut bytes = header(
            "ascii",
            3,
            XYZ,
            2,
            "property list uchar int vertex_indices\n",
        );
        bytes.extend_from_slice(b"0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
        bytes.extend_from_slice(line);
        read(&bytes).expect_err("a bad face")
    };
    let at_face_1 = Some(&Place::Element {
        kind: "face",
        index: 1,
    });
    let err = face(b"2 0 1\n");
    assert!(
        matches!(err, Error::FaceTooSmall { corners: 2, .. }),
        "{err}"
    );
    assert_eq!(place(&err), at_face_1);
    let err = face(b"3 0 1 3\n");
    assert!(
        matches!(
            err,
            Error::FaceIndexOutOfRange {
                kind: IndexKind::Position,
                index: 3,
                count: 3,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(place(&err), at_face_1);
    let err = face(b"3 0 -1 2\n");
    assert!(
        matches!(err, Error::FaceIndexOutOfRange { index: -1, .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "<bytes>: face 1: vertex index -1 is out of range (3 defined)"
    );
}

#[test]
fn non_finite_coordinates_name_their_vertex() {
    // 1e999 overflows a float; 1e300 fits a double but not the f32 a mesh holds.
    let mut bytes = header("ascii", 3, XYZ, 1, INDICES);
    bytes.extend_from_slice(b"0 0 0\n1 0 1e999\n0 1 0\n3 0 1 2\n");
    let err = read(&bytes).expect_err("infinite");
    assert!(matches!(err, Error::NonFiniteValue { .. }), "{err}");
    assert_eq!(
        place(&err),
        Some(&Place::Element {
            kind: "vertex",
            index: 1
        })
    );
    let xyz = "property double x\nproperty double y\nproperty double z\n";
    let mut bytes = header("ascii", 3, xyz, 1, INDICES);
    bytes.extend_from_slice(b"0 0 0\n1 0 0\n0 1e300 0\n3 0 1 2\n");
    let err = read(&bytes).expect_err("too large for f32");
    assert!(
        matches!(&err, Error::NonFiniteValue { found, .. } if found == "1e300"),
        "{err}"
    );

    let mut bytes = header("binary_little_endian", 3, XYZ, 1, INDICES);
    for c in [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, f32::NAN, 0.0] {
        bytes.extend(f32::to_le_bytes(c));
    }
    bytes.extend([3, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
    let err = read(&bytes).expect_err("NaN");
    assert_eq!(
        place(&err),
        Some(&Place::Element {
            kind: "vertex",
            index: 2
        })
    );
}

#[test]
fn missing_elements_and_properties_are_errors() {
    let no_vertex = "ply\nformat ascii 1.0\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n";
    assert!(matches!(
        read(no_vertex.as_bytes()),
        Err(Error::Malformed { .. })
    ));
    let points = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n";
    assert!(matches!(
        read(points.as_bytes()),
        Err(Error::NoFaces { .. })
    ));
    let no_faces = header("ascii", 0, XYZ, 0, INDICES);
    assert!(matches!(read(&no_faces), Err(Error::NoFaces { .. })));
    let no_z = header(
        "ascii",
        0,
        "property float x\nproperty float y\n",
        0,
        INDICES,
    );
    let err = read(&no_z).expect_err("no z");
    assert!(err.to_string().contains("`z`"), "{err}");
    let float_indices = header(
        "ascii",
        0,
        XYZ,
        0,
        "property list uchar float vertex_indices\n",
    );
    assert!(matches!(read(&float_indices), Err(Error::Malformed { .. })));
    let no_list = header("ascii", 0, XYZ, 0, "property int vertex_indices\n");
    assert!(matches!(read(&no_list), Err(Error::Malformed { .. })));
}

#[test]
fn header_and_payload_errors_give_their_line() {
    let garbage = b"ply\nformat ascii 1.0\nelement vertex 3\nproperty floot x\nend_header\n";
    let err = read(garbage).expect_err("bad property type");
    assert!(matches!(err, Error::Malformed { .. }), "{err}");
    assert_eq!(place(&err), Some(&Place::Line(4)));

    let mut bytes = header("ascii", 3, XYZ, 1, INDICES);
    bytes.extend_from_slice(b"0 0 0\n1 0 zero\n0 1 0\n3 0 1 2\n");
    let err = read(&bytes).expect_err("a word for a number");
    assert!(matches!(err, Error::Malformed { .. }), "{err}");
    // ply, format, comment, element vertex and 3 properties, element face and its list,
    // end_header: 10 header lines, then vertex 0 on line 11.
    assert_eq!(place(&err), Some(&Place::Line(12)));

    let no_end = b"ply\nformat ascii 1.0\nelement vertex 3\n";
    assert!(matches!(read(no_end), Err(Error::Truncated { .. })));
    let binary_header = b"ply\nformat ascii 1.0\n\xff\xfe\x00\x01 vertex 3\n";
    assert!(read(binary_header).is_err());
}

/// Counts in a hostile header are believed only as far as the bytes go: reading stops at the
/// end of the data, without allocating for the count.
#[test]
fn hostile_counts_give_truncated_without_allocating_for_them() {
    for encoding in ["ascii", "binary_little_endian", "binary_big_endian"] {
        for (vertices, faces) in [(u64::from(u32::MAX), 1), (3, u64::MAX >> 1)] {
            let mut bytes = header(encoding, vertices, XYZ, faces, INDICES);
            bytes.extend_from_slice(&[b'1'; 64]);
            let err = read(&bytes).expect_err("hostile");
            assert!(
                matches!(err, Error::Truncated { .. } | Error::Malformed { .. }),
                "{encoding}: {err}"
            );
        }
        // More vertices than a u32 index reaches.
        let bytes = header(encoding, 1 << 40, XYZ, 1, INDICES);
        assert!(matches!(
            read(&bytes),
            Err(Error::Mesh(meshcast_mesh::Error::TooLarge { .. }))
        ));
        // A face list claiming four billion corners.
        let face = "property list uint int vertex_indices\n";
        let mut bytes = header(encoding, 3, XYZ, 1, face);
        if encoding == "ascii" {
            bytes.extend_from_slice(b"0 0 0\n1 0 0\n0 1 0\n4294967295 0 1 2\n");
        } else {
            bytes.extend_from_slice(&[0; 36]);
            bytes.extend_from_slice(&[0xff; 4]);
            bytes.extend_from_slice(&[0; 12]);
        }
        let err = read(&bytes).expect_err("hostile list");
        assert!(
            matches!(err, Error::Truncated { .. } | Error::Malformed { .. }),
            "{encoding}: {err}"
        );
        // Elements without properties hold no bytes in a binary file, however many.
        let empty = "element nothing 18446744073709551615\n";
        let mut bytes = header(encoding, 3, XYZ, 1, INDICES);
        let at = bytes
            .windows(14)
            .position(|w| w == b"element vertex")
            .unwrap();
        bytes.splice(at..at, empty.bytes());
        bytes.extend_from_slice(b"0 0 0\n");
        assert!(read(&bytes).is_err(), "{encoding}");
    }
}

/// A mesh in every encoding: `double` positions far from the origin with float normals and
/// texture coordinates and a skipped colour, an element before the vertices with a list,
/// triangles, a concave polygon, and a polygon of `ring` corners whose list is larger than
/// the binary reader's window of a megabyte, with a skipped flag and a skipped list after it.
fn every_kind_of_face(encoding: &str, ring: usize) -> Vec<u8> {
    let far = 5.0e6;
    let mut vertices: Vec<[f64; 3]> = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0]];
    vertices.extend([[2.0, 2.0, 0.0], [0.0, 2.0, 0.0]]);
    let first_ring = vertices.len();
    vertices.extend((0..ring).map(|k| {
        let angle = k as f64 / ring as f64 * std::f64::consts::TAU;
        [10.0 + angle.cos(), angle.sin(), 1.0]
    }));
    let faces: Vec<Vec<u32>> = vec![
        vec![0, 1, 2],
        vec![0, 1, 2, 3, 4],
        (first_ring..first_ring + ring).map(|k| k as u32).collect(),
        vec![2, 3, 4],
    ];
    let mut bytes = format!(
        "ply\nformat {encoding} 1.0\nelement material 2\nproperty list uchar short weights\n\
         element vertex {}\nproperty double x\nproperty double y\nproperty double z\n\
         property float nx\nproperty float ny\nproperty float nz\nproperty uchar red\n\
         property float s\nproperty float t\nelement face {}\n\
         property list uint int vertex_indices\nproperty uchar flags\n\
         property list uchar float weights\nend_header\n",
        vertices.len(),
        faces.len()
    )
    .into_bytes();
    let big = encoding == "binary_big_endian";
    let put = |bytes: &mut Vec<u8>, le: &[u8], text: String| {
        if encoding == "ascii" {
            bytes.extend_from_slice(text.as_bytes());
            bytes.push(b' ');
        } else if big {
            bytes.extend(le.iter().rev());
        } else {
            bytes.extend_from_slice(le);
        }
    };
    let end_line = |bytes: &mut Vec<u8>| {
        if encoding == "ascii" {
            bytes.pop();
            bytes.push(b'\n');
        }
    };
    for weights in [vec![7i16], vec![1, -2, 3]] {
        put(
            &mut bytes,
            &[weights.len() as u8],
            weights.len().to_string(),
        );
        for w in weights {
            put(&mut bytes, &w.to_le_bytes(), w.to_string());
        }
        end_line(&mut bytes);
    }
    for (i, v) in vertices.iter().enumerate() {
        for c in [v[0] + far, v[1] - far, v[2]] {
            put(&mut bytes, &c.to_le_bytes(), c.to_string());
        }
        for c in [0.0f32, 0.0, 1.0, 0.5, i as f32, 0.25] {
            if c == 0.5 {
                put(&mut bytes, &[200], "200".into());
                continue;
            }
            put(&mut bytes, &c.to_le_bytes(), c.to_string());
        }
        end_line(&mut bytes);
    }
    for face in &faces {
        put(
            &mut bytes,
            &(face.len() as u32).to_le_bytes(),
            face.len().to_string(),
        );
        for &i in face {
            put(&mut bytes, &(i as i32).to_le_bytes(), i.to_string());
        }
        put(&mut bytes, &[1], "1".into());
        put(&mut bytes, &[2], "2".into());
        for w in [0.5f32, 0.5] {
            put(&mut bytes, &w.to_le_bytes(), w.to_string());
        }
        end_line(&mut bytes);
    }
    bytes
}

/// Binary files give the mesh their ASCII twin gives, from memory and streamed from a file
/// through the reader's window, whatever the records' sizes.
#[test]
fn binary_files_stream_into_the_mesh_their_ascii_twin_gives() -> Result<()> {
    let ring = 300_000;
    let expected = read(&every_kind_of_face("ascii", ring))?;
    assert_eq!(expected.triangle_count(), 1 + 3 + (ring - 2) + 1);
    assert_ne!(expected.origin(), glam::DVec3::ZERO, "far from the origin");
    assert_eq!(expected.warnings().len(), 1, "the concave polygon");
    let dir = std::env::temp_dir().join(format!("meshcast-ply-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for encoding in ["binary_little_endian", "binary_big_endian"] {
        let bytes = every_kind_of_face(encoding, ring);
        let file = dir.join(format!("{encoding}.ply"));
        std::fs::write(&file, &bytes).unwrap();
        for mesh in [read(&bytes)?, TriMesh::from_path(&file)?] {
            assert_eq!(mesh.positions(), expected.positions(), "{encoding}");
            assert_eq!(mesh.indices(), expected.indices(), "{encoding}");
            assert_eq!(mesh.origin(), expected.origin(), "{encoding}");
            assert_eq!(mesh.normals(), expected.normals(), "{encoding}");
            assert_eq!(mesh.uvs(), expected.uvs(), "{encoding}");
            assert_eq!(mesh.warnings(), expected.warnings(), "{encoding}");
        }
        // Cut anywhere, a streamed file is truncated where its bytes are.
        for cut in [bytes.len() - 1, bytes.len() / 2, 700] {
            std::fs::write(&file, &bytes[..cut]).unwrap();
            let err = TriMesh::from_path(&file).expect_err("cut short");
            assert!(
                matches!(err, Error::Truncated { .. }),
                "{encoding} {cut}: {err}"
            );
            let from_memory = read(&bytes[..cut]).expect_err("cut short");
            assert_eq!(place(&err), place(&from_memory), "{encoding} {cut}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    Ok(())
}

/// A binary mesh in the layout most files have (`float` coordinates, faces as a `uchar`
/// count and `int` indices), which the reader takes many records at a time, with a quad
/// among its triangles and `faces` faces over more than the reader's window of a megabyte;
/// its ASCII twin beside it.
fn plain_runs(faces: usize) -> [Vec<u8>; 2] {
    let side = 300u32;
    let corners = |face: usize| -> Vec<u32> {
        let (row, column) = (
            (face / 2) as u32 / (side - 1),
            (face / 2) as u32 % (side - 1),
        );
        let at = row * side + column;
        match face {
            7 => vec![at, at + 1, at + side + 1, at + side],
            _ if face.is_multiple_of(2) => vec![at, at + 1, at + side + 1],
            _ => vec![at, at + side + 1, at + side],
        }
    };
    let vertices = side * side;
    let mut ascii = header("ascii", vertices.into(), XYZ, faces as u64, INDICES);
    let mut binary = header(
        "binary_little_endian",
        vertices.into(),
        XYZ,
        faces as u64,
        INDICES,
    );
    for v in 0..vertices {
        let p = [
            (v % side) as f32 * 0.5,
            (v / side) as f32,
            (v % 7) as f32 * 0.25,
        ];
        ascii.extend(format!("{} {} {}\n", p[0], p[1], p[2]).bytes());
        p.iter().for_each(|c| binary.extend(c.to_le_bytes()));
    }
    for face in 0..faces {
        let corners = corners(face);
        ascii.extend(format!("{}", corners.len()).bytes());
        binary.push(corners.len() as u8);
        for i in corners {
            ascii.extend(format!(" {i}").bytes());
            binary.extend(i.to_le_bytes());
        }
        ascii.push(b'\n');
    }
    [binary, ascii]
}

/// Records read many at a time give what records read one by one give, and a record that
/// breaks the run (a quad, an index out of range, a coordinate that is not finite, the end of
/// the bytes) is read alone, with the error it always had at its element.
#[test]
fn runs_of_plain_records_read_as_records_one_by_one() -> Result<()> {
    let faces = 100_000;
    let [binary, ascii] = plain_runs(faces);
    assert!(binary.len() > 1 << 20, "more than one window");
    let (mesh, expected) = (read(&binary)?, read(&ascii)?);
    assert_eq!(mesh.positions(), expected.positions());
    assert_eq!(mesh.indices(), expected.indices());
    assert_eq!(mesh.triangle_count(), faces + 1, "the quad's two triangles");

    // Faces of 13 bytes, but the quad (face 7) of 17.
    let face_start = binary.len() - (faces * 13 + 4);
    let face_at = |face: usize| face_start + face * 13 + if face > 7 { 4 } else { 0 };
    let element = |kind, index| Some(Place::Element { kind, index });
    for (index, value, expected_index) in [(3, 90_000i32, 90_000i64), (2, -1, -1)] {
        let mut bytes = binary.clone();
        let at = face_at(60_000) + 1 + 4 * (index - 1);
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let err = read(&bytes).expect_err("out of range");
        assert!(
            matches!(err, Error::FaceIndexOutOfRange { index, .. } if index == expected_index),
            "{err}"
        );
        assert_eq!(place(&err).cloned(), element("face", 60_000));
    }
    let mut bytes = binary.clone();
    let vertex_start = face_start - 300 * 300 * 12;
    let at = vertex_start + 12 * 50_000 + 4;
    bytes[at..at + 4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    let err = read(&bytes).expect_err("infinite");
    assert!(matches!(err, Error::NonFiniteValue { .. }), "{err}");
    assert_eq!(place(&err).cloned(), element("vertex", 50_000));
    let err = read(&binary[..face_at(80_000) + 6]).expect_err("cut short");
    assert!(matches!(err, Error::Truncated { .. }), "{err}");
    assert_eq!(place(&err).cloned(), element("face", 80_000));
    Ok(())
}
