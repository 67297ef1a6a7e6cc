//! Which instruction set Embree chose on this machine. Embree picks its kernels at run time and
//! says which only on standard output, so the benchmark runs itself again with
//! [`PROBE_FLAG`]: that child builds a one-triangle scene of each kind on a verbose device, and
//! the parent reads the kernels Embree names.

use std::process::Command;

use anyhow::{Context, Result};

use crate::embree::{Device, Scene, SceneFlags};

/// The hidden command-line flag that makes the benchmark a probe.
pub const PROBE_FLAG: &str = "--embree-isa-probe";

/// The probe, run in the child: "verbose=1" prints the CPU's features and the ISAs Embree was
/// compiled for; "verbose=2" also prints, at each commit, the builder and the intersectors
/// it selected, which is Embree's actual choice.
pub fn probe() -> Result<()> {
    let device = Device::new("verbose=2")?;
    let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    for flags in [SceneFlags::Default, SceneFlags::Robust] {
        Scene::triangles(&device, &positions, &[[0, 1, 2]], flags)?;
    }
    Ok(())
}

/// A line on Embree's choices for the report, e.g. "avx512 (rtcIntersect1:
/// avx512::BVH8Triangle4Intersector1Moeller; robust: ...; build: avx::BVH8BuilderSAH)", or
/// why it is unknown. Never fails: the benchmark runs without it.
pub fn detect() -> String {
    match probe_output() {
        Ok(stdout) => summary(&stdout).unwrap_or_else(|| {
            "unknown (Embree's verbose output names no intersector)".to_string()
        }),
        Err(err) => format!("unknown ({err:#})"),
    }
}

/// The child's standard output.
fn probe_output() -> Result<String> {
    let exe = std::env::current_exe().context("finding the benchmark's executable")?;
    let output = Command::new(&exe)
        .arg(PROBE_FLAG)
        .output()
        .with_context(|| format!("running {} {PROBE_FLAG}", exe.display()))?;
    if !output.status.success() {
        anyhow::bail!(
            "{PROBE_FLAG} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The summary of a probe's output: the single-ray intersector of each scene (default, then
/// robust), whose namespace is the ISA, and the builder of the first.
fn summary(stdout: &str) -> Option<String> {
    let mut intersectors = Vec::new();
    let mut builder = None;
    let mut selected = false;
    for line in stdout.lines().map(str::trim) {
        if line == "selected scene intersector" {
            selected = true;
        } else if let Some(name) = line.strip_prefix("intersector1") {
            if selected {
                intersectors.push(name.trim_start_matches([' ', '=']).to_string());
                selected = false;
            }
        } else if let Some(rest) = line.strip_prefix("building ") {
            if let Some((_, using)) = rest.split_once(" using ") {
                builder.get_or_insert_with(|| using.trim_end_matches(['.', ' ']).to_string());
            }
        }
    }
    let first = intersectors.first()?;
    let isa = first.split_once("::").map_or("unknown", |(isa, _)| isa);
    let mut text = format!("{isa} (rtcIntersect1: {first}");
    if let Some(robust) = intersectors.get(1) {
        text.push_str(&format!("; robust: {robust}"));
    }
    if let Some(builder) = builder {
        text.push_str(&format!("; build: {builder}"));
    }
    text.push(')');
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of Embree 3.13.5's verbose output on an AVX-512 machine, shortened.
    const SAMPLE: &str = "\
Embree Ray Tracing Kernels 3.13.5 ()
   ISA      : XMM YMM ZMM SSE SSE2 AVX AVX2 AVX512F
building BVH8<triangle4> using avx::BVH8BuilderSAH ...
created scene intersector
  accels[0]
    intersector1  = avx512::BVH8Triangle4Intersector1Moeller
selected scene intersector
  intersector1  = avx512::BVH8Triangle4Intersector1Moeller
  intersector4  = avx512::BVH8Triangle4Intersector4HybridMoellerNoFilter
building BVH8<triangle4v> using avx::BVH8BuilderSAH ...
created scene intersector
  accels[0]
    intersector1  = avx512::BVH8Triangle4vIntersector1Pluecker
selected scene intersector
  intersector1  = avx512::BVH8Triangle4vIntersector1Pluecker
";

    #[test]
    fn summary_names_the_selected_kernels() {
        assert_eq!(
            summary(SAMPLE).as_deref(),
            Some(
                "avx512 (rtcIntersect1: avx512::BVH8Triangle4Intersector1Moeller; robust: \
                 avx512::BVH8Triangle4vIntersector1Pluecker; build: avx::BVH8BuilderSAH)"
            )
        );
    }

    #[test]
    fn summary_without_intersectors_is_none() {
        assert_eq!(summary("Embree Ray Tracing Kernels 3.13.5 ()\n"), None);
    }
}
