//! glTF scenes against references: the Khronos samples (a parent's rotation, one mesh placed
//! twice, a primitive without indices), the same documents as GLB and with external buffers,
//! TRS against matrices, strips and fans, and the flattened mesh against the scene.

use std::sync::Arc;

use crate::gltf_builder::{
    embedded_buffer, one_primitive, text, to_glb, unit_triangle, Builder, UNSIGNED_BYTE,
    UNSIGNED_INT, UNSIGNED_SHORT,
};
use glam::{Affine3A, Mat3, Quat, Vec3};
use meshcast::io::{Error, Format, Place};
use meshcast::{SceneFiles, TriMeshFiles};
use meshcast_mesh::{RayQueries, Scene, SceneHit, TriMesh, Warning};
use meshcast_primitives::{Ray, Triangle};
use meshcast_testkit::{
    asset, brute_force_cast, incoherent_rays, random_rays, same_hit, same_scene_hit, temp_path,
};
use serde_json::json;

fn sample(name: &str) -> std::path::PathBuf {
    asset(&format!("gltf/{name}.gltf"))
}

/// Rays at a scene: incoherent and random ones around its box.
fn rays_at(scene: &Scene, count: usize) -> Vec<Ray> {
    let mut rays = incoherent_rays(scene.bounds(), count, 14);
    rays.extend(random_rays(scene.bounds(), count, 15));
    rays
}

/// Whether two scenes answer every ray alike, bit for bit; and how many rays hit.
fn same_answers(a: &Scene, b: &Scene, rays: &[Ray]) -> usize {
    let mut hits = 0;
    for (i, ray) in rays.iter().enumerate() {
        let (x, y) = (a.cast(ray), b.cast(ray));
        assert!(same_scene_hit(x, y), "ray {i} {ray:?}: {x:?} against {y:?}");
        hits += usize::from(x.is_some());
    }
    hits
}

#[test]
fn box_places_its_mesh_by_the_parents_rotation() {
    let scene = Scene::from_path(sample("Box")).expect("Box loads");
    assert_eq!(scene.len(), 1);
    let (_, instance) = scene.instances().next().expect("one instance");
    let tri_mesh = instance.mesh().tri_mesh();
    assert_eq!(tri_mesh.triangle_count(), 12);
    assert_eq!(tri_mesh.vertex_count(), 24);
    assert!(tri_mesh.normals().is_some(), "Box has normals");
    assert_eq!(tri_mesh.group_names(), ["Mesh/0"]);

    // The parent node's matrix, column-major as the file writes it: (x, y, z) -> (x, z, -y).
    let rotation = Affine3A::from_mat3(Mat3::from_cols_array(&[
        1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0,
    ]));
    assert_eq!(instance.transform(), rotation);
    let world: Vec<Triangle> = tri_mesh
        .triangles()
        .map(|t| {
            Triangle::new(
                rotation.transform_point3(t.v0),
                rotation.transform_point3(t.v1),
                rotation.transform_point3(t.v2),
            )
        })
        .collect();
    let unrotated: Vec<Triangle> = tri_mesh.triangles().collect();

    let rays = rays_at(&scene, 500);
    let (mut hits, mut told_apart) = (0, 0);
    for (i, ray) in rays.iter().enumerate() {
        let expected = brute_force_cast(&world, ray);
        let hit = scene.cast(ray).map(|h| h.hit);
        assert!(
            same_hit(hit, expected),
            "ray {i}: scene {hit:?}, brute force {expected:?}"
        );
        hits += usize::from(hit.is_some());
        // The rotated cube covers the same points; the triangles hit show the rotation.
        let without = brute_force_cast(&unrotated, ray);
        told_apart += usize::from(without.map(|h| h.triangle) != hit.map(|h| h.triangle));
    }
    assert!(hits > 300, "only {hits} rays hit the box");
    assert!(
        told_apart > 100,
        "the rotation changed only {told_apart} answers"
    );
}

#[test]
fn box_scene_bounds_are_the_half_unit_cube() {
    let scene = Scene::from_gltf(sample("Box")).expect("Box loads");
    let bounds = scene.bounds();
    for (found, expected) in [
        (bounds.min, Vec3::splat(-0.5)),
        (bounds.max, Vec3::splat(0.5)),
    ] {
        assert!((found - expected).abs().max_element() < 1e-5, "{bounds:?}");
    }
}

#[test]
fn simple_meshes_share_one_mesh_between_two_instances() {
    let scene = Scene::from_path(sample("SimpleMeshes")).expect("SimpleMeshes loads");
    let instances: Vec<_> = scene.instances().collect();
    assert_eq!(instances.len(), 2);
    let (first, second) = (instances[0].1, instances[1].1);
    assert!(
        Arc::ptr_eq(first.mesh(), second.mesh()),
        "one mesh, built once"
    );
    assert_eq!(first.mesh().triangle_count(), 1);
    assert_eq!(first.transform(), Affine3A::IDENTITY);
    assert_eq!(second.transform(), Affine3A::from_translation(Vec3::X));

    // A ray down onto each triangle's centroid hits that instance's triangle 0.
    for (id, instance) in &instances {
        let centroid = instance.world_triangle(0).expect("a triangle").centroid();
        let ray = Ray::new(centroid + Vec3::Z, -Vec3::Z);
        let hit: SceneHit = scene.cast(&ray).expect("a hit");
        assert_eq!((hit.instance, hit.hit.triangle), (*id, 0));
        assert!((hit.hit.t - 1.0).abs() < 1e-6);
    }
}

#[test]
fn triangle_without_indices_is_one_triangle() {
    let mesh = TriMesh::from_path(sample("TriangleWithoutIndices")).expect("loads");
    assert_eq!(mesh.indices(), [[0, 1, 2]]);
    assert_eq!(mesh.positions(), [Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert!(mesh.warnings().is_empty());
}

#[test]
fn a_glb_written_from_each_sample_answers_alike() {
    for name in ["Box", "SimpleMeshes", "TriangleWithoutIndices"] {
        let document: serde_json::Value =
            serde_json::from_slice(&std::fs::read(sample(name)).expect("readable")).expect("JSON");
        let glb = to_glb(&document);
        let from_json = Scene::from_path(sample(name)).expect("loads");
        let from_glb = Scene::from_bytes(&glb, None).expect("the GLB loads");
        let path = temp_path(&format!("{name}.glb"));
        std::fs::write(&path, &glb).expect("written");
        let from_glb_file = Scene::from_path(&path).expect("the GLB file loads");
        let rays = rays_at(&from_json, 200);
        let hits = same_answers(&from_json, &from_glb, &rays);
        same_answers(&from_json, &from_glb_file, &rays);
        assert!(hits > 0, "{name}: no ray hits");
    }
}

#[test]
fn an_external_buffer_beside_the_file_answers_like_an_embedded_one() {
    let mut document: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sample("Box")).expect("readable")).expect("JSON");
    let bin = embedded_buffer(&document);
    document["buffers"][0]["uri"] = json!("box%20data.bin");
    let path = temp_path("external/Box.gltf");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path.with_file_name("box data.bin"), &bin).unwrap();
    std::fs::write(&path, text(&document)).unwrap();

    let embedded = Scene::from_path(sample("Box")).expect("loads");
    let external = Scene::from_path(&path).expect("the external buffer is found");
    assert!(same_answers(&embedded, &external, &rays_at(&embedded, 200)) > 0);

    // Bytes have no folder to look in.
    let err = Scene::from_bytes(&text(&document), Some(Format::Gltf)).unwrap_err();
    match &err {
        Error::Unsupported { what, at } => {
            assert!(what.contains("box%20data.bin"), "{err}");
            assert_eq!(
                at.place,
                Place::Element {
                    kind: "buffer",
                    index: 0
                }
            );
        }
        _ => panic!("expected Unsupported, got {err:?}"),
    }
}

#[test]
fn trs_and_matrix_nodes_place_alike() {
    let (translation, scale) = (Vec3::new(1.0, -2.0, 3.0), Vec3::new(2.0, 0.5, 1.5));
    let rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.7);
    let matrix = glam::Mat4::from_scale_rotation_translation(scale, rotation, translation);
    let with_node = |node: serde_json::Value| {
        let mut document = unit_triangle();
        document["nodes"] = json!([node]);
        Scene::from_bytes(&text(&document), None).expect("loads")
    };
    let trs = with_node(json!({"mesh": 0, "translation": translation.to_array(),
        "rotation": rotation.to_array(), "scale": scale.to_array()}));
    let by_matrix = with_node(json!({"mesh": 0, "matrix": matrix.to_cols_array()}));
    let a = trs.instances().next().unwrap().1.transform();
    let b = by_matrix.instances().next().unwrap().1.transform();
    assert!(a.abs_diff_eq(b, 1e-6), "{a:?} against {b:?}");
    assert!(a.abs_diff_eq(Affine3A::from_mat4(matrix), 1e-6));

    // A parent's transform composes with its child's: T(parent) then the child's TRS.
    let mut document = unit_triangle();
    document["nodes"] = json!([
        {"children": [1], "translation": [0.0, 0.0, 10.0]},
        {"mesh": 0, "scale": [3.0, 3.0, 3.0]}
    ]);
    let nested = Scene::from_bytes(&text(&document), None).expect("loads");
    let (_, instance) = nested.instances().next().unwrap();
    let expected = Affine3A::from_translation(Vec3::new(0.0, 0.0, 10.0))
        * Affine3A::from_scale(Vec3::splat(3.0));
    assert_eq!(instance.transform(), expected);
}

/// Triangles of a one-primitive document, as position triples.
fn triangles_of(document: &serde_json::Value) -> Vec<[Vec3; 3]> {
    let mesh = TriMesh::from_bytes(&text(document), Some(Format::Gltf)).expect("loads");
    mesh.triangles().map(|t| [t.v0, t.v1, t.v2]).collect()
}

#[test]
fn strips_and_fans_become_front_facing_triangles() {
    // A strip zig-zagging along x: 0 2 4 on y = 0, 1 3 5 on y = -1; every triangle faces +z.
    let strip: Vec<[f32; 3]> = (0..6)
        .map(|i| [(i / 2) as f32, -((i % 2) as f32), 0.0])
        .collect();
    let p = |i: usize| Vec3::from(strip[i]);
    let triangles = triangles_of(&one_primitive(&strip, None, 5));
    assert_eq!(
        triangles,
        [
            [p(0), p(1), p(2)],
            [p(1), p(3), p(2)],
            [p(2), p(3), p(4)],
            [p(3), p(5), p(4)]
        ]
    );
    // Two strips, (0 1 2 3) and (2 3 4 5), joined by repeated indices: the zero-area joins
    // are dropped, and each strip keeps the winding it has alone.
    let joined = [0, 1, 2, 3, 3, 2, 2, 3, 4, 5];
    let two = triangles_of(&one_primitive(&strip, Some((&joined, UNSIGNED_SHORT)), 5));
    assert_eq!(two, triangles);

    // A fan around the centre of a square, counter-clockwise seen from +z.
    let fan = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
        [1.0, 0.0, 0.0],
    ];
    let fan_triangles = triangles_of(&one_primitive(&fan, None, 6));
    assert_eq!(fan_triangles.len(), 4);
    assert_eq!(fan_triangles[0], [Vec3::X, Vec3::Y, Vec3::ZERO]);
    for triangles in [triangles, fan_triangles] {
        for [a, b, c] in triangles {
            assert!(
                Triangle::new(a, b, c).normal().z > 0.0,
                "{a} {b} {c} faces down"
            );
        }
    }
}

#[test]
fn every_index_type_and_no_indices_give_the_same_triangles() {
    let positions = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let indices = [0, 1, 2, 0, 2, 3];
    let expected = triangles_of(&one_primitive(
        &indices.map(|i| positions[i as usize]),
        None,
        4,
    ));
    assert_eq!(expected.len(), 2);
    for component in [UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT] {
        let document = one_primitive(&positions, Some((&indices, component)), 4);
        assert_eq!(
            triangles_of(&document),
            expected,
            "component type {component}"
        );
    }
}

#[test]
fn points_and_lines_are_skipped_with_a_warning() {
    let mut builder = Builder::default();
    let position = builder.vec3s(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let primitives: Vec<_> = [0, 1, 4, 3, 2]
        .map(|mode| json!({"attributes": {"POSITION": position}, "mode": mode}))
        .into();
    let document = builder.document(
        json!([{"name": "mixed", "primitives": primitives}]),
        json!([{"mesh": 0}]),
        json!([0]),
    );
    let mesh = TriMesh::from_bytes(&text(&document), None).expect("loads");
    assert_eq!(mesh.triangle_count(), 1);
    assert_eq!(mesh.group_names(), ["mixed/2"]);
    match mesh.warnings() {
        [Warning::SkippedPrimitives { count: 4, what }] => {
            assert!(what.contains("LINES") && what.contains("POINTS"), "{what}");
        }
        other => panic!("expected one SkippedPrimitives warning, got {other:?}"),
    }
}

#[test]
fn a_mesh_placed_by_ten_nodes_is_built_once() {
    let mut document = unit_triangle();
    let nodes: Vec<_> = (0..10)
        .map(|i| json!({"mesh": 0, "translation": [2.0 * i as f32, 0.0, 0.0]}))
        .collect();
    document["nodes"] = json!(nodes);
    document["scenes"] = json!([{"nodes": (0..10).collect::<Vec<_>>()}]);
    let scene = Scene::from_bytes(&text(&document), None).expect("loads");
    let instances: Vec<_> = scene.instances().map(|(_, i)| i).collect();
    assert_eq!(instances.len(), 10);
    assert!(instances
        .iter()
        .all(|i| Arc::ptr_eq(i.mesh(), instances[0].mesh())));
    assert_eq!(Arc::strong_count(instances[0].mesh()), 10);
}

#[test]
fn normals_and_texture_coordinates_are_kept() {
    let mut builder = Builder::default();
    let position = builder.vec3s(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let normal = builder.vec3s(&[[0.0, 0.0, 1.0]; 3]);
    let uv = builder.vec2s(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    let document = builder.document(
        json!([{"primitives": [{"attributes": {"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv}}]}]),
        json!([{"mesh": 0, "scale": [1.0, 1.0, -1.0]}]),
        json!([0]),
    );
    let scene = Scene::from_bytes(&text(&document), None).expect("loads");
    let local = scene.instances().next().unwrap().1.mesh().tri_mesh();
    assert_eq!(local.normals().unwrap().corners(0), Some([Vec3::Z; 3]));
    assert_eq!(local.uvs().unwrap().corners(0).unwrap()[1], glam::Vec2::X);
    assert_eq!(local.group_names(), ["mesh0/0"]);

    // Flattened through a mirror: the normal follows the inverse transpose, and the
    // triangle is turned so that its geometric normal agrees with it.
    let flat = TriMesh::from_bytes(&text(&document), None).expect("loads");
    assert_eq!(flat.normals().unwrap().corners(0), Some([-Vec3::Z; 3]));
    assert!(flat.triangle(0).unwrap().normal().z < 0.0);
    assert_eq!(flat.uvs().unwrap().corners(0).unwrap()[2], glam::Vec2::X);
}

#[test]
fn a_flattened_scene_holds_every_instance_in_world_space() {
    for name in ["Box", "SimpleMeshes", "TriangleWithoutIndices"] {
        let scene = Scene::from_path(sample(name)).expect("loads");
        let flat = TriMesh::from_path(sample(name)).expect("flattens");
        let expected: Vec<Triangle> = scene
            .instances()
            .flat_map(|(_, instance)| {
                (0..instance.mesh().triangle_count())
                    .map(|t| instance.world_triangle(t).expect("in range"))
            })
            .collect();
        let found: Vec<Triangle> = flat.triangles().collect();
        assert_eq!(found.len(), expected.len(), "{name}");
        for (i, (a, b)) in found.iter().zip(&expected).enumerate() {
            let close = [(a.v0, b.v0), (a.v1, b.v1), (a.v2, b.v2)]
                .iter()
                .all(|(p, q)| (*p - *q).abs().max_element() < 1e-6);
            assert!(close, "{name}: triangle {i}: {a:?} against {b:?}");
        }
        assert_eq!(
            flat.group_names().len(),
            1,
            "{name}: one glTF mesh, one group"
        );
    }
}

#[test]
fn a_georeferenced_node_keeps_its_translation_in_f64() {
    use meshcast::glam::{DAffine3, DMat4, DVec3};
    use meshcast::{DRay, Mesh};
    // A unit triangle placed 5000 km north by its node's translation (as a matrix too): read
    // as f32, the translation would move by up to half a metre.
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.25);
    let by_trs = json!({"mesh": 0, "translation": offset.to_array()});
    let matrix = DMat4::from(DAffine3::from_translation(offset));
    let by_matrix = json!({"mesh": 0, "matrix": matrix.to_cols_array()});
    for node in [by_trs, by_matrix] {
        let mut document = unit_triangle();
        document["nodes"] = json!([node]);
        for bytes in [text(&document), to_glb(&document)] {
            let scene = Scene::from_bytes(&bytes, Some(Format::Gltf)).expect("loads");
            let (_, instance) = scene.instances().next().expect("an instance");
            assert_eq!(instance.exact_transform().translation, offset);
            let down = DRay::new(offset + DVec3::new(0.25, 0.25, 2.0), DVec3::NEG_Z);
            let hit = scene.cast(&down).expect("a hit");
            assert_eq!(hit.hit.t, 2.0);
            // A centimetre beside the triangle's edge misses, as at the origin.
            let beside = DRay::new(offset + DVec3::new(-0.01, 0.25, 2.0), DVec3::NEG_Z);
            assert!(scene.cast(&beside).is_none());
            // Flattened, the mesh keeps the translation as its origin.
            let flat = TriMesh::from_bytes(&bytes, Some(Format::Gltf)).expect("loads");
            let mesh = Mesh::from_tri_mesh(flat, &Default::default());
            assert!((mesh.origin() - offset).length() < 1.0, "{}", mesh.origin());
            assert_eq!(mesh.cast(&down).map(|hit| hit.t), Some(2.0));
            assert!(mesh.cast(&beside).is_none());
        }
    }
}
