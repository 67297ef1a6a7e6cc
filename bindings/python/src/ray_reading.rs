//! Rows `(ox, oy, oz, dx, dy, dz)` read as the rays a query casts, in one place: the
//! interval `tnear < t <= tfar` each accepts, and how a query of a mesh or a scene reads
//! them ([`RayReading`]): as they are, in `f32`, or as rays in `f64` world coordinates
//! carried into a mesh's frame ([`meshcast::Mesh::carry_ray`]), whose `t` are carried back;
//! or, for a scene far from the origin, as `f64` world rays ([`DRay`]) that the scene carries
//! into each instance itself. The ray's precision is the type read ([`ReadRay`]), through the
//! one reader of rows ([`read_chunks`]).

use meshcast::glam::{DVec3, Vec3};
use meshcast::primitives::{f32_at_least, f32_at_most};
use meshcast::{DFrame, DRay, Mesh, Ray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::arrays::{FloatSlice, Reals, RowsView};

/// The interval `tnear < t <= tfar` of a ray query (Open3D's and Embree's), `t` in units of
/// each ray's direction, as the caller gave it.
#[derive(Clone, Copy, Debug)]
pub struct Interval {
    tnear: f64,
    tfar: f64,
}

impl Interval {
    /// Every `t > 0`: the range of [`Ray::new`] and [`DRay::new`].
    pub const POSITIVE: Self = Self {
        tnear: 0.0,
        tfar: f64::INFINITY,
    };

    /// `tnear < t <= tfar`.
    ///
    /// # Errors
    /// `ValueError` for a NaN bound.
    pub fn new(tnear: f64, tfar: f64) -> PyResult<Self> {
        if tnear.is_nan() || tfar.is_nan() {
            return Err(PyValueError::new_err("tnear and tfar must not be NaN"));
        }
        Ok(Self { tnear, tfar })
    }

    /// The closed `f64` range of the interval: from the smallest `f64` above `tnear` to
    /// `tfar` (the defaults, 0 and inf, are [`DRay::new`]'s range).
    pub fn closed_f64(self) -> (f64, f64) {
        (self.tnear.next_up(), self.tfar)
    }

    /// The closed `f32` range of the interval: from the smallest `f32` above `tnear` to the
    /// largest not above `tfar`, so that the test is exact whatever the rounding of the
    /// `f64` bounds (the defaults are [`Ray::new`]'s range, every `t > 0`).
    pub fn closed_f32(self) -> (f32, f32) {
        let (t_min, t_max) = self.closed_f64();
        (f32_at_least(t_min), f32_at_most(t_max))
    }
}

/// How a ray query reads rows `(ox, oy, oz, dx, dy, dz)` as the rays it casts, each
/// accepting the `t` of an [`Interval`]: in the query's own space, rounded to `f32` (a
/// scene's rays, and `float32` rays of a mesh at the origin, as they always were read), or
/// as rays in `f64` world coordinates carried into a mesh's frame ([`Mesh::carry_ray`]), so
/// that nothing far from the origin is rounded before it is near the mesh.
#[derive(Clone, Copy)]
pub struct RayReading {
    /// The interval's closed `f32` range, for rays read as they are.
    closed: (f32, f32),
    /// The interval's closed `f64` range, for rays carried into a mesh's frame (which
    /// [`Mesh::carry_ray`] rounds inwards).
    closed_f64: (f64, f64),
    /// The frame of the mesh the rays are carried into, if they are
    /// ([`RowsView::carried_into`]): made once, not once per ray.
    carried_into: Option<DFrame>,
    /// Whether `t` is answered in `f64`: `float64` rows carried into a mesh's frame.
    wide: bool,
}

impl RayReading {
    /// How a query of `frame` (a mesh's; `None` for a scene's) reads `rows`, each ray
    /// accepting the `t` of `interval`.
    pub fn new(rows: &RowsView<'_>, interval: Interval, frame: Option<&Mesh>) -> Self {
        let carried_into = rows.carried_into(frame).map(Mesh::world_frame);
        Self {
            closed: interval.closed_f32(),
            closed_f64: interval.closed_f64(),
            carried_into,
            wide: carried_into.is_some() && rows.is_wide(),
        }
    }

    /// Whether the rays are carried into a mesh's frame, so that their `t` are to be
    /// carried back ([`RayReading::carried_back`]).
    pub fn carries(&self) -> bool {
        self.carried_into.is_some()
    }

    /// `t` found along the rays this reading read, as the rows' own `t`: `shift(k)` (the
    /// shift of the ray of `t[k]`, [`Mesh::carry_ray`]) added back, in `f64` where the
    /// reading is wide; `t` itself where the rays were read as they are.
    pub fn carried_back(&self, t: Vec<f32>, shift: impl Fn(usize) -> f64 + Sync) -> Reals {
        if !self.carries() {
            return Reals::F32(t);
        }
        let world = t
            .par_iter()
            .enumerate()
            .map(|(k, &t)| f64::from(t) + shift(k))
            .collect();
        Reals::new(world, self.wide)
    }

    /// The ray of a row `(ox, oy, oz, dx, dy, dz)` given in `f32`, and the shift to add to a
    /// `t` along it to get the row's own `t` (zero unless it was carried): read as it is, or
    /// widened exactly and carried.
    fn ray_f32(&self, row: [f32; 6]) -> (Ray, f64) {
        match self.carried_into {
            None => (ray_of(row, self.closed), 0.0),
            Some(frame) => self.carried(&frame, row.map(f64::from)),
        }
    }

    /// [`RayReading::ray_f32`] of a row given in `f64`: rounded to `f32` as it is, or carried.
    fn ray_f64(&self, row: [f64; 6]) -> (Ray, f64) {
        match self.carried_into {
            None => (ray_of(row.map(|x| x as f32), self.closed), 0.0),
            Some(frame) => self.carried(&frame, row),
        }
    }

    /// The world ray of a row in `f64` carried into a mesh's `frame`, with its shift.
    fn carried(&self, frame: &DFrame, [ox, oy, oz, dx, dy, dz]: [f64; 6]) -> (Ray, f64) {
        let (t_min, t_max) = self.closed_f64;
        let world = DRay::new(DVec3::new(ox, oy, oz), DVec3::new(dx, dy, dz));
        frame.carry(&world.with_range(t_min, t_max))
    }
}

/// A ray read from a row: a [`Ray`] as a [`RayReading`] reads it (as it is, or carried into
/// a mesh's frame), or a [`DRay`] in `f64` world coordinates, every digit kept.
pub trait ReadRay: Copy + Send + Sync {
    /// The ray of a row given in `f32`, and the shift to add to a `t` along it to get the
    /// row's own `t`.
    fn of_f32(reading: &RayReading, row: [f32; 6]) -> (Self, f64);

    /// The ray of a row given in `f64`, and its shift.
    fn of_f64(reading: &RayReading, row: [f64; 6]) -> (Self, f64);

    /// Whether its origin and direction are finite.
    fn is_finite(&self) -> bool;

    /// A ray to fill buffers with before they are read into.
    const PLACEHOLDER: Self;
}

impl ReadRay for Ray {
    fn of_f32(reading: &RayReading, row: [f32; 6]) -> (Self, f64) {
        reading.ray_f32(row)
    }

    fn of_f64(reading: &RayReading, row: [f64; 6]) -> (Self, f64) {
        reading.ray_f64(row)
    }

    fn is_finite(&self) -> bool {
        self.origin.is_finite() && self.dir.is_finite()
    }

    const PLACEHOLDER: Self = Ray::new(Vec3::ZERO, Vec3::X);
}

impl ReadRay for DRay {
    fn of_f32(reading: &RayReading, row: [f32; 6]) -> (Self, f64) {
        Self::of_f64(reading, row.map(f64::from))
    }

    fn of_f64(reading: &RayReading, [ox, oy, oz, dx, dy, dz]: [f64; 6]) -> (Self, f64) {
        let (t_min, t_max) = reading.closed_f64;
        let ray = DRay::new(DVec3::new(ox, oy, oz), DVec3::new(dx, dy, dz));
        (ray.with_range(t_min, t_max), 0.0)
    }

    fn is_finite(&self) -> bool {
        self.origin.is_finite() && self.dir.is_finite()
    }

    const PLACEHOLDER: Self = DRay::new(DVec3::ZERO, DVec3::X);
}

/// Rays as a [`RayReading`] read them: the rays, and the shift of each where they were
/// carried (empty where they were not).
pub struct ReadRays<R = Ray> {
    pub rays: Vec<R>,
    pub shifts: Vec<f64>,
}

/// Rows read and answered per task where a query does not say ([`read_chunks`]).
pub const READ_GRAIN: usize = 1024;

/// The one reader of ray rows: the rows `(ox, oy, oz, dx, dy, dz)` of `rows`, `chunk` at a
/// time in parallel, read as `reading` reads them, each chunk's rays handed to `each` with
/// the item of `outputs` (one per chunk, in order) while they are in the cache. Answers the
/// shifts of every ray, in order, where `reading` carries them (else none).
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number; `each` is then not
/// called for its chunk (nor, maybe, for others).
pub fn read_chunks<R: ReadRay, O: Send>(
    rows: &RowsView<'_>,
    reading: &RayReading,
    chunk: usize,
    outputs: impl IndexedParallelIterator<Item = O>,
    each: impl Fn(&[R], O) + Sync,
) -> PyResult<Vec<f64>> {
    let first_bad = AtomicUsize::new(usize::MAX);
    let shifts: Vec<Vec<f64>> = rows
        .chunks(chunk)
        .zip(outputs)
        .enumerate()
        .map(|(k, (numbers, output))| {
            let mut rays = Vec::with_capacity(chunk);
            let mut shifts = Vec::new();
            numbers.read_rays(&mut rays, &mut shifts, reading);
            match rays.iter().position(|ray: &R| !ray.is_finite()) {
                Some(bad) => {
                    first_bad.fetch_min(k * chunk + bad, Ordering::Relaxed);
                }
                None => each(&rays, output),
            }
            shifts
        })
        .collect();
    match first_bad.into_inner() {
        usize::MAX => Ok(shifts.concat()),
        bad => Err(rows.not_finite(bad)),
    }
}

/// The rays of rows `(ox, oy, oz, dx, dy, dz)`, as `reading` reads them, with their shifts
/// ([`read_chunks`]).
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number.
pub fn rays<R: ReadRay>(rows: &RowsView<'_>, reading: &RayReading) -> PyResult<ReadRays<R>> {
    let mut rays = vec![R::PLACEHOLDER; rows.len()];
    let outputs = rays.par_chunks_mut(READ_GRAIN);
    let shifts = read_chunks(rows, reading, READ_GRAIN, outputs, |read, out| {
        out.copy_from_slice(read);
    })?;
    Ok(ReadRays { rays, shifts })
}

/// Rows `(ox, oy, oz, dx, dy, dz)` read as rays where numpy holds them: the GPU queries
/// write them straight into the GPU's upload buffer, with no `Vec<Ray>` made first.
pub struct RowRays<'a> {
    slice: FloatSlice<'a>,
    reading: RayReading,
}

impl meshcast::gpu::RaySource for RowRays<'_> {
    fn len(&self) -> usize {
        match self.slice {
            FloatSlice::F32(s) => s.len() / 6,
            FloatSlice::F64(s) => s.len() / 6,
        }
    }

    fn ray(&self, index: usize) -> Ray {
        self.slice.ray(index, &self.reading).0
    }
}

/// The rays of rows `(ox, oy, oz, dx, dy, dz)` as [`rays`] reads them, without a copy
/// (checked by [`read_chunks`], one chunk at a time).
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite coordinate.
pub fn row_rays<'a>(rows: &RowsView<'a>, reading: &RayReading) -> PyResult<RowRays<'a>> {
    let chunks = rows.len().div_ceil(READ_GRAIN);
    read_chunks(
        rows,
        reading,
        READ_GRAIN,
        rayon::iter::repeat_n((), chunks),
        |_: &[Ray], ()| {},
    )?;
    Ok(RowRays {
        slice: rows.slice(),
        reading: *reading,
    })
}

/// The ray of a row `(ox, oy, oz, dx, dy, dz)`, accepting `t` in the closed `range`.
fn ray_of([ox, oy, oz, dx, dy, dz]: [f32; 6], (t_min, t_max): (f32, f32)) -> Ray {
    Ray::new(Vec3::new(ox, oy, oz), Vec3::new(dx, dy, dz)).with_range(t_min, t_max)
}

impl RowsView<'_> {
    /// The shift of the ray `reading` reads from row `index` ([`Mesh::carry_ray`]), for
    /// rays that were read without keeping it (on the GPU).
    pub fn shift(&self, index: usize, reading: &RayReading) -> f64 {
        self.slice().ray(index, reading).1
    }

    /// The `ValueError` of the ray at `index`, which is not finite.
    pub fn not_finite(&self, index: usize) -> PyErr {
        let [ox, oy, oz, dx, dy, dz] = self.slice().row(index);
        PyValueError::new_err(format!(
            "{} is not finite: origin {} direction {}",
            self.position(index),
            Vec3::new(ox, oy, oz),
            Vec3::new(dx, dy, dz)
        ))
    }
}

impl FloatSlice<'_> {
    /// Pushes onto `rays` the rays of rows `(ox, oy, oz, dx, dy, dz)`, one per row, as
    /// `reading` reads them, and `shifts` with the shift of each where they are carried (left empty
    /// where not). The rows are walked in sixes (tried: by index through
    /// [`FloatSlice::ray`], an 800 x 600 camera image of the bunny cast 28% slower on one
    /// thread). The shifts are kept: carrying is about 15% of that image's time in `float64`
    /// (perf), which carrying each ray again to carry its `t` back would double.
    fn read_rays<R: ReadRay>(self, rays: &mut Vec<R>, shifts: &mut Vec<f64>, reading: &RayReading) {
        let mut put = |(ray, shift): (R, f64)| {
            rays.push(ray);
            if reading.carries() {
                shifts.push(shift);
            }
        };
        match self {
            Self::F32(s) => {
                for row in s.chunks_exact(6) {
                    put(R::of_f32(reading, std::array::from_fn(|i| row[i])));
                }
            }
            Self::F64(s) => {
                for row in s.chunks_exact(6) {
                    put(R::of_f64(reading, std::array::from_fn(|i| row[i])));
                }
            }
        }
    }

    /// The ray of row `index` as `reading` reads it, and the shift to add to a `t` along it
    /// to get the row's own `t` ([`RayReading::ray_f32`], [`RayReading::ray_f64`]).
    fn ray(self, index: usize, reading: &RayReading) -> (Ray, f64) {
        match self {
            Self::F32(_) => reading.ray_f32(self.row(index)),
            Self::F64(_) => reading.ray_f64(self.row_f64(index)),
        }
    }
}
