//! Arbitrary bytes as the ray lines of `meshcast cast` (`ox oy oz dx dy dz`), read in small
//! chunks as the command reads them: rays or an error naming the line, never a panic. Every
//! ray read, degenerate ones included, is cast at a cube and compared with brute force; and
//! read again in `f64` and cast at the cube made far from the origin.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast::DRay;
use meshcast_cli::input::LineReader;
use meshcast_cli::rays::{parse_ray, parse_world_ray, range_from_options};

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
    // The same lines as the rays of a mesh far from the origin: read in f64, carried into
    // its frame, answered as the carried rays are.
    let parse = |line: &str| parse_world_ray(line, range);
    let mut reader = LineReader::new(data, "rays", "fuzz".into(), parse, CHUNK_LINES);
    let far = meshcast_fuzz::far_cube();
    while let Some(chunk) = reader.next_chunk() {
        // Around the cube: the lines' coordinates taken as offsets from its origin.
        let rays: Vec<_> = chunk
            .items
            .iter()
            .map(|ray| DRay {
                origin: ray.origin + far.origin(),
                ..*ray
            })
            .collect();
        meshcast_fuzz::check_world_rays(far, &rays);
    }
});
