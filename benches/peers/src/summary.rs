//! meshcast against the figures its targets name, one line per mesh: its one-thread throughput
//! over Embree's (default scene, then robust scene), its packet row's over Embree's packets,
//! its batch row's over Embree's stream calls, its own all-threads over one-thread closest-hit
//! throughput, and its build time over Embree's.

use crate::results::{
    Figure, MeshResult, Row, EMBREE, EMBREE_PACKETS, EMBREE_ROBUST, EMBREE_STREAM, MESHCAST,
    MESHCAST_BATCH, MESHCAST_BATCH_INCOHERENT,
};
use crate::table::Table;
use crate::tracer::Threads;

/// What the cells are and what they aim for, for the console and the report.
pub fn caption(threads: usize) -> String {
    format!(
        "Each throughput cell is meshcast's one-thread Mrays/s over Embree's with a default \
         scene / with a robust scene (`RTC_SCENE_FLAG_ROBUST`), single-ray queries \
         (`rtcIntersect1`, `rtcOccluded1`); the targets are at least 1.0× / 1.3×. The packets \
         cell is meshcast's packet row (`Mesh::cast_batch_serial`) over Embree's \
         (`rtcIntersect16`), one thread, coherent rays (target at least 1.0×). The batch cell \
         is meshcast's batch row (`Mesh::cast_batch` / `Mesh::occluded_batch`) over Embree's \
         stream row (`rtcIntersect1M` / `rtcOccluded1M`), one thread, incoherent rays, closest \
         hit / any hit (no target). The scaling \
         cells are meshcast's closest-hit Mrays/s on {threads} threads over one thread (target \
         at least 1.9× on two cores). The build cells are meshcast's build time over Embree's \
         (default scene), on one thread and on {threads}; below 1 is faster, the target is at \
         most 1.0×."
    )
}

/// The table: one row per mesh.
pub fn table(results: &[MeshResult], threads: usize) -> Table {
    let all = format!("{threads}T");
    let mut rows = vec![vec![
        "mesh".to_string(),
        "coherent 1T".to_string(),
        "incoherent 1T".to_string(),
        "occlusion 1T".to_string(),
        "packets coherent 1T".to_string(),
        "batch incoherent / occlusion 1T".to_string(),
        format!("coherent {all}/1T"),
        format!("incoherent {all}/1T"),
        "build 1T".to_string(),
        format!("build {all}"),
    ]];
    for result in results {
        let meshcast = result.row(MESHCAST);
        let embree = result.row(EMBREE);
        let robust = result.row(EMBREE_ROBUST);
        let batch = result.row(MESHCAST_BATCH);
        let packets = result.row(EMBREE_PACKETS);
        let batch_incoherent = result.row(MESHCAST_BATCH_INCOHERENT);
        let stream = result.row(EMBREE_STREAM);
        let figure =
            |row: Option<&Row>, figure, threads| row.and_then(|r| r.median(figure, threads));
        let mut cells = vec![result.name.to_string()];
        for f in Figure::RAYS {
            let ours = figure(meshcast, f, Threads::One);
            cells.push(format!(
                "{} / {}",
                times(ratio(ours, figure(embree, f, Threads::One))),
                times(ratio(ours, figure(robust, f, Threads::One)))
            ));
        }
        cells.push(times(ratio(
            figure(batch, Figure::Coherent, Threads::One),
            figure(packets, Figure::Coherent, Threads::One),
        )));
        let [closest, any] = [Figure::Incoherent, Figure::Occlusion].map(|f| {
            times(ratio(
                figure(batch_incoherent, f, Threads::One),
                figure(stream, f, Threads::One),
            ))
        });
        cells.push(format!("{closest} / {any}"));
        for f in [Figure::Coherent, Figure::Incoherent] {
            cells.push(times(ratio(
                figure(meshcast, f, Threads::All),
                figure(meshcast, f, Threads::One),
            )));
        }
        for t in [Threads::One, Threads::All] {
            cells.push(times(ratio(
                figure(meshcast, Figure::Build, t),
                figure(embree, Figure::Build, t),
            )));
        }
        rows.push(cells);
    }
    Table { rows }
}

/// The table with a heading that says what the cells are, for the console.
pub fn text(results: &[MeshResult], threads: usize) -> String {
    format!(
        "\nmeshcast vs peers: Mrays/s over Embree's / Embree robust's on one thread (targets \
         ≥1.0× / ≥1.3×); packets: meshcast batch over Embree ×16, coherent, one thread \
         (target ≥1.0×); batch: meshcast cast_batch over Embree 1M, incoherent / occlusion, \
         one thread; {threads}T/1T closest-hit scaling (target ≥1.9×); build time over \
         Embree's (target ≤1.0×)\n{}",
        table(results, threads).text()
    )
}

/// `a / b`, when both were measured.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// A ratio as text: a dash where it was not measured.
fn times(ratio: Option<f64>) -> String {
    ratio.map_or("–".to_string(), |r| format!("{r:.2}×"))
}
