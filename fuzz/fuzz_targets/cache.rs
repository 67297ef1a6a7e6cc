//! Arbitrary bytes read as a meshcast cache: a mesh or a typed error, never a panic nor
//! undefined behaviour; an accepted mesh, with the hierarchy the file holds, is checked and
//! queried.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast::{Format, TriMesh};

fuzz_target!(|data: &[u8]| {
    // The cache's reader, through the one entry that takes bytes. With `Mesh::from_bytes`,
    // this becomes `meshcast_fuzz::exercise_mesh(&mesh)` on the loaded mesh, so that the
    // hierarchy read from the file is validated and queried rather than rebuilt.
    if let Ok(tri_mesh) = TriMesh::from_bytes(data, Some(Format::Cache)) {
        meshcast_fuzz::exercise_tri_mesh(tri_mesh);
    }
});
