//! Bad OBJ input: every case is a typed error that names the file (and the line where there
//! is one), never a panic.

use meshcast::io::{Error, IndexKind};
use meshcast::TriMeshFiles;
use meshcast_mesh::TriMesh;
use meshcast_testkit::{asset, rng, temp_path};
use rand::Rng;

const TRIANGLE: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

fn load_bytes(name: &str, bytes: &[u8]) -> Result<TriMesh, Error> {
    let path = temp_path(name);
    std::fs::write(&path, bytes).expect("write temp file");
    TriMesh::from_obj(&path)
}

/// Loads `text`, expects an error on `line`, and checks the message names file and line.
fn expect_error_at(name: &str, text: &str, line: usize) -> Error {
    let err = load_bytes(name, text.as_bytes()).expect_err("bad input must fail");
    let message = err.to_string();
    assert!(
        message.contains(&format!("{name}:{line}:")),
        "{name}: {message}"
    );
    err
}

#[test]
fn missing_file_and_folder_are_io_errors() {
    let missing = temp_path("does-not-exist.obj");
    let err = TriMesh::from_obj(&missing).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert!(err.to_string().contains("does-not-exist.obj"));
    let folder = temp_path("a-folder.obj");
    std::fs::create_dir_all(&folder).expect("mkdir");
    assert!(matches!(TriMesh::from_obj(&folder), Err(Error::Io { .. })));
}

#[test]
fn files_without_faces_are_errors() {
    for (name, text) in [
        ("empty.obj", ""),
        ("blank.obj", "\n\n   \n"),
        ("comments.obj", "# nothing\n# here\n"),
        ("points-only.obj", TRIANGLE),
        ("lines-only.obj", "v 0 0 0\nv 1 0 0\nl 1 2\n"),
        ("prose.obj", "hello world\nthis is not a mesh\n"),
    ] {
        let err = load_bytes(name, text.as_bytes()).expect_err(name);
        assert!(matches!(err, Error::NoFaces { .. }), "{name}: {err}");
    }
}

#[test]
fn garbage_bytes_are_errors_with_their_line() {
    let err = load_bytes("binary.obj", b"v 0 0 0\n\x89PNG\r\n\x1a\n\x00\x00\xff\xfe").unwrap_err();
    assert!(matches!(err, Error::InvalidUtf8 { .. }), "{err}");
    assert!(err.to_string().contains("binary.obj:2:"), "{err}");
    let err = expect_error_at("control.obj", "v 0 0 0\n\u{1}\u{2}\u{0} 1 2\n", 2);
    assert!(matches!(err, Error::Syntax { .. }), "{err}");
}

#[test]
fn random_bytes_are_errors() {
    let mut rng = rng(0x0bad_f11e);
    for round in 0..8 {
        let bytes: Vec<u8> = (0..4096).map(|_| rng.gen()).collect();
        let result = load_bytes(&format!("random-{round}.obj"), &bytes);
        assert!(result.is_err(), "random bytes round {round} loaded");
    }
}

#[test]
fn face_indices_out_of_range_are_errors() {
    let cases = [
        ("f 1 2 4", IndexKind::Position, 4),
        ("f 1 2 0", IndexKind::Position, 0),
        ("f -4 1 2", IndexKind::Position, -4),
        ("f 1 2 99999999999", IndexKind::Position, 99_999_999_999),
        ("f 1/1 2/1 3/1", IndexKind::TextureCoordinate, 1),
        ("f 1//2 2//1 3//1", IndexKind::Normal, 2),
    ];
    for (i, (face, kind, index)) in cases.into_iter().enumerate() {
        let text = format!("{TRIANGLE}vn 0 0 1\n{face}\n");
        let err = expect_error_at(&format!("range-{i}.obj"), &text, 5);
        assert!(
            matches!(err, Error::FaceIndexOutOfRange { kind: k, index: n, .. } if k == kind && n == index),
            "{face}: {err}"
        );
    }
    // A face may only use vertices defined before it.
    let err = expect_error_at("forward.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 3);
    assert!(
        matches!(err, Error::FaceIndexOutOfRange { count: 2, .. }),
        "{err}"
    );
}

#[test]
fn faces_of_fewer_than_three_vertices_are_errors() {
    for (i, face) in ["f 1 2", "f 1", "f"].into_iter().enumerate() {
        let err = expect_error_at(&format!("small-{i}.obj"), &format!("{TRIANGLE}{face}\n"), 4);
        assert!(matches!(err, Error::FaceTooSmall { .. }), "{face}: {err}");
    }
}

#[test]
fn non_finite_coordinates_are_errors() {
    let lines = [
        "v nan 0 0",
        "v 0 inf 0",
        "v 0 0 -infinity",
        "v 1e39 0 0",
        "v 1 1 1 0",
        "v 1 1 1 1e-45",
        "vn 0 NaN 1",
        "vt inf 0",
    ];
    for (i, bad) in lines.into_iter().enumerate() {
        let text = format!("{TRIANGLE}{bad}\nf 1 2 3\n");
        let err = expect_error_at(&format!("finite-{i}.obj"), &text, 4);
        assert!(matches!(err, Error::NonFiniteValue { .. }), "{bad}: {err}");
    }
}

#[test]
fn malformed_statements_are_syntax_errors() {
    for (i, bad) in [
        "v 1 2",
        "v 1 2 3 4 5",
        "v 1 two 3",
        "vn 0 1",
        "vt 0",
        "f 1/// 2 3",
        "f a b c",
        "f /1 2 3",
        "usemtl",
    ]
    .into_iter()
    .enumerate()
    {
        let text = format!("{TRIANGLE}{bad}\nf 1 2 3\n");
        let err = expect_error_at(&format!("syntax-{i}.obj"), &text, 4);
        assert!(matches!(err, Error::Syntax { .. }), "{bad}: {err}");
    }
}

#[test]
fn truncated_files_fail_or_load_but_never_panic() {
    let text = std::fs::read_to_string(asset("cow.obj")).expect("cow");
    // Cut inside a vertex line, after its first coordinate: a clear error on that line.
    let start = text.find("\nv ").expect("a vertex line") + 1;
    let cut = start + text[start..].find(' ').unwrap() + 3;
    let line = text[..cut].lines().count();
    let err = expect_error_at("truncated.obj", &text[..cut], line);
    assert!(matches!(err, Error::Syntax { .. }), "{err}");
    // Anywhere else: no panic, and a success has at most the full count of triangles.
    let full = TriMesh::from_obj(asset("cow.obj"))
        .expect("cow")
        .triangle_count();
    let mut rng = rng(7);
    for round in 0..20 {
        let cut = rng.gen_range(0..text.len());
        if let Ok(mesh) = load_bytes(&format!("cut-{round}.obj"), &text.as_bytes()[..cut]) {
            assert!(mesh.triangle_count() <= full);
        }
    }
}

#[test]
fn million_character_lines_are_handled() {
    let long_number = "9".repeat(1_000_000);
    let err = expect_error_at(
        "long-coordinate.obj",
        &format!("{TRIANGLE}v 0 {long_number} 0\nf 1 2 3\n"),
        4,
    );
    assert!(matches!(err, Error::NonFiniteValue { .. }), "{err}");
    assert!(err.to_string().len() < 300, "the message quotes an excerpt");
    let err = expect_error_at(
        "long-index.obj",
        &format!("{TRIANGLE}f 1 2 {long_number}\n"),
        4,
    );
    assert!(matches!(err, Error::Syntax { .. }), "{err}");
    let long_word = "x".repeat(1_000_000);
    let err = expect_error_at(
        "long-face.obj",
        &format!("{TRIANGLE}f 1 2 {long_word}\n"),
        4,
    );
    assert!(matches!(err, Error::Syntax { .. }), "{err}");
    // A long comment is still a comment.
    let mesh = load_bytes(
        "long-comment.obj",
        format!("{TRIANGLE}# {long_word}\nf 1 2 3\n").as_bytes(),
    )
    .expect("comments may be long");
    assert_eq!(mesh.triangle_count(), 1);
}

#[test]
fn mutated_files_never_panic() {
    let text = std::fs::read(asset("woody.obj")).expect("woody");
    let mut rng = rng(99);
    for round in 0..30 {
        let mut bytes = text.clone();
        for _ in 0..rng.gen_range(1..20) {
            let at = rng.gen_range(0..bytes.len());
            bytes[at] = *b"0123456789-+./ \nfvnte#\x00\xff"
                .get(rng.gen_range(0..24))
                .unwrap();
        }
        let _ = load_bytes(&format!("mutated-{round}.obj"), &bytes);
    }
}
