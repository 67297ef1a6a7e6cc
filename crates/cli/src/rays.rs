//! Ray lines: `ox oy oz dx dy dz`, read in bounded chunks so any number of rays streams through.

use std::io::BufRead;

use anyhow::{anyhow, bail, Context, Result};
use glam::Vec3;
use meshcast::Ray;
use rayon::prelude::*;

/// The accepted range of `t` given on the command line, applied to every ray.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub t_min: f32,
    pub t_max: f32,
}

/// Parses one line into a ray with the given range: six numbers separated by white space.
/// Returns `None` for a blank line or a comment (`#` first). Numbers may be `nan` or `inf`;
/// such rays are degenerate and every query treats them as a miss.
pub fn parse_ray(line: &str, range: Range) -> Result<Option<Ray>> {
    let text = line.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let mut numbers = [0.0f32; 6];
    let mut count = 0;
    for word in text.split_whitespace() {
        if count < 6 {
            numbers[count] = word
                .parse()
                .map_err(|_| anyhow!("`{}` is not a number", excerpt(word)))?;
        }
        count += 1;
    }
    if count != 6 {
        bail!("expected 6 numbers `ox oy oz dx dy dz`, found {count}");
    }
    let [ox, oy, oz, dx, dy, dz] = numbers;
    Ok(Some(
        Ray::new(Vec3::new(ox, oy, oz), Vec3::new(dx, dy, dz)).with_range(range.t_min, range.t_max),
    ))
}

/// Cuts quoted input short, so a megabyte of garbage does not become a megabyte message.
fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 32;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The rays of one chunk of input, in order, and the error that ended it early, if any.
pub struct Chunk {
    pub rays: Vec<Ray>,
    pub error: Option<anyhow::Error>,
}

/// Reads ray lines in chunks of at most `chunk_lines` lines, parsing each chunk in parallel.
/// Memory stays bounded by the chunk, whatever the input's length.
pub struct RayReader<R> {
    input: R,
    name: String,
    range: Range,
    chunk_lines: usize,
    /// Line buffers, reused from chunk to chunk.
    lines: Vec<String>,
    /// Lines read so far.
    line_number: usize,
    finished: bool,
}

impl<R: BufRead> RayReader<R> {
    /// A reader of `input`, called `name` in error messages.
    pub fn new(input: R, name: String, range: Range, chunk_lines: usize) -> Self {
        Self {
            input,
            name,
            range,
            chunk_lines: chunk_lines.max(1),
            lines: Vec::new(),
            line_number: 0,
            finished: false,
        }
    }

    /// The next chunk of rays; `None` at the end of the input. A chunk whose `error` is set is
    /// the last: it holds the rays before the bad line.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        if self.finished {
            return None;
        }
        let first_line = self.line_number + 1;
        let mut filled = 0;
        let mut read_error = None;
        while filled < self.chunk_lines {
            if filled == self.lines.len() {
                self.lines.push(String::new());
            }
            let buffer = &mut self.lines[filled];
            buffer.clear();
            match self.input.read_line(buffer) {
                Ok(0) => {
                    self.finished = true;
                    break;
                }
                Ok(_) => filled += 1,
                Err(err) => {
                    read_error = Some(anyhow::Error::new(err).context(format!(
                        "reading rays from {}: line {}",
                        self.name,
                        first_line + filled
                    )));
                    break;
                }
            }
        }
        self.line_number += filled;

        let range = self.range;
        let parsed: Vec<Result<Option<Ray>>> = self.lines[..filled]
            .par_iter()
            .map(|line| parse_ray(line, range))
            .collect();
        let mut rays = Vec::with_capacity(parsed.len());
        let mut error = None;
        for (offset, result) in parsed.into_iter().enumerate() {
            match result {
                Ok(Some(ray)) => rays.push(ray),
                Ok(None) => {}
                Err(err) => {
                    error = Some(err.context(format!(
                        "reading rays from {}: line {}",
                        self.name,
                        first_line + offset
                    )));
                    break;
                }
            }
        }
        let error = error.or(read_error);
        if error.is_some() {
            self.finished = true;
        }
        if rays.is_empty() && error.is_none() && self.finished {
            return None;
        }
        Some(Chunk { rays, error })
    }
}

/// Checks a `--t-min`/`--t-max` pair.
pub fn range_from_options(t_min: Option<f32>, t_max: Option<f32>) -> Result<Range> {
    if t_min.is_some_and(f32::is_nan) || t_max.is_some_and(f32::is_nan) {
        bail!("--t-min and --t-max must be numbers");
    }
    let range = Range {
        t_min: t_min.unwrap_or(meshcast::primitives::T_MIN_POSITIVE),
        t_max: t_max.unwrap_or(f32::INFINITY),
    };
    if range.t_min > range.t_max {
        match t_min {
            Some(t_min) => bail!("--t-min {t_min} is greater than --t-max {}", range.t_max),
            None => bail!("--t-max {} leaves no t > 0 to hit", range.t_max),
        }
    }
    Ok(range)
}

/// Opens a rays file, or standard input for `-`.
pub fn open(path: &str) -> Result<Box<dyn BufRead>> {
    if path == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let file = std::fs::File::open(path).with_context(|| format!("opening rays file {path}"))?;
    Ok(Box::new(std::io::BufReader::with_capacity(1 << 16, file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERYTHING: Range = Range {
        t_min: 0.0,
        t_max: f32::INFINITY,
    };

    fn read_all(text: &str, chunk_lines: usize) -> (Vec<Ray>, Option<String>) {
        let mut reader =
            RayReader::new(text.as_bytes(), "rays.txt".into(), EVERYTHING, chunk_lines);
        let mut rays = Vec::new();
        while let Some(chunk) = reader.next_chunk() {
            rays.extend(chunk.rays);
            if let Some(err) = chunk.error {
                return (rays, Some(format!("{err:#}")));
            }
        }
        (rays, None)
    }

    #[test]
    fn parses_white_space_separated_numbers() {
        let ray = parse_ray(" 1 2\t3   0 0 -1.5e0 \r\n", EVERYTHING)
            .unwrap()
            .unwrap();
        assert_eq!(ray.origin, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(ray.dir, Vec3::new(0.0, 0.0, -1.5));
        assert_eq!((ray.t_min, ray.t_max), (0.0, f32::INFINITY));
        assert!(parse_ray("   \n", EVERYTHING).unwrap().is_none());
        assert!(parse_ray("# a comment", EVERYTHING).unwrap().is_none());
        let nan = parse_ray("nan 0 0 1 0 0", EVERYTHING).unwrap().unwrap();
        assert!(!nan.is_valid());
    }

    #[test]
    fn malformed_lines_say_what_is_wrong() {
        let few = parse_ray("1 2 3 4 5", EVERYTHING).unwrap_err().to_string();
        assert_eq!(few, "expected 6 numbers `ox oy oz dx dy dz`, found 5");
        let many = parse_ray("1 2 3 4 5 6 7", EVERYTHING)
            .unwrap_err()
            .to_string();
        assert!(many.contains("found 7"), "{many}");
        let word = parse_ray("1 2 x 4 5 6", EVERYTHING)
            .unwrap_err()
            .to_string();
        assert_eq!(word, "`x` is not a number");
        assert!(parse_ray("1,2,3,4,5,6", EVERYTHING).is_err());
    }

    #[test]
    fn chunks_keep_order_and_name_the_bad_line() {
        let mut text = String::new();
        for i in 0..10 {
            text.push_str(&format!("{i} 0 0 0 0 1\n"));
            if i == 4 {
                text.push_str("\n# comment\n");
            }
        }
        for chunk_lines in [1, 3, 100] {
            let (rays, err) = read_all(&text, chunk_lines);
            assert!(err.is_none());
            let xs: Vec<f32> = rays.iter().map(|r| r.origin.x).collect();
            assert_eq!(xs, (0..10).map(|i| i as f32).collect::<Vec<_>>());
        }
        let bad = "0 0 0 0 0 1\n1 0 0 0 0 1\n2 0 0 0 0\n3 0 0 0 0 1\n";
        for chunk_lines in [1, 2, 100] {
            let (rays, err) = read_all(bad, chunk_lines);
            assert_eq!(rays.len(), 2, "the rays before the bad line are kept");
            assert_eq!(
                err.unwrap(),
                "reading rays from rays.txt: line 3: expected 6 numbers `ox oy oz dx dy dz`, found 5"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_an_error_with_a_line() {
        let bytes: &[u8] = b"0 0 0 0 0 1\n\xff\xfe 0 0 0 0 1\n";
        let mut reader = RayReader::new(bytes, "stdin".into(), EVERYTHING, 10);
        let chunk = reader.next_chunk().unwrap();
        assert_eq!(chunk.rays.len(), 1);
        let err = format!("{:#}", chunk.error.unwrap());
        assert!(err.starts_with("reading rays from stdin: line 2"), "{err}");
        assert!(reader.next_chunk().is_none());
    }

    #[test]
    fn ranges_are_checked() {
        let reversed = range_from_options(Some(2.0), Some(1.0)).unwrap_err();
        assert_eq!(reversed.to_string(), "--t-min 2 is greater than --t-max 1");
        let negative = range_from_options(None, Some(-1.0)).unwrap_err();
        assert_eq!(negative.to_string(), "--t-max -1 leaves no t > 0 to hit");
        assert!(range_from_options(Some(f32::NAN), None).is_err());
        let default = range_from_options(None, None).unwrap();
        assert_eq!(default.t_min, meshcast::primitives::T_MIN_POSITIVE);
        assert_eq!(default.t_max, f32::INFINITY);
    }
}
