//! Selection: every instance, or every triangle, that a volume (box, sphere, marquee
//! frustum) touches or holds entirely.

use core::ops::ControlFlow;

use meshcast_primitives::{Overlap, Triangle, Volume};

use crate::mesh::Mesh;
use crate::queries::{Filter, InstanceId, QueryOptions};
use crate::scene::{Instance, Scene};

/// What a selection asks of each triangle.
///
/// # Examples
/// ```
/// use meshcast_mesh::Containment;
///
/// assert_ne!(Containment::Intersecting, Containment::Inside);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Containment {
    /// The triangle shares a point with the volume (touching counts). An instance is
    /// selected when any of its triangles is.
    Intersecting,
    /// The whole triangle lies in the volume. An instance is selected when all of its
    /// triangles are (and it has at least one): exactly, triangle by triangle, not by its
    /// bounding box.
    Inside,
}

impl Containment {
    #[inline]
    fn accepts(self, volume: &Volume, triangle: &Triangle) -> bool {
        match self {
            Self::Intersecting => volume.intersects_triangle(triangle),
            Self::Inside => volume.contains_triangle(triangle),
        }
    }
}

/// A triangle of a scene: its instance and its index in the instance's mesh.
///
/// # Examples
/// ```
/// use meshcast_mesh::{InstanceId, SceneTriangle};
///
/// let picked = SceneTriangle { instance: InstanceId::from_index(3), triangle: 7 };
/// assert_eq!(picked.instance.index(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SceneTriangle {
    /// The instance.
    pub instance: InstanceId,
    /// The triangle's index in the instance's mesh.
    pub triangle: u32,
}

impl Mesh {
    /// Every triangle that the volume intersects or holds ([`Containment`]), in index order,
    /// the triangle filter applied (culling and the layer mask do not apply).
    ///
    /// The exact tests of [`Volume`] decide (Akenine-Möller's triangle–box test, the closest
    /// point for spheres, separating axes for frusta); the hierarchy skips boxes outside
    /// the volume and takes boxes inside it whole. The answer equals a loop over every
    /// triangle with the same test. Degenerate triangles are never selected.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{Containment, Mesh, QueryOptions};
    /// use meshcast_primitives::{Aabb, Volume};
    ///
    /// let strip = Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [5.0, 0.0, 0.0], [6.0, 0.0, 0.0], [5.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [3, 4, 5], [1, 3, 2]],
    /// )?;
    /// let region = Volume::Box(Aabb::new(Vec3::splat(-0.5), Vec3::new(2.0, 2.0, 0.5)));
    /// let options = QueryOptions::new();
    /// assert_eq!(strip.select_triangles(&region, Containment::Intersecting, &options), [0, 2]);
    /// assert_eq!(strip.select_triangles(&region, Containment::Inside, &options), [0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn select_triangles<F: Filter<u32>>(
        &self,
        volume: &Volume,
        containment: Containment,
        options: &QueryOptions<F>,
    ) -> Vec<u32> {
        let mut selected = Vec::new();
        let _ = self.bvh().overlap(
            |bounds| volume.classify_box(bounds),
            |slot, overlap| {
                let (triangle, index) = self.leaf_triangle(slot);
                let passes = overlap == Overlap::Inside || containment.accepts(volume, &triangle);
                if passes && options.filter.keep(index) {
                    selected.push(index);
                }
                ControlFlow::<()>::Continue(())
            },
        );
        selected.sort_unstable();
        selected
    }
}

impl Scene {
    /// Every instance that the volume (in world space) selects ([`Containment`]: any
    /// triangle intersecting, or all triangles inside), in id order. The layer mask and the
    /// filter apply (an instance's filtered-out triangles do not count either way); culling
    /// does not.
    ///
    /// Triangles are tested in world space as [`Instance::world_triangle`] carries them.
    /// Both hierarchies skip boxes outside the volume and take boxes inside it whole, and an
    /// instance is settled as soon as one triangle decides it. The answer equals a loop over
    /// every instance and triangle with the same test.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Containment, Instance, Mesh, QueryOptions, Scene};
    /// use meshcast_primitives::{Sphere, Volume};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let scene = Scene::from_instances((0..4).map(|i| {
    ///     Instance::new(tri.clone(), Affine3A::from_translation(Vec3::X * 2.0 * i as f32))
    /// }).collect::<Result<Vec<_>, _>>()?);
    /// let ball = Volume::Sphere(Sphere::new(Vec3::new(1.6, 0.0, 0.0), 0.7));
    /// let touched = scene.select(&ball, Containment::Intersecting, &QueryOptions::new());
    /// assert_eq!(touched.iter().map(|id| id.index()).collect::<Vec<_>>(), [0, 1]);
    /// assert!(scene.select(&ball, Containment::Inside, &QueryOptions::new()).is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn select<F: Filter<(InstanceId, u32)>>(
        &self,
        volume: &Volume,
        containment: Containment,
        options: &QueryOptions<F>,
    ) -> Vec<InstanceId> {
        let mut selected = Vec::new();
        self.for_each_instance_near(volume, options, |id, instance| {
            if instance_selected(instance, id, volume, containment, options) {
                selected.push(id);
            }
        });
        selected.sort_unstable();
        selected
    }

    /// Every triangle of every instance that the volume (in world space) intersects or
    /// holds, sorted by instance, then triangle; the layer mask and the filter apply, as in
    /// [`Scene::select`].
    pub fn select_triangles<F: Filter<(InstanceId, u32)>>(
        &self,
        volume: &Volume,
        containment: Containment,
        options: &QueryOptions<F>,
    ) -> Vec<SceneTriangle> {
        let mut selected = Vec::new();
        self.for_each_instance_near(volume, options, |id, instance| {
            let mesh = instance.mesh();
            let _ = mesh.bvh().overlap(
                |local| volume.classify_box(&instance.world_box(local)),
                |slot, overlap| {
                    let (local, index) = mesh.leaf_triangle(slot);
                    let passes = overlap == Overlap::Inside
                        || containment.accepts(volume, &instance.carry(&local));
                    if passes && options.filter.keep((id, index)) {
                        selected.push(SceneTriangle {
                            instance: id,
                            triangle: index,
                        });
                    }
                    ControlFlow::<()>::Continue(())
                },
            );
        });
        selected.sort_unstable();
        selected
    }

    /// Calls `visit` for every instance whose world box the volume touches and whose layers
    /// the query's mask accepts, walking the top level and skipping boxes outside the volume.
    fn for_each_instance_near<F: Filter<(InstanceId, u32)>>(
        &self,
        volume: &Volume,
        options: &QueryOptions<F>,
        mut visit: impl FnMut(InstanceId, &Instance),
    ) {
        let _ = self.top_level().overlap(
            |bounds| volume.classify_box(bounds),
            |slot, _| {
                if let Some((id, instance)) = self.searched(slot, options.mask) {
                    visit(id, instance);
                }
                ControlFlow::<()>::Continue(())
            },
        );
    }
}

/// Whether the volume selects one instance.
fn instance_selected<F: Filter<(InstanceId, u32)>>(
    instance: &Instance,
    id: InstanceId,
    volume: &Volume,
    containment: Containment,
    options: &QueryOptions<F>,
) -> bool {
    let mesh = instance.mesh();
    let classify =
        |local: &meshcast_primitives::Aabb| volume.classify_box(&instance.world_box(local));
    match containment {
        // Any kept triangle that intersects settles it.
        Containment::Intersecting => mesh
            .bvh()
            .overlap(classify, |slot, overlap| {
                let (local, index) = mesh.leaf_triangle(slot);
                let passes = overlap == Overlap::Inside
                    || volume.intersects_triangle(&instance.carry(&local));
                if passes && options.filter.keep((id, index)) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .is_break(),
        // Any kept triangle outside settles it the other way, so boxes outside the volume
        // are opened too (their first kept triangle fails at once).
        // Boxes inside hold only passing triangles: with no filter to ask, they are skipped.
        Containment::Inside => {
            let keeps_everything = options.filter.keeps_everything();
            let mut kept_any = keeps_everything && !mesh.bvh().is_empty();
            let outside = mesh.bvh().overlap(
                |local| match classify(local) {
                    Overlap::Outside => Overlap::Crossing,
                    Overlap::Inside if keeps_everything => Overlap::Outside,
                    overlap => overlap,
                },
                |slot, overlap| {
                    let (local, index) = mesh.leaf_triangle(slot);
                    if !options.filter.keep((id, index)) {
                        return ControlFlow::Continue(());
                    }
                    kept_any = true;
                    if overlap == Overlap::Inside
                        || volume.contains_triangle(&instance.carry(&local))
                    {
                        ControlFlow::Continue(())
                    } else {
                        ControlFlow::Break(())
                    }
                },
            );
            kept_any && outside.is_continue()
        }
    }
}
