//! The point queries of a mesh or a scene (closest points, distances, signed distances),
//! laid out as Open3D's `RaycastingScene` lays them out, over `queries::Target` for both
//! levels; points given as world coordinates in `f64` are answered by the engine's point
//! queries of `DVec3`s ([`World`], the `*_world` functions), in world units.

use meshcast::glam::{DVec3, Vec3};
use meshcast::{Mesh, PointQueries, QueryOptions, Scene};
use rayon::prelude::*;

use crate::arrays::{Reals, RowsView};
use crate::queries::{Record, Target, GRAIN, INVALID_ID};
use crate::world_queries;

/// What answers points given as `f64` world coordinates, in world units, by the engine's
/// point queries of `DVec3`s: a mesh with an origin of its own or asked with `float64` points
/// ([`RowsView::carried_into`]), or a scene far from the origin asked with `float64` points
/// ([`world_queries::answers`]). Other points are read as they are, in `f32`.
#[derive(Clone, Copy)]
pub enum World<'a> {
    Mesh(&'a Mesh),
    Scene(&'a Scene),
}

impl<'a> World<'a> {
    /// What answers `rows` of points for `target` in world coordinates, if anything does.
    pub fn of<T: Target>(target: &'a T, rows: &RowsView<'_>) -> Option<Self> {
        match (target.frame(), target.world_scene()) {
            (Some(mesh), _) => rows.carried_into(Some(mesh)).map(Self::Mesh),
            (None, Some(scene)) => {
                world_queries::answers(scene, rows).then_some(Self::Scene(scene))
            }
            (None, None) => None,
        }
    }

    /// The surface point nearest to `point` within `reach`, what it names, where it is and
    /// how far, in `f64`.
    fn nearest(self, point: DVec3, reach: Reach) -> Option<Nearest> {
        match self {
            Self::Mesh(mesh) => {
                let found = mesh.closest_point(point, &reach.options_from(mesh, point))?;
                let record = Record::on_mesh(mesh, found.triangle, [found.u, found.v]);
                Some((record, found.point, found.distance))
            }
            Self::Scene(scene) => {
                let found = scene.closest_point(point, &reach.options())?;
                let on = found.closest;
                let record = Record {
                    geometry: found.instance.index(),
                    primitive: on.triangle,
                    uv: [on.u, on.v],
                    normal: world_queries::normal(scene, found.instance, on.triangle),
                };
                Some((record, on.point, on.distance))
            }
        }
    }

    /// Whether `point` is inside.
    pub fn contains(self, point: DVec3) -> bool {
        match self {
            Self::Mesh(mesh) => mesh.contains(point),
            Self::Scene(scene) => scene.contains(point),
        }
    }

    /// The winding number at `point`, in `f64`.
    pub fn winding_number(self, point: DVec3) -> f64 {
        match self {
            Self::Mesh(mesh) => mesh.winding_number(point),
            Self::Scene(scene) => scene.winding_number(point),
        }
    }

    /// The signed distance from `point` to the surface, negative inside.
    pub fn signed_distance(self, point: DVec3) -> Option<f64> {
        match self {
            Self::Mesh(mesh) => mesh.signed_distance(point),
            Self::Scene(scene) => scene.signed_distance(point),
        }
    }
}

/// The closest surface point of each query point: Open3D's `compute_closest_points`.
pub struct Closest {
    /// The points, in the dtype of the query points' answers ([`Reals`]).
    pub points: Reals,
    pub geometry_ids: Vec<u32>,
    pub primitive_ids: Vec<u32>,
    pub primitive_uvs: Vec<f32>,
    pub primitive_normals: Vec<f32>,
    /// Not one of Open3D's: the distance to the point found (infinite when none).
    pub distance: Reals,
}

/// A surface point found for a query point: what it names, where it is and how far from
/// the query point, in `f64`.
type Nearest = (Record, DVec3, f64);

/// How far a closest-point query looks: `max_distance` as the caller gave it (`f64`), held
/// exactly against the distances answered.
#[derive(Clone, Copy)]
pub struct Reach {
    max_distance: f64,
}

impl Reach {
    /// Every point within `max_distance` (not NaN, at least 0; infinite: every point).
    pub fn new(max_distance: f64) -> Self {
        Self { max_distance }
    }

    /// The options of the search: a limit a few `f32` steps above `max_distance`. The
    /// engine keeps a candidate whose squared distance in `f32` is within the square of its
    /// limit, also rounded; six in a million more than the `f64` bound is more than those
    /// roundings and `sqrt`'s together, so no distance at most `max_distance` is missed,
    /// and [`Reach::keeps`] drops the few found beyond it.
    fn options(self) -> QueryOptions {
        let widened = (self.max_distance * (1.0 + 6e-6)) as f32;
        QueryOptions::new().with_max_distance(widened.next_up())
    }

    /// The options of the search from `point`, world coordinates carried into `mesh`'s
    /// frame: [`Reach::options`] of a limit wider by what carrying rounds (half an `f32`
    /// step of each coordinate, less than `f32::EPSILON` times the largest), so that no
    /// world distance at most `max_distance` is missed there either.
    fn options_from(self, mesh: &Mesh, point: DVec3) -> QueryOptions {
        let carried = (point - mesh.origin()).abs().max_element();
        Self::new(self.max_distance + carried * f64::from(f32::EPSILON)).options()
    }

    /// Whether a point found at `distance` is within reach.
    fn keeps(self, distance: f64) -> bool {
        distance <= self.max_distance
    }
}

/// [`PointQueries::closest_point_batch`] within `reach`, laid out: points NaN, ids
/// [`INVALID_ID`] and distance infinite where there is no surface that near.
pub fn closest<T: Target>(target: &T, points: &[Vec3], reach: Reach) -> Closest {
    let found = target.closest_point_batch(points, &reach.options());
    let nearest = |found: &<T as PointQueries>::Closest| {
        let (record, at, distance) = target.closest_record(found);
        (record, at.as_dvec3(), f64::from(distance))
    };
    lay_out_closest(&found, nearest, reach, false)
}

/// [`closest`] of points in `f64` world coordinates, by the engine's `closest_point`:
/// the points and distances in world units, in `f64` where `wide`.
pub fn closest_world(world: World<'_>, points: &[DVec3], reach: Reach, wide: bool) -> Closest {
    let found = each_world_point(points, |point| world.nearest(point, reach));
    lay_out_closest(&found, |&nearest| nearest, reach, wide)
}

/// Lays out the closest points `found`, `nearest` of each, as [`closest`] answers them,
/// points and distances rounded to `f32` unless `wide`.
fn lay_out_closest<C: Sync>(
    found: &[Option<C>],
    nearest: impl Fn(&C) -> Nearest + Sync,
    reach: Reach,
    wide: bool,
) -> Closest {
    let n = found.len();
    let mut points = vec![0.0; 3 * n];
    let mut geometry_ids = vec![0; n];
    let mut primitive_ids = vec![0; n];
    let mut primitive_uvs = vec![0.0; 2 * n];
    let mut primitive_normals = vec![0.0; 3 * n];
    let mut distances = vec![0.0; n];
    (
        found.par_iter(),
        points.par_chunks_exact_mut(3),
        geometry_ids.par_iter_mut(),
        primitive_ids.par_iter_mut(),
        primitive_uvs.par_chunks_exact_mut(2),
        primitive_normals.par_chunks_exact_mut(3),
        distances.par_iter_mut(),
    )
        .into_par_iter()
        .with_min_len(GRAIN)
        .for_each(
            |(found, point, geometry, primitive, uv, normal, distance)| match found
                .as_ref()
                .map(&nearest)
                .filter(|&(_, _, d)| reach.keeps(d))
            {
                Some((record, at, d)) => {
                    point.copy_from_slice(&at.to_array());
                    *geometry = record.geometry;
                    *primitive = record.primitive;
                    uv.copy_from_slice(&record.uv);
                    normal.copy_from_slice(&record.normal.to_array());
                    *distance = d;
                }
                None => {
                    point.fill(f64::NAN);
                    *geometry = INVALID_ID;
                    *primitive = INVALID_ID;
                    *distance = f64::INFINITY;
                }
            },
        );
    Closest {
        points: Reals::new(points, wide),
        geometry_ids,
        primitive_ids,
        primitive_uvs,
        primitive_normals,
        distance: Reals::new(distances, wide),
    }
}

/// The distance of each point to the surface within `reach`, infinite where there is none
/// that near.
pub fn distance<T: Target>(target: &T, points: &[Vec3], reach: Reach) -> Vec<f32> {
    target
        .closest_point_batch(points, &reach.options())
        .par_iter()
        .map(|found| {
            found
                .as_ref()
                .map(|c| target.closest_record(c).2)
                .filter(|&d| reach.keeps(f64::from(d)))
                .unwrap_or(f32::INFINITY)
        })
        .collect()
}

/// [`distance`] of points in `f64` world coordinates, by the engine's `closest_point`,
/// in `f64` where `wide`.
pub fn distance_world(world: World<'_>, points: &[DVec3], reach: Reach, wide: bool) -> Reals {
    let distances = each_world_point(points, |point| {
        world
            .nearest(point, reach)
            .map(|(_, _, distance)| distance)
            .filter(|&d| reach.keeps(d))
            .unwrap_or(f64::INFINITY)
    });
    Reals::new(distances, wide)
}

/// The signed distance of each point, negative inside (infinite where there is no
/// surface).
pub fn signed_distance<T: Target>(target: &T, points: &[Vec3]) -> Vec<f32> {
    target
        .signed_distance_batch(points)
        .into_par_iter()
        .map(|d| d.unwrap_or(f32::INFINITY))
        .collect()
}

/// `answer` of each point in `f64` world coordinates (a [`World`] query), in parallel,
/// in order.
pub fn each_world_point<T: Send>(points: &[DVec3], answer: impl Fn(DVec3) -> T + Sync) -> Vec<T> {
    points
        .par_iter()
        .with_min_len(GRAIN)
        .map(|&point| answer(point))
        .collect()
}
