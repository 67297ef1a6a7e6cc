//! Triangle meshes from OBJ files and slices, queried in local space through a BVH; instances
//! and scenes (in progress).

#![forbid(unsafe_code)]

mod error;
mod instance;
mod mesh;
mod obj;
mod scene;
mod surface;
mod tri_mesh;
mod workload;

pub use error::{Error, IndexKind, Location, Result, Warning};
pub use instance::Instance;
pub use mesh::Mesh;
pub use scene::{InstanceId, Scene, SceneHit};
pub use surface::SurfacePoint;
pub use tri_mesh::{TriMesh, VertexAttribute};
pub use workload::{camera_rays, incoherent_rays};
