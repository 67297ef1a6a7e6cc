//! `meshcast contains` and `meshcast distance`: points read one per line (`x y z`), answered
//! by the library's point queries, printed in order.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use glam::{DVec3, Vec3};
use meshcast::{Mesh, PointQueries};
use meshcast_cli::input::LineReader;
use meshcast_cli::point_lines::{parse_point, parse_world_point};
use rayon::prelude::*;

use crate::{loading, output};

/// Tell whether each point is inside the mesh: `inside` or `outside`, one line per point.
///
/// Points are read one per line (`x y z`), in order; blank lines and lines starting with `#`
/// are skipped. On a closed mesh the answer is exact; on one with holes a point is inside
/// where the generalised winding number is at least 1/2. A point on the surface may be
/// answered either way.
#[derive(clap::Args, Debug)]
pub struct ContainsArgs {
    #[command(flatten)]
    input: PointsInput,
}

/// Print each point's signed distance to the mesh's surface, negative inside, one line per
/// point (`none` for a mesh whose triangles all have zero area).
///
/// Points are read one per line (`x y z`), in order; blank lines and lines starting with `#`
/// are skipped. Distances print so that they read back to the same `f32`; for a mesh far
/// from the origin (an OBJ or PLY file whose coordinates keep an origin of their own) the
/// points are read in `f64`, every digit kept, and distances print in `f64`.
#[derive(clap::Args, Debug)]
pub struct DistanceArgs {
    #[command(flatten)]
    input: PointsInput,
}

/// The mesh and the points of a point command.
#[derive(clap::Args, Debug)]
struct PointsInput {
    /// The mesh file (OBJ, glTF, PLY, STL; a glTF scene flattened into one mesh).
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// The points, `x y z` one per line; `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    points: String,
}

impl PointsInput {
    /// Reads the points in chunks and writes the lines for each chunk, in order: `near`'s,
    /// or for a mesh far from the origin (one with an origin of its own, [`Mesh::origin`])
    /// `far`'s, whose points are read in `f64`, every digit kept.
    fn answer_each(
        &self,
        out: &mut impl Write,
        near: impl Fn(&Mesh, &[Vec3]) -> Vec<String>,
        far: impl Fn(&Mesh, &[DVec3]) -> Vec<String>,
    ) -> Result<()> {
        let mesh = loading::load(&self.mesh)?.mesh;
        if mesh.origin() != DVec3::ZERO {
            let reader = LineReader::open(&self.points, "points", parse_world_point)?;
            return reader.answer_each(out, |points| far(&mesh, points));
        }
        let reader = LineReader::open(&self.points, "points", parse_point)?;
        reader.answer_each(out, |points| near(&mesh, points))
    }
}

pub fn run_contains(args: &ContainsArgs, out: &mut impl Write) -> Result<()> {
    let inside = |text: &mut String, &inside: &bool| output::containment(text, inside);
    args.input.answer_each(
        out,
        |mesh, points| output::lines(&mesh.contains_batch(points), inside),
        |mesh, points| {
            let answers: Vec<bool> = points.par_iter().map(|&p| mesh.contains(p)).collect();
            output::lines(&answers, inside)
        },
    )
}

pub fn run_distance(args: &DistanceArgs, out: &mut impl Write) -> Result<()> {
    args.input.answer_each(
        out,
        |mesh, points| {
            output::lines(&mesh.signed_distance_batch(points), |text, distance| {
                output::distance(text, *distance)
            })
        },
        |mesh, points| {
            let answers: Vec<Option<f64>> = points
                .par_iter()
                .map(|&p| mesh.signed_distance(p))
                .collect();
            output::lines(&answers, |text, distance| output::distance(text, *distance))
        },
    )
}
