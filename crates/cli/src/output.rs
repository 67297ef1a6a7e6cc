//! Answer lines, one per input line: `meshcast cast`'s `hit T TRIANGLE U V` or `miss`, and
//! their formatting in parallel.
//!
//! Floats are printed with `Display`, the shortest text that reads back to the same `f32`.

use std::fmt::Write;

use meshcast::Hit;
use rayon::prelude::*;

/// Answers formatted together by one task.
const TASK_LINES: usize = 1024;

/// `write(text, answer)` for every answer, in order, in parallel in blocks of [`TASK_LINES`].
pub fn lines<A: Sync>(answers: &[A], write: impl Fn(&mut String, &A) + Sync) -> Vec<String> {
    answers
        .par_chunks(TASK_LINES)
        .map(|block| {
            let mut text = String::with_capacity(block.len() * 48);
            for answer in block {
                write(&mut text, answer);
            }
            text
        })
        .collect()
}

/// Appends the closest-hit line: `hit T TRIANGLE U V` or `miss`.
pub fn closest(out: &mut String, hit: Option<&Hit>) {
    match hit {
        Some(hit) => {
            let _ = writeln!(out, "hit {} {} {} {}", hit.t, hit.triangle, hit.u, hit.v);
        }
        None => out.push_str("miss\n"),
    }
}

/// Appends the any-hit line: `hit` or `miss`.
pub fn any(out: &mut String, occluded: bool) {
    out.push_str(if occluded { "hit\n" } else { "miss\n" });
}

/// Appends the all-hits line: `miss`, or `hits N` then `T TRIANGLE U V` for each hit in the
/// order given (sorted by `t`).
pub fn all(out: &mut String, hits: &[Hit]) {
    if hits.is_empty() {
        out.push_str("miss\n");
        return;
    }
    let _ = write!(out, "hits {}", hits.len());
    for hit in hits {
        let _ = write!(out, " {} {} {} {}", hit.t, hit.triangle, hit.u, hit.v);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_their_floats() {
        let hit = Hit::new(0.1 + 0.2, 1.0 / 3.0, 1e-30).with_triangle(42);
        let mut out = String::new();
        closest(&mut out, Some(&hit));
        closest(&mut out, None);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[1], "miss");
        let words: Vec<&str> = lines[0].split(' ').collect();
        assert_eq!(words[0], "hit");
        assert_eq!(words[1].parse::<f32>().unwrap().to_bits(), hit.t.to_bits());
        assert_eq!(words[2], "42");
        assert_eq!(words[3].parse::<f32>().unwrap().to_bits(), hit.u.to_bits());
        assert_eq!(words[4].parse::<f32>().unwrap().to_bits(), hit.v.to_bits());
    }

    #[test]
    fn any_and_all_lines() {
        let mut out = String::new();
        any(&mut out, true);
        any(&mut out, false);
        all(&mut out, &[]);
        all(
            &mut out,
            &[
                Hit::new(1.0, 0.25, 0.5).with_triangle(3),
                Hit::new(2.5, 0.0, 1.0).with_triangle(7),
            ],
        );
        assert_eq!(out, "hit\nmiss\nmiss\nhits 2 1 3 0.25 0.5 2.5 7 0 1\n");
    }
}
