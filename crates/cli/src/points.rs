//! `meshcast contains` and `meshcast distance`: points read one per line (`x y z`), answered
//! by the library's point queries, printed in order.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use glam::Vec3;
use meshcast::{Mesh, PointQueries};
use meshcast_cli::input::LineReader;
use meshcast_cli::point_lines::parse_point;

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
/// are skipped. Distances print so that they read back to the same `f32`.
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
    /// Reads the points in chunks and writes `answer`'s lines for each chunk, in order.
    fn answer_each(
        &self,
        out: &mut impl Write,
        answer: impl Fn(&Mesh, &[Vec3]) -> Vec<String>,
    ) -> Result<()> {
        let reader = LineReader::open(&self.points, "points", parse_point)?;
        let mesh = loading::load(&self.mesh)?.mesh;
        reader.answer_each(out, |points| answer(&mesh, points))
    }
}

pub fn run_contains(args: &ContainsArgs, out: &mut impl Write) -> Result<()> {
    args.input.answer_each(out, |mesh, points| {
        output::lines(&mesh.contains_batch(points), |text, &inside| {
            output::containment(text, inside)
        })
    })
}

pub fn run_distance(args: &DistanceArgs, out: &mut impl Write) -> Result<()> {
    args.input.answer_each(out, |mesh, points| {
        output::lines(&mesh.signed_distance_batch(points), |text, distance| {
            output::distance(text, *distance)
        })
    })
}
