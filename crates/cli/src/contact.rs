//! `meshcast collide` and `meshcast self-intersections`: two meshes against each other, and
//! one mesh against itself.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use meshcast::glam::{Affine3A, Mat4, Vec3};

use crate::loading;

/// Whether two meshes meet, which triangle pairs do, and how far apart they are, the second
/// placed in the first's space by `--transform`. Every decision is exact.
#[derive(clap::Args, Debug)]
pub struct CollideArgs {
    /// The first mesh (OBJ, glTF flattened into one mesh, PLY, STL, or a cache).
    #[arg(value_name = "A")]
    first: PathBuf,

    /// The second mesh.
    #[arg(value_name = "B")]
    second: PathBuf,

    /// Where B lies in A's space: three numbers (a translation) or twelve or sixteen (a 3x4 or
    /// 4x4 matrix, row by row), separated by commas. Default: B as it is.
    #[arg(long, value_name = "NUMBERS", allow_hyphen_values = true)]
    transform: Option<String>,

    /// Also print every intersecting pair of triangles (A's, B's), one `pair A B` line each.
    #[arg(long)]
    pairs: bool,

    /// Also print the Hausdorff distance, each way, within this relative error (for
    /// example 1e-3; the bare flag asks for 1e-3).
    #[arg(long, value_name = "ERROR", num_args = 0..=1, default_missing_value = "1e-3")]
    hausdorff: Option<f32>,
}

/// The pairs of triangles of a mesh that cut each other, other than along the edge or vertex
/// they share (`Mesh::self_intersections`), one `pair I J` line each after their count.
#[derive(clap::Args, Debug)]
pub struct SelfIntersectionsArgs {
    /// The mesh.
    #[arg(value_name = "MESH")]
    mesh: PathBuf,
}

/// Prints `intersects`, with `--pairs` the pair count and pairs, then `distance` with the
/// nearest points and their triangles (0 when the meshes meet), and with `--hausdorff` a
/// line for each direction: the distance, its proven upper bound and where it is reached.
pub fn run_collide(args: &CollideArgs, out: &mut impl Write) -> Result<()> {
    let transform = match &args.transform {
        Some(text) => parse_transform(text)?,
        None => Affine3A::IDENTITY,
    };
    let first = loading::load(&args.first)?.mesh;
    let second = loading::load(&args.second)?.mesh;
    writeln!(
        out,
        "intersects     {}",
        first.intersects(&second, &transform)
    )?;
    if args.pairs {
        let pairs = first.intersecting_pairs(&second, &transform);
        writeln!(out, "pairs          {}", pairs.len())?;
        for (a, b) in pairs {
            writeln!(out, "pair {a} {b}")?;
        }
    }
    match first.mesh_distance(&second, &transform, None) {
        Some(d) => {
            let [p, q] = [d.point_on_self, d.point_on_other];
            writeln!(
                out,
                "distance       {} (A triangle {} at {} {} {}, B triangle {} at {} {} {})",
                d.distance, d.triangle_self, p.x, p.y, p.z, d.triangle_other, q.x, q.y, q.z
            )?;
        }
        None => writeln!(out, "distance       none (a mesh has no triangles)")?,
    }
    if let Some(error) = args.hausdorff {
        if !(error.is_finite() && error >= 0.0) {
            bail!("--hausdorff: the relative error must be a finite number, 0 or more");
        }
        match first.hausdorff_distance(&second, &transform, error) {
            Some(h) => {
                for (name, d) in [("A to B", h.self_to_other), ("B to A", h.other_to_self)] {
                    let [p, q] = [d.from_point, d.to_point];
                    writeln!(
                        out,
                        "hausdorff      {name} {} (at most {}; from triangle {} at {} {} {}, to triangle {} at {} {} {})",
                        d.distance, d.bound, d.from_triangle, p.x, p.y, p.z, d.to_triangle, q.x, q.y, q.z
                    )?;
                }
            }
            None => writeln!(out, "hausdorff      none (a mesh has no triangles)")?,
        }
    }
    Ok(())
}

/// Prints `pairs N`, then each pair.
pub fn run_self_intersections(args: &SelfIntersectionsArgs, out: &mut impl Write) -> Result<()> {
    let mesh = loading::load(&args.mesh)?.mesh;
    let pairs = mesh.self_intersections();
    writeln!(out, "pairs          {}", pairs.len())?;
    for (a, b) in pairs {
        writeln!(out, "pair {a} {b}")?;
    }
    Ok(())
}

/// A transform from 3, 12 or 16 comma-separated numbers.
fn parse_transform(text: &str) -> Result<Affine3A> {
    let numbers = text
        .split(',')
        .map(|n| {
            n.trim()
                .parse::<f32>()
                .with_context(|| format!("--transform: `{}` is not a number", n.trim()))
        })
        .collect::<Result<Vec<f32>>>()?;
    if numbers.iter().any(|n| !n.is_finite()) {
        bail!("--transform: every number must be finite");
    }
    let transform = match numbers.len() {
        3 => Affine3A::from_translation(Vec3::from_slice(&numbers)),
        12 | 16 => {
            let mut rows = [[0.0f32; 4]; 4];
            for (i, n) in numbers.iter().enumerate() {
                rows[i / 4][i % 4] = *n;
            }
            if numbers.len() == 16 && rows[3] != [0.0, 0.0, 0.0, 1.0] {
                bail!("--transform: a 4x4 matrix's last row must be 0,0,0,1 (an affine map)");
            }
            Affine3A::from_mat4(Mat4::from_cols_array_2d(&rows).transpose())
        }
        n => bail!("--transform: expected 3, 12 or 16 numbers, found {n}"),
    };
    if transform.matrix3.determinant() == 0.0 {
        bail!("--transform: the matrix is not invertible");
    }
    Ok(transform)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_read_as_rows() {
        let moved = parse_transform("1, 2, 3").expect("translation");
        assert_eq!(moved.transform_point3(Vec3::ZERO), Vec3::new(1.0, 2.0, 3.0));
        let matrix = parse_transform("0,-1,0,5, 1,0,0,6, 0,0,1,7").expect("3x4");
        assert_eq!(matrix.transform_point3(Vec3::X), Vec3::new(5.0, 7.0, 7.0));
        let full = parse_transform("0,-1,0,5, 1,0,0,6, 0,0,1,7, 0,0,0,1").expect("4x4");
        assert_eq!(full, matrix);
        for bad in [
            "1,2",
            "1,2,x",
            "1,2,inf",
            "0,0,0,0, 0,0,0,0, 0,0,0,0",
            "1,0,0,0, 0,1,0,0, 0,0,1,0, 1,0,0,1",
        ] {
            assert!(parse_transform(bad).is_err(), "{bad}");
        }
    }
}
