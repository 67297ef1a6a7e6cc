//! What `render`, `pick` and `cast` look at: one mesh, or a scene of placed meshes (a glTF
//! file's nodes), answered through the same queries.

use std::borrow::Cow;

use glam::Vec3;
use meshcast::{Aabb, Hit, Mesh, RayQueries, Scene, SceneHit, SurfacePoint};

/// A hit as the commands print it: the hit on a mesh, and for a scene the instance.
pub trait HitFields {
    /// The hit on the mesh (distance, triangle, barycentrics).
    fn mesh_hit(&self) -> &Hit;
    /// The instance hit, in a scene.
    fn instance(&self) -> Option<u32>;
}

impl HitFields for Hit {
    fn mesh_hit(&self) -> &Hit {
        self
    }
    fn instance(&self) -> Option<u32> {
        None
    }
}

impl HitFields for SceneHit {
    fn mesh_hit(&self) -> &Hit {
        &self.hit
    }
    fn instance(&self) -> Option<u32> {
        Some(self.instance.index())
    }
}

/// A mesh or a scene, as the commands that cast rays need it.
pub trait Target: RayQueries<Hit: HitFields> {
    /// The world box.
    fn bounds(&self) -> Aabb;
    /// The surface at a hit (point, normals, group), in world space.
    fn surface(&self, hit: &Self::Hit) -> Option<SurfacePoint<'_>>;
    /// Every vertex in world space, to frame the default camera.
    fn world_positions(&self) -> Cow<'_, [Vec3]>;
    /// Computes the smooth normals that shading will use, once, before the pixels ask.
    fn prepare_normals(&self);
}

impl Target for Mesh {
    fn bounds(&self) -> Aabb {
        Mesh::bounds(self)
    }
    fn surface(&self, hit: &Hit) -> Option<SurfacePoint<'_>> {
        Mesh::surface(self, hit)
    }
    fn world_positions(&self) -> Cow<'_, [Vec3]> {
        Cow::Borrowed(self.tri_mesh().positions())
    }
    fn prepare_normals(&self) {
        let tri_mesh = self.tri_mesh();
        if tri_mesh
            .normals()
            .is_none_or(|normals| normals.indices().contains(&None))
        {
            tri_mesh.vertex_normals();
        }
    }
}

impl Target for Scene {
    fn bounds(&self) -> Aabb {
        Scene::bounds(self)
    }
    fn surface(&self, hit: &SceneHit) -> Option<SurfacePoint<'_>> {
        Scene::surface(self, hit)
    }
    fn world_positions(&self) -> Cow<'_, [Vec3]> {
        let points = self.instances().flat_map(|(_, instance)| {
            let transform = instance.transform();
            instance
                .mesh()
                .tri_mesh()
                .positions()
                .iter()
                .map(move |&p| transform.transform_point3(p))
        });
        Cow::Owned(points.collect())
    }
    fn prepare_normals(&self) {
        // Shared meshes compute theirs once; the second ask finds them ready.
        for (_, instance) in self.instances() {
            Target::prepare_normals(instance.mesh().as_ref());
        }
    }
}
