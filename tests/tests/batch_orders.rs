//! A batch answers what a loop of single rays answers, bit for bit and in the caller's order,
//! whatever order its rays come in and whichever order it traces them in: random rays as made
//! and sorted three ways, a lidar in scan order and shuffled, fans of rays from many points
//! (`meshcast_testkit::order_sets`), traced in the caller's order, sorted, and as the engine
//! chooses, on one thread and on two, at the mesh, instance and scene levels, closest and any
//! hit, with and without a distance limit.

use std::sync::Arc;

use meshcast::glam::{Affine3A, Quat, Vec3};
use meshcast::{
    Aabb, BatchOrder, Instance, Mesh, MeshFiles, QueryOptions, RayQueries, Scene, MIN_SORTED_RAYS,
};
use meshcast_testkit::{asset, order_sets, same_hit, same_scene_hit};

const ORDERS: [BatchOrder; 3] = [BatchOrder::Caller, BatchOrder::Sorted, BatchOrder::Auto];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Checks `level`'s batches against its single rays on every ray set around `bounds`.
fn check<L, H>(level: &L, bounds: Aabb, same: impl Fn(Option<H>, Option<H>) -> bool)
where
    L: RayQueries<Hit = H> + Sync,
    H: Copy + std::fmt::Debug + Send + Sync,
{
    for limit in [f32::INFINITY, 1.2 * bounds.extent().length()] {
        for set in order_sets(bounds, MIN_SORTED_RAYS + 100, 5) {
            let options = QueryOptions::new().with_max_distance(limit);
            let closest: Vec<_> = set
                .rays
                .iter()
                .map(|r| level.cast_with(r, &options))
                .collect();
            let any: Vec<_> = set
                .rays
                .iter()
                .map(|r| level.occluded_with(r, &options))
                .collect();
            assert!(
                closest.iter().any(Option::is_some),
                "{}: some hits",
                set.name
            );
            for order in ORDERS {
                let options = options.with_order(order);
                for threads in [1, 2] {
                    let (batch, occluded) = pool(threads).install(|| {
                        (
                            level.cast_batch_with(&set.rays, &options),
                            level.occluded_batch_with(&set.rays, &options),
                        )
                    });
                    let context =
                        format!("{}, {order:?}, {threads} threads, limit {limit}", set.name);
                    assert_eq!(occluded, any, "{context}");
                    for (i, (a, b)) in batch.iter().zip(&closest).enumerate() {
                        assert!(same(*a, *b), "{context}, ray {i}: {a:?} vs {b:?}");
                    }
                }
                // The serial calls too.
                let mut batch = vec![None; set.rays.len()];
                level.cast_batch_serial_with(&set.rays, &options, &mut batch);
                assert!(
                    batch.iter().zip(&closest).all(|(a, b)| same(*a, *b)),
                    "{}",
                    set.name
                );
            }
        }
    }
}

#[test]
fn mesh_batches_in_every_order_answer_as_single_rays() {
    let mesh = Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    check(&mesh, mesh.bounds(), same_hit);
}

#[test]
fn instance_and_scene_batches_in_every_order_answer_as_single_rays() {
    let cow = Arc::new(Mesh::from_obj(asset("cow.obj")).expect("cow loads"));
    let turned =
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::new(0.5, 0.0, 0.2));
    let instance = Instance::new(Arc::clone(&cow), turned).expect("an instance");
    check(&instance, instance.bounds(), same_hit);
    let scene = Scene::from_instances((0..4).map(|i| {
        let at = Affine3A::from_translation(Vec3::new(1.5 * i as f32, 0.0, 0.0)) * turned;
        Instance::new(Arc::clone(&cow), at).expect("an instance")
    }));
    check(&scene, scene.bounds(), same_scene_hit);
}
