//! Arbitrary bytes in whatever format they look like (`Format::detect`): the detection and
//! every reader it chooses; an accepted mesh is built and queried.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast::{Format, TriMesh, TriMeshFiles};

fuzz_target!(|data: &[u8]| {
    if let Ok(tri_mesh) = TriMesh::from_bytes(data, None) {
        assert!(
            Format::detect(data).is_some(),
            "a mesh from bytes of no format"
        );
        meshcast_fuzz::exercise_tri_mesh(tri_mesh);
    }
});
