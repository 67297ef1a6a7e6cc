//! Embree's one-thread build time, measured in a process of its own.
//!
//! Embree runs as many build threads as the most any live device asks for: its task scheduler
//! is one for the whole process. A "threads=1" device beside a default one builds on every
//! core (on a two-core machine, pinned to one core with `taskset`, the bunny x16 took 397 ms
//! against 201 ms unpinned). So the benchmark runs itself again with [`PROBE_FLAG`]: that
//! child makes one "threads=1" device, the only one in its process, builds the mesh once
//! untimed and then once per round, and prints each round's time; the parent reports those
//! as Embree's one-thread builds.

use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::embree::{Device, Scene, SceneFlags};
use crate::workload::{mesh_spec, Workload};

/// The hidden command-line flag that makes the benchmark the build probe:
/// `--embree-build-probe MESH ROUNDS default|robust`.
pub const PROBE_FLAG: &str = "--embree-build-probe";

/// The probe, run in the child with the arguments after the flag.
pub fn probe(args: &[String]) -> Result<()> {
    let [mesh, rounds, flags] = args else {
        bail!("usage: {PROBE_FLAG} MESH ROUNDS default|robust");
    };
    let rounds: usize = rounds.parse().context("rounds")?;
    let Some(flags) = FLAGS.into_iter().find(|&f| flags_name(f) == flags) else {
        bail!("unknown scene flags {flags:?} (default or robust)");
    };
    let workload = Workload::load(&crate::repository_root(), mesh_spec(mesh)?, 1)?;
    let device = Device::new("threads=1")?;
    let build = || Scene::triangles(&device, &workload.positions, &workload.indices, flags);
    build()?;
    for _ in 0..rounds {
        let start = Instant::now();
        let scene = build()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        drop(scene);
        println!("{ms}");
    }
    Ok(())
}

/// Embree's one-thread build times of mesh `mesh`, one per round, from the child.
pub fn one_thread_builds(mesh: &str, rounds: usize, flags: SceneFlags) -> Result<Vec<f64>> {
    let exe = std::env::current_exe().context("finding the benchmark's executable")?;
    let output = Command::new(&exe)
        .args([PROBE_FLAG, mesh, &rounds.to_string(), flags_name(flags)])
        .output()
        .with_context(|| format!("running {} {PROBE_FLAG}", exe.display()))?;
    if !output.status.success() {
        bail!(
            "{PROBE_FLAG} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let times: Vec<f64> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.trim().parse().context("a build time"))
        .collect::<Result<_>>()?;
    if times.len() != rounds {
        bail!(
            "{PROBE_FLAG} gave {} times for {rounds} rounds",
            times.len()
        );
    }
    Ok(times)
}

/// The scene flags the probe takes.
const FLAGS: [SceneFlags; 2] = [SceneFlags::Default, SceneFlags::Robust];

/// The probe's name for `flags`.
fn flags_name(flags: SceneFlags) -> &'static str {
    match flags {
        SceneFlags::Default => "default",
        SceneFlags::Robust => "robust",
    }
}
