//! Arbitrary bytes read as glTF (JSON with embedded buffers, or GLB), as a scene of instances
//! and flattened into one mesh: a scene or mesh, or a typed error, never a panic; what is
//! accepted is built and queried.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast::{Format, Scene, SceneFiles, TriMesh, TriMeshFiles};

fuzz_target!(|data: &[u8]| {
    if let Ok(scene) = Scene::from_bytes(data, Some(Format::Gltf)) {
        meshcast_fuzz::exercise_scene(&scene);
    }
    if let Ok(tri_mesh) = TriMesh::from_bytes(data, Some(Format::Gltf)) {
        meshcast_fuzz::exercise_tri_mesh(tri_mesh);
    }
});
