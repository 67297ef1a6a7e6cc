//! What a run measured: per mesh and per row (a library, or a library's packet or batch
//! path), the figure of every round, so that the report takes medians.

use crate::tracer::Threads;

/// The row the summary measures: meshcast.
pub const MESHCAST: &str = "meshcast";
/// Embree's row with a default scene, the summary's first reference.
pub const EMBREE: &str = "Embree";
/// Embree's row with a robust scene (`RTC_SCENE_FLAG_ROBUST`), the summary's second reference.
pub const EMBREE_ROBUST: &str = "Embree robust";
/// meshcast's packet row: `cast_batch_serial` on the camera rays.
pub const MESHCAST_BATCH: &str = "meshcast batch";
/// Embree's packet row (`rtcIntersect16`, default scene), the reference of meshcast's.
pub const EMBREE_PACKETS: &str = "Embree ×16";
/// meshcast's batch row: `cast_batch` / `occluded_batch` on the incoherent rays.
pub const MESHCAST_BATCH_INCOHERENT: &str = "meshcast cast_batch";
/// Embree's stream row (`rtcIntersect1M` / `rtcOccluded1M`, default scene), the reference of
/// meshcast's batch row.
pub const EMBREE_STREAM: &str = "Embree 1M";

/// A measured quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Positions and indices to ready-to-trace, in milliseconds.
    Build,
    /// Closest hit on the camera rays, Mrays/s.
    Coherent,
    /// Closest hit on the random rays, Mrays/s.
    Incoherent,
    /// Any hit on the random rays, Mrays/s.
    Occlusion,
}

impl Figure {
    /// The throughput figures, in table order.
    pub const RAYS: [Figure; 3] = [Figure::Coherent, Figure::Incoherent, Figure::Occlusion];

    /// The column heading.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Build => "build ms",
            Figure::Coherent => "coherent",
            Figure::Incoherent => "incoherent",
            Figure::Occlusion => "occlusion",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The index of a thread setting.
fn slot(threads: Threads) -> usize {
    match threads {
        Threads::One => 0,
        Threads::All => 1,
    }
}

/// The figures of one row on one mesh.
#[derive(Clone, Debug)]
pub struct Row {
    /// The library, or its packet or batch path ("Embree ×16", "Embree 1M").
    pub name: String,
    /// Per figure and thread setting, one value per round.
    samples: [[Vec<f64>; 2]; 4],
    /// Hits per figure in the last round (for the hit rate shown beside throughput).
    pub hits: [usize; 4],
    /// A note on how the occlusion figure was obtained.
    pub occlusion_note: Option<&'static str>,
}

impl Row {
    /// An empty row.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            samples: Default::default(),
            hits: [0; 4],
            occlusion_note: None,
        }
    }

    /// Adds one round's value.
    pub fn push(&mut self, figure: Figure, threads: Threads, value: f64) {
        self.samples[figure.index()][slot(threads)].push(value);
    }

    /// The median over rounds, if measured.
    pub fn median(&self, figure: Figure, threads: Threads) -> Option<f64> {
        median(&self.samples[figure.index()][slot(threads)])
    }
}

/// Everything measured on one mesh.
#[derive(Clone, Debug)]
pub struct MeshResult {
    /// The mesh's name.
    pub name: &'static str,
    /// Its triangles.
    pub triangles: usize,
    /// Rays per set.
    pub rays: usize,
    /// One row per library, then the packet rows, then the batch rows.
    pub rows: Vec<Row>,
    /// meshcast's acceleration structure bytes per triangle (nodes and leaf triangles).
    pub meshcast_bytes_per_triangle: Option<f64>,
    /// The correctness check.
    pub check: Vec<crate::check::CheckResult>,
    /// Rays checked per set.
    pub checked_rays: usize,
}

impl MeshResult {
    /// The row named `name`.
    pub fn row(&self, name: &str) -> Option<&Row> {
        self.rows.iter().find(|row| row.name == name)
    }
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        0.5 * (sorted[mid - 1] + sorted[mid])
    } else {
        sorted[mid]
    })
}
