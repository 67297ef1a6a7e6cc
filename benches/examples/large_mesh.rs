//! Writes the large mesh of issue 72: a height field with detail (a few octaves of waves and
//! seeded value noise over a square grid), as binary PLY and binary STL, row by row, so that
//! writing 100 million triangles takes no memory to speak of. Not committed: run
//! `benches/large_mesh.sh` (or this example) to make it.
//!
//! ```text
//! cargo run --release -p meshcast-benches --example large_mesh -- TRIANGLES OUT_PREFIX [ply|stl|both]
//! ```
//!
//! `TRIANGLES` is a lower bound (`100M`, `10M`, `4000000` and `1k` are read): the grid is the
//! smallest square of `n` by `n` vertices with `2 (n - 1)^2 >= TRIANGLES`. Writes
//! `OUT_PREFIX.ply` (float positions, faces as `uchar` counts and `int` indices: 12 bytes a
//! vertex, 13 a triangle) and `OUT_PREFIX.stl` (50 bytes a triangle). The same arguments
//! give the same bytes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: large_mesh TRIANGLES OUT_PREFIX [ply|stl|both]";
    let (Some(count), Some(prefix)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Some(triangles) = parse_count(count) else {
        eprintln!("not a triangle count: {count}; {usage}");
        std::process::exit(2);
    };
    let which = args.get(2).map_or("both", String::as_str);
    let n = grid_side(triangles);
    let field = Field { n };
    let start = Instant::now();
    if matches!(which, "ply" | "both") {
        let path = PathBuf::from(format!("{prefix}.ply"));
        write_ply(&field, &path)?;
        report(&path, &field, start)?;
    }
    if matches!(which, "stl" | "both") {
        let path = PathBuf::from(format!("{prefix}.stl"));
        write_stl(&field, &path)?;
        report(&path, &field, start)?;
    }
    Ok(())
}

/// `100M`, `10M`, `4000000`, `1k`.
fn parse_count(text: &str) -> Option<u64> {
    let (digits, scale) = match text.as_bytes().last()? {
        b'k' | b'K' => (&text[..text.len() - 1], 1_000),
        b'm' | b'M' => (&text[..text.len() - 1], 1_000_000),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// The fewest vertices a side such that the grid has at least `triangles` triangles.
fn grid_side(triangles: u64) -> u32 {
    let mut n = ((triangles as f64 / 2.0).sqrt() as u64 + 1).max(2);
    while 2 * (n - 1) * (n - 1) < triangles {
        n += 1;
    }
    while n > 2 && 2 * (n - 2) * (n - 2) >= triangles {
        n -= 1;
    }
    u32::try_from(n).expect("fewer than 2^32 vertices a side")
}

fn report(path: &PathBuf, field: &Field, start: Instant) -> std::io::Result<()> {
    let bytes = std::fs::metadata(path)?.len();
    println!(
        "{}: {} triangles, {} vertices, {bytes} bytes ({:.1} s)",
        path.display(),
        field.triangle_count(),
        field.vertex_count(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A square height field of `n` by `n` vertices over `[0, 1000]^2`.
struct Field {
    n: u32,
}

impl Field {
    fn vertex_count(&self) -> u64 {
        u64::from(self.n) * u64::from(self.n)
    }

    fn triangle_count(&self) -> u64 {
        2 * u64::from(self.n - 1) * u64::from(self.n - 1)
    }

    /// Vertex `(i, j)`: column `i`, row `j`.
    fn vertex(&self, i: u32, j: u32) -> [f32; 3] {
        let scale = 1000.0 / f64::from(self.n - 1);
        let (x, y) = (f64::from(i) * scale, f64::from(j) * scale);
        // Hills, ridges and fine noise: detail at every scale a build splits at.
        let mut z = 40.0 * (x * 0.006).sin() * (y * 0.004).cos() + 15.0 * ((x + y) * 0.021).sin();
        let mut amplitude = 6.0;
        let mut frequency = 0.05;
        for octave in 0..5 {
            z += amplitude * value_noise(x * frequency, y * frequency, octave);
            amplitude *= 0.5;
            frequency *= 2.3;
        }
        [x as f32, y as f32, z as f32]
    }

    /// The two triangles of cell `(i, j)`, counter-clockwise seen from above.
    fn cell(&self, i: u32, j: u32) -> [[u32; 3]; 2] {
        let v = |i: u32, j: u32| j * self.n + i;
        [
            [v(i, j), v(i + 1, j), v(i, j + 1)],
            [v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)],
        ]
    }
}

/// Smooth value noise in `[-1, 1]` from a hash of the lattice points.
fn value_noise(x: f64, y: f64, seed: u32) -> f64 {
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let at = |dx: f64, dy: f64| lattice((x0 + dx) as i64, (y0 + dy) as i64, seed);
    let top = at(0.0, 0.0) + (at(1.0, 0.0) - at(0.0, 0.0)) * sx;
    let bottom = at(0.0, 1.0) + (at(1.0, 1.0) - at(0.0, 1.0)) * sx;
    top + (bottom - top) * sy
}

fn lattice(x: i64, y: i64, seed: u32) -> f64 {
    let mut h = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (y as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ u64::from(seed).wrapping_mul(0x1656_67b1_9e37_79f9);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn write_ply(field: &Field, path: &PathBuf) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    write!(
        out,
        "ply\nformat binary_little_endian 1.0\ncomment meshcast benches/large_mesh: a height \
         field of {n} by {n} vertices\nelement vertex {}\nproperty float x\nproperty float y\n\
         property float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        field.vertex_count(),
        field.triangle_count(),
        n = field.n,
    )?;
    for j in 0..field.n {
        for i in 0..field.n {
            for c in field.vertex(i, j) {
                out.write_all(&c.to_le_bytes())?;
            }
        }
    }
    for j in 0..field.n - 1 {
        for i in 0..field.n - 1 {
            for triangle in field.cell(i, j) {
                out.write_all(&[3])?;
                for v in triangle {
                    out.write_all(&(v as i32).to_le_bytes())?;
                }
            }
        }
    }
    out.flush()
}

fn write_stl(field: &Field, path: &PathBuf) -> std::io::Result<()> {
    let count = u32::try_from(field.triangle_count()).expect("a binary STL counts in u32");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut header = [b' '; 80];
    let title = b"meshcast benches/large_mesh height field";
    header[..title.len()].copy_from_slice(title);
    out.write_all(&header)?;
    out.write_all(&count.to_le_bytes())?;
    // Two rows of vertices at a time: each cell's corners computed once per row.
    let row = |j: u32| (0..field.n).map(|i| field.vertex(i, j)).collect::<Vec<_>>();
    let mut lower = row(0);
    for j in 0..field.n - 1 {
        let upper = row(j + 1);
        let corner = |v: u32| {
            let (i, r) = (v % field.n, v / field.n);
            if r == j {
                lower[i as usize]
            } else {
                upper[i as usize]
            }
        };
        for i in 0..field.n - 1 {
            for triangle in field.cell(i, j) {
                let [a, b, c] = triangle.map(corner);
                out.write_all(&normal(a, b, c).map(f32::to_le_bytes).concat())?;
                for p in [a, b, c] {
                    out.write_all(&p.map(f32::to_le_bytes).concat())?;
                }
                out.write_all(&[0, 0])?;
            }
        }
        lower = upper;
    }
    out.flush()
}

fn normal(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> [f32; 3] {
    let (u, v) = (
        [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
        [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
    );
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if length > 0.0 {
        n.map(|c| c / length)
    } else {
        [0.0; 3]
    }
}
