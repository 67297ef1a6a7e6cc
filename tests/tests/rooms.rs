//! A crate's rooms import one way (ARCHITECTURE.md, "Inside meshcast-mesh", "Inside
//! meshcast-primitives", "Inside meshcast-bvh" and "Inside meshcast-gpu"): a room may use the rooms below it in its
//! crate's list, never one above, and names it by its path (`crate::scene::Scene`, never the
//! root's re-export `crate::Scene`), so that the `use` lines as written are the drawing of
//! the imports. Read from the sources: every `crate::` path's first name. Comments and test
//! modules are left out (a doc link may point anywhere; tests may use the whole crate).

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

/// Where the group that `text` opens inside (`a, b::{c, d} }...`) closes.
fn closing_brace(text: &str) -> usize {
    let mut depth = 0;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return at,
            '}' => depth -= 1,
            _ => {}
        }
    }
    panic!("a group that never closes: {text}")
}

/// The items of a `use` group's inside, split at its top-level commas.
fn top_level_items(group: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0;
    let mut start = 0;
    let mut items = Vec::new();
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items.into_iter().filter(|item| !item.trim().is_empty())
}

impl Rooms {
    fn source_dir(&self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(self.crate_dir)
            .join("src")
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

    /// The rooms a file's code names, as its paths are written: the first name after each
    /// `crate::` (in a group, `crate::{a::X, b::Y}`, each item's), which must be a room; a
    /// name that is none (an item the crate root re-exports, `crate::Mesh`) is an import
    /// through the root, returned as `Err`.
    fn rooms_used<'c>(&self, code: &'c str) -> Vec<Result<&'static str, &'c str>> {
        let mut used = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let heads: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => top_level_items(&group[..closing_brace(group)])
                    .filter_map(|item| words(item).next())
                    .collect(),
                None => words(rest).next().into_iter().collect(),
            };
            for head in heads {
                match self.rooms.iter().find(|&&room| room == head) {
                    Some(room) => used.push(Ok(*room)),
                    None => used.push(Err(head)),
                }
            }
        }
        used
    }

    /// Asserts that every `crate::` path of a room names a room, and no room one above it.
    fn assert_imports_point_down(&self) {
        let rank = |room: &str| self.rooms.iter().position(|&r| r == room).expect("a room");
        let mut wrong = Vec::new();
        let files = self.room_files();
        assert!(
            files.len() > self.rooms.len(),
            "the rooms' files were not found"
        );
        for (room, path) in files {
            let code = code(&path);
            for used in self.rooms_used(&code) {
                match used {
                    Ok(used) if rank(used) > rank(room) => {
                        wrong.push(format!("{} ({room}) uses {used}", path.display()))
                    }
                    Ok(_) => {}
                    Err(name) => wrong.push(format!(
                        "{} ({room}) takes {name} through the crate root, not by its room's path",
                        path.display()
                    )),
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "imports that point up or go through the root:\n{}",
            wrong.join("\n")
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
fn rooms_import_only_the_rooms_below_them_by_path() {
    MESH.assert_imports_point_down();
    PRIMITIVES.assert_imports_point_down();
    BVH.assert_imports_point_down();
    GPU.assert_imports_point_down();
}

#[test]
fn a_path_through_the_root_or_up_is_caught() {
    let code = "use crate::queries::{Filter, QueryOptions};\nuse crate::{Mesh, scene::Scene};";
    let used = MESH.rooms_used(code);
    assert_eq!(used, [Ok("queries"), Err("Mesh"), Ok("scene")]);
}

#[test]
fn every_module_is_in_a_room() {
    MESH.assert_every_module_is_in_a_room();
    PRIMITIVES.assert_every_module_is_in_a_room();
    BVH.assert_every_module_is_in_a_room();
    GPU.assert_every_module_is_in_a_room();
}
