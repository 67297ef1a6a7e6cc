//! meshcast: BVH-accelerated ray casting on triangle meshes.
//!
//! Load a mesh from a Wavefront OBJ file or from slices, then ask where rays hit it: the
//! closest hit ([`Mesh::cast`]), whether anything is hit ([`Mesh::occluded`]), every hit
//! ([`Mesh::cast_all`]) or many rays in parallel ([`Mesh::cast_batch`]). Answers are exact:
//! the same as testing every triangle with the watertight test (Woop, Benthin and Wald 2013),
//! ties going to the smaller triangle index. Place shared meshes in a world with
//! [`Instance`]s (affine transforms) and query them together as a [`Scene`], a two-level
//! hierarchy. [`Mesh::surface`] and [`Scene::surface`] give what picking needs: the point,
//! normals, texture coordinates and the object or group name.
//!
//! This crate only re-exports the engine's layers, so that it is the one dependency you
//! need: geometry ([`primitives`]), the hierarchy ([`bvh`]) and meshes and scenes
//! (`meshcast-mesh`). [`glam`] is re-exported for vectors and transforms, and every fallible
//! call returns the one [`Error`].
//!
//! # Examples
//! Load the cow, cast a ray at it from above and pick the hit:
//! ```
//! use meshcast::glam::Vec3;
//! use meshcast::{Mesh, Ray};
//!
//! let mesh = Mesh::from_obj(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/cow.obj"))?;
//! assert_eq!(mesh.triangle_count(), 5804);
//!
//! let bounds = mesh.bounds();
//! let above = bounds.centroid() + Vec3::Y * bounds.extent().y * 2.0;
//! let ray = Ray::new(above, Vec3::NEG_Y);
//! let hit = mesh.cast(&ray).ok_or("the ray misses the cow")?;
//!
//! // `t` is measured in units of the direction (unit length here, so a distance).
//! let surface = mesh.surface(&hit);
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
//! use meshcast::{Instance, Mesh, Ray, Scene};
//!
//! let cow = Arc::new(Mesh::from_obj(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/cow.obj"))?);
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

#![forbid(unsafe_code)]

pub use glam;
pub use meshcast_bvh as bvh;
pub use meshcast_primitives as primitives;

pub use meshcast_bvh::{BuildOptions, Builder, Bvh, BvhStats, Parallel};
pub use meshcast_mesh::{camera_rays, incoherent_rays};
pub use meshcast_mesh::{
    Error, IndexKind, Instance, InstanceId, Location, Mesh, Result, Scene, SceneHit, SurfacePoint,
    TriMesh, VertexAttribute, Warning,
};
pub use meshcast_primitives::{Aabb, Camera, Hit, Ray, Triangle};
