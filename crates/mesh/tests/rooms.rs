//! The crate's rooms import one way (ARCHITECTURE.md, "Inside meshcast-mesh"): a room may
//! use the rooms below it in `ROOMS`, never one above. Read from the sources: every
//! `crate::room` path, and every name a room takes through the crate root (`crate::Mesh`,
//! `use crate::{Scene, ...}`), mapped to the room that defines it by the root's re-exports.
//! Comments and test modules are left out (a doc link may point anywhere; tests may use
//! the whole crate).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The rooms, lowest first: each may use those before it.
const ROOMS: [&str; 11] = [
    "format",
    "error",
    "queries",
    "volume",
    "triangles",
    "mesh",
    "scene",
    "points",
    "contact",
    "fields",
    "views",
];

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The code of a file without comments and without its test module.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("readable source");
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
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

/// The name each public item of the crate root comes from: `pub use room::{A, B}` in
/// `lib.rs` maps `A` and `B` to `room`.
fn names_by_room() -> HashMap<String, &'static str> {
    let lib = code(&source_dir().join("lib.rs"));
    let mut names = HashMap::new();
    for statement in lib.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some(room) = ROOMS
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

/// Every `.rs` file of a room, with the room.
fn room_files() -> Vec<(&'static str, PathBuf)> {
    let mut files = Vec::new();
    for room in ROOMS {
        let file = source_dir().join(format!("{room}.rs"));
        if file.exists() {
            files.push((room, file));
            continue;
        }
        let folder = source_dir().join(room);
        let entries = fs::read_dir(&folder).expect("every room is a file or a folder");
        for entry in entries {
            let path = entry.expect("listable").path();
            assert_eq!(path.extension().and_then(|e| e.to_str()), Some("rs"));
            files.push((room, path));
        }
    }
    files
}

/// The rooms a file's code names: `crate::room` paths and root names.
fn rooms_used(code: &str, names: &HashMap<String, &'static str>) -> Vec<(String, &'static str)> {
    let mut used = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let taken = match rest.strip_prefix('{') {
            Some(group) => &group[..group.find('}').expect("a closed group")],
            None => words(rest).next().unwrap_or_default(),
        };
        for name in words(taken) {
            let room = ROOMS
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

#[test]
fn rooms_import_only_the_rooms_below_them() {
    let names = names_by_room();
    assert!(
        names.get("Mesh") == Some(&"mesh") && names.get("Scene") == Some(&"scene"),
        "the root's re-exports were not read: {names:?}"
    );
    let rank = |room: &str| ROOMS.iter().position(|&r| r == room).expect("a room");
    let mut upward = Vec::new();
    let files = room_files();
    assert!(files.len() > ROOMS.len(), "the rooms' files were not found");
    for (room, path) in files {
        for (name, used) in rooms_used(&code(&path), &names) {
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

#[test]
fn every_module_is_in_a_room() {
    let entries = fs::read_dir(source_dir()).expect("listable");
    for entry in entries {
        let path = entry.expect("listable").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        assert!(
            name == "lib" || ROOMS.contains(&name),
            "{} is in no room of ARCHITECTURE.md's map",
            path.display()
        );
    }
}
