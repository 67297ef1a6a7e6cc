//! OBJ loading through the public API: fan numbering, group names, attributes, warnings, and
//! errors that name their line.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use meshcast_io::{Error, Result, TriMeshFiles};
use meshcast_mesh::{TriMesh, Warning};
/// Writes `text` to a fresh file in the system's temporary folder.
fn write_temp(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshcast-obj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path
}

fn load_text(name: &str, text: &str) -> Result<TriMesh> {
    TriMesh::from_obj(write_temp(name, text.as_bytes()))
}

fn line_of(err: &Error) -> Option<usize> {
    match err {
        Error::InvalidUtf8 { at }
        | Error::Syntax { at, .. }
        | Error::NonFiniteValue { at, .. }
        | Error::FaceIndexOutOfRange { at, .. }
        | Error::FaceTooSmall { at, .. } => at.line(),
        _ => None,
    }
}

const SQUARE_AND_PENTAGON: &str = "\
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 2 0 0
v 3 1 0
v 2.5 2 0
o first
f 1 2 3 4
g second part
f 2 5 6 7 3
o first
f -7 -6 -5
";

#[test]
fn polygons_are_fans_in_file_order_with_group_names() {
    let mesh = load_text("fans.obj", SQUARE_AND_PENTAGON).expect("valid");
    assert_eq!(mesh.triangle_count(), 2 + 3 + 1);
    let corners: Vec<[Vec3; 3]> = mesh.triangles().map(|t| t.vertices()).collect();
    let p = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    assert_eq!(corners[0], [p(0., 0.), p(1., 0.), p(1., 1.)]);
    assert_eq!(corners[1], [p(0., 0.), p(1., 1.), p(0., 1.)]);
    assert_eq!(corners[2], [p(1., 0.), p(2., 0.), p(3., 1.)]);
    assert_eq!(corners[4], [p(1., 0.), p(2.5, 2.), p(1., 1.)]);
    // Negative indices count back from the last vertex.
    assert_eq!(corners[5], [p(0., 0.), p(1., 0.), p(1., 1.)]);
    let names: Vec<_> = (0..6).map(|t| mesh.group_name(t)).collect();
    assert_eq!(
        names,
        [
            Some("first"),
            Some("first"),
            Some("second part"),
            Some("second part"),
            Some("second part"),
            Some("first")
        ]
    );
    assert_eq!(mesh.group_names().len(), 2);
    assert!(mesh.warnings().is_empty(), "{:?}", mesh.warnings());
}

#[test]
fn lines_are_not_faces_and_missing_material_is_a_warning() {
    let text =
        "mtllib nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\nusemtl red\nf 1 2 3\nl 1 2\n";
    let mesh = load_text("lines.obj", text).expect("valid");
    assert_eq!(mesh.triangle_count(), 1);
    assert_eq!(mesh.group_name(0), Some("unnamed_object"));
    let warnings = mesh.warnings();
    assert!(warnings.contains(&Warning::IgnoredStatements {
        keyword: "l".into(),
        count: 2,
        first_line: 5
    }));
    assert!(warnings.iter().any(|w| matches!(
        w,
        Warning::MaterialLibrary { path, .. } if path.as_path() == Path::new("nowhere.mtl")
    )));
}

#[test]
fn normals_and_uvs_are_kept_per_face() {
    let text = "\
v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0
vt 0 0\nvt 1 0\nvt 0 1
vn 0 0 1\nvn 0 0 -1
f 1/1/1 2/2/1 3/3/1
f 2//2 4//2 3//2
f 2 4 3
";
    let mesh = load_text("attributes.obj", text).expect("valid");
    let normals = mesh.normals().expect("normals");
    let uvs = mesh.uvs().expect("uvs");
    assert_eq!(normals.corners(0), Some([Vec3::Z; 3]));
    assert_eq!(normals.corners(1), Some([Vec3::NEG_Z; 3]));
    assert_eq!(normals.corners(2), None);
    assert_eq!(uvs.corners(0), Some([Vec2::ZERO, Vec2::X, Vec2::Y]));
    assert_eq!(uvs.corners(1), None);
    assert_eq!(uvs.corners(2), None);
}

#[test]
fn vertex_weights_and_colours_are_read_like_tobj() {
    let text = "v 0 0 0 0.5\nv 2 0 0 1 0.5 0.5\nv 0 2 0\nf 1 2 3\n";
    let mesh = load_text("weights.obj", text).expect("valid");
    let first = mesh.triangle(0).expect("one triangle");
    assert_eq!((first.v0, first.v1), (Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)));
    assert_eq!(mesh.triangle(1), None);
}

/// Found by the OBJ fuzz target's seeds: a vertex with a colour (`v x y z r g b`) lost its
/// colour but kept its red, which tobj then read as the weight `w` and divided by, moving
/// the vertex, or failing with "scaling (w) by zero" for a red of 0.
#[test]
fn fuzz_obj_vertex_colour_is_not_a_weight() {
    let text = "v 0 0 0 0 1 0\nv 2 0 0 0.5 0.5 0.5\nv 0 2 0 1 1 1\nf 1 2 3\n";
    let mesh = load_text("colours.obj", text).expect("valid");
    let triangle = mesh.triangle(0).expect("one triangle");
    assert_eq!(
        [triangle.v0, triangle.v1, triangle.v2],
        [
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0)
        ]
    );
}

#[test]
fn concave_faces_are_reported() {
    // An arrow head: corner 3 points inwards.
    let text = "v 0 0 0\nv 4 0 0\nv 4 4 0\nv 2 1 0\nv 0 4 0\nf 1 2 3 4 5\n";
    let mesh = load_text("concave.obj", text).expect("valid");
    assert_eq!(mesh.triangle_count(), 3);
    // Ear clipping covers the face (area 10) and nothing else; a fan would cover 14.
    let area: f32 = mesh.triangles().map(|t| t.area()).sum();
    assert!((area - 10.0).abs() < 1e-5, "{area}");
    assert!(mesh.warnings().contains(&Warning::ConcaveFaces {
        count: 1,
        first_line: 6
    }));
}

#[test]
fn errors_name_the_line() {
    let cases: [(&str, &str, usize); 9] = [
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "index", 4),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "index", 4),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "index", 4),
        ("v 0 0 0\nv 1 0 0\n\nf 1 2\n", "small", 4),
        ("v 0 0 0\nv nan 0 0\n", "finite", 2),
        ("v 0 0 0\nv 1e39 0 0\n", "finite", 2),
        ("v 0 0 0\nv 1 0\n", "syntax", 2),
        ("v 0 0 0\nvt 0 0\nf 1/2 1/1 1/1\n", "index", 3),
        ("# ok\n\u{0}\u{1}garbage\n", "syntax", 2),
    ];
    for (i, (text, kind, line)) in cases.into_iter().enumerate() {
        let err = load_text(&format!("bad{i}.obj"), text).expect_err(text);
        let right_kind = match kind {
            "index" => matches!(err, Error::FaceIndexOutOfRange { .. }),
            "small" => matches!(err, Error::FaceTooSmall { corners: 2, .. }),
            "finite" => matches!(err, Error::NonFiniteValue { .. }),
            _ => matches!(err, Error::Syntax { .. }),
        };
        assert!(right_kind, "{text:?}: {err:?}");
        assert_eq!(line_of(&err), Some(line), "{text:?}: {err}");
        assert!(
            err.to_string().contains(&format!("bad{i}.obj:{line}:")),
            "{err}"
        );
    }
    let err =
        TriMesh::from_obj(write_temp("binary.obj", b"v 0 0 0\n\xff\xfe\x00\x01\n")).unwrap_err();
    assert!(matches!(err, Error::InvalidUtf8 { .. }) && line_of(&err) == Some(2));
    let err = load_text("empty.obj", "").unwrap_err();
    assert!(matches!(err, Error::NoFaces { .. }));
    let err = TriMesh::from_obj("/nonexistent/meshcast/missing.obj").unwrap_err();
    assert!(matches!(err, Error::Io { .. }));
}
