//! The cross-crate tests, one module per concern, built as one test binary (linking the
//! engine once instead of once per file). Run one concern with its module's name as the filter:
//! `cargo test -p meshcast-tests -- far_scenes::`.

// Shared by several modules: glTF documents built in code, and the packet checks.
mod gltf_builder;
mod packet_checks;

mod batch;
mod batch_orders;
mod cache;
mod contacts;
mod determinism;
mod differential;
mod even_sampling;
mod exactly_once;
mod far_from_origin;
mod far_scenes;
mod formats;
mod gltf;
mod gltf_errors;
mod grids;
mod hausdorff;
mod inside;
mod instances;
mod max_hits;
mod mesh_distance;
mod mesh_intersection;
mod near_surface;
mod obj_assets;
mod obj_errors;
mod packets;
mod packets_adversarial;
mod picking;
mod picking_camera;
mod picking_updates;
mod precisions;
mod queries;
mod rooms;
mod sampling;
mod scales;
mod scene;
mod scene_batches;
mod scene_contact;
mod self_intersections;
mod subdivision;
mod touching;
mod triangulation;
mod visibility;
