//! The tables: printed after each mesh, and written with the run's context to BENCHMARKS.md.

use std::fmt::Write as _;
use std::time::Duration;

use crate::check::RELATIVE_T_TOLERANCE;
use crate::results::{Figure, MeshResult, Row, EMBREE, MESHCAST};
use crate::summary;
use crate::table::Table;
use crate::tracer::{Library, Threads};
use crate::Options;

/// What a library is, for the report.
pub struct LibraryInfo {
    /// Its name.
    pub name: &'static str,
    /// The exact version.
    pub version: String,
    /// Which API calls were measured.
    pub notes: &'static str,
}

/// The run's context.
pub struct Run {
    /// The command as typed.
    pub command_line: String,
    /// Its options.
    pub options: Options,
    /// The scaling check at start and end.
    pub scaling: (f64, f64),
    /// How long the whole run took.
    pub elapsed: Duration,
    /// The kernels Embree chose on this machine, when Embree is compared.
    pub embree_isa: Option<String>,
    /// The libraries.
    pub libraries: Vec<LibraryInfo>,
}

/// The columns: build time, then the three throughputs, each on one thread and on all.
fn columns(threads: usize) -> Vec<(Figure, Threads, String)> {
    let all = format!("{threads}T");
    let mut columns = Vec::new();
    for figure in [
        Figure::Build,
        Figure::Coherent,
        Figure::Incoherent,
        Figure::Occlusion,
    ] {
        columns.push((figure, Threads::One, format!("{} 1T", figure.name())));
        columns.push((figure, Threads::All, format!("{} {all}", figure.name())));
    }
    columns
}

/// A figure as text: a dash where it was not measured.
fn cell(value: Option<f64>) -> String {
    match value {
        None => "–".to_string(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
    }
}

/// Mrays/s (and build ms) per row.
fn figures_table(result: &MeshResult, threads: usize) -> Table {
    let columns = columns(threads);
    let mut header = vec!["library".to_string()];
    header.extend(columns.iter().map(|(_, _, name)| name.clone()));
    let mut rows = vec![header];
    for row in &result.rows {
        let mut cells = vec![row_label(row)];
        cells.extend(columns.iter().map(|&(f, t, _)| cell(row.median(f, t))));
        rows.push(cells);
    }
    Table { rows }
}

/// The row's name, with a mark when its occlusion figure is not a true any-hit query.
fn row_label(row: &Row) -> String {
    match row.occlusion_note {
        Some(_) => format!("{} ¹", row.name),
        None => row.name.clone(),
    }
}

/// Each row's figures over `reference`'s: above 1 is faster for throughput; for build time,
/// below 1 is faster.
fn ratio_table(result: &MeshResult, threads: usize, reference: &str) -> Option<Table> {
    let base = result.row(reference)?;
    let columns = columns(threads);
    let mut header = vec![format!("vs {reference}")];
    header.extend(columns.iter().map(|(_, _, name)| name.clone()));
    let mut rows = vec![header];
    for row in &result.rows {
        let mut cells = vec![row.name.clone()];
        for &(figure, threads, _) in &columns {
            // Packet and batch rows compare with the reference's single-ray figure.
            let ratio = match (row.median(figure, threads), base.median(figure, threads)) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            cells.push(ratio.map_or("–".to_string(), |r| format!("{r:.2}×")));
        }
        rows.push(cells);
    }
    Some(Table { rows })
}

/// Disagreements with brute force per row.
fn check_table(result: &MeshResult) -> Table {
    let mut rows = vec![vec![
        "library".to_string(),
        "rays".to_string(),
        "hit/miss".to_string(),
        "t off".to_string(),
        "any ≠ closest".to_string(),
        "packets ≠ single ray".to_string(),
    ]];
    for check in &result.check {
        rows.push(vec![
            check.name.clone(),
            check.rays.to_string(),
            check.hit_miss.to_string(),
            check.distance.to_string(),
            check
                .any_vs_closest
                .map_or("–".to_string(), |n| n.to_string()),
            check
                .packet_vs_single
                .map_or("–".to_string(), |(differ, rays)| {
                    format!("{differ} of {rays}")
                }),
        ]);
    }
    Table { rows }
}

/// Hit rates, and the rows whose hit counts differ from meshcast's.
fn hit_summary(result: &MeshResult) -> String {
    let Some(base) = result.row(MESHCAST) else {
        return String::new();
    };
    let rate = |hits: usize| 100.0 * hits as f64 / result.rays.max(1) as f64;
    let mut text = format!(
        "hit rates (meshcast): coherent {:.1}%, incoherent {:.1}%, occlusion {:.1}%",
        rate(base.hits[Figure::Coherent as usize]),
        rate(base.hits[Figure::Incoherent as usize]),
        rate(base.hits[Figure::Occlusion as usize]),
    );
    let mut differing = Vec::new();
    for row in &result.rows {
        for figure in Figure::RAYS {
            let (a, b) = (row.hits[figure as usize], base.hits[figure as usize]);
            if a != 0 && a != b {
                differing.push(format!(
                    "{} {} {:+}",
                    row.name,
                    figure.name(),
                    a as i64 - b as i64
                ));
            }
        }
    }
    if differing.is_empty() {
        text.push_str("; every library counts the same hits");
    } else {
        let _ = write!(text, "; hit counts differing: {}", differing.join(", "));
    }
    text
}

/// Prints one mesh's tables.
pub fn print_mesh(result: &MeshResult, options: &Options, libraries: &[Box<dyn Library>]) {
    println!(
        "\n{}: {} triangles, {} rays per set, median of {} rounds; Mrays/s (build: ms)",
        result.name, result.triangles, result.rays, options.rounds
    );
    print!("{}", figures_table(result, options.threads).text());
    for reference in ["Embree", "obvhs"] {
        if let Some(table) = ratio_table(result, options.threads, reference) {
            print!("{}", table.text());
        }
    }
    if let Some(bytes) = result.meshcast_bytes_per_triangle {
        println!("  meshcast acceleration structure: {bytes:.1} bytes/triangle");
    }
    for row in &result.rows {
        if let Some(note) = row.occlusion_note {
            println!("  ¹ {note}");
        }
    }
    println!("  {}", hit_summary(result));
    println!(
        "  correctness on {} + {} rays vs brute force (watertight `Triangle::intersect`; t within {RELATIVE_T_TOLERANCE:e} relative, meshcast exact); packet and batch rows also vs their single-ray answers on every ray (batch rows: of the incoherent set):",
        result.checked_rays, result.checked_rays
    );
    print!("{}", check_table(result).text());
    let _ = libraries;
}

/// The CPU model, cores and memory, from /proc.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or("unknown memory".to_string(), |kb| {
            format!("{:.1} GiB", kb / 1024.0 / 1024.0)
        });
    format!("{model}, {cores} hardware threads, {memory}")
}

/// Today's date (UTC), from the system clock.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The whole report.
pub fn markdown(run: &Run, results: &[MeshResult]) -> String {
    let options = &run.options;
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks: meshcast and its peers\n");
    let _ = writeln!(
        md,
        "Ray casting on triangle meshes with meshcast and other libraries, on the same meshes \
         and the same rays. Made by `benches/peers` (see its README); re-run with \
         `benches/peers/run.sh`.\n"
    );
    let _ = writeln!(md, "- **Machine:** {}", machine());
    let _ = writeln!(md, "- **Date:** {}", today());
    let _ = writeln!(md, "- **Command:** `{}`", run.command_line);
    let _ = writeln!(
        md,
        "- **Run:** {} rays per set, {} rounds (each figure is the median over rounds; in every \
         round each library runs each measurement once, one after the other), {} threads for \
         the all-threads figures; the whole run took {:.0} s",
        options.rays,
        options.rounds,
        options.threads,
        run.elapsed.as_secs_f64()
    );
    let _ = writeln!(
        md,
        "- **Two-thread scaling check:** {:.2} at start, {:.2} at end (an arithmetic loop on \
         two threads against one; 2.00 on a quiet two-core machine, lower means the run shared \
         the machine)",
        run.scaling.0, run.scaling.1
    );
    let _ = writeln!(
        md,
        "- **Build:** release profile with `lto = \"fat\"`, `codegen-units = 1`, default target \
         CPU (no `target-cpu=native`)"
    );
    if let Some(isa) = &run.embree_isa {
        let version = run
            .libraries
            .iter()
            .find(|lib| lib.name == EMBREE)
            .map_or("unknown version", |lib| lib.version.as_str());
        let _ = writeln!(
            md,
            "- **Embree:** {version}; kernels it chose at run time (from its verbose output): \
             {isa}"
        );
    }
    md.push('\n');
    let _ = writeln!(md, "## meshcast vs peers\n");
    let _ = writeln!(md, "{}\n", summary::caption(options.threads));
    md.push_str(&summary::table(results, options.threads).markdown());
    md.push('\n');
    let _ = writeln!(md, "## Libraries\n");
    let _ = writeln!(md, "| library | version | what is measured |");
    let _ = writeln!(md, "| :-- | :-- | :-- |");
    for lib in &run.libraries {
        let _ = writeln!(md, "| {} | {} | {} |", lib.name, lib.version, lib.notes);
    }
    let _ = writeln!(
        md,
        "\nEvery library gets the same positions and index triples and the same rays. Build \
         time runs from those arrays to a structure ready to trace (including each library's \
         own conversion), on one thread (a one-thread rayon pool; for Embree a \"threads=1\" \
         device alone in a process of its own, since beside a default device it builds on \
         every core) and on all threads where the library can build in parallel (parry3d cannot). \
         Throughput calls each library's single-ray query once per ray, on one thread or from \
         a rayon pool of all threads (chunks of 256 rays); Embree robust is Embree with \
         `RTC_SCENE_FLAG_ROBUST` set on its scene. Two packet rows are measured on the \
         coherent rays only, each as its users trace a camera image: *Embree ×16* \
         (`rtcIntersect16`, default scene, coherent context) on 4 x 4 pixel tiles, as \
         Embree's tutorials trace, and *meshcast batch* (`Mesh::cast_batch_serial`) handed \
         the row-major image four rows per call (it finds the rows and traces 4 x 4 tiles as \
         packets of 16 rays itself); on all threads each band of four rows is answered by \
         one thread. Two batch rows are measured on the incoherent rays only, closest hit and \
         any hit, each handed the whole array of rays: *Embree 1M* (`rtcIntersect1M` / \
         `rtcOccluded1M`, default scene, incoherent context; the time includes writing the \
         rays to Embree's `RTCRayHit` / `RTCRay` array), one call over every ray on one \
         thread and one call per chunk of 256 rays on all threads, as users thread Embree's \
         stream calls, and *meshcast cast_batch* (`Mesh::cast_batch` / \
         `Mesh::occluded_batch`), one call over every ray in the pool of one thread or of \
         all, which meshcast shares among the pool's threads itself.\n"
    );
    let _ = writeln!(md, "Meshes: `bunny` is `assets/stanford-bunny.obj`, `ogre` is `assets/ogre.obj`, `bunny-x16` and `bunny-x64` are the bunny with every triangle split into 4 twice and three times (`TriMesh::subdivide`). Rays: *coherent* is a square camera image framing the mesh (`Camera::framing`, 40° field of view, as `meshcast bench`), one ray per pixel, row by row (`Camera::pixel_rays`); *incoherent* is `meshcast_testkit::incoherent_rays` (from a sphere around the mesh towards random points in its box, seed 0x6d657368); *occlusion* is an any-hit query on the incoherent rays.\n");
    let _ = writeln!(
        md,
        "![Mrays/s per library and mesh](benches/peers/chart.png)\n"
    );
    let _ = writeln!(md, "## Results\n");
    let _ = writeln!(
        md,
        "Mrays/s (higher is faster); build in ms (lower is faster). 1T is one thread, {}T all \
         threads. Ratio tables divide each figure by the reference library's (for build time \
         a ratio below 1 is faster; packet and batch rows are divided by the reference's \
         single-ray figure).\n",
        options.threads
    );
    for result in results {
        let _ = writeln!(md, "### {} ({} triangles)\n", result.name, result.triangles);
        md.push_str(&figures_table(result, options.threads).markdown());
        md.push('\n');
        for reference in ["Embree", "obvhs"] {
            if let Some(table) = ratio_table(result, options.threads, reference) {
                md.push_str(&table.markdown());
                md.push('\n');
            }
        }
        if let Some(bytes) = result.meshcast_bytes_per_triangle {
            let _ = writeln!(md, "meshcast's acceleration structure: {bytes:.1} bytes per triangle (nodes and leaf triangle blocks, `Mesh::acceleration_bytes`, as `meshcast bench` reports it).\n");
        }
        for row in &result.rows {
            if let Some(note) = row.occlusion_note {
                let _ = writeln!(md, "¹ {note}.\n");
            }
        }
        let _ = writeln!(md, "{}.\n", hit_summary(result));
    }
    let _ = writeln!(md, "## Correctness\n");
    let _ = writeln!(
        md,
        "On each mesh, a sample of rays from each set (spread evenly over it; fewer on the \
         big meshes, to bound the brute-force work) is answered by each library and by a \
         brute-force loop over every triangle with meshcast's watertight `Triangle::intersect`. \
         *hit/miss* counts rays where one hits and the other does not; *t off* counts hits \
         whose distance differs by more than {RELATIVE_T_TOLERANCE:e} relative (for meshcast: in any bit); \
         *any ≠ closest* counts rays whose any-hit answer differs from the library's own \
         closest-hit hit/miss (for a batch row: its batch any-hit answer against its batch \
         closest hit); *packets ≠ single ray*, for a packet row, counts rays of both whole \
         sets (not only the sample) whose packet answer differs from the same library's \
         single-ray answer in the same way (for *meshcast batch*: in any bit, against \
         `Mesh::cast`), and for a batch row (*Embree 1M*, *meshcast cast_batch*) rays of the \
         whole incoherent set, traced as its all-threads figure traces them, whose batch \
         answer differs (for *meshcast cast_batch*: in any bit). Libraries use different triangle tests, so rays through exact edges \
         may go either way; counts are reported as they are.\n"
    );
    for result in results {
        let _ = writeln!(
            md,
            "**{}** ({} + {} rays):\n",
            result.name, result.checked_rays, result.checked_rays
        );
        md.push_str(&check_table(result).markdown());
        md.push('\n');
    }
    md
}
