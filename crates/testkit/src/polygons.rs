//! Large concave polygons made in code, for the triangulation's tests and benchmarks: a star
//! and a spiral band, and an OBJ file holding one of them as its only face.

use std::f32::consts::TAU;
use std::fmt::Write;

use meshcast::glam::Vec3;

/// A star in the plane z = 0 with `corners` corners, counter-clockwise: corner `i` at angle
/// `i / corners` of a turn, alternately at radius 1 (a tip) and 0.5 (a notch). Concave from
/// six corners on, simple for any count.
pub fn star(corners: usize) -> Vec<Vec3> {
    (0..corners)
        .map(|i| {
            let angle = TAU * i as f32 / corners as f32;
            let radius = if i % 2 == 0 { 1.0 } else { 0.5 };
            Vec3::new(radius * angle.cos(), radius * angle.sin(), 0.0)
        })
        .collect()
}

/// A band winding `turns` times around the origin in the plane z = 0, half of its `corners`
/// (rounded down to even) along its outer edge outwards and half along its inner edge back:
/// simple, and concave everywhere along its inner edge.
pub fn spiral(corners: usize, turns: f32) -> Vec<Vec3> {
    let half = (corners / 2).max(2);
    let at = |j: usize, width: f32| {
        let angle = turns * TAU * j as f32 / (half - 1) as f32;
        let radius = 1.0 + angle / TAU + width;
        Vec3::new(radius * angle.cos(), radius * angle.sin(), 0.0)
    };
    let outer = (0..half).map(|j| at(j, 0.5));
    let inner = (0..half).rev().map(|j| at(j, 0.0));
    outer.chain(inner).collect()
}

/// An OBJ file whose only face is the polygon with these vertices.
pub fn obj_polygon(vertices: &[Vec3]) -> String {
    let mut text = String::with_capacity(vertices.len() * 40);
    for v in vertices {
        // Writing to a String cannot fail.
        let _ = writeln!(text, "v {} {} {}", v.x, v.y, v.z);
    }
    text.push('f');
    for i in 1..=vertices.len() {
        let _ = write!(text, " {i}");
    }
    text.push('\n');
    text
}

/// Each face's corner positions, straight from an OBJ file's text (`v` and `f` lines only;
/// negative indices count back from the last vertex), for tests that check a reader's
/// polygons against the file.
pub fn obj_face_corners(text: &str) -> Vec<Vec<Vec3>> {
    let mut positions = Vec::new();
    let mut faces = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first() {
            Some(&"v") => positions.push(Vec3::from(std::array::from_fn::<f32, 3, _>(|k| {
                words[k + 1].parse().expect("number")
            }))),
            Some(&"f") => faces.push(
                words[1..]
                    .iter()
                    .map(|w| {
                        let i: i64 = w.split('/').next().unwrap().parse().expect("index");
                        let i = if i < 0 {
                            positions.len() as i64 + i
                        } else {
                            i - 1
                        };
                        positions[i as usize]
                    })
                    .collect(),
            ),
            _ => {}
        }
    }
    faces
}
