//! The arguments every ray query takes, read once for `Mesh`, `Scene` and `GpuMesh`: the
//! rays (`rays`, or `origins` and `directions`), the range `tnear < t <= tfar`, the threads
//! (`threads`) and the query's own option. Open3D's spellings (`nthreads`, `tnear` and
//! `tfar` by position) are `meshcast.RaycastingScene`'s, in Python.

use meshcast::{Contacts, QueryOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{rows_array, Rows};
use crate::device_arrays::{is_device_array, DeviceInput};
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

/// A ray query's arguments with rays on a CUDA device (`__cuda_array_interface__`), checked.
pub struct DeviceArguments {
    /// The origins and the directions, each rows of three `float32`.
    pub origins: DeviceInput,
    pub directions: DeviceInput,
    /// The answers' shape: the rays' leading shape (broadcast where one side is one row).
    pub leading: Vec<usize>,
    /// `tnear < t <= tfar`.
    pub interval: Interval,
    /// The threads the CPU finishes open rays on (None: every core).
    pub threads: Option<i64>,
    /// Whether a ray touching an edge or a vertex hits.
    pub contacts: bool,
}

impl DeviceArguments {
    /// The options of the query: whether a ray touching an edge or a vertex hits.
    pub fn options(&self) -> QueryOptions {
        contacts_options(self.contacts)
    }

    /// The rays of `rays` (`(..., 6)`), or of `origins` and `directions` (`(..., 3)` each,
    /// of one leading shape, or one of them a single row), all on a CUDA device.
    fn read(
        rays: Option<&Bound<'_, PyAny>>,
        origins: Option<&Bound<'_, PyAny>>,
        directions: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(DeviceInput, DeviceInput, Vec<usize>)> {
        match (rays, origins, directions) {
            (Some(rays), None, None) => {
                let origins = DeviceInput::read(rays, "rays", 6)?;
                let directions = origins.columns_from(3);
                let leading = origins.leading.clone();
                Ok((origins, directions, leading))
            }
            (None, Some(origins), Some(directions)) => {
                let o = DeviceInput::read(origins, "origins", 3)?;
                let d = DeviceInput::read(directions, "directions", 3)?;
                let leading = if o.leading == d.leading || d.rows == 1 {
                    o.leading.clone()
                } else if o.rows == 1 {
                    d.leading.clone()
                } else {
                    return Err(PyValueError::new_err(format!(
                        "origins of shape {:?} and directions of shape {:?} on a CUDA device: \
                         give one shape, or one of them a single row",
                        o.leading, d.leading
                    )));
                };
                Ok((o, d, leading))
            }
            _ => Err(PyTypeError::new_err(
                "give either rays of shape (..., 6) or both origins and directions of shape \
                 (..., 3)",
            )),
        }
    }
}

/// A ray query's rays: numpy's on the host, or arrays on a CUDA device.
pub enum Rays<'py> {
    Host(RayArguments<'py>),
    Device(DeviceArguments),
}

/// The options of a closest or any hit with or without `contacts`.
fn contacts_options(contacts: bool) -> QueryOptions {
    QueryOptions::new().with_contacts(if contacts {
        Contacts::Hit
    } else {
        Contacts::TieRule
    })
}

impl<'py> RayArguments<'py> {
    /// The options of a closest or any hit: whether a ray touching an edge or a vertex hits
    /// (`contacts`).
    pub fn first_hit_options(&self) -> QueryOptions {
        contacts_options(self.contacts)
    }

    /// The arguments of `query`, rays on the host: [`RayArguments::read_rays`] refusing
    /// rays on a CUDA device.
    ///
    /// # Errors
    /// As [`RayArguments::read_rays`]; `TypeError` for rays on a CUDA device.
    pub fn read(
        py: Python<'py>,
        query: RayQuery,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Self> {
        match Self::read_rays(py, query, rays, keywords)? {
            Rays::Host(arguments) => Ok(arguments),
            Rays::Device(_) => Err(PyTypeError::new_err(format!(
                "{}() takes rays on the host (numpy arrays): of the ray queries, a GpuMesh's \
                 cast_rays and test_occlusions read rays on a CUDA device",
                query.name()
            ))),
        }
    }

    /// The arguments of `query`: `rays` as given by position, the rest from `keywords`; rays
    /// on a CUDA device (`__cuda_array_interface__`) as [`DeviceArguments`].
    ///
    /// # Errors
    /// `TypeError` for an unknown keyword (Open3D's `nthreads` among them), a wrong type,
    /// rays given twice or not at all, or origins and directions one on the host and one on
    /// a device; `ValueError` for a bad shape, a NaN bound or a negative `max_hits`; for rays
    /// on a device, as [`DeviceInput::read`].
    pub fn read_rays(
        py: Python<'py>,
        query: RayQuery,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Rays<'py>> {
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
        let given = [rays, origins.as_ref(), directions.as_ref()];
        let on_device = given
            .iter()
            .flatten()
            .map(|array| is_device_array(array))
            .collect::<PyResult<Vec<bool>>>()?;
        if on_device.contains(&true) {
            if on_device.contains(&false) {
                return Err(PyTypeError::new_err(
                    "origins and directions must be both on a CUDA device or both on the host",
                ));
            }
            let (origins, directions, leading) =
                DeviceArguments::read(rays, origins.as_ref(), directions.as_ref())?;
            hit_cap(max_hits)?;
            return Ok(Rays::Device(DeviceArguments {
                origins,
                directions,
                leading,
                interval: Interval::new(tnear, tfar)?,
                threads,
                contacts,
            }));
        }
        let rows = ray_rows(py, rays, origins.as_ref(), directions.as_ref())?;
        Ok(Rays::Host(Self {
            rows,
            interval: Interval::new(tnear, tfar)?,
            threads,
            contacts,
            max_hits: hit_cap(max_hits)?,
        }))
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
