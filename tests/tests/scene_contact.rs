//! The contact queries between placed meshes against brute force over every pair of world
//! triangles (each mesh's vertices carried into the world in `f64`, as the engine does):
//! `Instance::intersects`, `intersecting_pairs` and `mesh_distance`; `Scene::colliding_pairs`
//! with layers, `Scene::overlapping_pairs`, `Scene::nearest_instances`,
//! `Scene::intersecting_instances` and `Scene::mesh_distance`, on random scenes,
//! touching placements, removed instances and any number of threads.

use std::sync::Arc;

use meshcast::glam::{Affine3A, DVec3, Vec3};
use meshcast::{
    triangles_distance, triangles_intersect, Instance, InstanceId, Mesh, Scene, TriMesh, ALL_LAYERS,
};
use meshcast_testkit::{carried_corners, cube, icosphere, random_scene, random_transform, rng};

fn mesh(tri_mesh: TriMesh) -> Arc<Mesh> {
    Arc::new(Mesh::from_tri_mesh(tri_mesh, &Default::default()))
}

fn world(instance: &Instance) -> Vec<[DVec3; 3]> {
    carried_corners(instance.mesh(), &instance.transform())
}

fn brute_pairs(a: &[[DVec3; 3]], b: &[[DVec3; 3]]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for (i, ta) in a.iter().enumerate() {
        for (j, tb) in b.iter().enumerate() {
            if triangles_intersect(ta, tb) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

fn brute_distance(a: &[[DVec3; 3]], b: &[[DVec3; 3]]) -> f64 {
    a.iter()
        .flat_map(|ta| b.iter().map(|tb| triangles_distance(ta, tb).distance))
        .fold(f64::INFINITY, f64::min)
}

/// The distance as the engine reports it: rounded to `f32`, positive when apart.
fn reported(d: f64) -> f32 {
    if d == 0.0 {
        0.0
    } else {
        (d as f32).max(f32::from_bits(1))
    }
}

fn shapes() -> Vec<Arc<Mesh>> {
    vec![mesh(icosphere(1)), mesh(cube(1.0, 1))]
}

#[test]
fn instances_against_each_other_match_brute_force() {
    let meshes = shapes();
    let mut rng = rng(71);
    let (mut meeting, mut apart) = (0, 0);
    for k in 0..40 {
        let a = Instance::new(meshes[k % 2].clone(), random_transform(&mut rng, 3.0))
            .expect("invertible");
        let b = Instance::new(meshes[(k / 2) % 2].clone(), random_transform(&mut rng, 3.0))
            .expect("invertible");
        let (wa, wb) = (world(&a), world(&b));
        let pairs = brute_pairs(&wa, &wb);
        assert_eq!(a.intersecting_pairs(&b), pairs, "placement {k}");
        assert_eq!(a.intersects(&b), !pairs.is_empty(), "placement {k}");
        let gap = a.mesh_distance(&b, None).expect("non-empty");
        let d = brute_distance(&wa, &wb);
        assert_eq!(
            gap.distance.to_bits(),
            reported(d).to_bits(),
            "placement {k}"
        );
        let on = (
            wa[gap.triangle_self as usize],
            wb[gap.triangle_other as usize],
        );
        assert_eq!(
            triangles_distance(&on.0, &on.1).distance,
            d,
            "placement {k}"
        );
        if pairs.is_empty() {
            apart += 1;
        } else {
            meeting += 1;
        }
    }
    assert!(
        meeting >= 5 && apart >= 5,
        "{meeting} meeting, {apart} apart"
    );
}

#[test]
fn instances_touching_exactly_meet() {
    // Unit cubes side by side along x, placed by exact translations: the faces touch.
    let cube = mesh(cube(0.5, 1));
    let at = |x: f32| Instance::new(cube.clone(), Affine3A::from_translation(Vec3::X * x));
    let (a, b, c) = (
        at(1e4).expect("ok"),
        at(1e4 + 1.0).expect("ok"),
        at(1e4 + 1.0 + 1.0 / 1024.0).expect("ok"),
    );
    assert!(a.intersects(&b));
    assert!(!a.intersects(&c));
    assert_eq!(a.mesh_distance(&b, None).map(|g| g.distance), Some(0.0));
    assert_eq!(
        a.mesh_distance(&c, None).map(|g| g.distance),
        Some(1.0 / 1024.0)
    );
    assert_eq!(a.mesh_distance(&c, Some(1e-4)), None);
}

/// The scene's colliding pairs by brute force: every pair of instances sharing a layer
/// whose world triangles meet.
fn brute_colliding(scene: &Scene) -> Vec<(InstanceId, InstanceId)> {
    let all: Vec<(InstanceId, &Instance, Vec<[DVec3; 3]>)> = scene
        .instances()
        .map(|(id, instance)| (id, instance, world(instance)))
        .collect();
    let mut pairs = Vec::new();
    for (i, (ia, a, wa)) in all.iter().enumerate() {
        for (ib, b, wb) in &all[i + 1..] {
            if a.layers() & b.layers() != 0 && !brute_pairs(wa, wb).is_empty() {
                pairs.push((*ia.min(ib), *ia.max(ib)));
            }
        }
    }
    pairs.sort();
    pairs
}

#[test]
fn colliding_pairs_match_brute_force_with_layers_and_removals() {
    let meshes = shapes();
    for seed in [1, 2, 3] {
        let mut scene = random_scene(&meshes, 24, 6.0, seed);
        let expected = brute_colliding(&scene);
        assert!(expected.len() >= 3, "seed {seed}: {} pairs", expected.len());
        assert_eq!(scene.colliding_pairs(), expected, "seed {seed}");
        // Every instance on every layer: more pairs, still as brute force says.
        let ids: Vec<InstanceId> = scene.instances().map(|(id, _)| id).collect();
        for &id in &ids {
            scene.set_layers(id, ALL_LAYERS).expect("held");
        }
        let all_layers = brute_colliding(&scene);
        assert!(all_layers.len() >= expected.len());
        assert_eq!(
            scene.colliding_pairs(),
            all_layers,
            "seed {seed}, all layers"
        );
        // Removed instances collide with nothing.
        let (gone, _) = all_layers[0];
        scene.remove(gone).expect("held");
        let remaining = brute_colliding(&scene);
        assert!(remaining.iter().all(|&(a, b)| a != gone && b != gone));
        assert_eq!(
            scene.colliding_pairs(),
            remaining,
            "seed {seed}, after removal"
        );
    }
}

/// The broad phase by brute force: every pair of instances sharing a layer whose world
/// boxes overlap (boxes that only touch within rounding may be either side, so none are
/// built here that do).
fn brute_overlapping(scene: &Scene) -> Vec<(InstanceId, InstanceId)> {
    let all: Vec<(InstanceId, &Instance)> = scene.instances().collect();
    let mut pairs = Vec::new();
    for (i, (ia, a)) in all.iter().enumerate() {
        for (ib, b) in &all[i + 1..] {
            let (ba, bb) = (a.bounds(), b.bounds());
            let overlap = ba.min.cmple(bb.max).all() && bb.min.cmple(ba.max).all();
            if a.layers() & b.layers() != 0 && overlap {
                pairs.push((*ia, *ib));
            }
        }
    }
    pairs
}

#[test]
fn overlapping_pairs_are_the_box_pairs_and_hold_every_colliding_pair() {
    let meshes = shapes();
    for seed in [1, 2, 3] {
        let scene = random_scene(&meshes, 24, 6.0, seed);
        let overlapping = scene.overlapping_pairs();
        assert_eq!(overlapping, brute_overlapping(&scene), "seed {seed}");
        let colliding = brute_colliding(&scene);
        assert!(overlapping.len() > colliding.len(), "seed {seed}");
        assert!(colliding.iter().all(|pair| overlapping.contains(pair)));
        for &(a, b) in &overlapping {
            assert_eq!(
                scene.instances_intersect(a, b),
                colliding.contains(&(a, b)),
                "seed {seed}: {a:?} {b:?}"
            );
        }
    }
}

#[test]
fn nearest_instances_match_brute_force() {
    let meshes = shapes();
    for seed in [5, 6] {
        let mut scene = random_scene(&meshes, 14, 8.0, seed);
        // Every third instance apart on its own layer: no pair with the others.
        let ids: Vec<InstanceId> = scene.instances().map(|(id, _)| id).collect();
        for (k, &id) in ids.iter().enumerate() {
            scene
                .set_layers(id, if k % 3 == 0 { 0b10 } else { 0b01 })
                .expect("held");
        }
        let all: Vec<(InstanceId, u32, Vec<[DVec3; 3]>)> = scene
            .instances()
            .map(|(id, instance)| (id, instance.layers(), world(instance)))
            .collect();
        let brute = |of: Option<InstanceId>| {
            let mut best: Option<(f64, InstanceId, InstanceId)> = None;
            for (i, (ia, la, wa)) in all.iter().enumerate() {
                for (j, (ib, lb, wb)) in all.iter().enumerate() {
                    let counted = match of {
                        Some(of) => *ia == of && i != j,
                        None => j > i,
                    };
                    if counted && la & lb != 0 {
                        let d = brute_distance(wa, wb);
                        if best.is_none_or(|(bd, ..)| reported(d) < reported(bd)) {
                            best = Some((d, *ia, *ib));
                        }
                    }
                }
            }
            best
        };
        let mut queries: Vec<Option<InstanceId>> = ids.iter().map(|&id| Some(id)).collect();
        queries.push(None);
        for of in queries {
            let (d, a, b) = brute(of).expect("pairs on a layer");
            let (ga, gb, gap) = scene
                .nearest_instances(of, None)
                .expect("known")
                .expect("found");
            assert_eq!(gap.distance, reported(d), "seed {seed}, of {of:?}");
            // The first pair in id order at that distance.
            assert_eq!((ga, gb), (a, b), "seed {seed}, of {of:?}");
            // Its triangles are at that distance (a touching pair may be another than an
            // unbounded walk would stop at).
            let corners = |id: InstanceId, t: u32| {
                let held = all.iter().find(|(i, ..)| *i == id).expect("held");
                [held.2[t as usize]]
            };
            let witness = brute_distance(
                &corners(ga, gap.triangle_self),
                &corners(gb, gap.triangle_other),
            );
            assert_eq!(reported(witness), gap.distance, "seed {seed}, of {of:?}");
            if gap.distance > 0.0 {
                let within = scene.nearest_instances(of, Some(gap.distance * 0.5));
                assert_eq!(within.expect("known"), None);
                // The limit holds the f64 distance that rounds to the reported one.
                let at = scene.nearest_instances(of, Some(gap.distance.next_up()));
                assert_eq!(
                    at.expect("known").map(|(_, _, g)| g.distance),
                    Some(gap.distance)
                );
            }
        }
    }
}

#[test]
fn a_mesh_against_a_scene_matches_brute_force() {
    let meshes = shapes();
    let scene = random_scene(&meshes, 24, 6.0, 9);
    let probe = mesh(icosphere(2));
    let mut rng = rng(19);
    let mut found = 0;
    for k in 0..12 {
        let place = random_transform(&mut rng, 6.0);
        let probe_world = carried_corners(&probe, &place);
        let mask = if k % 3 == 0 { 0b0101 } else { ALL_LAYERS };
        let on_mask: Vec<(InstanceId, Vec<[DVec3; 3]>)> = scene
            .instances()
            .filter(|(_, instance)| instance.layers() & mask != 0)
            .map(|(id, instance)| (id, world(instance)))
            .collect();
        let meeting: Vec<InstanceId> = on_mask
            .iter()
            .filter(|(_, w)| !brute_pairs(w, &probe_world).is_empty())
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(
            scene.intersecting_instances(&probe, &place, mask),
            meeting,
            "placement {k}"
        );
        found += meeting.len();
        let nearest = on_mask
            .iter()
            .map(|(id, w)| (brute_distance(w, &probe_world), *id))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let got = scene.mesh_distance(&probe, &place, mask, None);
        match (got, nearest) {
            (Some((id, gap)), Some((d, expected))) => {
                assert_eq!(
                    gap.distance.to_bits(),
                    reported(d).to_bits(),
                    "placement {k}"
                );
                // Another instance may lie at the same f32 distance; it must be as near.
                let at = on_mask.iter().find(|(i, _)| *i == id).expect("on the mask");
                assert_eq!(reported(brute_distance(&at.1, &probe_world)), gap.distance);
                assert!(id == expected || reported(d) == gap.distance);
                let limit = gap.distance * 0.5;
                if gap.distance > 0.0 {
                    assert_eq!(scene.mesh_distance(&probe, &place, mask, Some(limit)), None);
                }
            }
            (None, None) => {}
            other => panic!("placement {k}: {other:?}"),
        }
    }
    assert!(found >= 3, "only {found} instances met the probe");
}

#[test]
fn scene_answers_do_not_depend_on_the_number_of_threads() {
    let meshes = shapes();
    let scene = random_scene(&meshes, 40, 6.0, 4);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| scene.colliding_pairs())
    };
    let one = run(1);
    assert!(!one.is_empty());
    assert_eq!(one, run(3));
}

#[test]
fn empty_scenes_meshes_and_bad_arguments_answer_nothing() {
    let scene = Scene::new();
    let tri = mesh(cube(1.0, 1));
    assert!(scene.colliding_pairs().is_empty());
    assert!(scene.overlapping_pairs().is_empty());
    assert!(matches!(scene.nearest_instances(None, None), Ok(None)));
    assert!(matches!(
        scene.nearest_instances(Some(InstanceId::from_index(0)), None),
        Err(meshcast::MeshError::UnknownInstance { instance: 0 })
    ));
    assert!(scene
        .intersecting_instances(&tri, &Affine3A::IDENTITY, ALL_LAYERS)
        .is_empty());
    assert_eq!(
        scene.mesh_distance(&tri, &Affine3A::IDENTITY, ALL_LAYERS, None),
        None
    );
    let scene =
        Scene::from_instances([Instance::new(tri.clone(), Affine3A::IDENTITY).expect("ok")]);
    // One instance: no pair.
    assert!(matches!(scene.nearest_instances(None, None), Ok(None)));
    let only = InstanceId::from_index(0);
    assert!(matches!(
        scene.nearest_instances(Some(only), None),
        Ok(None)
    ));
    assert!(matches!(
        scene.nearest_instances(None, Some(f32::NAN)),
        Ok(None)
    ));
    let empty = Mesh::from_triangles(&[], &[]).expect("valid");
    assert!(scene
        .intersecting_instances(&empty, &Affine3A::IDENTITY, ALL_LAYERS)
        .is_empty());
    assert_eq!(
        scene.mesh_distance(&empty, &Affine3A::IDENTITY, ALL_LAYERS, None),
        None
    );
    let nan = Affine3A::from_translation(Vec3::NAN);
    assert!(scene
        .intersecting_instances(&tri, &nan, ALL_LAYERS)
        .is_empty());
    assert_eq!(scene.mesh_distance(&tri, &nan, ALL_LAYERS, None), None);
    assert_eq!(
        scene.mesh_distance(&tri, &Affine3A::IDENTITY, ALL_LAYERS, Some(-1.0)),
        None
    );
    assert_eq!(
        scene.mesh_distance(&tri, &Affine3A::IDENTITY, 0, None),
        None
    );
}
