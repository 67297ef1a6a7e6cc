//! A crate's rooms import one way (ARCHITECTURE.md, "Inside meshcast-mesh", "Inside
//! meshcast-primitives", "Inside meshcast-bvh" and "Inside meshcast-gpu"): a room may use the rooms below it in its
//! crate's list, never one above. Read from the sources: every `crate::room` path, and every
//! name a room takes through the crate root (`crate::Mesh`, `use crate::{Scene, ...}`),
//! mapped to the room that defines it by the root's re-exports. Comments and test modules are left out (a doc
//! link may point anywhere; tests may use the whole crate).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// A crate's rooms, lowest first (each may use those before it), the files at its root
/// that are in no room, and the files that stand in for a room in another build (a
/// feature's absent place), each with its room.
struct Rooms {
    crate_dir: &'static str,
    rooms: &'static [&'static str],
    loose: &'static [&'static str],
    stand_ins: &'static [(&'static str, &'static str)],
}

/// The mesh crate's rooms.
const MESH: Rooms = Rooms {
    crate_dir: "crates/mesh",
    rooms: &[
        "error",
        "batches",
        "queries",
        "volume",
        "triangles",
        "mesh",
        "scene",
        "points",
        "contact",
        "fields",
        "views",
        "world",
    ],
    loose: &["lib"],
    stand_ins: &[],
};

/// The primitives crate's rooms (`test_rng.rs` is the tests' random numbers).
const PRIMITIVES: Rooms = Rooms {
    crate_dir: "crates/primitives",
    rooms: &[
        "error",
        "lanes",
        "exact",
        "rays",
        "triangles",
        "polygons",
        "volumes",
        "view",
    ],
    loose: &["lib", "test_rng"],
    stand_ins: &[],
};

/// The bvh crate's rooms.
const BVH: Rooms = Rooms {
    crate_dir: "crates/bvh",
    rooms: &[
        "huge_pages",
        "memory",
        "layout",
        "contracts",
        "simd",
        "error",
        "first_hits",
        "query",
        "binary",
        "builders",
        "primitive",
        "wide",
        "nearest",
        "overlap",
        "stats",
    ],
    loose: &["lib"],
    stand_ins: &[],
};

/// The GPU crate's rooms (`shader/` holds the WGSL kernel; `cuda_absent.rs` is the CUDA back
/// end's place without the `cuda` feature).
const GPU: Rooms = Rooms {
    crate_dir: "crates/gpu",
    rooms: &[
        "error",
        "quantization",
        "kernel",
        "layout",
        "rays",
        "unchecked",
        "raw_device",
        "cuda",
        "context",
        "stream",
        "gpu_mesh",
    ],
    loose: &["lib", "shader"],
    stand_ins: &[("cuda_absent", "cuda")],
};

/// The code of a file without comments and without its test module.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("readable source");
    // The first test module with a body (not `#[cfg(test)] mod helpers;`) ends the code.
    let end = text
        .match_indices("#[cfg(test)]\n")
        .map(|(at, _)| at)
        .find(|&at| {
            let item = text[at..].lines().nth(1).unwrap_or_default();
            item.contains("mod ") && item.ends_with('{')
        })
        .unwrap_or(text.len());
    let text = &text[..end];
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers in `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

impl Rooms {
    fn source_dir(&self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(self.crate_dir)
            .join("src")
    }

    /// The name each public item of the crate root comes from: `pub use room::{A, B}` in
    /// `lib.rs` maps `A` and `B` to `room`.
    fn names_by_room(&self) -> HashMap<String, &'static str> {
        let lib = code(&self.source_dir().join("lib.rs"));
        let mut names = HashMap::new();
        for statement in lib.split(';') {
            // An attribute (`#[cfg(feature = "cuda")]`) may stand before the `use`.
            let statement = statement
                .lines()
                .map(str::trim)
                .skip_while(|line| line.is_empty() || line.starts_with("#["))
                .collect::<Vec<_>>()
                .join(" ");
            let Some(rest) = statement.strip_prefix("pub use ") else {
                continue;
            };
            let Some(room) = self
                .rooms
                .iter()
                .find(|room| rest.starts_with(&format!("{room}::")))
            else {
                continue;
            };
            for name in words(&rest[room.len() + 2..]) {
                names.insert(name.to_owned(), *room);
            }
        }
        names
    }

    /// Every `.rs` file of a room (its folders' included; the kernels' sources, shaders and
    /// scripts beside them are not Rust), and every stand-in, with the room.
    fn room_files(&self) -> Vec<(&'static str, PathBuf)> {
        let mut files: Vec<_> = self
            .stand_ins
            .iter()
            .map(|&(file, room)| (room, self.source_dir().join(format!("{file}.rs"))))
            .collect();
        for &room in self.rooms {
            let file = self.source_dir().join(format!("{room}.rs"));
            if file.exists() {
                files.push((room, file));
                continue;
            }
            let mut folders = vec![self.source_dir().join(room)];
            while let Some(folder) = folders.pop() {
                let entries = fs::read_dir(&folder).expect("every room is a file or a folder");
                for entry in entries {
                    let path = entry.expect("listable").path();
                    if path.is_dir() {
                        folders.push(path);
                        continue;
                    }
                    if path.extension().and_then(|e| e.to_str()) == Some("rs") {
                        files.push((room, path));
                    }
                }
            }
        }
        files
    }

    /// The rooms a file's code names: `crate::room` paths and root names.
    fn rooms_used(
        &self,
        code: &str,
        names: &HashMap<String, &'static str>,
    ) -> Vec<(String, &'static str)> {
        let mut used = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let taken = match rest.strip_prefix('{') {
                Some(group) => &group[..group.find('}').expect("a closed group")],
                None => words(rest).next().unwrap_or_default(),
            };
            for name in words(taken) {
                let room = self
                    .rooms
                    .iter()
                    .find(|&&room| room == name)
                    .copied()
                    .or_else(|| names.get(name).copied());
                if let Some(room) = room {
                    used.push((name.to_owned(), room));
                }
            }
        }
        used
    }

    /// Asserts that no room uses a room above it; `known` are root names and their rooms
    /// that show the re-exports were read.
    fn assert_imports_point_down(&self, known: &[(&str, &str)]) {
        let names = self.names_by_room();
        for (name, room) in known {
            assert_eq!(
                names.get(*name),
                Some(room),
                "the root's re-exports were not read: {names:?}"
            );
        }
        let rank = |room: &str| self.rooms.iter().position(|&r| r == room).expect("a room");
        let mut upward = Vec::new();
        let files = self.room_files();
        assert!(
            files.len() > self.rooms.len(),
            "the rooms' files were not found"
        );
        for (room, path) in files {
            for (name, used) in self.rooms_used(&code(&path), &names) {
                if rank(used) > rank(room) {
                    upward.push(format!("{} ({room}) uses {name} ({used})", path.display()));
                }
            }
        }
        assert!(
            upward.is_empty(),
            "imports that point up:\n{}",
            upward.join("\n")
        );
    }

    /// Asserts that every file or folder at the crate's root is a room or a loose file.
    fn assert_every_module_is_in_a_room(&self) {
        let entries = fs::read_dir(self.source_dir()).expect("listable");
        for entry in entries {
            let path = entry.expect("listable").path();
            let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            assert!(
                self.loose.contains(&name)
                    || self.rooms.contains(&name)
                    || self.stand_ins.iter().any(|&(file, _)| file == name),
                "{} is in no room of ARCHITECTURE.md's map",
                path.display()
            );
        }
    }
}

#[test]
fn rooms_import_only_the_rooms_below_them() {
    MESH.assert_imports_point_down(&[("Mesh", "mesh"), ("Scene", "scene")]);
    PRIMITIVES.assert_imports_point_down(&[("Ray", "rays"), ("Triangle", "triangles")]);
    BVH.assert_imports_point_down(&[
        ("WideNode", "layout"),
        ("WideBvh", "wide"),
        ("Kernel", "simd"),
    ]);
    GPU.assert_imports_point_down(&[
        ("Gpu", "context"),
        ("GpuMesh", "gpu_mesh"),
        ("RaySource", "rays"),
        ("DeviceRays", "cuda"),
    ]);
}

#[test]
fn every_module_is_in_a_room() {
    MESH.assert_every_module_is_in_a_room();
    PRIMITIVES.assert_every_module_is_in_a_room();
    BVH.assert_every_module_is_in_a_room();
    GPU.assert_every_module_is_in_a_room();
}
