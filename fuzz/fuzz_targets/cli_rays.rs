//! Arbitrary bytes as the ray lines of `meshcast cast` (`ox oy oz dx dy dz`), read in small
//! chunks as the command reads them: rays or an error naming the line, never a panic. Every
//! ray read, degenerate ones included, is cast at a cube and compared with brute force.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast_cli::input::LineReader;
use meshcast_cli::rays::{parse_ray, range_from_options};

/// Lines per chunk: small, so that inputs span several chunks.
const CHUNK_LINES: usize = 3;

fuzz_target!(|data: &[u8]| {
    let range = range_from_options(None, None).expect("the default range");
    let parse = |line: &str| parse_ray(line, range);
    let mut reader = LineReader::new(data, "rays", "fuzz".into(), parse, CHUNK_LINES);
    while let Some(chunk) = reader.next_chunk() {
        meshcast_fuzz::check_rays(meshcast_fuzz::cube(), &chunk.items);
        if let Some(err) = chunk.error {
            let message = format!("{err:#}");
            assert!(message.contains(": line "), "{message}");
        }
    }
});
