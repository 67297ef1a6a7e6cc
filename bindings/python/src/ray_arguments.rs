//! The arguments every ray query takes, read once for `Mesh`, `Scene` and `GpuMesh`: the
//! rays (`rays`, or `origins` and `directions`), the range `tnear < t <= tfar`, the threads
//! (`threads`) and the query's own option. Open3D's spellings (`nthreads`, `tnear` and
//! `tfar` by position) are `meshcast.RaycastingScene`'s, in Python.

use meshcast::{Contacts, QueryOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{rows_array, Rows};
use crate::keywords::Keywords;
use crate::ray_reading::Interval;

/// The ray queries, each with the keywords it takes beyond the common ones.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RayQuery {
    /// `cast_rays`: also `contacts`.
    Cast,
    /// `test_occlusions`: also `contacts`.
    Occluded,
    /// `count_intersections`.
    Count,
    /// `list_intersections`: also `max_hits`.
    List,
}

impl RayQuery {
    fn name(self) -> &'static str {
        match self {
            Self::Cast => "cast_rays",
            Self::Occluded => "test_occlusions",
            Self::Count => "count_intersections",
            Self::List => "list_intersections",
        }
    }
}

/// A ray query's arguments, checked.
pub struct RayArguments<'py> {
    /// The rays, `(..., 6)`.
    pub rows: Rows<'py>,
    /// `tnear < t <= tfar`.
    pub interval: Interval,
    /// The threads to run on (None: every core).
    pub threads: Option<i64>,
    /// Whether a ray touching an edge or a vertex hits (closest and any hit; else true).
    pub contacts: bool,
    /// The hits kept per ray (`list_intersections`; else every hit).
    pub max_hits: usize,
}

impl<'py> RayArguments<'py> {
    /// The options of a closest or any hit: whether a ray touching an edge or a vertex hits
    /// (`contacts`).
    pub fn first_hit_options(&self) -> QueryOptions {
        QueryOptions::new().with_contacts(if self.contacts {
            Contacts::Hit
        } else {
            Contacts::TieRule
        })
    }

    /// The arguments of `query`: `rays` as given by position, the rest from `keywords`.
    ///
    /// # Errors
    /// `TypeError` for an unknown keyword (Open3D's `nthreads` among them), a wrong type, or
    /// rays given twice or not at all; `ValueError` for a bad shape, a NaN bound or a
    /// negative `max_hits`.
    pub fn read(
        py: Python<'py>,
        query: RayQuery,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Self> {
        let keywords = Keywords::new(query.name(), keywords)?;
        let origins: Option<Bound<'py, PyAny>> = keywords.take("origins")?;
        let directions: Option<Bound<'py, PyAny>> = keywords.take("directions")?;
        let tnear = keywords.take("tnear")?.unwrap_or(0.0);
        let tfar = keywords.take("tfar")?.unwrap_or(f64::INFINITY);
        let contacts = match query {
            RayQuery::Cast | RayQuery::Occluded => keywords.take("contacts")?.unwrap_or(true),
            RayQuery::Count | RayQuery::List => true,
        };
        let max_hits = match query {
            RayQuery::List => keywords.take::<i64>("max_hits")?,
            _ => None,
        };
        let threads = keywords.take("threads")?;
        keywords.finish()?;
        let rows = ray_rows(py, rays, origins.as_ref(), directions.as_ref())?;
        Ok(Self {
            rows,
            interval: Interval::new(tnear, tfar)?,
            threads,
            contacts,
            max_hits: hit_cap(max_hits)?,
        })
    }
}

/// Rays from `rays`, or from `origins` and `directions` broadcast together.
pub fn ray_rows<'py>(
    py: Python<'py>,
    rays: Option<&Bound<'py, PyAny>>,
    origins: Option<&Bound<'py, PyAny>>,
    directions: Option<&Bound<'py, PyAny>>,
) -> PyResult<Rows<'py>> {
    match (rays, origins, directions) {
        (Some(rays), None, None) => Rows::new(rays, "rays", 6),
        (None, Some(origins), Some(directions)) => {
            let numpy = py.import("numpy")?;
            let o = rows_array(origins, "origins", 3)?;
            let d = rows_array(directions, "directions", 3)?;
            let both =
                numpy
                    .call_method1("broadcast_arrays", (&o, &d))
                    .map_err(|_| {
                        PyValueError::new_err(format!(
                    "origins of shape {} and directions of shape {} do not broadcast together",
                    o.getattr("shape").map_or_else(|_| "?".into(), |s| s.to_string()),
                    d.getattr("shape").map_or_else(|_| "?".into(), |s| s.to_string()),
                ))
                    })?;
            let joined = numpy.call_method1("concatenate", (both, -1))?;
            Rows::new(&joined, "rays", 6)
        }
        _ => Err(PyTypeError::new_err(
            "give either rays of shape (..., 6) or both origins and directions of shape (..., 3)",
        )),
    }
}

/// A cap on the hits of each ray: `None` for every hit.
///
/// # Errors
/// `ValueError` for a negative cap.
pub fn hit_cap(max_hits: Option<i64>) -> PyResult<usize> {
    match max_hits {
        None => Ok(usize::MAX),
        Some(cap) => usize::try_from(cap).map_err(|_| {
            PyValueError::new_err(format!("max_hits must be at least 0 or None, not {cap}"))
        }),
    }
}
