//! `meshcast cast`: answer rays read from a file or standard input, one line per ray, in order.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use meshcast::{Mesh, Ray, RayQueries};
use rayon::prelude::*;

use crate::{loading, output, rays};

/// How many input lines are read, answered in parallel and written at a time: enough to keep
/// every thread busy, small enough that memory stays a few megabytes for any input.
const CHUNK_LINES: usize = 1 << 16;

/// Rays answered and formatted together by one task.
const TASK_RAYS: usize = 1024;

/// Cast rays read one per line (`ox oy oz dx dy dz`) and print one answer line per ray.
///
/// Prints `hit T TRIANGLE U V` or `miss` for the closest hit, in input order; blank lines and
/// lines starting with `#` are skipped. T is in units of the ray's direction.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The OBJ file.
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// The rays, one per line; `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    rays: String,

    /// Only tell whether each ray hits anything: `hit` or `miss` (faster).
    #[arg(long, conflicts_with = "all")]
    any: bool,

    /// Every hit of each ray, sorted by t: `hits N` then `T TRIANGLE U V` per hit, or `miss`.
    #[arg(long)]
    all: bool,

    /// Ignore hits closer than this (default: any t > 0)
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    t_min: Option<f32>,

    /// Ignore hits farther than this (default: no limit)
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    t_max: Option<f32>,
}

/// Which answer each ray gets.
#[derive(Clone, Copy, Debug)]
enum Query {
    Closest,
    Any,
    All,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let range = rays::range_from_options(args.t_min, args.t_max)?;
    let query = match (args.any, args.all) {
        (true, _) => Query::Any,
        (_, true) => Query::All,
        _ => Query::Closest,
    };
    let input = rays::open(&args.rays)?;
    let mesh = loading::load(&args.mesh)?.mesh;
    let name = if args.rays == "-" {
        "standard input".to_owned()
    } else {
        args.rays.clone()
    };
    let mut reader = rays::RayReader::new(input, name, range, CHUNK_LINES);
    while let Some(chunk) = reader.next_chunk() {
        for text in answer(&mesh, &chunk.rays, query) {
            out.write_all(text.as_bytes())?;
        }
        if let Some(err) = chunk.error {
            out.flush()?;
            return Err(err);
        }
    }
    Ok(())
}

/// The answer lines for `rays`, in order: the library's batch query, then the lines written
/// in parallel in blocks of [`TASK_RAYS`].
fn answer(mesh: &Mesh, rays: &[Ray], query: Query) -> Vec<String> {
    match query {
        Query::Closest => lines(&mesh.cast_batch(rays), |text, hit| {
            output::closest(text, hit.as_ref())
        }),
        Query::Any => lines(&mesh.occluded_batch(rays), |text, &hit| {
            output::any(text, hit)
        }),
        Query::All => {
            let lists = mesh.cast_all_batch(rays);
            let each: Vec<&[meshcast::Hit]> = lists.iter().collect();
            lines(&each, |text, hits| output::all(text, hits))
        }
    }
}

/// `write(text, answer)` for every answer, in order, in parallel in blocks of [`TASK_RAYS`].
fn lines<A: Sync>(answers: &[A], write: impl Fn(&mut String, &A) + Sync) -> Vec<String> {
    answers
        .par_chunks(TASK_RAYS)
        .map(|block| {
            let mut text = String::with_capacity(block.len() * 48);
            for answer in block {
                write(&mut text, answer);
            }
            text
        })
        .collect()
}
