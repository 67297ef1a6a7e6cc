//! Records the exact versions of the peer crates from `Cargo.lock`, so that the report names
//! the releases that were measured rather than the ranges in `Cargo.toml`.

use std::fs;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    for (krate, var) in [
        ("obvhs", "PEER_VERSION_OBVHS"),
        ("parry3d", "PEER_VERSION_PARRY3D"),
        ("bvh", "PEER_VERSION_BVH"),
    ] {
        println!("cargo:rustc-env={var}={}", locked_version(&lock, krate));
    }
}

/// The version of the package `name` in a lock file, or "unknown".
fn locked_version(lock: &str, name: &str) -> String {
    let header = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == header {
            if let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return version.trim_matches('"').to_string();
            }
        }
    }
    "unknown".to_string()
}
