//! Support shared by meshcast's tests and benchmarks: not part of the library, and not
//! published.
//!
//! It sits above the facade (`meshcast`). The cross-crate tests in `tests/`, the command line
//! (its `bench` command and its tests), the criterion benches and the peer comparison use it
//! for the repository's meshes; for seeded rays, the same for the same seed everywhere (the
//! incoherent rays every benchmark measures with, random and adversarial rays for the tests);
//! for random scenes; for the assets written as PLY and STL files; and for the brute-force
//! references every query is checked against, loops over every triangle with the same
//! triangle test and tie rule; and for the triangulation, large star and spiral polygons and
//! the original `O(n²)` ear clipper to compare with. `meshcast-bvh` and `meshcast-primitives`
//! keep their own test support, as they sit below the facade.
//!
//! ```
//! use meshcast::glam::Vec3;
//! use meshcast::{Aabb, Ray, Triangle};
//! use meshcast_testkit::{brute_force_cast, random_rays};
//!
//! let floor = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
//! let above = Triangle::new(Vec3::Z, Vec3::X + Vec3::Z, Vec3::Y + Vec3::Z);
//! let down = Ray::new(Vec3::new(0.25, 0.25, 2.0), Vec3::NEG_Z);
//! let hit = brute_force_cast(&[floor, above], &down).ok_or("miss")?;
//! assert_eq!((hit.triangle, hit.t), (1, 1.0));
//!
//! let cube = Aabb::new(Vec3::ZERO, Vec3::ONE);
//! assert_eq!(random_rays(cube, 10, 3), random_rays(cube, 10, 3));
//! # Ok::<(), &str>(())
//! ```

mod assets;
mod contact_reference;
mod ear_clipping;
mod lattice;
mod polygons;
mod random;
mod ray_orders;
mod rays;
mod reference;
mod scene_reference;
mod scenes;
mod shapes;
mod views;
mod writers;

pub use assets::{
    all_assets, asset, assets_dir, count_obj_triangles, obj_vertex_bounds, temp_path,
};
pub use contact_reference::{brute_force_surface_distance, carried_corners};
pub use ear_clipping::reference_triangulate;
pub use lattice::{lattice_octahedron, lattice_solids, voxel_surface, LatticeSolid};
pub use polygons::{obj_face_corners, obj_polygon, spiral, star};
pub use random::{random_direction, random_point_in, random_transform, rng};
pub use ray_orders::{order_sets, RaySet};
pub use rays::{adversarial_rays, incoherent_rays, random_rays};
pub use reference::{
    brute_force_cast, brute_force_cast_all, brute_force_cast_with, brute_force_distance,
    brute_force_winding_number, edge_closeness, same_hit, triangle_areas, LeafReference,
};
pub use scene_reference::{
    brute_force_closest, brute_force_hits, brute_force_scene_cast, brute_force_scene_cast_all,
    brute_force_select, brute_force_select_triangles, same_scene_hit, world_triangles, Rules,
};
pub use scenes::{query_point, random_scene, small_meshes};
pub use shapes::{cube, icosphere, torus, transformed};
pub use views::{brute_force_sight_blocked, brute_force_sight_blocked_filtered};
pub use writers::{ascii_stl_bytes, binary_stl_bytes, ply_bytes, PlyEncoding, PlyLayout, Polygons};
