//! Triangle meshes for meshcast: made from slices of positions and triangles, wrapped
//! around a BVH and queried in their own space; instances that place shared meshes by affine
//! transforms, and scenes of many instances under a top-level BVH. Files (OBJ, glTF, PLY,
//! STL and the cache of a mesh with its hierarchy) are read by `meshcast-io`, with its own
//! formats and errors.
//!
//! The layer above `meshcast-bvh` and `meshcast-primitives`. [`TriMesh`] holds validated
//! geometry (positions, triangles, optional normals, texture coordinates and group names);
//! [`Mesh`] adds the hierarchy and the queries `cast`, `occluded`, `cast_all` and
//! `cast_batch`; [`Instance`] and [`Scene`] answer the same queries for world rays. Every
//! answer equals a brute-force loop over the triangles with the watertight test, bit for bit.
//!
//! For editors: every query takes [`QueryOptions`] (distance limit, back-face culling, layer
//! mask, [`Filter`]); [`Scene::pick`] tells what is under the mouse ([`Pick`]),
//! [`PointQueries::closest_point`] finds the nearest surface ([`SceneClosestPoint`], and
//! the vertex or edge it lands on, [`Feature`]), [`PointQueries::contains`] and
//! [`PointQueries::signed_distance`] tell inside from outside,
//! [`Scene::select`] what a box, sphere or marquee frustum holds ([`Containment`]), and
//! [`SharedScene`] lets queries run on other threads while the scene is edited.
//! Mesh against mesh, the other placed by an affine transform: [`Mesh::intersects`],
//! [`Mesh::intersecting_pairs`] and [`Mesh::mesh_distance`] ([`MeshDistance`]), decided on
//! exact predicates; and a mesh against itself, [`Mesh::self_intersections`].
//! What viewpoints see: [`Mesh::visible_vertices`] and [`Mesh::visible_triangles`] from eye
//! points, their `_in_view` forms for a viewport's image, [`Mesh::lasso_triangles`] and
//! [`Scene::lasso_triangles`] under a screen polygon; and how open the surface is,
//! [`Mesh::ambient_occlusion`] and [`Mesh::thickness`].
//! Bad input is an [`Error`], never a panic. Most users depend on the `meshcast` facade.
//!
//! ```
//! use glam::Vec3;
//! use meshcast_mesh::{Mesh, RayQueries};
//! use meshcast_primitives::Ray;
//!
//! // A unit cube from -1 to 1: 8 corners, 12 triangles.
//! let corners: Vec<[f32; 3]> = (0..8)
//!     .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { 1.0 } else { -1.0 }))
//!     .collect();
//! let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
//! let triangles: Vec<[u32; 3]> =
//!     faces.iter().flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]]).collect();
//! let cube = Mesh::from_triangles(&corners, &triangles)?;
//!
//! let ray = Ray::new(Vec3::new(0.2, 0.3, -5.0), Vec3::Z);
//! let hit = cube.cast(&ray).ok_or("miss")?;
//! assert_eq!(hit.t, 4.0);
//! assert_eq!(cube.cast_all(&ray).len(), 2);
//! // From inside, every direction hits.
//! assert!(cube.occluded(&Ray::new(Vec3::ZERO, Vec3::new(0.3, -0.7, 0.1))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

// The rooms, each a concept with a module doc saying what it owns and what it may use.
// Imports run one way, down the order in `tests/rooms.rs`: `views` may use any room
// below it, `error` none.
mod batches;
mod contact;
mod error;
mod fields;
mod mesh;
mod points;
mod queries;
mod scene;
mod triangles;
mod views;
mod volume;
mod world;

pub use batches::{BatchOrder, BATCH_ORDER_ENV, MIN_SORTED_BYTES, MIN_SORTED_RAYS};
pub use contact::{DMeshDistance, DirectedHausdorff, HausdorffDistance, MeshDistance};
pub use error::{Error, Result, Warning};
pub use fields::{Grid, NearSurfaceSamples, SurfaceSamples, FINE_SIGMA_DIVISOR};
pub use mesh::Mesh;
pub use meshcast_primitives::Contacts;
pub use points::{ClosestPoint, Feature, PointQueries, SceneClosestPoint, CONTAINS_RAY_DIRECTION};
pub use queries::{
    Culling, Facing, Filter, HitLists, InstanceId, KeepAll, QueryBox, QueryOptions, QueryPoint,
    QueryRay, RayQueries, ALL_LAYERS,
};
pub use scene::{
    Containment, Instance, Pick, PickRay, Placement, Scene, SceneHit, SceneTriangle, SharedScene,
};
pub use triangles::{frame_origin, LeafTest, SurfacePoint, TriMesh, VertexAttribute};
pub use views::{Thickness, MAX_SIDE_SAMPLES};
pub use world::{DClosestPoint, DPick, DSceneClosestPoint, DSceneHit};
