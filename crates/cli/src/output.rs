//! Answer lines, one per input line: `meshcast cast`'s `hit T TRIANGLE U V` or `miss`,
//! `meshcast contains`'s `inside` or `outside`, `meshcast distance`'s signed distance or
//! `none`, `meshcast sample`'s `X Y Z TRIANGLE`; and their formatting in parallel.
//!
//! Floats are printed with `Display`, the shortest text that reads back to the same `f32`
//! (or `f64`, for the `t` of a ray carried into the frame of a mesh far from the origin).

use std::fmt::Write;

use crate::target::HitFields;
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

/// Appends the closest-hit line: `hit T TRIANGLE U V` (and ` INSTANCE` in a scene) or
/// `miss`.
pub fn closest(out: &mut String, hit: Option<&impl HitFields>) {
    match hit {
        Some(hit) => {
            out.push_str("hit");
            fields(out, hit);
            out.push('\n');
        }
        None => out.push_str("miss\n"),
    }
}

/// Appends ` T TRIANGLE U V`, and ` INSTANCE` for a hit in a scene.
fn fields(out: &mut String, hit: &impl HitFields) {
    let mesh_hit = hit.mesh_hit();
    let _ = write!(
        out,
        " {} {} {} {}",
        mesh_hit.t, mesh_hit.triangle, mesh_hit.u, mesh_hit.v
    );
    instance_field(out, hit);
}

/// Appends ` INSTANCE` for a hit in a scene.
fn instance_field(out: &mut String, hit: &impl HitFields) {
    if let Some(instance) = hit.instance() {
        let _ = write!(out, " {instance}");
    }
}

/// [`closest`] for a ray carried into a mesh's frame with `shift` ([`meshcast::DRay::carry`]):
/// `T` is the world ray's, `f64` printed with every digit it needs.
pub fn closest_carried(out: &mut String, hit: Option<&impl HitFields>, shift: f64) {
    match hit {
        Some(hit) => {
            out.push_str("hit");
            carried_fields(out, hit, shift);
            out.push('\n');
        }
        None => out.push_str("miss\n"),
    }
}

/// [`all`] for a ray carried into a mesh's frame with `shift`.
pub fn all_carried(out: &mut String, hits: &[impl HitFields], shift: f64) {
    if hits.is_empty() {
        out.push_str("miss\n");
        return;
    }
    let _ = write!(out, "hits {}", hits.len());
    for hit in hits {
        carried_fields(out, hit, shift);
    }
    out.push('\n');
}

/// [`fields`] with `T` the world ray's: the carried `t` plus `shift`, in `f64`.
fn carried_fields(out: &mut String, hit: &impl HitFields, shift: f64) {
    let mesh_hit = hit.mesh_hit();
    let t = f64::from(mesh_hit.t) + shift;
    let _ = write!(
        out,
        " {t} {} {} {}",
        mesh_hit.triangle, mesh_hit.u, mesh_hit.v
    );
    instance_field(out, hit);
}

/// Appends the any-hit line: `hit` or `miss`.
pub fn any(out: &mut String, occluded: bool) {
    out.push_str(if occluded { "hit\n" } else { "miss\n" });
}

/// Appends the all-hits line: `miss`, or `hits N` then `T TRIANGLE U V` (and `INSTANCE` in a
/// scene) for each hit in the order given (sorted by `t`).
pub fn all(out: &mut String, hits: &[impl HitFields]) {
    if hits.is_empty() {
        out.push_str("miss\n");
        return;
    }
    let _ = write!(out, "hits {}", hits.len());
    for hit in hits {
        fields(out, hit);
    }
    out.push('\n');
}

/// Appends the containment line: `inside` or `outside`.
pub fn containment(out: &mut String, inside: bool) {
    out.push_str(if inside { "inside\n" } else { "outside\n" });
}

/// Appends the signed distance line: the distance (`f32`, or `f64` for a mesh far from the
/// origin), or `none` (a mesh with no surface).
pub fn distance(out: &mut String, distance: Option<impl std::fmt::Display>) {
    match distance {
        Some(distance) => {
            let _ = writeln!(out, "{distance}");
        }
        None => out.push_str("none\n"),
    }
}

/// Appends the sample line: `X Y Z TRIANGLE`.
pub fn sample(out: &mut String, point: glam::Vec3, triangle: u32) {
    let _ = writeln!(out, "{} {} {} {triangle}", point.x, point.y, point.z);
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshcast::{Hit, InstanceId, SceneHit};

    #[test]
    fn scene_hits_give_their_instance_last() {
        let hit = SceneHit {
            instance: InstanceId::from_index(3),
            hit: Hit::new(2.0, 0.25, 0.5).with_triangle(7),
        };
        let mut out = String::new();
        closest(&mut out, Some(&hit));
        all(&mut out, &[hit, hit]);
        assert_eq!(
            out,
            "hit 2 7 0.25 0.5 3\nhits 2 2 7 0.25 0.5 3 2 7 0.25 0.5 3\n"
        );
    }

    #[test]
    fn lines_round_trip_their_floats() {
        let hit = Hit::new(0.1 + 0.2, 1.0 / 3.0, 1e-30).with_triangle(42);
        let mut out = String::new();
        closest(&mut out, Some(&hit));
        closest(&mut out, None::<&Hit>);
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
        all(&mut out, &[] as &[Hit]);
        all(
            &mut out,
            &[
                Hit::new(1.0, 0.25, 0.5).with_triangle(3),
                Hit::new(2.5, 0.0, 1.0).with_triangle(7),
            ],
        );
        assert_eq!(out, "hit\nmiss\nmiss\nhits 2 1 3 0.25 0.5 2.5 7 0 1\n");
    }

    #[test]
    fn point_lines_round_trip_their_floats() {
        let mut out = String::new();
        containment(&mut out, true);
        containment(&mut out, false);
        for d in [0.1 + 0.2, -1.0 / 3.0, 1e-30, -0.0, 2.0] {
            distance(&mut out, Some(d));
        }
        distance(&mut out, None::<f32>);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[..2], ["inside", "outside"]);
        assert_eq!(lines[5..], ["-0", "2", "none"]);
        for (line, d) in lines[2..5].iter().zip([0.1 + 0.2, -1.0f32 / 3.0, 1e-30]) {
            assert_eq!(
                line.parse::<f32>().unwrap().to_bits(),
                d.to_bits(),
                "{line}"
            );
        }
    }
}
