//! Every ray query at every level, through one generic helper: `Mesh`, `Instance` and `Scene`
//! answer `cast`, `occluded`, `cast_all` and their batches, plain and with options, and each
//! agrees with a brute-force loop and with the others, bit for bit, on one thread and on two.
//! A level that lacked a query would not compile here.

use std::fmt::Debug;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Vec3};
use meshcast::{
    Contacts, Filter, Hit, HitLists, Instance, InstanceId, Mesh, MeshFiles, QueryOptions, Ray,
    RayHit, RayQueries, Scene, SceneHit, Triangle,
};
use meshcast_testkit::{
    adversarial_rays, asset, brute_force_cast_all, brute_force_scene_cast_all, random_rays,
    random_transform, rng,
};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// The exact text of a value: floats print their shortest round-trip form, so equal text is
/// equal bits (`-0.0` and `0.0` differ).
fn bits<T: Debug>(value: &T) -> String {
    format!("{value:?}")
}

/// Calls every query of `level` on `rays` and checks it:
/// - `cast_all` equals `reference` (a brute-force list of every hit, in hit order);
/// - `cast` comes no later than the first of `cast_all`, `occluded` says whether it hits;
/// - the `*_with` forms with `options` (by the tie rule, so that `cast_with` is the first of
///   `cast_all_with`) answer the brute-force hits that `kept` accepts;
/// - `cast_all_with` capped by [`QueryOptions::with_max_hits`], with and without the other
///   options, answers the first hits of those lists;
/// - every batch, plain and with options, equals its single-ray calls on one and two threads.
///
/// Returns how many rays hit, so callers can check the rays tested something.
fn check_every_query<Q, F>(
    level: &Q,
    rays: &[Ray],
    options: &QueryOptions<F>,
    reference: impl Fn(&Ray) -> Vec<Q::Hit>,
    kept: impl Fn(&Ray, &Q::Hit) -> bool,
) -> usize
where
    Q: RayQueries,
    F: Filter<Q::Candidate> + Sync + Copy,
{
    let mut hit_rays = 0;
    for ray in rays {
        let all = level.cast_all(ray);
        assert_eq!(bits(&all), bits(&reference(ray)), "cast_all {ray:?}");
        assert_eq!(level.count(ray), all.len(), "count {ray:?}");
        for max_hits in MAX_HITS {
            let first = &all[..all.len().min(max_hits)];
            let capped = QueryOptions::new().with_max_hits(max_hits);
            let answer = level.cast_all_with(ray, &capped);
            assert_eq!(bits(&answer), bits(&first), "max_hits {max_hits} {ray:?}");
            assert_eq!(
                level.count_with(ray, &capped),
                first.len(),
                "count, {max_hits}"
            );
        }
        assert!(all.is_sorted_by(|a, b| a.order(b).is_le()), "{ray:?}");
        // Contacts hit too (the default): never later than the first crossing.
        let hit = level.cast(ray);
        assert_eq!(level.occluded(ray), hit.is_some(), "occluded {ray:?}");
        if let Some(first) = all.first() {
            let t = |hit: &Q::Hit| hit.order(first).is_le();
            assert!(hit.as_ref().is_some_and(t), "cast {ray:?}");
        }
        hit_rays += usize::from(!all.is_empty());

        let expected: Vec<Q::Hit> = all.into_iter().filter(|hit| kept(ray, hit)).collect();
        let all_with = level.cast_all_with(ray, options);
        assert_eq!(bits(&all_with), bits(&expected), "cast_all_with {ray:?}");
        assert_eq!(
            level.count_with(ray, options),
            expected.len(),
            "count_with {ray:?}"
        );
        for max_hits in MAX_HITS {
            let first = &expected[..expected.len().min(max_hits)];
            let answer = level.cast_all_with(ray, &options.with_max_hits(max_hits));
            assert_eq!(
                bits(&answer),
                bits(&first),
                "options, max_hits {max_hits} {ray:?}"
            );
        }
        let first = all_with.first();
        assert_eq!(bits(&level.cast_with(ray, options)), bits(&first));
        assert_eq!(level.occluded_with(ray, options), first.is_some());
    }

    let single = |query: &dyn Fn(&Ray) -> String| rays.iter().map(query).collect::<Vec<_>>();
    let lists = |lists: HitLists<Q::Hit>| {
        assert_eq!(lists.len(), rays.len());
        assert_eq!(lists.offsets().len(), rays.len() + 1);
        lists.iter().map(|hits| bits(&hits)).collect::<Vec<_>>()
    };
    for threads in [1, 2] {
        pool(threads).install(|| {
            let strings =
                |answers: Vec<Option<Q::Hit>>| answers.iter().map(bits).collect::<Vec<_>>();
            let flags = |answers: Vec<bool>| answers.iter().map(bits).collect::<Vec<_>>();
            assert_eq!(
                strings(level.cast_batch(rays)),
                single(&|ray| bits(&level.cast(ray))),
                "cast_batch, {threads} threads"
            );
            assert_eq!(
                strings(level.cast_batch_with(rays, options)),
                single(&|ray| bits(&level.cast_with(ray, options))),
                "cast_batch_with, {threads} threads"
            );
            assert_eq!(
                flags(level.occluded_batch(rays)),
                single(&|ray| bits(&level.occluded(ray))),
                "occluded_batch, {threads} threads"
            );
            assert_eq!(
                flags(level.occluded_batch_with(rays, options)),
                single(&|ray| bits(&level.occluded_with(ray, options))),
                "occluded_batch_with, {threads} threads"
            );
            assert_eq!(
                lists(level.cast_all_batch(rays)),
                single(&|ray| bits(&level.cast_all(ray).as_slice())),
                "cast_all_batch, {threads} threads"
            );
            assert_eq!(
                lists(level.cast_all_batch_with(rays, options)),
                single(&|ray| bits(&level.cast_all_with(ray, options).as_slice())),
                "cast_all_batch_with, {threads} threads"
            );
            let counts =
                |counts: Vec<u32>| counts.into_iter().map(|c| c as usize).collect::<Vec<_>>();
            assert_eq!(
                counts(level.count_batch(rays)),
                rays.iter().map(|ray| level.count(ray)).collect::<Vec<_>>(),
                "count_batch, {threads} threads"
            );
            assert_eq!(
                counts(level.count_batch_with(rays, options)),
                rays.iter()
                    .map(|ray| level.count_with(ray, options))
                    .collect::<Vec<_>>(),
                "count_batch_with, {threads} threads"
            );
            let capped = options.with_max_hits(2);
            assert_eq!(
                lists(level.cast_all_batch_with(rays, &capped)),
                single(&|ray| bits(&level.cast_all_with(ray, &capped).as_slice())),
                "cast_all_batch_with, max_hits 2, {threads} threads"
            );
        });
    }
    assert!(level.cast_batch(&[]).is_empty());
    assert!(level.cast_all_batch(&[]).is_empty());
    hit_rays
}

/// Random rays around `bounds` and adversarial rays at `triangles`.
fn rays_at(bounds: meshcast::Aabb, triangles: &[Triangle], seed: u64) -> Vec<Ray> {
    let mut rays = random_rays(bounds, 400, seed);
    rays.extend(adversarial_rays(triangles, 400, seed + 1));
    rays
}

/// Whether `hit` lies within `limit` world units of `ray`'s origin, as the options cut it.
fn within(ray: &Ray, t: f32, limit: f32) -> bool {
    t <= limit / ray.dir.length()
}

const LIMIT: f32 = 2.0;

/// The caps on every-hit queries checked: none, one, a few, more than most rays hit.
const MAX_HITS: [usize; 5] = [0, 1, 2, 3, 12];

fn cow() -> Arc<Mesh> {
    Arc::new(Mesh::from_obj(asset("cow.obj")).expect("the cow loads"))
}

#[test]
fn a_mesh_answers_every_query() {
    let mesh = cow();
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let options = QueryOptions::new()
        .with_contacts(Contacts::TieRule)
        .with_max_distance(LIMIT)
        .with_filter(|triangle: u32| !triangle.is_multiple_of(3));
    let rays = rays_at(mesh.bounds(), &triangles, 10);
    let hits = check_every_query(
        mesh.as_ref(),
        &rays,
        &options,
        |ray| brute_force_cast_all(&triangles, ray),
        |ray, hit: &Hit| !hit.triangle.is_multiple_of(3) && within(ray, hit.t, LIMIT),
    );
    assert!(hits > rays.len() / 4, "{hits} of {} rays hit", rays.len());
}

#[test]
fn an_instance_answers_every_query() {
    let mesh = cow();
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let mut random = rng(11);
    // A mirroring transform, so that the carried ray and the flipped winding are both used.
    let transform =
        random_transform(&mut random, 3.0) * Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let instance = Instance::new(Arc::clone(&mesh), transform)
        .expect("invertible")
        .with_layers(0b110);
    let options = QueryOptions::new()
        .with_contacts(Contacts::TieRule)
        .with_max_distance(LIMIT)
        .with_mask(0b010)
        .with_filter(|triangle: u32| triangle % 4 != 1);
    let world: Vec<Triangle> = (0..triangles.len())
        .filter_map(|i| instance.world_triangle(i))
        .collect();
    let rays = rays_at(instance.bounds(), &world, 12);
    let hits = check_every_query(
        &instance,
        &rays,
        &options,
        |ray| brute_force_cast_all(&triangles, &instance.to_local(ray)),
        |ray, hit: &Hit| hit.triangle % 4 != 1 && within(ray, hit.t, LIMIT),
    );
    assert!(hits > rays.len() / 4, "{hits} of {} rays hit", rays.len());

    // Off the mask, an instance answers nothing with options and everything without.
    let elsewhere = QueryOptions::new().with_mask(0b001);
    let through = rays
        .iter()
        .find(|ray| instance.occluded(*ray))
        .expect("a hit");
    assert!(!instance.occluded_with(through, &elsewhere));
    assert!(instance.cast_all_with(through, &elsewhere).is_empty());
}

#[test]
fn a_scene_answers_every_query() {
    let mesh = cow();
    let mut random = rng(13);
    let scene = Scene::from_instances((0..8u32).map(|i| {
        Instance::new(Arc::clone(&mesh), random_transform(&mut random, 1.5))
            .expect("invertible")
            .with_layers(1 << (i % 2))
    }));
    let hidden = InstanceId::from_index(5);
    let keep = move |id: InstanceId, triangle: u32| id != hidden && !triangle.is_multiple_of(5);
    let options = QueryOptions::new()
        .with_contacts(Contacts::TieRule)
        .with_max_distance(LIMIT)
        .with_mask(0b01)
        .with_filter(keep);
    let world: Vec<Triangle> = scene
        .instances()
        .flat_map(|(_, instance)| {
            (0..instance.mesh().triangle_count()).filter_map(|i| instance.world_triangle(i))
        })
        .collect();
    let rays = rays_at(scene.bounds(), &world, 14);
    let on_mask = |hit: &SceneHit| {
        scene
            .instance(hit.instance)
            .is_some_and(|instance| instance.layers() & 0b01 != 0)
    };
    let hits = check_every_query(
        &scene,
        &rays,
        &options,
        |ray| brute_force_scene_cast_all(&scene, ray, |_, _| true),
        |ray, hit: &SceneHit| {
            keep(hit.instance, hit.hit.triangle) && on_mask(hit) && within(ray, hit.t(), LIMIT)
        },
    );
    assert!(hits > rays.len() / 4, "{hits} of {} rays hit", rays.len());
}

#[test]
fn signed_zero_hits_tie_and_cast_is_the_first_of_cast_all() {
    // Two instances of one triangle in the same place, one mirrored through its plane, and a
    // ray starting exactly on both (t = 0, in a range that starts at -1): the mirror turns
    // the carried ray around, so one hit is at 0.0 and the other at -0.0. They tie, and the
    // smaller id comes first.
    let tri = Arc::new(
        Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
            .expect("a triangle"),
    );
    let scene = Scene::from_instances([
        Instance::new(Arc::clone(&tri), Affine3A::IDENTITY).expect("ok"),
        Instance::new(tri, Affine3A::from_scale(Vec3::new(1.0, 1.0, -1.0))).expect("ok"),
    ]);
    let mut signs_seen = [false; 2];
    for dir in [Vec3::Z, Vec3::NEG_Z] {
        let ray = Ray::new(Vec3::new(0.25, 0.25, 0.0), dir).with_range(-1.0, 1.0);
        let all = scene.cast_all(&ray);
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0].instance.index(), 0, "{all:?}");
        assert_eq!(bits(&scene.cast(&ray)), bits(&all.first()));
        for hit in &all {
            assert_eq!(hit.hit.t, 0.0);
            signs_seen[usize::from(hit.hit.t.is_sign_negative())] = true;
        }
    }
    assert_eq!(signs_seen, [true, true], "both signs of zero were tested");
}
