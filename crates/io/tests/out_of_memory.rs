//! Issue 72: an allocation that cannot succeed is a typed error, not an abort, on every path
//! of loading, building and caching. A binary of its own, so that its allocator, which
//! refuses any single allocation above a limit the test sets, touches no other test; one
//! test, so that nothing else allocates while a limit is set. Had any of these paths
//! allocated a large buffer the infallible way, the refusal would abort this binary.

// The allocator is the point of this file: the one `unsafe` of the crate's tests.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use meshcast_io::{Error, Format, MeshFiles, TriMeshFiles};
use meshcast_mesh::{Mesh, TriMesh};

/// The largest single allocation the allocator grants (`usize::MAX`: no limit).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The system allocator, refusing allocations above [`LIMIT`] as an exhausted machine would.
struct Limited;

// SAFETY: every call is passed to `System` unchanged, or refused with a null pointer, which
// `GlobalAlloc` allows for any allocation that cannot be satisfied.
unsafe impl GlobalAlloc for Limited {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with `layout` (a refusal hands out no pointer).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract for `realloc` is `System::realloc`'s; `ptr` came
        // from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Limited = Limited;

/// No single allocation above this while a path is tried: every big buffer of these meshes
/// (about 180,000 triangles) is larger, nothing else is.
const SMALL: usize = 512 * 1024;

/// `f` with allocations above `limit` refused.
fn limited<T>(limit: usize, f: impl FnOnce() -> T) -> T {
    LIMIT.store(limit, Ordering::Relaxed);
    let out = f();
    LIMIT.store(usize::MAX, Ordering::Relaxed);
    out
}

/// Asserts `result` failed for want of memory, naming `what`.
fn assert_out_of_memory<T>(result: Result<T, Error>, what: &str) {
    let Err(err) = result else {
        panic!("expected out of memory for {what}, got a value");
    };
    let oom = err
        .out_of_memory()
        .unwrap_or_else(|| panic!("expected out of memory for {what}: {err}"));
    assert_eq!(oom.what, what, "{err}");
    assert!(oom.bytes > SMALL as u64, "{err}");
    let message = err.to_string();
    assert!(
        message.contains(&format!("out of memory: {what} needs {} bytes", oom.bytes)),
        "{message}"
    );
}

/// A height field of `n` by `n` vertices: positions and triangles.
fn grid(n: u32) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let positions = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32, (i / n) as f32);
            [x, y, (x * 0.37).sin() + (y * 0.23).cos()]
        })
        .collect();
    let mut triangles = Vec::new();
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let i = y * n + x;
            triangles.push([i, i + 1, i + n]);
            triangles.push([i + 1, i + n + 1, i + n]);
        }
    }
    (positions, triangles)
}

fn binary_ply(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<u8> {
    let mut bytes = format!(
        "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty float x\n\
         property float y\nproperty float z\nelement face {}\n\
         property list uchar int vertex_indices\nend_header\n",
        positions.len(),
        triangles.len()
    )
    .into_bytes();
    for p in positions {
        p.iter().for_each(|c| bytes.extend(c.to_le_bytes()));
    }
    for t in triangles {
        bytes.push(3);
        t.iter()
            .for_each(|&i| bytes.extend((i as i32).to_le_bytes()));
    }
    bytes
}

fn binary_stl(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<u8> {
    let mut bytes = vec![0u8; 80];
    bytes.extend((triangles.len() as u32).to_le_bytes());
    for t in triangles {
        bytes.extend([0u8; 12]);
        for &i in t {
            positions[i as usize]
                .iter()
                .for_each(|c| bytes.extend(c.to_le_bytes()));
        }
        bytes.extend([0u8; 2]);
    }
    bytes
}

fn obj(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<u8> {
    let mut text = String::new();
    for [x, y, z] in positions {
        text += &format!("v {x} {y} {z}\n");
    }
    for [a, b, c] in triangles {
        text += &format!("f {} {} {}\n", a + 1, b + 1, c + 1);
    }
    text.into_bytes()
}

#[test]
fn every_large_allocation_of_loading_building_and_caching_is_an_error() {
    let (positions, triangles) = grid(300);
    let ply = binary_ply(&positions, &triangles);
    let stl = binary_stl(&positions, &triangles);
    let obj = obj(&positions, &triangles);

    // Loading: each reader's first large buffer.
    let load = |bytes: &[u8], format| limited(SMALL, || TriMesh::from_bytes(bytes, Some(format)));
    assert_out_of_memory(load(&ply, Format::Ply), "the PLY file's vertices");
    assert_out_of_memory(load(&stl, Format::Stl), "the STL file's triangles");
    assert_out_of_memory(load(&obj, Format::Obj), "the OBJ file's checked text");

    // Without a limit the same bytes load, to the same mesh.
    let from_ply = TriMesh::from_bytes(&ply, Some(Format::Ply)).unwrap();
    let from_stl = TriMesh::from_bytes(&stl, Some(Format::Stl)).unwrap();
    assert_eq!(from_ply.triangle_count(), triangles.len());
    assert_eq!(from_stl.triangle_count(), triangles.len());
    assert_eq!(from_stl.vertex_count(), positions.len(), "corners welded");

    // Building: the build's records of the triangles come first.
    let options = Default::default();
    let copy = from_ply.clone();
    let built = limited(SMALL, || Mesh::try_from_tri_mesh(copy, &options));
    assert_out_of_memory(built.map_err(Error::from), "the build's primitives");
    let mesh = Mesh::try_from_tri_mesh(from_ply, &options).unwrap();

    // Caching: writing reserves the file's bytes at once, reading each section's contents.
    let dir = std::env::temp_dir().join(format!("meshcast-oom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("grid.mcache");
    assert_out_of_memory(limited(SMALL, || mesh.save(&path)), "the cache's bytes");
    assert!(!path.exists(), "a failed save leaves no file");
    mesh.save(&path).unwrap();
    // A binary STL file streams from disk: its triangles, not its bytes, come first.
    let stl_path = dir.join("grid.stl");
    std::fs::write(&stl_path, &stl).unwrap();
    assert_out_of_memory(
        limited(SMALL, || TriMesh::from_path(&stl_path)),
        "the STL file's triangles",
    );
    assert_eq!(TriMesh::from_path(&stl_path).unwrap(), from_stl);
    let bytes = mesh.to_bytes();
    assert_out_of_memory(
        limited(SMALL, || Mesh::from_bytes(&bytes)),
        "the cache's positions",
    );
    // A cache file is mapped (no buffer for its bytes): its sections' contents are the
    // first large allocations. Read (`MESHCAST_CACHE_READ=read`), its bytes are one buffer,
    // reserved for its size. This binary's one test is the only reader of the variable.
    for (how, what) in [
        ("map", "the cache's positions"),
        ("read", "the file's bytes"),
    ] {
        std::env::set_var("MESHCAST_CACHE_READ", how);
        assert_out_of_memory(limited(SMALL, || Mesh::load(&path)), what);
        let loaded = Mesh::load(&path).unwrap();
        assert_eq!(loaded.bvh().nodes(), mesh.bvh().nodes());
    }
    std::env::remove_var("MESHCAST_CACHE_READ");
    std::fs::remove_dir_all(&dir).unwrap();
}
