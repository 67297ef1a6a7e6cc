//! `QueryOptions`: what every mesh and scene query accepts besides its shape (a distance
//! limit, back-face culling, a layer mask, a filter and a cap on every-hit queries), and the
//! filter trait.

use meshcast_primitives::Contacts;

use crate::batches::{BatchOrder, BatchRay};
use crate::queries::InstanceId;

/// The mask that matches every layer: the default of [`QueryOptions::mask`] and of
/// [`crate::Instance::layers`].
pub const ALL_LAYERS: u32 = u32::MAX;

/// Which side of a triangle a ray may hit.
///
/// The front is the side from which the corners `v0, v1, v2` run counter-clockwise, in world
/// space: an instance whose transform mirrors (a negative determinant) has its fronts on
/// the other side of its mesh's triangles, as a renderer sees it.
///
/// # Examples
/// ```
/// use meshcast_mesh::{Culling, QueryOptions};
///
/// let options = QueryOptions::new().with_culling(Culling::BackFaces);
/// assert_eq!(options.culling, Culling::BackFaces);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Culling {
    /// Both sides are hit.
    #[default]
    Off,
    /// Hits on back faces are skipped, and the ray goes on to what lies behind. A ray in
    /// the triangle's plane (edge-on) is not culled.
    BackFaces,
}

/// Which side of its triangle a ray hit (see [`Culling`] for which side is the front).
///
/// # Examples
/// ```
/// use meshcast_mesh::Facing;
///
/// assert_ne!(Facing::Front, Facing::Back);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Facing {
    /// The side from which the corners run counter-clockwise (or edge-on).
    Front,
    /// The other side.
    Back,
}

impl Facing {
    /// The side of a triangle with (non-normalised) normal `normal` that a ray with direction
    /// `dir` meets, both in the mesh's space, for an instance whose transform mirrors
    /// (`mirrored`) or not.
    #[inline]
    pub(crate) fn of(normal: glam::Vec3, dir: glam::Vec3, mirrored: bool) -> Self {
        let along = normal.dot(dir);
        let back = if mirrored { along < 0.0 } else { along > 0.0 };
        if back {
            Self::Back
        } else {
            Self::Front
        }
    }
}

/// Decides which candidates a query may report: a hidden object, the object being dragged,
/// the triangle a ray starts on are rejected, and the query goes on to the next candidate.
///
/// Mesh queries ask with the triangle index (`Filter<u32>`), scene queries with the instance
/// and the triangle (`Filter<(InstanceId, u32)>`). Closures implement it:
/// `|triangle: u32| ...` and `|instance: InstanceId, triangle: u32| ...`; [`KeepAll`] keeps
/// everything. A filter is only asked about candidates that pass the query's own test.
///
/// # Examples
/// ```
/// use meshcast_mesh::{Filter, InstanceId, KeepAll};
///
/// let odd_triangles = |triangle: u32| triangle % 2 == 1;
/// assert!(odd_triangles.keep(3) && !odd_triangles.keep(4));
/// assert!(Filter::<u32>::keep(&KeepAll, 4));
/// ```
pub trait Filter<K> {
    /// Whether the candidate `key` may be reported.
    fn keep(&self, key: K) -> bool;

    /// Whether [`Filter::keep`] is always true, so that whole subtrees can be accepted
    /// without asking. `false` unless overridden.
    fn keeps_everything(&self) -> bool {
        false
    }
}

/// A borrowed filter, asked as the filter itself ([`QueryOptions::unlimited`]).
pub(crate) struct Borrowed<'f, F>(&'f F);

impl<K, F: Filter<K>> Filter<K> for Borrowed<'_, F> {
    #[inline]
    fn keep(&self, key: K) -> bool {
        self.0.keep(key)
    }

    #[inline]
    fn keeps_everything(&self) -> bool {
        self.0.keeps_everything()
    }
}

/// The filter that keeps every candidate (the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeepAll;

impl<K> Filter<K> for KeepAll {
    #[inline]
    fn keep(&self, _: K) -> bool {
        true
    }

    #[inline]
    fn keeps_everything(&self) -> bool {
        true
    }
}

impl<F: Fn(u32) -> bool> Filter<u32> for F {
    #[inline]
    fn keep(&self, triangle: u32) -> bool {
        self(triangle)
    }
}

impl<F: Fn(InstanceId, u32) -> bool> Filter<(InstanceId, u32)> for F {
    #[inline]
    fn keep(&self, (instance, triangle): (InstanceId, u32)) -> bool {
        self(instance, triangle)
    }
}

/// The options every mesh and scene query takes (the `*_with` forms of [`crate::RayQueries`],
/// picks, closest points, selections): a distance limit, back-face culling, the rule for
/// rays that touch an edge or a vertex, a layer mask, a filter and a cap on every-hit
/// queries. The default (`QueryOptions::new()`) limits nothing.
///
/// - `max_distance`: the largest world distance reported. For rays, the distance along the
///   ray from its origin (`t * |dir|`; the ray's own range applies too); for closest
///   points, the distance to the query point. NaN or negative: nothing is found.
/// - `culling`: rays skip back faces ([`Culling`]); other queries ignore it.
/// - `contacts`: whether a ray that touches a triangle, through its edge or a vertex, hits
///   it in a closest or any hit (`cast`, `occluded`, their batches and packets, picks).
///   [`Contacts::Hit`], the default, answers what those questions ask: a ray down the edge
///   of a box meets the box, whichever of its edges, and a ray through a shared edge hits
///   the surface (both triangles, at the same `t`; the closest hit is the smaller triangle
///   index by [`meshcast_primitives::Hit::order`]). [`Contacts::TieRule`] gives each edge
///   and vertex to one triangle, so that `cast` is the first hit of `cast_all`; a ray that
///   only touches the surface then hits it twice or not at all, by the edge's direction.
///   `cast_all` and the inside test count crossings, and always do so by the tie rule:
///   each crossing once, whatever this option says. Both rules are exact on the `f32`
///   coordinates given (the ray's and the mesh's; for an instance, the ray as carried into
///   the mesh's frame), at any angle: see [`Contacts`].
/// - `mask`: scene queries skip every instance whose [`crate::Instance::layers`] share no
///   bit with it; mesh queries ignore it.
/// - `filter`: rejects candidates ([`Filter`]); traversal goes on to the next one.
/// - `max_hits`: [`crate::RayQueries::cast_all`] and [`crate::RayQueries::cast_all_batch`]
///   keep each ray's first `max_hits` hits in hit order (the tie rule included), and walk
///   no farther than the last of them; other queries ignore it.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Culling, Instance, InstanceId, Mesh, QueryOptions, RayQueries, Scene};
/// use meshcast_primitives::Ray;
///
/// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
/// let scene = Scene::from_instances([
///     Instance::new(tri.clone(), Affine3A::IDENTITY)?.with_layers(0b01),
///     Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z))?.with_layers(0b10),
///     Instance::new(tri, Affine3A::from_translation(Vec3::Z * 2.0))?.with_layers(0b10),
/// ]);
/// let down = Ray::new(Vec3::new(0.2, 0.2, 5.0), Vec3::NEG_Z);
/// let first = |options| scene.cast_with(&down, &options).map(|h| h.instance.index());
/// assert_eq!(first(QueryOptions::new()), Some(2));
/// assert_eq!(first(QueryOptions::new().with_mask(0b01)), Some(0));
/// assert_eq!(first(QueryOptions::new().with_max_distance(2.5)), None);
/// // The triangles face up (+z): seen from above they are front faces.
/// assert_eq!(first(QueryOptions::new().with_culling(Culling::BackFaces)), Some(2));
/// let skip_top = QueryOptions::new().with_filter(|instance: InstanceId, _: u32| instance.index() != 2);
/// assert_eq!(scene.cast_with(&down, &skip_top).map(|h| h.instance.index()), Some(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryOptions<F = KeepAll> {
    /// The largest world distance reported (default `f32::INFINITY`).
    pub max_distance: f32,
    /// Whether rays skip back faces (default [`Culling::Off`]).
    pub culling: Culling,
    /// Whether a ray that touches a triangle (meets its edge or a vertex) hits it for a
    /// closest or any hit (default [`Contacts::Hit`]). Every hit (`cast_all`) and the inside
    /// test count each crossing once whatever this says.
    pub contacts: Contacts,
    /// The layers searched (default [`ALL_LAYERS`]).
    pub mask: u32,
    /// The filter (default [`KeepAll`]).
    pub filter: F,
    /// The most hits an every-hit query reports per ray (default `usize::MAX`, every hit).
    pub max_hits: usize,
    /// The order a batch call traces its rays in (default [`BatchOrder::Auto`]); answers come
    /// back in the caller's order whatever it is.
    pub order: BatchOrder,
}

impl Default for QueryOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl QueryOptions {
    /// No limit, no culling, every layer, every candidate.
    pub const fn new() -> Self {
        Self {
            max_distance: f32::INFINITY,
            culling: Culling::Off,
            contacts: Contacts::Hit,
            mask: ALL_LAYERS,
            filter: KeepAll,
            max_hits: usize::MAX,
            order: BatchOrder::Auto,
        }
    }
}

impl<F> QueryOptions<F> {
    /// The same options with the order batch calls trace their rays in.
    #[must_use]
    pub fn with_order(self, order: BatchOrder) -> Self {
        Self { order, ..self }
    }

    /// The same options with a distance limit.
    #[must_use]
    pub fn with_max_distance(self, max_distance: f32) -> Self {
        Self {
            max_distance,
            ..self
        }
    }

    /// The same options with this culling.
    #[must_use]
    pub fn with_culling(self, culling: Culling) -> Self {
        Self { culling, ..self }
    }

    /// The same options with this rule for rays that touch a triangle's edge or vertex.
    #[must_use]
    pub fn with_contacts(self, contacts: Contacts) -> Self {
        Self { contacts, ..self }
    }

    /// The same options with this layer mask.
    #[must_use]
    pub fn with_mask(self, mask: u32) -> Self {
        Self { mask, ..self }
    }

    /// The same options with every-hit queries capped at `max_hits` hits per ray, the
    /// first in hit order.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{Mesh, QueryOptions, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// // Three triangles stacked along z, at z = 0, 1 and 2.
    /// let corners = |z: f32| [[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]];
    /// let positions: Vec<[f32; 3]> = [0.0, 1.0, 2.0].into_iter().flat_map(corners).collect();
    /// let stack = Mesh::from_triangles(&positions, &[[0, 1, 2], [3, 4, 5], [6, 7, 8]])?;
    /// let down = Ray::new(Vec3::new(0.2, 0.2, 5.0), Vec3::NEG_Z);
    /// let first_two = stack.cast_all_with(&down, &QueryOptions::new().with_max_hits(2));
    /// assert_eq!(first_two.iter().map(|h| h.triangle).collect::<Vec<_>>(), [2, 1]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_max_hits(self, max_hits: usize) -> Self {
        Self { max_hits, ..self }
    }

    /// The same options with this [`Filter`]: a closure asked with the triangle
    /// (`|triangle: u32| ...`, for a mesh or an instance) or with the instance and the
    /// triangle (`|instance: InstanceId, triangle: u32| ...`, for a scene), or any type that
    /// implements [`Filter`]. Closures name their argument types, as the examples do: the
    /// query they are given to comes later.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{InstanceId, QueryOptions};
    ///
    /// let hidden = InstanceId::from_index(3);
    /// let scene_options = QueryOptions::new().with_filter(move |id: InstanceId, _: u32| id != hidden);
    /// let mesh_options = QueryOptions::new().with_filter(|triangle: u32| triangle % 2 == 0);
    /// # let _ = (scene_options, mesh_options);
    /// ```
    pub fn with_filter<G>(self, filter: G) -> QueryOptions<G> {
        QueryOptions {
            max_distance: self.max_distance,
            culling: self.culling,
            contacts: self.contacts,
            mask: self.mask,
            filter,
            max_hits: self.max_hits,
            order: self.order,
        }
    }

    /// Whether an instance on `layers` is searched.
    #[inline]
    pub fn matches_layers(&self, layers: u32) -> bool {
        layers & self.mask != 0
    }

    /// Whether the options cut rays to a distance at all: with no limit (`max_distance`
    /// infinite) a ray is walked where it lies, with no copy through [`Self::limit_ray`].
    #[inline(always)]
    pub(crate) fn limits_distance(&self) -> bool {
        self.max_distance != f32::INFINITY
    }

    /// The ray's range cut to `max_distance` (`t * |dir| <= max_distance`, in the ray's
    /// precision), or `None` when nothing can be found (a NaN or negative limit).
    #[inline]
    pub(crate) fn limit_ray<R: BatchRay>(&self, ray: &R) -> Option<R> {
        ray.limited(self.max_distance)
    }

    /// These options with no distance limit, borrowing the filter: what rays already cut to
    /// the limit are asked with where the limit would be measured again from elsewhere (a
    /// ray carried along itself into a mesh's frame).
    #[inline]
    pub(crate) fn unlimited(&self) -> QueryOptions<Borrowed<'_, F>> {
        QueryOptions {
            max_distance: f32::INFINITY,
            culling: self.culling,
            contacts: self.contacts,
            mask: self.mask,
            filter: Borrowed(&self.filter),
            max_hits: self.max_hits,
            order: self.order,
        }
    }

    /// The squared distance limit, or `None` when nothing can be found.
    #[inline]
    pub(crate) fn squared_limit(&self) -> Option<f32> {
        if self.max_distance.is_nan() || self.max_distance < 0.0 {
            return None;
        }
        Some(self.max_distance * self.max_distance)
    }
}

/// Which triangle hits a mesh walk accepts: the query's [`Culling`], whether the instance's
/// transform mirrors (which swaps the sides), and the query's [`Contacts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HitRules {
    culling: Culling,
    mirrored: bool,
    contacts: Contacts,
}

impl HitRules {
    /// Both sides, each crossing once: the rules of queries that count crossings (an inside
    /// test's parity).
    pub(crate) const CROSSINGS: Self = Self {
        culling: Culling::Off,
        mirrored: false,
        contacts: Contacts::TieRule,
    };

    /// The rules of a closest or any hit with `options`: its culling and its contacts.
    pub(crate) fn first_hit<F>(options: &QueryOptions<F>) -> Self {
        Self {
            culling: options.culling,
            mirrored: false,
            contacts: options.contacts,
        }
    }

    /// The rules of every hit with `options`: its culling, each crossing once whatever its
    /// contacts (see [`QueryOptions::contacts`]).
    pub(crate) fn every_hit<F>(options: &QueryOptions<F>) -> Self {
        Self {
            contacts: Contacts::TieRule,
            ..Self::first_hit(options)
        }
    }

    /// The same rules in a mesh placed by a transform that mirrors (`mirrored`) or not.
    pub(crate) const fn mirrored(self, mirrored: bool) -> Self {
        Self { mirrored, ..self }
    }

    /// Which triangles a ray through an edge or a vertex hits.
    #[inline(always)]
    pub(crate) fn contacts(&self) -> Contacts {
        self.contacts
    }

    /// Whether any face is culled.
    #[inline(always)]
    pub(crate) fn culls_faces(&self) -> bool {
        self.culling == Culling::BackFaces
    }

    /// Whether a hit on the triangle `v0 v1 v2` by a ray along `dir` (both in the mesh's
    /// space) is skipped.
    #[inline]
    pub(crate) fn culls(
        &self,
        v0: glam::Vec3,
        v1: glam::Vec3,
        v2: glam::Vec3,
        dir: glam::Vec3,
    ) -> bool {
        self.culling == Culling::BackFaces
            && Facing::of((v1 - v0).cross(v2 - v0), dir, self.mirrored) == Facing::Back
    }
}
