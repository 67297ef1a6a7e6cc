//! `meshcast cast`: answer rays read from a file or standard input, one line per ray, in order.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Result};
use glam::DVec3;
use meshcast::gpu::{Gpu, GpuMesh};
use meshcast::{Contacts, DFrame, Hit, QueryOptions, Ray};
use meshcast_cli::input::LineReader;
use meshcast_cli::rays;

use crate::loading::{self, Loaded};
use crate::output::{self, lines};
use crate::target::{HitFields, Target};

/// Cast rays read one per line (`ox oy oz dx dy dz`) and print one answer line per ray.
///
/// Prints `hit T TRIANGLE U V` or `miss` for the closest hit, in input order; blank lines and
/// lines starting with `#` are skipped. T is in units of the ray's direction. A glTF file is
/// a scene of instances: each hit also gives the instance, last (`hit T TRIANGLE U V INSTANCE`).
/// `--gpu` answers on the GPU, with the same lines.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The mesh file (OBJ, glTF, PLY, STL); a glTF file's nodes make a scene.
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

    /// Whether a ray that touches a triangle's edge or vertex hits it (the closest and any
    /// hit; `--all` counts each crossing once either way)
    #[arg(long, value_enum, default_value_t = ContactsArg::Hit)]
    contacts: ContactsArg,

    /// Answer on the GPU: the same lines, the rays the GPU's rounding leaves open finished on
    /// the CPU. Takes the best adapter, or the first named like the MESHCAST_GPU environment
    /// variable; not for glTF scenes.
    #[arg(long)]
    gpu: bool,
}

/// `--contacts`: the library's [`Contacts`].
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ContactsArg {
    /// A ray that meets an edge or a vertex hits the triangles there.
    Hit,
    /// Each edge and vertex belongs to one triangle: the closest hit is the first of `--all`.
    TieRule,
}

impl From<ContactsArg> for Contacts {
    fn from(contacts: ContactsArg) -> Self {
        match contacts {
            ContactsArg::Hit => Self::Hit,
            ContactsArg::TieRule => Self::TieRule,
        }
    }
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
    let options = QueryOptions::new().with_contacts(args.contacts.into());
    let loaded = loading::load_target(&args.mesh)?;
    let on_gpu = match (&loaded, args.gpu) {
        (_, false) => None,
        (Loaded::Mesh(mesh), true) => Some(Gpu::new()?.upload(Arc::clone(mesh))?),
        (Loaded::Scene { .. }, true) => bail!(
            "--gpu casts on one mesh; {} is a glTF scene of instances (leave out --gpu)",
            args.mesh.display()
        ),
    };
    if loaded.origin() != DVec3::ZERO {
        return match &loaded {
            Loaded::Mesh(mesh) => {
                let frame = mesh.world_frame();
                run_far(
                    args,
                    mesh.as_ref(),
                    frame,
                    on_gpu.as_ref(),
                    range,
                    query,
                    &options,
                    out,
                )
            }
            Loaded::Scene { scene, origin } => {
                let frame = DFrame::new(*origin, &scene.bounds());
                run_far(args, scene, frame, None, range, query, &options, out)
            }
        };
    }
    let reader = LineReader::open(&args.rays, "rays", |line| rays::parse_ray(line, range))?;
    if let Some(on_gpu) = &on_gpu {
        return reader.try_answer_each(out, |rays| answer_on_gpu(on_gpu, rays, query, &options));
    }
    match &loaded {
        Loaded::Mesh(mesh) => {
            reader.answer_each(out, |rays| answer(mesh.as_ref(), rays, query, &options))
        }
        Loaded::Scene { scene, .. } => {
            reader.answer_each(out, |rays| answer(scene, rays, query, &options))
        }
    }
}

/// [`run`] for a mesh or scene far from the origin (whose frame, [`Loaded::origin`], lies
/// away from the world's): the rays read in `f64`, every digit kept, carried into the frame
/// before rounding ([`DFrame::carry`]), and `T` printed in `f64`; on the CPU or, for a mesh,
/// the GPU.
#[allow(clippy::too_many_arguments)]
fn run_far<T: Target>(
    args: &Args,
    mesh: &T,
    frame: DFrame,
    on_gpu: Option<&GpuMesh>,
    range: rays::Range,
    query: Query,
    options: &QueryOptions,
    out: &mut impl Write,
) -> Result<()> {
    let reader = LineReader::open(&args.rays, "rays", |line| {
        rays::parse_world_ray(line, range)
    })?;
    reader.try_answer_each(out, |rays| {
        let (local, shifts): (Vec<Ray>, Vec<f64>) = rays.iter().map(|ray| frame.carry(ray)).unzip();
        Ok(match (query, on_gpu) {
            (Query::Closest, Some(on_gpu)) => {
                closest_carried(&on_gpu.cast_batch_with(&local, options)?, &shifts)
            }
            (Query::Closest, None) => {
                closest_carried(&mesh.cast_batch_with(&local, options), &shifts)
            }
            (Query::Any, Some(on_gpu)) => {
                let hits = on_gpu.occluded_batch_with(&local, options)?;
                lines(&hits, |text, &hit| output::any(text, hit))
            }
            (Query::Any, None) => {
                let hits = mesh.occluded_batch_with(&local, options);
                lines(&hits, |text, &hit| output::any(text, hit))
            }
            (Query::All, Some(on_gpu)) => {
                let lists = on_gpu.cast_all_batch_with(&local, options)?;
                all_carried(&lists.iter().collect::<Vec<&[Hit]>>(), &shifts)
            }
            (Query::All, None) => {
                let lists = mesh.cast_all_batch_with(&local, options);
                all_carried(&lists.iter().collect::<Vec<&[T::Hit]>>(), &shifts)
            }
        })
    })
}

/// The closest-hit lines of carried rays, each `T` shifted back to the world ray's.
fn closest_carried<H: HitFields + Sync>(hits: &[Option<H>], shifts: &[f64]) -> Vec<String> {
    let answers: Vec<_> = hits.iter().zip(shifts).collect();
    lines(&answers, |text, &(hit, &shift)| {
        output::closest_carried(text, hit.as_ref(), shift)
    })
}

/// The every-hit lines of carried rays, each `T` shifted back to the world ray's.
fn all_carried<H: HitFields + Sync>(lists: &[&[H]], shifts: &[f64]) -> Vec<String> {
    let answers: Vec<_> = lists.iter().zip(shifts).collect();
    lines(&answers, |text, &(hits, &shift)| {
        output::all_carried(text, hits, shift)
    })
}

/// The answer lines for `rays`, in order: the library's batch query, then the lines written
/// in parallel ([`output::lines`]).
fn answer<T: Target>(mesh: &T, rays: &[Ray], query: Query, options: &QueryOptions) -> Vec<String> {
    match query {
        Query::Closest => lines(&mesh.cast_batch_with(rays, options), |text, hit| {
            output::closest(text, hit.as_ref())
        }),
        Query::Any => lines(&mesh.occluded_batch_with(rays, options), |text, &hit| {
            output::any(text, hit)
        }),
        Query::All => {
            let lists = mesh.cast_all_batch_with(rays, options);
            let each: Vec<&[T::Hit]> = lists.iter().collect();
            lines(&each, |text, hits| output::all(text, hits))
        }
    }
}

/// The answer lines for `rays` from the GPU: the same queries, so the same lines as
/// [`answer`] on the mesh.
fn answer_on_gpu(
    mesh: &GpuMesh,
    rays: &[Ray],
    query: Query,
    options: &QueryOptions,
) -> Result<Vec<String>> {
    Ok(match query {
        Query::Closest => lines(&mesh.cast_batch_with(rays, options)?, |text, hit| {
            output::closest(text, hit.as_ref())
        }),
        Query::Any => lines(&mesh.occluded_batch_with(rays, options)?, |text, &hit| {
            output::any(text, hit)
        }),
        Query::All => {
            let lists = mesh.cast_all_batch_with(rays, options)?;
            let each: Vec<&[Hit]> = lists.iter().collect();
            lines(&each, |text, hits| output::all(text, hits))
        }
    })
}
