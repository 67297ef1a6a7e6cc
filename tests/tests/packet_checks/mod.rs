//! What the packet tests share: the single-ray and batch calls of a level, the checks that
//! hold every batch answer to its single ray, and the meshes, scenes, views and transforms
//! they run on.

use std::ops::Range;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Quat, Vec3};
use meshcast::{
    Aabb, Camera, Culling, Filter, Hit, Instance, InstanceId, Kernel, LeafTest, Mesh, MeshFiles,
    QueryOptions, Ray, RayHit, RayQueries, Scene, SceneHit,
};
use meshcast_testkit::{asset, same_hit, same_scene_hit};

/// Bit-for-bit equality of answers: the same triangle and the same bits of `t`, `u` and `v`
/// (in a scene, the same instance too).
pub(crate) trait SameHit: RayHit + std::fmt::Debug {
    fn same(a: Option<Self>, b: Option<Self>) -> bool;
}

impl SameHit for Hit {
    fn same(a: Option<Self>, b: Option<Self>) -> bool {
        same_hit(a, b)
    }
}

impl SameHit for SceneHit {
    fn same(a: Option<Self>, b: Option<Self>) -> bool {
        same_scene_hit(a, b)
    }
}

/// A serial batch call: the rays, and where it writes one answer per ray.
pub(crate) type Serial<'a, T> = &'a dyn Fn(&[Ray], &mut [T]);

/// One family of ray calls, plain or with options: the single-ray calls and the batch calls
/// held to them.
pub(crate) struct Calls<'a, H> {
    pub(crate) cast: &'a dyn Fn(&Ray) -> Option<H>,
    pub(crate) occluded: &'a dyn Fn(&Ray) -> bool,
    pub(crate) cast_batch: &'a dyn Fn(&[Ray]) -> Vec<Option<H>>,
    pub(crate) cast_batch_serial: Serial<'a, Option<H>>,
    pub(crate) occluded_batch: &'a dyn Fn(&[Ray]) -> Vec<bool>,
    pub(crate) occluded_batch_serial: Serial<'a, bool>,
}

/// The parts of a batch of `len` rays that the serial calls are given as batches of their
/// own: nothing, the whole batch, the batch from its fourth ray (so that every group of eight
/// starts elsewhere), and short batches of 1, 7, 9 and 63 rays on and off the grid of eight
/// (which the parallel calls are given too).
pub(crate) fn windows(len: usize) -> Vec<Range<usize>> {
    let mut windows = vec![0..0, 0..len, len.min(3)..len];
    for start in [0, 5, 8] {
        for count in [1, 7, 9, 63] {
            if start + count <= len {
                windows.push(start..start + count);
            }
        }
    }
    windows
}

/// Asserts that `found`, a batch call's answers to the rays `part` of `rays`, are the
/// single-ray answers `expected[part]` (equal by `same`).
pub(crate) fn assert_answers<T: Copy + std::fmt::Debug>(
    label: &str,
    call: &str,
    rays: &[Ray],
    part: &Range<usize>,
    found: &[T],
    expected: &[T],
    same: impl Fn(T, T) -> bool,
) {
    assert_eq!(
        found.len(),
        part.len(),
        "{label}: {call}: one answer per ray"
    );
    for (i, (a, b)) in found.iter().zip(&expected[part.clone()]).enumerate() {
        let index = part.start + i;
        assert!(
            same(*a, *b),
            "{label}: {call} of rays {part:?}: ray {index} {:?}: batch {a:?}, single {b:?}",
            rays[index]
        );
    }
}

/// Checks every batch call of `calls` on `rays` (and on [`windows`] of it) against the
/// single-ray calls; returns the closest hits.
pub(crate) fn check_calls<H: SameHit>(
    label: &str,
    rays: &[Ray],
    calls: &Calls<'_, H>,
) -> Vec<Option<H>> {
    let hits: Vec<Option<H>> = rays.iter().map(|ray| (calls.cast)(ray)).collect();
    let occluded: Vec<bool> = rays.iter().map(|ray| (calls.occluded)(ray)).collect();
    let check_hits = |call: &str, part: &Range<usize>, found: &[Option<H>]| {
        assert_answers(label, call, rays, part, found, &hits, H::same);
    };
    let check_flags = |call: &str, part: &Range<usize>, found: &[bool]| {
        assert_answers(label, call, rays, part, found, &occluded, |a, b| a == b);
    };
    let whole = 0..rays.len();
    check_hits("cast_batch", &whole, &(calls.cast_batch)(rays));
    check_flags("occluded_batch", &whole, &(calls.occluded_batch)(rays));
    // The serial calls start from wrong answers, so that one left unwritten shows.
    let some_hit = hits.iter().flatten().next().copied();
    for part in windows(rays.len()) {
        let part_rays = &rays[part.clone()];
        if part.len() < 64 {
            check_hits("cast_batch", &part, &(calls.cast_batch)(part_rays));
            check_flags("occluded_batch", &part, &(calls.occluded_batch)(part_rays));
        }
        let mut found: Vec<Option<H>> = hits[part.clone()]
            .iter()
            .map(|hit| if hit.is_some() { None } else { some_hit })
            .collect();
        (calls.cast_batch_serial)(part_rays, &mut found);
        check_hits("cast_batch_serial", &part, &found);
        let mut found: Vec<bool> = occluded[part.clone()].iter().map(|o| !o).collect();
        (calls.occluded_batch_serial)(part_rays, &mut found);
        check_flags("occluded_batch_serial", &part, &found);
    }
    hits
}

/// [`check_calls`] with the `*_with` calls and `options`.
pub(crate) fn check_with<Q, F>(
    label: &str,
    level: &Q,
    rays: &[Ray],
    options: &QueryOptions<F>,
) -> Vec<Option<Q::Hit>>
where
    Q: RayQueries,
    Q::Hit: SameHit,
    F: Filter<Q::Candidate> + Sync,
{
    check_calls(
        label,
        rays,
        &Calls {
            cast: &|ray| level.cast_with(ray, options),
            occluded: &|ray| level.occluded_with(ray, options),
            cast_batch: &|rays| level.cast_batch_with(rays, options),
            cast_batch_serial: &|rays, hits| level.cast_batch_serial_with(rays, options, hits),
            occluded_batch: &|rays| level.occluded_batch_with(rays, options),
            occluded_batch_serial: &|rays, hits| {
                level.occluded_batch_serial_with(rays, options, hits);
            },
        },
    )
}

/// What one level answered on a batch, plain, and how many answers each option changed: so
/// that callers can check the rays tested something.
pub(crate) struct Tally<H> {
    pub(crate) plain: Vec<Option<H>>,
    pub(crate) hits: usize,
    pub(crate) limited: usize,
    pub(crate) culled: usize,
    pub(crate) filtered: usize,
    pub(crate) masked: usize,
    pub(crate) combined: usize,
}

/// Checks the batch calls of `level` on `rays` plain and under each option they must honour:
/// a distance limit of `limit`, back-face culling, `filter` (rejecting every third triangle),
/// the layer mask `mask`, and all of them at once.
pub(crate) fn check_level<Q, F>(
    label: &str,
    level: &Q,
    rays: &[Ray],
    limit: f32,
    filter: F,
    mask: u32,
) -> Tally<Q::Hit>
where
    Q: RayQueries,
    Q::Hit: SameHit,
    F: Filter<Q::Candidate> + Copy + Sync,
{
    let plain = check_calls(
        &format!("{label}, plain"),
        rays,
        &Calls {
            cast: &|ray| level.cast(ray),
            occluded: &|ray| level.occluded(ray),
            cast_batch: &|rays| level.cast_batch(rays),
            cast_batch_serial: &|rays, hits| level.cast_batch_serial(rays, hits),
            occluded_batch: &|rays| level.occluded_batch(rays),
            occluded_batch_serial: &|rays, hits| level.occluded_batch_serial(rays, hits),
        },
    );
    let changed = |answers: Vec<Option<Q::Hit>>| {
        answers
            .iter()
            .zip(&plain)
            .filter(|(a, b)| !Q::Hit::same(**a, **b))
            .count()
    };
    let options = QueryOptions::new();
    let limited = changed(check_with(
        &format!("{label}, max distance {limit}"),
        level,
        rays,
        &options.with_max_distance(limit),
    ));
    let culled = changed(check_with(
        &format!("{label}, back faces culled"),
        level,
        rays,
        &options.with_culling(Culling::BackFaces),
    ));
    let filtered = changed(check_with(
        &format!("{label}, filtered"),
        level,
        rays,
        &options.with_filter(filter),
    ));
    let masked = changed(check_with(
        &format!("{label}, mask {mask:#b}"),
        level,
        rays,
        &options.with_mask(mask),
    ));
    let every_option = options
        .with_max_distance(limit)
        .with_culling(Culling::BackFaces)
        .with_mask(mask)
        .with_filter(filter);
    let combined = changed(check_with(
        &format!("{label}, every option"),
        level,
        rays,
        &every_option,
    ));
    let hits = plain.iter().flatten().count();
    Tally {
        plain,
        hits,
        limited,
        culled,
        filtered,
        masked,
        combined,
    }
}

/// Rejects every third triangle of a mesh or an instance.
pub(crate) fn every_third(triangle: u32) -> bool {
    !triangle.is_multiple_of(3)
}

/// Rejects every third triangle of every instance of a scene.
pub(crate) fn every_third_in_scene(_: InstanceId, triangle: u32) -> bool {
    !triangle.is_multiple_of(3)
}

/// `mesh` with each leaf test and each node kernel this CPU runs, named.
pub(crate) fn variants(mesh: &Mesh) -> Vec<(String, Mesh)> {
    let mut variants = Vec::new();
    for leaf_test in [LeafTest::Watertight, LeafTest::Transform] {
        let laid_out = mesh.clone().with_leaf_test(leaf_test);
        for kernel in Kernel::supported() {
            let mut variant = laid_out.clone();
            variant.set_kernel(kernel).expect("a supported kernel");
            variants.push((format!("{kernel}, {leaf_test:?}"), variant));
        }
    }
    variants
}

/// Whether eight rays would travel as one packet by the rule the batch calls group them
/// with: the same signs of their direction's components (`-0.0` counted negative) and the
/// same dominant axis, and directions within about 5.7 degrees of the first one's (the rule
/// allows about 8).
pub(crate) fn one_packet(rays: &[Ray]) -> bool {
    let class = |ray: &Ray| (ray.dir.is_negative_bitmask(), ray.dir.abs().max_position());
    let first = rays[0].dir.normalize();
    rays.len() == 8
        && rays
            .iter()
            .all(|ray| class(ray) == class(&rays[0]) && ray.dir.normalize().dot(first) >= 0.995)
}

/// How many of the groups of eight consecutive rays (from the first) are one packet.
pub(crate) fn packets_among(rays: &[Ray]) -> usize {
    rays.chunks(8).filter(|group| one_packet(group)).count()
}

/// The rays of a `width` x `height` image framing `points`, row by row.
pub(crate) fn image(points: &[Vec3], width: u32, height: u32) -> Vec<Ray> {
    let camera = Camera::framing_points(points, 20.0, width as f32 / height as f32);
    camera.pixel_rays(width, height).collect()
}

/// The median distance from the origin to the closest hit of those of `rays` that hit: a
/// distance limit that cuts about half the hits.
pub(crate) fn median_distance<Q: RayQueries>(level: &Q, rays: &[Ray]) -> f32 {
    let mut distances: Vec<f32> = rays
        .iter()
        .filter_map(|ray| Some(level.cast(ray)?.t() * ray.dir.length()))
        .collect();
    distances.sort_by(f32::total_cmp);
    distances.get(distances.len() / 2).copied().unwrap_or(1.0)
}

/// The vertices of `mesh` placed by `transform`.
pub(crate) fn world_vertices(mesh: &Mesh, transform: Affine3A) -> Vec<Vec3> {
    let positions = mesh.tri_mesh().positions();
    positions
        .iter()
        .map(|&p| transform.transform_point3(p))
        .collect()
}

/// Shadow rays from the hits of `rays` (`hits`, in order) towards `light`: segments that stop
/// short of the light (`t_max` < 1) and start a little off the surface.
pub(crate) fn shadow_rays<H: RayHit<Scalar = f32>>(
    rays: &[Ray],
    hits: &[Option<H>],
    light: Vec3,
) -> Vec<Ray> {
    rays.iter()
        .zip(hits)
        .filter_map(|(ray, hit)| {
            let p = ray.at(hit.as_ref()?.t());
            Some(Ray::new(p, light - p).with_range(1e-4, 0.999))
        })
        .collect()
}

/// The one light of the shadow rays: above, right and in front of `bounds`, far enough for
/// neighbouring shadow rays to travel as packets.
pub(crate) fn light(bounds: Aabb) -> Vec3 {
    bounds.max + bounds.extent() * Vec3::new(2.0, 6.0, 4.0)
}

/// Rays from a grid of 29 x 17 origins on a square facing `bounds` from above and the left, all
/// aimed at its centre: one row in two stopping there (segments), the others going on.
pub(crate) fn converging_rays(bounds: Aabb) -> Vec<Ray> {
    let target = bounds.centroid();
    let size = bounds.extent().length();
    let away = Vec3::new(-0.4, 1.0, 0.3).normalize();
    let right = away.any_orthonormal_vector();
    let up = away.cross(right);
    let mut rays = Vec::new();
    for row in 0..17 {
        for column in 0..29 {
            let (x, y) = (column as f32 / 28.0 - 0.5, row as f32 / 16.0 - 0.5);
            let origin = target + away * 3.0 * size + (right * x + up * y) * 0.6 * size;
            rays.push(if row % 2 == 0 {
                Ray::segment(origin, target)
            } else {
                Ray::new(origin, target - origin)
            });
        }
    }
    rays
}

/// Checks `level` (whose vertices in the world are `points`) on a camera image of 45 x 29
/// pixels, shadow rays from its hits towards one light, and rays converging on its centre.
pub(crate) fn check_views<Q, F>(label: &str, level: &Q, points: &[Vec3], filter: F, mask: u32)
where
    Q: RayQueries,
    Q::Hit: SameHit,
    F: Filter<Q::Candidate> + Copy + Sync,
{
    let bounds = Aabb::from_points(points.iter().copied());
    let rays = image(points, 45, 29);
    assert!(
        packets_among(&rays) * 2 > rays.len() / 8,
        "{label}: coherent"
    );
    let depth = median_distance(level, &rays);
    let camera_label = format!("{label}, camera");
    let tally = check_level(&camera_label, level, &rays, depth, filter, mask);
    let counts = (tally.hits, tally.limited, tally.filtered, tally.combined);
    assert!(tally.hits * 4 > rays.len(), "{label}: {counts:?}");
    assert!(
        tally.limited > 0 && tally.limited < tally.hits,
        "{label}: {counts:?}"
    );
    assert!(
        tally.filtered > 0 && tally.combined > 0,
        "{label}: {counts:?}"
    );

    let light = light(bounds);
    let shadows = shadow_rays(&rays, &tally.plain, light);
    let packets = packets_among(&shadows);
    assert!(
        packets * 3 > shadows.len() / 8,
        "{label}: {packets} shadow packets"
    );
    let reach = median_distance(level, &shadows);
    let shadow = check_level(
        &format!("{label}, shadows"),
        level,
        &shadows,
        reach,
        filter,
        mask,
    );
    assert!(
        shadow.hits > 0 && shadow.hits < shadows.len(),
        "{label}: {} of {} in shadow",
        shadow.hits,
        shadows.len()
    );

    let converging = converging_rays(bounds);
    assert!(
        packets_among(&converging) * 2 > converging.len() / 8,
        "{label}"
    );
    let distance = median_distance(level, &converging);
    let tally = check_level(
        &format!("{label}, converging"),
        level,
        &converging,
        distance,
        filter,
        mask,
    );
    let counts = (tally.hits, tally.limited, tally.filtered);
    assert!(tally.hits * 4 > converging.len(), "{label}: {counts:?}");
    assert!(
        tally.limited > 0 && tally.filtered > 0,
        "{label}: {counts:?}"
    );
}

pub(crate) fn load(name: &str) -> Mesh {
    Mesh::from_obj(asset(name)).expect("the asset loads")
}

/// Mirrored (a negative scale), turned and stretched.
pub(crate) fn askew() -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        Vec3::new(-1.3, 0.8, 2.1),
        Quat::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalize(), 0.7),
        Vec3::new(0.5, -2.0, 3.0),
    )
}

/// Mirrored and stretched along the axes only, so that axis-parallel rays stay so (with the
/// signs of their zero components turned over).
pub(crate) fn mirrored_along_axes() -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        Vec3::new(-2.0, 0.5, 1.5),
        Quat::IDENTITY,
        Vec3::new(0.25, -1.0, 2.0),
    )
}

/// A scene of `bunny` and `cow` instances: two bunnies whose boxes overlap, a mirrored one, a
/// cow in front that is removed again and a cow overlapping them all, on layers 1, 2, 4,
/// (removed) and 1 | 4.
pub(crate) fn bunny_scene(bunny: &Arc<Mesh>, cow: &Arc<Mesh>) -> Scene {
    let bounds = bunny.bounds();
    let centre = bounds.centroid();
    let extent = bounds.extent();
    let cow_scale = extent.max_element() / cow.bounds().extent().max_element();
    let around_centre = |transform: Affine3A| {
        Affine3A::from_translation(centre) * transform * Affine3A::from_translation(-centre)
    };
    let place = |mesh: &Arc<Mesh>, transform: Affine3A, layers: u32| {
        Instance::new(Arc::clone(mesh), transform)
            .expect("invertible")
            .with_layers(layers)
    };
    let shifted = Affine3A::from_translation(extent * Vec3::new(0.3, 0.1, -0.2));
    let mirrored = around_centre(Affine3A::from_scale_rotation_translation(
        Vec3::new(-1.0, 1.0, 1.0),
        Quat::from_rotation_y(0.4),
        Vec3::new(0.0, 0.0, 0.2 * extent.z),
    ));
    let cow_at = |offset: Vec3| {
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(cow_scale),
            Quat::from_rotation_y(1.0),
            centre + offset - cow.bounds().centroid() * cow_scale,
        )
    };
    let mut scene = Scene::from_instances([
        place(bunny, Affine3A::IDENTITY, 0b001),
        place(bunny, shifted, 0b010),
        place(bunny, mirrored, 0b100),
        place(cow, cow_at(extent * Vec3::new(0.0, 0.0, 1.0)), 0b001),
        place(cow, cow_at(extent * Vec3::new(-0.3, 0.2, -0.1)), 0b101),
    ]);
    scene
        .remove(InstanceId::from_index(3))
        .expect("the cow in front is there");
    scene
}
