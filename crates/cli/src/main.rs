//! The `meshcast` command: load meshes (OBJ, glTF, PLY, STL), cast rays from files or a
//! camera, ask about points, render, measure.
//!
//! Thin by design: every geometric answer comes from the `meshcast` library; this crate parses
//! arguments, ray and point lines, formats answers and pictures, and reports errors.
#![forbid(unsafe_code)]

mod bench;
mod build;
mod camera_options;
mod cast;
mod contact;
mod demo;
mod fields;
mod image;
mod info;
mod loading;
mod npy;
mod output;
mod pick;
mod points;
mod progress;
mod render;
mod shading;
mod target;
mod timing;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Ray casting on triangle meshes, accelerated by a bounding volume hierarchy.
///
/// Without a command, runs the demo: loads the bundled Stanford bunny, builds its BVH, renders
/// bunny.png into the current folder, picks the centre pixel and prints the timings.
#[derive(Parser)]
#[command(name = "meshcast", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    Info(info::Args),
    Cast(cast::Args),
    Contains(points::ContainsArgs),
    Distance(points::DistanceArgs),
    Pick(pick::Args),
    Render(render::Args),
    Bench(bench::Args),
    Build(build::Args),
    Collide(contact::CollideArgs),
    SelfIntersections(contact::SelfIntersectionsArgs),
    Sdf(fields::SdfArgs),
    Sample(fields::SampleArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version: clap prints them to stdout and exits with success.
        Err(err) if !err.use_stderr() => err.exit(),
        Err(err) => {
            eprintln!("error: {}", usage_error_line(&err));
            return ExitCode::from(2);
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match cli.command {
        None => demo::run(&mut out),
        Some(Command::Info(args)) => info::run(&args, &mut out),
        Some(Command::Cast(args)) => cast::run(&args, &mut out),
        Some(Command::Contains(args)) => points::run_contains(&args, &mut out),
        Some(Command::Distance(args)) => points::run_distance(&args, &mut out),
        Some(Command::Pick(args)) => pick::run(&args, &mut out),
        Some(Command::Render(args)) => render::run(&args, &mut out),
        Some(Command::Bench(args)) => bench::run(&args, &mut out),
        Some(Command::Build(args)) => build::run(&args, &mut out),
        Some(Command::Collide(args)) => contact::run_collide(&args, &mut out),
        Some(Command::SelfIntersections(args)) => contact::run_self_intersections(&args, &mut out),
        Some(Command::Sdf(args)) => fields::run_sdf(&args, &mut out),
        Some(Command::Sample(args)) => fields::run_sample(&args, &mut out),
    }
    .and_then(|()| Ok(out.flush()?));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early (`meshcast cast ... | head`) is not an error.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", one_line(&chain_message(&err)));
            ExitCode::FAILURE
        }
    }
}

/// Whether the error comes from writing to a closed pipe.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes joined by `: `, leaving out a cause whose text the message
/// already holds (library errors often quote their source in their own message).
fn chain_message(err: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if message.is_empty() {
            message = text;
        } else if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
    }
    message
}

/// clap's message for a usage error on one line: its first paragraph (without the `error: `
/// prefix, the usage and the tip), then a pointer to `--help`.
fn usage_error_line(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let first_paragraph = rendered
        .trim_start()
        .trim_start_matches("error:")
        .split("\n\n")
        .next()
        .unwrap_or_default();
    format!("{}; try '--help'", one_line(first_paragraph))
}

/// Collapses white space, newlines included, so a message stays on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
