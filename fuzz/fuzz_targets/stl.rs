//! Arbitrary bytes read as STL (ASCII or binary): a mesh or a typed error, never a panic; an
//! accepted mesh is built and queried.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast::{Format, TriMesh, TriMeshFiles};

fuzz_target!(|data: &[u8]| {
    if let Ok(tri_mesh) = TriMesh::from_bytes(data, Some(Format::Stl)) {
        meshcast_fuzz::exercise_tri_mesh(tri_mesh);
    }
});
