//! Arbitrary bytes read as a meshcast cache: a mesh or a typed error, never a panic nor
//! undefined behaviour; an accepted mesh, with the hierarchy the file holds, is checked and
//! queried, and written again it reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast::{Mesh, MeshFiles};

fuzz_target!(|data: &[u8]| {
    if let Ok(mesh) = Mesh::from_bytes(data) {
        meshcast_fuzz::exercise_mesh(&mesh);
        let again = Mesh::from_bytes(&mesh.to_bytes());
        assert!(again.is_ok(), "a loaded cache written again: {again:?}");
    }
});
