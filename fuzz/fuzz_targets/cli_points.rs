//! Arbitrary bytes as the point lines of `meshcast contains` and `meshcast distance`
//! (`x y z`), read in small chunks as the command reads them: points or an error naming the
//! line, never a panic. Every point read is asked about a cube and compared with brute force;
//! and read again in `f64` and asked about the cube made far from the origin.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshcast_cli::input::LineReader;
use meshcast_cli::point_lines::{parse_point, parse_world_point};

/// Lines per chunk: small, so that inputs span several chunks.
const CHUNK_LINES: usize = 3;

fuzz_target!(|data: &[u8]| {
    let mut reader = LineReader::new(data, "points", "fuzz".into(), parse_point, CHUNK_LINES);
    while let Some(chunk) = reader.next_chunk() {
        assert!(chunk.items.iter().all(|point| point.is_finite()));
        meshcast_fuzz::check_points(meshcast_fuzz::cube(), &chunk.items);
        if let Some(err) = chunk.error {
            let message = format!("{err:#}");
            assert!(message.contains(": line "), "{message}");
        }
    }
    // The same lines as the points of a mesh far from the origin, around it.
    let far = meshcast_fuzz::far_cube();
    let mut reader = LineReader::new(
        data,
        "points",
        "fuzz".into(),
        parse_world_point,
        CHUNK_LINES,
    );
    while let Some(chunk) = reader.next_chunk() {
        let points: Vec<_> = chunk.items.iter().map(|&p| p + far.origin()).collect();
        meshcast_fuzz::check_world_points(far, &points);
    }
});
