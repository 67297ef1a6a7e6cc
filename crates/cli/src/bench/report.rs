//! How `meshcast bench` reports what it measured: a table for people, JSON for scripts.

use std::io::Write;

use anyhow::Result;
use meshcast::gpu::Gpu;
use serde_json::json;

use crate::timing::{millions_per_second, ms};

use super::gpu::{GpuBench, GpuRays};
use super::{Args, MeshBench};

pub(super) fn write_table(
    out: &mut impl Write,
    args: &Args,
    threads: usize,
    gpu: Option<&Gpu>,
    results: &[MeshBench],
) -> Result<()> {
    for (i, bench) in results.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let subdivided = match args.subdivide {
            0 => String::new(),
            n => format!(", subdivided {n} time(s)"),
        };
        writeln!(
            out,
            "{}: {} triangles{subdivided}, {} quality, {} leaf test, {} kernel (median of {} runs)",
            bench.path.display(),
            bench.triangles,
            args.quality.name(),
            args.leaf_test.name(),
            bench.kernel,
            args.runs
        )?;
        writeln!(out, "  load   {:9.2} ms", ms(bench.load_time))?;
        writeln!(
            out,
            "  build  {:9.2} ms  {:.2} Mtris/s; {} nodes, depth {}, SAH cost {:.2}, {:.1} bytes/triangle",
            ms(bench.build_time),
            millions_per_second(bench.triangles, bench.build_time),
            bench.nodes,
            bench.depth,
            bench.sah_cost,
            bench.bvh_bytes_per_triangle
        )?;
        writeln!(
            out,
            "  Mrays/s                           1 thread  {threads:>2} threads   rays    hit"
        )?;
        for pair in bench.throughput.chunks(2) {
            let [one, all] = pair else { continue };
            let query = format!("{}{}", one.query.name(), one.method.label(one.rays));
            writeln!(
                out,
                "  {:<11} {:<18} {:>10.2} {:>11.2} {:>8} {:>5.1}%",
                one.rays.name(),
                query,
                millions_per_second(one.count, one.time),
                millions_per_second(all.count, all.time),
                one.count,
                100.0 * one.hits as f64 / one.count.max(1) as f64,
            )?;
        }
        if !bench.visits.is_empty() {
            writeln!(out, "  per ray                   nodes   leaves   blocks")?;
            for v in &bench.visits {
                writeln!(
                    out,
                    "  {:<11} {:<8} {:>9.2} {:>8.2} {:>8.2}",
                    v.rays.name(),
                    v.query.name(),
                    v.per_ray(v.counts.nodes),
                    v.per_ray(v.counts.leaves),
                    v.per_ray(v.counts.blocks),
                )?;
            }
        }
        if let (Some(gpu), Some(measured)) = (gpu, &bench.gpu) {
            write_gpu_table(out, gpu, bench.triangles, measured)?;
        }
    }
    Ok(())
}

/// The GPU lines of one mesh's table.
fn write_gpu_table(
    out: &mut impl Write,
    gpu: &Gpu,
    triangles: usize,
    measured: &GpuBench,
) -> Result<()> {
    writeln!(out, "  gpu    {}", gpu.adapter())?;
    if let Some(device) = gpu.cuda_device() {
        writeln!(out, "  cuda   {device} (closest and any-hit batches)")?;
    }
    writeln!(out, "  kernel {}", gpu.kernel_options())?;
    writeln!(
        out,
        "  upload {:9.2} ms  {} bytes on the GPU, {:.1} bytes/triangle",
        ms(measured.upload_time),
        measured.bytes,
        measured.bytes as f64 / triangles.max(1) as f64
    )?;
    writeln!(
        out,
        "  {:<30} {:>10} {:>11} {:>8} {:>6} {:>7}",
        "GPU Mrays/s", "kernel", "end-to-end", "rays", "hit", "on CPU"
    )?;
    for t in &measured.throughput {
        let query = match t.rays {
            GpuRays::Camera => format!("{} (GPU rays)", t.query.name()),
            GpuRays::Host(_) => t.query.name().to_owned(),
        };
        writeln!(
            out,
            "  {:<11} {:<18} {:>10.2} {:>11.2} {:>8} {:>5.1}% {:>7}",
            t.rays.name(),
            query,
            millions_per_second(t.count, t.kernel),
            millions_per_second(t.count, t.end_to_end),
            t.count,
            100.0 * t.hits as f64 / t.count.max(1) as f64,
            t.finished_on_cpu,
        )?;
    }
    Ok(())
}

pub(super) fn write_json(
    out: &mut impl Write,
    args: &Args,
    threads: usize,
    gpu: Option<&Gpu>,
    results: &[MeshBench],
) -> Result<()> {
    let meshes: Vec<_> = results
        .iter()
        .map(|bench| {
            let throughput: Vec<_> = bench
                .throughput
                .iter()
                .map(|t| {
                    json!({
                        "rays": t.rays.name(),
                        "query": t.query.name(),
                        "method": t.method.name(),
                        "threads": t.threads,
                        "count": t.count,
                        "hits": t.hits,
                        "median_ms": ms(t.time),
                        "mrays_per_s": millions_per_second(t.count, t.time),
                    })
                })
                .collect();
            let visits: Vec<_> = bench
                .visits
                .iter()
                .map(|v| {
                    json!({
                        "rays": v.rays.name(),
                        "query": v.query.name(),
                        "nodes_per_ray": v.per_ray(v.counts.nodes),
                        "leaves_per_ray": v.per_ray(v.counts.leaves),
                        "blocks_per_ray": v.per_ray(v.counts.blocks),
                    })
                })
                .collect();
            let mut mesh = json!({
                "path": bench.path.display().to_string(),
                "kernel": bench.kernel.name(),
                "triangles": bench.triangles,
                "load_ms": ms(bench.load_time),
                "build_ms": ms(bench.build_time),
                "build_mtris_per_s": millions_per_second(bench.triangles, bench.build_time),
                "bvh_nodes": bench.nodes,
                "bvh_depth": bench.depth,
                "bvh_sah_cost": bench.sah_cost,
                "bvh_bytes_per_triangle": bench.bvh_bytes_per_triangle,
                "throughput": throughput,
                "counters": visits,
            });
            if let Some(measured) = &bench.gpu {
                mesh["gpu"] = gpu_json(bench.triangles, measured);
            }
            mesh
        })
        .collect();
    let mut document = json!({
        "subdivide": args.subdivide,
        "leaf_test": args.leaf_test.name(),
        "runs": args.runs,
        "quality": args.quality.name(),
        "threads": threads,
        "meshes": meshes,
    });
    if let Some(gpu) = gpu {
        document["gpu_adapter"] = json!(gpu.adapter().to_string());
    }
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)?;
    Ok(())
}

/// One mesh's GPU figures in JSON.
fn gpu_json(triangles: usize, measured: &GpuBench) -> serde_json::Value {
    let throughput: Vec<_> = measured
        .throughput
        .iter()
        .map(|t| {
            json!({
                "rays": t.rays.name(),
                "query": t.query.name(),
                "count": t.count,
                "hits": t.hits,
                "finished_on_cpu": t.finished_on_cpu,
                "kernel_best_ms": ms(t.kernel),
                "kernel_mrays_per_s": millions_per_second(t.count, t.kernel),
                "end_to_end_median_ms": ms(t.end_to_end),
                "end_to_end_mrays_per_s": millions_per_second(t.count, t.end_to_end),
            })
        })
        .collect();
    json!({
        "upload_ms": ms(measured.upload_time),
        "gpu_bytes": measured.bytes,
        "gpu_bytes_per_triangle": measured.bytes as f64 / triangles.max(1) as f64,
        "throughput": throughput,
    })
}
