//! meshcast: BVH-accelerated ray casting on triangle meshes.
//!
//! Load a mesh from a file (OBJ, glTF, PLY, STL: [`MeshFiles::from_path`],
//! [`TriMeshFiles::from_bytes`], [`SceneFiles::from_path`] for a glTF scene's instances; each
//! format a cargo feature) or from slices, or from a cache that skips the build
//! ([`MeshFiles::save`], [`MeshFiles::load`]), then ask where rays hit it. The file methods
//! come from three traits (the readers live in their own crate, [`io`], so that ray casting
//! alone compiles no format's dependencies): `use meshcast::prelude::*;` brings them into
//! scope with the query traits. Place
//! shared meshes in a world with [`Instance`]s (affine transforms) and query them together as
//! a [`Scene`], a two-level hierarchy. Answers are exact: the same as testing every triangle
//! with the watertight test (Woop, Benthin and Wald 2013), hits ordered by `t` and ties going
//! to the smaller index ([`Hit::order`], [`SceneHit::order`]).
//!
//! # Queries
//! Every level answers the same ray queries, the methods of [`RayQueries`] (bring it into
//! scope with `use meshcast::RayQueries;`). Each has a `*_with` form taking [`QueryOptions`]
//! (a distance limit, back-face [`Culling`], a layer mask and a [`Filter`]), and every batch
//! answers each ray as its single call does, in parallel, in the rays' order. Points have
//! their own vocabulary, [`PointQueries`] (`use meshcast::PointQueries;`): the nearest
//! surface point, inside or outside (exact on closed meshes, [`Mesh::is_closed`]), the
//! winding number and the signed distance, with batches.
//!
//! | query | [`Mesh`] (its own space) | [`Instance`] (world) | [`Scene`] (world) |
//! |---|---|---|---|
//! | [`cast`](RayQueries::cast), [`cast_with`](RayQueries::cast_with): the closest hit | `Option<`[`Hit`]`>` | `Option<Hit>` | `Option<`[`SceneHit`]`>` |
//! | [`occluded`](RayQueries::occluded), [`occluded_with`](RayQueries::occluded_with): anything hit? | `bool` | `bool` | `bool` |
//! | [`cast_all`](RayQueries::cast_all), [`cast_all_with`](RayQueries::cast_all_with): every hit, in order | `Vec<Hit>` | `Vec<Hit>` | `Vec<SceneHit>` |
//! | [`cast_batch`](RayQueries::cast_batch), [`cast_batch_with`](RayQueries::cast_batch_with) | `Vec<Option<Hit>>` | `Vec<Option<Hit>>` | `Vec<Option<SceneHit>>` |
//! | [`occluded_batch`](RayQueries::occluded_batch), [`occluded_batch_with`](RayQueries::occluded_batch_with) | `Vec<bool>` | `Vec<bool>` | `Vec<bool>` |
//! | [`cast_all_batch`](RayQueries::cast_all_batch), [`cast_all_batch_with`](RayQueries::cast_all_batch_with) | [`HitLists`]`<Hit>` | `HitLists<Hit>` | `HitLists<SceneHit>` |
//! | the surface at a hit: point, normals, texture coordinates, group | [`Mesh::surface`] | [`Instance::surface`] | [`Scene::surface`] |
//! | [`closest_point`](PointQueries::closest_point): the nearest surface point, with its [`Feature`] | `Option<`[`ClosestPoint`]`>` | `Option<ClosestPoint>` | `Option<`[`SceneClosestPoint`]`>` |
//! | [`contains`](PointQueries::contains): inside? (exact on closed meshes) | `bool` | `bool` | `bool` |
//! | [`winding_number`](PointQueries::winding_number): the generalised winding number | `f32` | `f32` | `f32` |
//! | [`signed_distance`](PointQueries::signed_distance): negative inside | `Option<f32>` | `Option<f32>` | `Option<f32>` |
//! | [`closest_point_batch`](PointQueries::closest_point_batch), [`contains_batch`](PointQueries::contains_batch), [`winding_number_batch`](PointQueries::winding_number_batch), [`signed_distance_batch`](PointQueries::signed_distance_batch) | `Vec<..>` of the above | `Vec<..>` | `Vec<..>` |
//! | what a box, sphere or frustum selects | [`Mesh::select_triangles`] | | [`Scene::select`], [`Scene::select_triangles`] |
//! | what is under the mouse | | | [`Scene::pick`], [`Scene::pick_instances`] |
//!
//! The accessors that take a hit answer `None` for a hit that is not theirs (its instance
//! removed since, or a triangle the mesh does not have), so that a pick kept across edits
//! never panics.
//!
//! This crate only re-exports the engine's layers, so that it is the one dependency you
//! need: geometry ([`primitives`]), the hierarchy ([`bvh`]; build one over your own
//! primitives with [`Bvh::build_primitives`]), meshes and scenes (`meshcast-mesh`) and
//! their files ([`io`]: the readers and the cache). [`glam`] is re-exported for vectors and transforms. Each layer's fallible
//! calls return its own error ([`MeshError`], [`IoError`], and the GPU's `GpuError`), which
//! `?` turns into the one [`Error`] that gathers them.
//!
//! # Examples
//! Load the cow, cast a ray at it from above and pick the hit:
//! ```
//! use meshcast::glam::Vec3;
//! use meshcast::{Mesh, MeshFiles, Ray, RayQueries};
//!
//! let mesh = Mesh::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/cow.obj"))?;
//! assert_eq!(mesh.triangle_count(), 5804);
//!
//! let bounds = mesh.bounds();
//! let above = bounds.centroid() + Vec3::Y * bounds.extent().y * 2.0;
//! let ray = Ray::new(above, Vec3::NEG_Y);
//! let hit = mesh.cast(&ray).ok_or("the ray misses the cow")?;
//!
//! // `t` is measured in units of the direction (unit length here, so a distance).
//! let surface = mesh.surface(&hit).ok_or("not a triangle of this mesh")?;
//! assert!(surface.point.distance(ray.at(hit.t)) < 1e-4);
//! assert!(bounds.contains(surface.point));
//! assert!((surface.geometric_normal.length() - 1.0).abs() < 1e-5);
//! // Nothing lies between the ray's origin and the hit.
//! assert!(!mesh.occluded(&ray.with_range(0.0, hit.t * 0.999)));
//! println!("hit triangle {} of {:?} at {}", hit.triangle, surface.group, surface.point);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Two instances of one mesh in a scene:
//! ```
//! use std::sync::Arc;
//! use meshcast::glam::{Affine3A, Vec3};
//! use meshcast::{Instance, Mesh, MeshFiles, Ray, RayQueries, Scene};
//!
//! let cow = Arc::new(Mesh::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/cow.obj"))?);
//! let width = cow.bounds().extent().x;
//! let scene = Scene::from_instances([
//!     Instance::new(cow.clone(), Affine3A::IDENTITY)?,
//!     Instance::new(cow.clone(), Affine3A::from_translation(Vec3::X * width * 2.0))?,
//! ]);
//! let centre = cow.bounds().centroid() + Vec3::X * width * 2.0;
//! let hit = scene.cast(&Ray::new(centre + Vec3::Z * 10.0, Vec3::NEG_Z)).ok_or("miss")?;
//! assert_eq!(hit.instance.index(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Picking
//! Editors ask what is under the mouse, what a marquee holds and where the nearest surface
//! is, many times a second, while objects move. A [`Viewport`] (from a [`Camera`], or from
//! any view and projection matrices in the OpenGL, zero-to-one or reversed-Z
//! [`DepthConvention`]) turns a pixel into a ray and a marquee rectangle into a [`Frustum`].
//! Every scene query takes [`QueryOptions`]: a distance limit, back-face [`Culling`]
//! (mirroring transforms included), a layer mask matched against each
//! [`Instance::layers`], and a [`Filter`] that rejects candidates (hidden objects, the one
//! being dragged) while the search goes on to the next. [`Scene::pick`] gives a [`Pick`]:
//! instance, triangle, world point, normals, texture coordinates, group name, distance and
//! side. [`PointQueries::closest_point`] snaps to the nearest surface, measured in world
//! space even under non-uniform scales, and names the vertex or edge it lands on; [`Scene::select`] and [`Scene::select_triangles`] find
//! what a box, sphere or frustum [`Volume`] touches or holds entirely, with exact triangle
//! tests. Moving instances refits the top level ([`Scene::set_transform`]), deformed meshes
//! refit theirs ([`Mesh::set_positions`]), and a [`SharedScene`] publishes edited copies
//! while other threads keep querying their snapshots. Every answer equals a brute-force
//! loop over all triangles with the same test.
//!
//! ```
//! use std::sync::Arc;
//! use meshcast::glam::{Affine3A, Vec2, Vec3};
//! use meshcast::{
//!     Camera, ClipPlanes, Containment, DepthConvention, Instance, InstanceId, Mesh, MeshFiles,
//!     PointQueries, QueryOptions, Scene, Volume,
//! };
//!
//! let cow = Arc::new(Mesh::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/cow.obj"))?);
//! let width = cow.bounds().extent().x * 1.5;
//! let mut scene = Scene::new();
//! let left = scene.add(Instance::new(cow.clone(), Affine3A::IDENTITY)?);
//! let right = scene.add(Instance::new(cow.clone(), Affine3A::from_translation(Vec3::X * width))?.with_layers(0b10));
//!
//! // A 800 x 600 view of both cows, reversed-Z with an infinite far plane.
//! let camera = Camera::framing(scene.bounds(), 45.0, 800.0 / 600.0);
//! let viewport = camera.viewport(800, 600, ClipPlanes::new(0.01, f32::INFINITY), DepthConvention::ReversedZ)?;
//!
//! // What is under the mouse? The pixel where the right cow's centre appears.
//! let centre = cow.bounds().centroid() + Vec3::X * width;
//! let mouse = viewport.project(centre).ok_or("behind the camera")?;
//! let ray = viewport.ray_through(mouse.x, mouse.y);
//! let pick = scene.pick(&ray, &QueryOptions::new()).ok_or("nothing under the mouse")?;
//! assert_eq!(pick.instance, right);
//! let back = viewport.project(pick.surface.point).ok_or("behind")?;
//! assert!((back.x - mouse.x).abs() < 0.01 && (back.y - mouse.y).abs() < 0.01);
//!
//! // Hide it (it is being dragged): the pick goes on behind it, and finds nothing there.
//! let dragging = QueryOptions::new().with_filter(move |id: InstanceId, _: u32| id != right);
//! assert!(scene.pick(&ray, &dragging).is_none());
//! // Only layer 1: the right cow is on layer 2.
//! assert!(scene.pick(&ray, &QueryOptions::new().with_mask(0b01)).is_none());
//!
//! // A marquee around the right half of the view selects the right cow only.
//! let marquee = viewport.marquee(Vec2::new(mouse.x - 50.0, 0.0), Vec2::new(800.0, 600.0)).ok_or("empty")?;
//! let selected = scene.select(&Volume::Frustum(marquee), Containment::Intersecting, &QueryOptions::new());
//! assert_eq!(selected, [right]);
//!
//! // Snap a point above the left cow to its surface, then move the left cow away.
//! let above = cow.bounds().centroid() + Vec3::Y * cow.bounds().extent().y;
//! let snap = scene.closest_point(above, &QueryOptions::new()).ok_or("nothing near")?;
//! assert_eq!(snap.instance, left);
//! assert!(snap.closest.distance < cow.bounds().extent().y);
//! scene.set_transform(left, Affine3A::from_translation(Vec3::Y * 100.0))?;
//! let moved = scene.closest_point(above, &QueryOptions::new().with_max_distance(snap.closest.distance));
//! assert!(moved.map_or(true, |c| c.instance == right));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod error;

pub use error::{Error, Result};
pub use glam;
pub use meshcast_bvh as bvh;
pub use meshcast_io as io;

/// Ray queries on the GPU (the `gpu` feature): open a [`gpu::Gpu`], upload a mesh and cast
/// batches or camera images there, with the CPU engine's answers. See [`meshcast_gpu`].
#[cfg(feature = "gpu")]
pub use meshcast_gpu as gpu;
/// The GPU's errors (the `gpu` feature), gathered into [`Error::Gpu`].
#[cfg(feature = "gpu")]
pub use meshcast_gpu::Error as GpuError;
pub use meshcast_primitives as primitives;

pub use meshcast_bvh::{
    BuildOptions, Bvh, BvhStats, Kernel, OutOfMemory, Parallel, Quality, TraversalCounts,
};
pub use meshcast_io::Error as IoError;
pub use meshcast_io::{
    CacheProblem, CacheSection, Format, IndexKind, Location, MeshFiles, Place, SceneFiles,
    TriMeshFiles, CACHE_EXTENSION,
};
pub use meshcast_mesh::Error as MeshError;
pub use meshcast_mesh::{frame_origin, NearSurfaceSamples, FINE_SIGMA_DIVISOR};
pub use meshcast_mesh::{BatchOrder, BATCH_ORDER_ENV, MIN_SORTED_BYTES, MIN_SORTED_RAYS};
pub use meshcast_mesh::{
    ClosestPoint, Contacts, Containment, Culling, DClosestPoint, DPick, DSceneClosestPoint,
    DSceneHit, Facing, Feature, Filter, HitLists, KeepAll, Pick, PickRay, Placement, PointQueries,
    QueryBox, QueryOptions, QueryPoint, QueryRay, RayQueries, SceneClosestPoint, SceneTriangle,
    SharedScene, SurfaceSamples, ALL_LAYERS, CONTAINS_RAY_DIRECTION,
};
pub use meshcast_mesh::{
    DMeshDistance, DirectedHausdorff, Grid, HausdorffDistance, Instance, InstanceId, LeafTest,
    Mesh, MeshDistance, Scene, SceneHit, SurfacePoint, TriMesh, VertexAttribute, Warning,
};
pub use meshcast_mesh::{Thickness, MAX_SIDE_SAMPLES};
pub use meshcast_primitives::{
    closest_point_on_triangle, triangles_distance, triangles_intersect,
    triangles_intersect_beyond_shared, TriangleDistance,
};
pub use meshcast_primitives::{
    Aabb, Camera, CameraFrame, ClipPlanes, DFrame, DHit, DRay, DepthConvention, Frustum, Hit, Ray,
    RayHit, Sphere, Triangle, Viewport, Volume, FAR_SIZES,
};

/// The traits whose methods meshcast's types answer, to bring into scope at once:
/// `use meshcast::prelude::*;` gives the ray queries ([`RayQueries`]), the point queries
/// ([`PointQueries`]) and the file methods ([`TriMeshFiles`], [`MeshFiles`],
/// [`SceneFiles`]: `Mesh::from_path`, `Mesh::save`, `Scene::from_gltf` and their kin).
pub mod prelude {
    pub use meshcast_io::{MeshFiles, SceneFiles, TriMeshFiles};
    pub use meshcast_mesh::{PointQueries, RayQueries};
}
