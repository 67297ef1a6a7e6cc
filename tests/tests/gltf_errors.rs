//! Truncated, garbled and hostile glTF files: each a typed error naming the place at fault,
//! never a panic.

use crate::gltf_builder::{one_primitive, text, to_glb, unit_triangle};
use meshcast::io::{Error, Format, IndexKind, Place};
use meshcast::{SceneFiles, TriMeshFiles};
use meshcast_mesh::{Scene, TriMesh};
use meshcast_testkit::asset;
use serde_json::{json, Value};

/// The error loading `document` gives, as a scene and flattened (the same error both ways).
fn error_of(document: &Value) -> Error {
    let bytes = text(document);
    let flat = TriMesh::from_bytes(&bytes, Some(Format::Gltf)).expect_err("rejected");
    let scene = Scene::from_bytes(&bytes, Some(Format::Gltf)).expect_err("rejected");
    assert_eq!(flat.to_string(), scene.to_string());
    scene
}

/// Asserts a [`Error::Malformed`] at `place` whose problem mentions `words`.
fn assert_malformed(error: &Error, place: Place, words: &str) {
    match error {
        Error::Malformed { at, problem, .. } => {
            assert_eq!(at.place, place, "{error}");
            assert!(problem.contains(words), "{error}");
        }
        _ => panic!("expected Malformed at {place:?}, got {error:?}"),
    }
}

fn accessor(index: usize) -> Place {
    Place::Element {
        kind: "accessor",
        index,
    }
}

fn node(index: usize) -> Place {
    Place::Element {
        kind: "node",
        index,
    }
}

#[test]
fn accessor_ranges_past_their_view_are_errors_naming_the_accessor() {
    let cases: [(&str, Value, &str); 5] = [
        ("byteOffset", json!(4), "run past the end"),
        ("count", json!(4), "run past the end"),
        // A huge declared count: rejected by arithmetic, nothing allocated for it.
        ("count", json!(1u64 << 60), "run past the end"),
        ("count", json!(u64::MAX), "run past the end"),
        ("bufferView", json!(7), "does not exist"),
    ];
    for (field, value, words) in cases {
        let mut document = unit_triangle();
        document["accessors"][0][field] = value;
        assert_malformed(&error_of(&document), accessor(0), words);
    }
}

#[test]
fn buffer_views_past_their_buffer_and_bad_strides_are_errors() {
    let mut document = unit_triangle();
    document["bufferViews"][0]["byteOffset"] = json!(8);
    assert_malformed(
        &error_of(&document),
        accessor(0),
        "runs past the end of buffer 0",
    );

    let mut document = unit_triangle();
    document["bufferViews"][0]["byteLength"] = json!(u64::MAX);
    assert_malformed(
        &error_of(&document),
        accessor(0),
        "runs past the end of buffer 0",
    );

    let mut document = unit_triangle();
    document["bufferViews"][0]["byteStride"] = json!(4);
    assert_malformed(&error_of(&document), accessor(0), "stride 4");

    // A legal stride that spreads the three elements past the view's 36 bytes.
    let mut document = unit_triangle();
    document["bufferViews"][0]["byteStride"] = json!(16);
    assert_malformed(&error_of(&document), accessor(0), "16 apart");
}

#[test]
fn wrong_accessor_types_are_errors() {
    for (field, value) in [
        ("componentType", json!(5123)),
        ("type", json!("VEC2")),
        ("type", json!("MAT7")),
    ] {
        let mut document = unit_triangle();
        document["accessors"][0][field] = value;
        let error = error_of(&document);
        assert!(
            matches!(&error, Error::Malformed { at, .. } if at.place == accessor(0)),
            "{field}: {error:?}"
        );
    }
    let mut document = unit_triangle();
    document["accessors"][0]["sparse"] = json!({"count": 1,
        "indices": {"bufferView": 0, "componentType": 5121}, "values": {"bufferView": 0}});
    assert!(matches!(error_of(&document), Error::Unsupported { .. }));
}

#[test]
fn a_buffer_shorter_than_declared_is_truncated() {
    let mut document = unit_triangle();
    document["buffers"][0]["byteLength"] = json!(1000);
    match error_of(&document) {
        Error::Truncated { at, expected } => {
            assert_eq!(
                at.place,
                Place::Element {
                    kind: "buffer",
                    index: 0
                }
            );
            assert!(expected.contains("1000"), "{expected}");
        }
        other => panic!("expected Truncated, got {other:?}"),
    }

    let mut document = unit_triangle();
    document["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@");
    assert_malformed(
        &error_of(&document),
        Place::Element {
            kind: "buffer",
            index: 0,
        },
        "data URI",
    );
}

#[test]
fn indices_out_of_range_name_the_index_accessor() {
    let document = one_primitive(
        &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        Some((&[0, 1, 3], crate::gltf_builder::UNSIGNED_SHORT)),
        4,
    );
    match error_of(&document) {
        Error::FaceIndexOutOfRange {
            at,
            kind: IndexKind::Position,
            index: 3,
            count: 3,
        } => assert_eq!(at.place, accessor(1)),
        other => panic!("expected FaceIndexOutOfRange, got {other:?}"),
    }
}

#[test]
fn node_cycles_and_shared_children_are_errors_not_stack_overflows() {
    let cases = [
        (json!([{"mesh": 0, "children": [1]}, {"children": [0]}]), 0),
        (json!([{"mesh": 0, "children": [0]}]), 0),
        (
            json!([{"children": [1, 2]}, {"children": [2]}, {"mesh": 0}]),
            2,
        ),
    ];
    for (nodes, twice) in cases {
        let mut document = unit_triangle();
        document["nodes"] = nodes;
        assert_malformed(&error_of(&document), node(twice), "reached twice");
    }

    // A legal chain far deeper than any recursion would survive.
    let depth = 100_000;
    let mut document = unit_triangle();
    let mut nodes: Vec<Value> = (1..depth).map(|i| json!({"children": [i]})).collect();
    nodes.push(json!({"mesh": 0}));
    document["nodes"] = json!(nodes);
    let scene = Scene::from_bytes(&text(&document), None).expect("a deep chain loads");
    assert_eq!(scene.len(), 1);
}

#[test]
fn missing_elements_are_errors() {
    let mut document = unit_triangle();
    document["nodes"] = json!([{"mesh": 3}]);
    assert_malformed(&error_of(&document), node(0), "mesh 3");

    let mut document = unit_triangle();
    document["nodes"] = json!([{"mesh": 0, "children": [9]}]);
    assert_malformed(&error_of(&document), node(0), "child 9");

    let mut document = unit_triangle();
    document["scenes"] = json!([{"nodes": [5]}]);
    assert_malformed(&error_of(&document), Place::File, "node 5");

    let mut document = unit_triangle();
    document["scene"] = json!(2);
    assert_malformed(&error_of(&document), Place::File, "scene 2");

    // The `gltf` crate's own validation indexes this accessor without a check.
    let mut document = unit_triangle();
    document["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    assert_malformed(&error_of(&document), accessor(99), "no such accessor");

    let mut document = unit_triangle();
    document["meshes"][0]["primitives"][0]["mode"] = json!(9);
    let error = error_of(&document);
    assert!(matches!(error, Error::Malformed { .. }), "{error:?}");

    let mut document = unit_triangle();
    document["meshes"][0]["primitives"][0]["attributes"] = json!({"NORMAL": 0});
    assert_malformed(
        &error_of(&document),
        Place::Element {
            kind: "mesh",
            index: 0,
        },
        "POSITION",
    );
}

#[test]
fn singular_and_non_finite_transforms_name_the_node() {
    let nodes = [
        json!({"mesh": 0, "scale": [1.0, 0.0, 1.0]}),
        json!({"mesh": 0, "rotation": [0.0, 0.0, 0.0, 0.0]}),
        json!({"mesh": 0, "translation": [1e39, 0.0, 0.0]}),
        json!({"mesh": 0, "matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5,
            0.0, 0.0, 0.0, 1.0]}),
        json!({"mesh": 0, "scale": [1e-50, 1e-50, 1e-50]}),
    ];
    for placed in nodes {
        let mut document = unit_triangle();
        document["nodes"] = json!([{"children": [1]}, placed]);
        let error = error_of_scene(&document);
        assert!(
            matches!(&error, Error::Malformed { at, .. } if at.place == node(1)),
            "{placed}: {error:?}"
        );
    }
}

/// The error loading `document` as a scene (flattening may accept what an instance cannot).
fn error_of_scene(document: &Value) -> Error {
    Scene::from_bytes(&text(document), Some(Format::Gltf)).expect_err("rejected")
}

#[test]
fn required_extensions_are_unsupported_and_named() {
    for name in [
        "KHR_draco_mesh_compression",
        "EXT_meshopt_compression",
        "KHR_mesh_quantization",
        "VENDOR_anything_else",
    ] {
        let mut document = unit_triangle();
        document["extensionsUsed"] = json!([name]);
        document["extensionsRequired"] = json!([name]);
        match error_of(&document) {
            Error::Unsupported { what, .. } => assert!(what.contains(name), "{what}"),
            other => panic!("{name}: expected Unsupported, got {other:?}"),
        }
    }
    // Used but not required: read, the extension ignored.
    let mut document = unit_triangle();
    document["extensionsUsed"] = json!(["KHR_materials_unlit"]);
    assert!(Scene::from_bytes(&text(&document), None).is_ok());
}

#[test]
fn non_finite_positions_are_errors_naming_the_accessor() {
    let document = one_primitive(
        &[[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]],
        None,
        4,
    );
    match error_of(&document) {
        Error::NonFiniteValue { at, .. } => assert_eq!(at.place, accessor(0)),
        other => panic!("expected NonFiniteValue, got {other:?}"),
    }
}

#[test]
fn a_scene_without_triangles_has_no_faces() {
    let mut document = unit_triangle();
    document["meshes"][0]["primitives"][0]["mode"] = json!(0);
    assert!(matches!(error_of(&document), Error::NoFaces { .. }));
    let mut document = unit_triangle();
    document["scenes"] = json!([{"nodes": []}]);
    assert!(matches!(error_of(&document), Error::NoFaces { .. }));
}

#[test]
fn glb_headers_that_lie_are_errors() {
    let glb = to_glb(&unit_triangle());
    let with_word = |at: usize, value: u32| {
        let mut bytes = glb.clone();
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        bytes
    };
    // A total length shorter than the header itself: the `gltf` crate would subtract past 0.
    for length in [0, 11] {
        let error = Scene::from_bytes(&with_word(8, length), None).expect_err("rejected");
        assert!(matches!(error, Error::Malformed { .. }), "{error:?}");
    }
    let error = Scene::from_bytes(&with_word(8, u32::MAX), None).expect_err("rejected");
    assert!(matches!(error, Error::Truncated { .. }), "{error:?}");
    let error = Scene::from_bytes(&with_word(4, 1), None).expect_err("rejected");
    assert!(matches!(error, Error::Unsupported { .. }), "{error:?}");
    // The JSON chunk's length past the file.
    let error = Scene::from_bytes(&with_word(12, 1 << 30), None).expect_err("rejected");
    assert!(matches!(error, Error::Malformed { .. }), "{error:?}");
}

#[test]
fn every_truncation_of_the_samples_is_an_error() {
    let gltf = std::fs::read(asset("gltf/Box.gltf")).expect("readable");
    let document: Value = serde_json::from_slice(&gltf).expect("JSON");
    let glb = to_glb(&document);
    for (name, bytes) in [("Box.gltf", &gltf), ("Box.glb", &glb)] {
        for cut in 0..bytes.len() {
            let result = Scene::from_bytes(&bytes[..cut], Some(Format::Gltf));
            assert!(result.is_err(), "{name} cut at {cut} loads");
        }
    }
    // A JSON file cut short is truncated at its last line.
    let error = Scene::from_bytes(&gltf[..gltf.len() / 2], Some(Format::Gltf)).unwrap_err();
    assert!(
        matches!(&error, Error::Truncated { at, .. } if at.line().is_some()),
        "{error:?}"
    );
}

#[test]
fn garbled_bytes_never_panic() {
    let document: Value =
        serde_json::from_slice(&std::fs::read(asset("gltf/SimpleMeshes.gltf")).unwrap()).unwrap();
    let glb = to_glb(&document);
    let mut loaded = 0;
    for at in 0..glb.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut bytes = glb.clone();
            bytes[at] ^= flip;
            // Either answer is fine; a panic fails the test.
            loaded += usize::from(Scene::from_bytes(&bytes, Some(Format::Gltf)).is_ok());
            let _ = TriMesh::from_bytes(&bytes, Some(Format::Gltf));
        }
    }
    assert!(loaded > 0, "some flips (in padding, names) still load");
}
