//! The batch calls trace coherent neighbours together, as packets of up to eight rays, and
//! each of their answers must be the single-ray call's, bit for bit. Checked for a mesh, a
//! mirrored, turned and stretched instance and a scene, with every node kernel this CPU runs
//! and both leaf tests, plain and with every option: on camera images, shadow rays and rays
//! converging on a point, and on packets built to be coherent but for one poisoned ray, or
//! aimed at a closed mesh's shared vertices and edges, along its faces, from a million units
//! away and from inside.

use std::array::from_fn;
use std::ops::Range;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Quat, Vec3};
use meshcast::{
    Aabb, BuildOptions, Camera, Culling, Filter, Hit, Instance, InstanceId, Kernel, LeafTest, Mesh,
    MeshFiles, PointQueries, QueryOptions, Ray, RayHit, RayQueries, Scene, SceneHit, TriMesh,
};
use meshcast_testkit::{asset, cube, icosphere, same_hit, same_scene_hit};

/// Bit-for-bit equality of answers: the same triangle and the same bits of `t`, `u` and `v`
/// (in a scene, the same instance too).
trait SameHit: RayHit + std::fmt::Debug {
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
type Serial<'a, T> = &'a dyn Fn(&[Ray], &mut [T]);

/// One family of ray calls, plain or with options: the single-ray calls and the batch calls
/// held to them.
struct Calls<'a, H> {
    cast: &'a dyn Fn(&Ray) -> Option<H>,
    occluded: &'a dyn Fn(&Ray) -> bool,
    cast_batch: &'a dyn Fn(&[Ray]) -> Vec<Option<H>>,
    cast_batch_serial: Serial<'a, Option<H>>,
    occluded_batch: &'a dyn Fn(&[Ray]) -> Vec<bool>,
    occluded_batch_serial: Serial<'a, bool>,
}

/// The parts of a batch of `len` rays that the serial calls are given as batches of their
/// own: nothing, the whole batch, the batch from its fourth ray (so that every group of eight
/// starts elsewhere), and short batches of 1, 7, 9 and 63 rays on and off the grid of eight
/// (which the parallel calls are given too).
fn windows(len: usize) -> Vec<Range<usize>> {
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
fn assert_answers<T: Copy + std::fmt::Debug>(
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
fn check_calls<H: SameHit>(label: &str, rays: &[Ray], calls: &Calls<'_, H>) -> Vec<Option<H>> {
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
fn check_with<Q, F>(
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
struct Tally<H> {
    plain: Vec<Option<H>>,
    hits: usize,
    limited: usize,
    culled: usize,
    filtered: usize,
    masked: usize,
    combined: usize,
}

/// Checks the batch calls of `level` on `rays` plain and under each option they must honour:
/// a distance limit of `limit`, back-face culling, `filter` (rejecting every third triangle),
/// the layer mask `mask`, and all of them at once.
fn check_level<Q, F>(
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
fn every_third(triangle: u32) -> bool {
    !triangle.is_multiple_of(3)
}

/// Rejects every third triangle of every instance of a scene.
fn every_third_in_scene(_: InstanceId, triangle: u32) -> bool {
    !triangle.is_multiple_of(3)
}

/// `mesh` with each leaf test and each node kernel this CPU runs, named.
fn variants(mesh: &Mesh) -> Vec<(String, Mesh)> {
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
fn one_packet(rays: &[Ray]) -> bool {
    let class = |ray: &Ray| (ray.dir.is_negative_bitmask(), ray.dir.abs().max_position());
    let first = rays[0].dir.normalize();
    rays.len() == 8
        && rays
            .iter()
            .all(|ray| class(ray) == class(&rays[0]) && ray.dir.normalize().dot(first) >= 0.995)
}

/// How many of the groups of eight consecutive rays (from the first) are one packet.
fn packets_among(rays: &[Ray]) -> usize {
    rays.chunks(8).filter(|group| one_packet(group)).count()
}

/// The rays of a `width` x `height` image framing `points`, row by row.
fn image(points: &[Vec3], width: u32, height: u32) -> Vec<Ray> {
    let camera = Camera::framing_points(points, 20.0, width as f32 / height as f32);
    camera.pixel_rays(width, height).collect()
}

/// The median distance from the origin to the closest hit of those of `rays` that hit: a
/// distance limit that cuts about half the hits.
fn median_distance<Q: RayQueries>(level: &Q, rays: &[Ray]) -> f32 {
    let mut distances: Vec<f32> = rays
        .iter()
        .filter_map(|ray| Some(level.cast(ray)?.t() * ray.dir.length()))
        .collect();
    distances.sort_by(f32::total_cmp);
    distances.get(distances.len() / 2).copied().unwrap_or(1.0)
}

/// The vertices of `mesh` placed by `transform`.
fn world_vertices(mesh: &Mesh, transform: Affine3A) -> Vec<Vec3> {
    let positions = mesh.tri_mesh().positions();
    positions
        .iter()
        .map(|&p| transform.transform_point3(p))
        .collect()
}

/// Shadow rays from the hits of `rays` (`hits`, in order) towards `light`: segments that stop
/// short of the light (`t_max` < 1) and start a little off the surface.
fn shadow_rays<H: RayHit>(rays: &[Ray], hits: &[Option<H>], light: Vec3) -> Vec<Ray> {
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
fn light(bounds: Aabb) -> Vec3 {
    bounds.max + bounds.extent() * Vec3::new(2.0, 6.0, 4.0)
}

/// Rays from a grid of 29 x 17 origins on a square facing `bounds` from above and the left, all
/// aimed at its centre: one row in two stopping there (segments), the others going on.
fn converging_rays(bounds: Aabb) -> Vec<Ray> {
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
fn check_views<Q, F>(label: &str, level: &Q, points: &[Vec3], filter: F, mask: u32)
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

fn load(name: &str) -> Mesh {
    Mesh::from_obj(asset(name)).expect("the asset loads")
}

#[test]
fn camera_images_on_meshes_match_single_rays() {
    for name in ["stanford-bunny.obj", "cow.obj"] {
        let mesh = load(name);
        for (variant, mesh) in variants(&mesh) {
            let label = format!("{name}, {variant}");
            let points = world_vertices(&mesh, Affine3A::IDENTITY);
            check_views(&label, &mesh, &points, every_third, 0);
        }
    }
}

#[test]
fn a_camera_inside_a_closed_mesh_matches_single_rays() {
    let cow = load("cow.obj");
    assert!(cow.is_closed());
    let eye = cow.bounds().centroid();
    assert!(
        cow.contains(eye),
        "the centre of the cow's box lies inside it"
    );
    let camera = Camera::new(eye, eye + Vec3::new(1.0, 0.2, -0.3), Vec3::Y, 12.0, 1.5);
    let rays: Vec<Ray> = camera.pixel_rays(27, 18).collect();
    assert!(packets_among(&rays) * 2 > rays.len() / 8);
    let limit = median_distance(&cow, &rays);
    for (variant, mesh) in variants(&cow) {
        let tally = check_level(&variant, &mesh, &rays, limit, every_third, 0);
        assert_eq!(
            tally.hits,
            rays.len(),
            "{variant}: every ray from inside hits"
        );
        assert!(tally.limited > 0 && tally.culled > 0, "{variant}");
        assert!(tally.filtered > 0, "{variant}");
    }
}

/// Mirrored (a negative scale), turned and stretched.
fn askew() -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        Vec3::new(-1.3, 0.8, 2.1),
        Quat::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalize(), 0.7),
        Vec3::new(0.5, -2.0, 3.0),
    )
}

/// Mirrored and stretched along the axes only, so that axis-parallel rays stay so (with the
/// signs of their zero components turned over).
fn mirrored_along_axes() -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        Vec3::new(-2.0, 0.5, 1.5),
        Quat::IDENTITY,
        Vec3::new(0.25, -1.0, 2.0),
    )
}

#[test]
fn camera_images_on_instances_match_single_rays() {
    let bunny = load("stanford-bunny.obj");
    for (variant, mesh) in variants(&bunny) {
        let instance = Instance::new(Arc::new(mesh), askew())
            .expect("invertible")
            .with_layers(0b010);
        assert!(instance.is_mirrored());
        let label = format!("bunny instance, {variant}");
        let points = world_vertices(instance.mesh(), instance.transform());
        check_views(&label, &instance, &points, every_third, 0b011);

        // Off the mask, the instance answers nothing, in batches as one by one.
        let rays = image(&points, 29, 17);
        let elsewhere = QueryOptions::new().with_mask(0b101);
        let hits = check_with(&label, &instance, &rays, &elsewhere);
        assert!(hits.iter().all(Option::is_none));
    }
}

/// A scene of `bunny` and `cow` instances: two bunnies whose boxes overlap, a mirrored one, a
/// cow in front that is removed again and a cow overlapping them all, on layers 1, 2, 4,
/// (removed) and 1 | 4.
fn bunny_scene(bunny: &Arc<Mesh>, cow: &Arc<Mesh>) -> Scene {
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

#[test]
fn camera_images_in_scenes_match_single_rays() {
    let bunnies = variants(&load("stanford-bunny.obj"));
    let cows = variants(&load("cow.obj"));
    for ((variant, bunny), (_, cow)) in bunnies.into_iter().zip(cows) {
        let scene = bunny_scene(&Arc::new(bunny), &Arc::new(cow));
        let label = format!("bunny scene, {variant}");
        let points: Vec<Vec3> = scene
            .instances()
            .flat_map(|(_, instance)| world_vertices(instance.mesh(), instance.transform()))
            .collect();
        check_views(&label, &scene, &points, every_third_in_scene, 0b011);
        // The mask must change answers too (the mirrored bunny is on layer 4 alone).
        let rays = image(&points, 37, 29);
        let limit = median_distance(&scene, &rays);
        let tally = check_level(&label, &scene, &rays, limit, every_third_in_scene, 0b110);
        assert!(tally.masked > 0, "{label}");
    }
}

/// The grid on the faces of `cube(1.0, 3)`: coordinate `i` of 0..=8, exact in `f32`.
fn grid(i: i32) -> f32 {
    -1.0 + 0.25 * i as f32
}

/// Eight corners of the grid on the cube's top face (`z = 1`): row `j`, columns from `first`.
fn top_row(j: i32, first: i32) -> [Vec3; 8] {
    from_fn(|k| Vec3::new(grid(first + k as i32), grid(j), 1.0))
}

/// Groups of eight rays at a closed mesh: those meant to travel as one packet, among them
/// those through eight vertices from one eye, and those meant to be split (octants, dominant
/// axes).
struct Designed {
    coherent: Vec<[Ray; 8]>,
    through_vertices: Vec<[Ray; 8]>,
    split: Vec<[Ray; 8]>,
}

/// Rays at the shared vertices and edges of `cube(1.0, 3)`'s top face: through them from an
/// eye above (`t = 1` exactly at each), from an eye a million units away and straight down
/// from there, straight down (the rim ones in the planes of the side faces), from the
/// vertices inwards; along the top face, in its plane; from inside; and split packets: an eye
/// above the centre (octants), signed zeros, dominant axes.
fn cube_packets() -> Designed {
    let mut coherent = Vec::new();
    let mut through_vertices = Vec::new();
    let mut split = Vec::new();
    let eye = Vec3::new(-1.5, -1.5, 33.0);
    let centred_eye = Vec3::new(0.0, 0.0, 33.0);
    let far_eye = Vec3::new(3e5, -2e5, 1e6);
    for j in 0..=8 {
        for first in [0, 1] {
            let corners = top_row(j, first);
            let through = |eye: Vec3, shift: Vec3| corners.map(|c| Ray::new(eye, c + shift - eye));
            through_vertices.push(through(eye, Vec3::ZERO));
            coherent.push(through(eye, Vec3::new(0.125, 0.0, 0.0)));
            coherent.push(through(eye, Vec3::new(0.0, 0.125, 0.0)));
            coherent.push(through(eye, Vec3::new(0.125, 0.125, 0.0)));
            coherent.push(through(far_eye, Vec3::ZERO));
            coherent.push(corners.map(|c| Ray::new(c + Vec3::Z * 1e6, Vec3::NEG_Z)));
            let down = corners.map(|c| Ray::new(c + Vec3::Z * 2.0, Vec3::NEG_Z));
            coherent.push(down);
            coherent.push(corners.map(|c| Ray::new(c, Vec3::NEG_Z)));
            coherent.push(corners.map(|c| Ray::new(Vec3::new(-3.0, c.x, 1.0), Vec3::X)));
            let tilted = Vec3::new(1.0, -0.0, -0.01);
            coherent.push(corners.map(|c| Ray::new(Vec3::new(-3.0, c.x, 1.0), tilted)));

            split.push(through(centred_eye, Vec3::ZERO));
            // Signed zeros: one lane's, every lane's, every other lane's.
            let lane = (j + first) as usize % 8;
            let mut one = down;
            one[lane].dir.x = -0.0;
            split.push(one);
            coherent.push(down.map(|ray| Ray {
                dir: Vec3::new(-0.0, -0.0, -1.0),
                ..ray
            }));
            let mut alternate = down;
            for ray in alternate.iter_mut().step_by(2) {
                ray.dir.y = -0.0;
            }
            split.push(alternate);
        }
    }
    // From inside, towards the top face.
    let inside = Vec3::new(0.1, -0.2, 0.3);
    coherent.push(from_fn(|k| {
        let k = k as f32;
        Ray::new(inside + Vec3::X * 0.05 * k, Vec3::new(0.01 * k, 0.02, 1.0))
    }));
    // At the edge between the top and the `x = -1` faces, along the diagonal of the x and z
    // axes: four lanes x-dominant and four z-dominant, then one z-dominant among seven.
    let corner_eye = Vec3::new(-3.0, 0.1, 3.0);
    split.push(from_fn(|k| {
        let k = k as f32;
        Ray::new(
            corner_eye,
            Vec3::new(1.0, 0.01 * k - 0.03, -1.0 - 0.002 * (k - 3.5)),
        )
    }));
    split.push(from_fn(|k| {
        let z = if k == 6 { -1.001 } else { -0.999 };
        Ray::new(corner_eye, Vec3::new(1.0, 0.01 * k as f32, z))
    }));
    coherent.extend(&through_vertices);
    Designed {
        coherent,
        through_vertices,
        split,
    }
}

/// Rays at `sphere` (an icosphere of radius 1) around each of a few directions: from an eye
/// 12 units away through the eight vertices nearest the direction and through the eight
/// nearest midpoints of edges, and from inside towards it. Around the axes the eye's rays
/// cross octants.
fn sphere_packets(sphere: &TriMesh) -> Designed {
    let positions = sphere.positions();
    let mut midpoints: Vec<Vec3> = sphere
        .indices()
        .iter()
        .flat_map(|&[a, b, c]| [[a, b], [b, c], [c, a]])
        .filter(|[a, b]| a < b)
        .map(|[a, b]| (positions[a as usize] + positions[b as usize]) * 0.5)
        .collect();
    midpoints.sort_by(|a, b| a.to_array().partial_cmp(&b.to_array()).expect("finite"));
    midpoints.dedup();
    let nearest = |points: &[Vec3], direction: Vec3| -> [Vec3; 8] {
        let mut sorted = points.to_vec();
        sorted.sort_by(|a, b| a.distance(direction).total_cmp(&b.distance(direction)));
        from_fn(|k| sorted[k])
    };
    let mut coherent = Vec::new();
    let mut through_vertices = Vec::new();
    let mut split = Vec::new();
    let directions = [
        (Vec3::new(1.0, 2.0, 3.0), true),
        (Vec3::new(-2.0, 0.5, 1.0), true),
        (Vec3::new(0.3, -1.0, -0.2), true),
        (Vec3::new(-1.0, -1.2, -0.8), true),
        (Vec3::Z, false),
        (Vec3::NEG_X, false),
    ];
    for (direction, off_axis) in directions {
        let direction = direction.normalize();
        let eye = direction * 12.0;
        let through = |points: [Vec3; 8]| points.map(|p| Ray::new(eye, p - eye));
        let inside = Vec3::new(0.05, -0.1, 0.02);
        let aside = direction.any_orthonormal_vector();
        let from_inside =
            from_fn(|k| Ray::new(inside, direction + aside * (0.01 * k as f32 - 0.035)));
        let vertices = through(nearest(positions, direction));
        let edges = through(nearest(&midpoints, direction));
        if off_axis {
            through_vertices.push(vertices);
            coherent.extend([vertices, edges, from_inside]);
        } else {
            split.extend([vertices, edges, from_inside]);
        }
    }
    Designed {
        coherent,
        through_vertices,
        split,
    }
}

/// How many ways [`poisoned`] spoils a ray.
const POISONS: usize = 18;

/// Ray `ray` spoiled the `kind`th way: degenerate (NaN or infinite origin or direction, a zero
/// direction, an empty or NaN range), sent elsewhere (reversed, another dominant axis), or
/// kept in its packet with a scale, origin or range unlike its neighbours' (a tiny or huge
/// direction, an origin a million units back or at the centre of the cube and the sphere, a
/// range that stops just short of `t = 1` or holds only it).
fn poisoned(kind: usize, ray: Ray) -> Ray {
    let Ray { origin, dir, .. } = ray;
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let from = |origin: Vec3| Ray { origin, ..ray };
    let along = |dir: Vec3| Ray { dir, ..ray };
    match kind {
        0 => from(Vec3::new(nan, origin.y, origin.z)),
        1 => along(Vec3::new(dir.x, nan, dir.z)),
        2 => from(Vec3::new(origin.x, origin.y, inf)),
        3 => along(Vec3::new(-inf, dir.y, dir.z)),
        4 => along(Vec3::ZERO),
        5 => along(Vec3::splat(-0.0)),
        6 => ray.with_range(2.0, 1.0),
        7 => ray.with_range(nan, inf),
        8 => ray.with_range(inf, inf),
        9 => along(-dir),
        10 => along(Vec3::new(dir.z, dir.x, dir.y)),
        11 => along(dir * 1e-6),
        12 => along(dir * 1e6),
        13 => from(origin - dir.normalize() * 1e6),
        14 => from(Vec3::ZERO),
        15 => ray.with_range(0.0, 0.999),
        16 => ray.with_range(1.0, 1.0),
        _ => ray.with_range(0.0, 0.0),
    }
}

/// Every group of `bases` twice in a row, one lane of each copy poisoned, each way in turn,
/// the lanes moving from group to group: the other fourteen rays of each pair of groups hit.
/// Where the first ray of the first copy and the last of the second are not poisoned, the
/// sixteen rays walk as one packet (batches read them sixteen at a time from a multiple of
/// sixteen); where either is, each copy is sorted on its own.
fn poisoned_packets(bases: &[[Ray; 8]]) -> Vec<Ray> {
    let mut rays = Vec::new();
    for (b, base) in bases.iter().enumerate() {
        for kind in 0..POISONS {
            for lane in [(b + kind) % 8, (b + kind + 3) % 8] {
                let mut group = *base;
                group[lane] = poisoned(kind, group[lane]);
                rays.extend(group);
            }
        }
    }
    rays
}

/// The cube and the sphere, and for each its designed rays followed by their poisoned
/// packets, in the mesh's own space.
struct Adversarial {
    cube: TriMesh,
    sphere: TriMesh,
    cube_rays: Vec<Ray>,
    sphere_rays: Vec<Ray>,
}

fn adversarial() -> Adversarial {
    let cube = cube(1.0, 3);
    let sphere = icosphere(3);
    assert!(cube.is_closed() && sphere.is_closed());
    let mut batches = Vec::new();
    for (mesh, designed) in [(&cube, cube_packets()), (&sphere, sphere_packets(&sphere))] {
        let watertight = Mesh::from_tri_mesh(mesh.clone(), &BuildOptions::default());
        for group in &designed.coherent {
            assert!(one_packet(group), "{group:?}");
        }
        for group in &designed.split {
            assert!(!one_packet(group), "{group:?}");
        }
        // The groups through vertices whose every ray hits are poisoned, so that the
        // neighbours of each poisoned lane hit.
        let bases: Vec<[Ray; 8]> = designed
            .through_vertices
            .iter()
            .filter(|group| group.iter().all(|ray| watertight.occluded(ray)))
            .copied()
            .collect();
        assert!(bases.len() >= 4, "{} groups to poison", bases.len());
        let mut rays: Vec<Ray> = designed.coherent.iter().flatten().copied().collect();
        rays.extend(designed.split.iter().flatten());
        let hits = rays.iter().filter(|ray| watertight.occluded(ray)).count();
        assert!(
            hits * 2 > rays.len(),
            "{hits} of {} designed rays hit",
            rays.len()
        );
        // The poisoned groups go last, each pair on the grid of sixteen.
        assert_eq!(rays.len() % 8, 0);
        if !rays.len().is_multiple_of(16) {
            rays.extend(bases[0]);
        }
        rays.extend(poisoned_packets(&bases));
        batches.push(rays);
    }
    let sphere_rays = batches.pop().expect("two batches");
    let cube_rays = batches.pop().expect("two batches");
    Adversarial {
        cube,
        sphere,
        cube_rays,
        sphere_rays,
    }
}

/// The distance limit for the designed rays, in the mesh's space or the world's: past the
/// meshes from the eyes near them, short of them from the eyes far away.
const ADVERSARIAL_LIMIT: f32 = 20.0;

/// `ray` carried into the world by `transform`, range kept.
fn carried(transform: Affine3A, ray: &Ray) -> Ray {
    Ray {
        origin: transform.transform_point3(ray.origin),
        dir: transform.transform_vector3(ray.dir),
        ..*ray
    }
}

#[test]
fn adversarial_packets_on_meshes_match_single_rays() {
    let Adversarial {
        cube,
        sphere,
        cube_rays,
        sphere_rays,
    } = adversarial();
    for (name, tri_mesh, rays) in [("cube", cube, cube_rays), ("sphere", sphere, sphere_rays)] {
        let mesh = Mesh::from_tri_mesh(tri_mesh, &BuildOptions::default());
        for (variant, mesh) in variants(&mesh) {
            let label = format!("{name}, {variant}");
            let tally = check_level(&label, &mesh, &rays, ADVERSARIAL_LIMIT, every_third, 0);
            assert!(tally.hits * 2 > rays.len(), "{label}: {}", tally.hits);
            assert!(tally.limited > 0 && tally.culled > 0 && tally.filtered > 0);
            assert_eq!(tally.masked, 0, "{label}: a mesh ignores the mask");
        }
    }
}

#[test]
fn adversarial_packets_on_instances_match_single_rays() {
    let Adversarial {
        cube,
        sphere,
        cube_rays,
        sphere_rays,
    } = adversarial();
    for (name, tri_mesh, rays, transform) in [
        ("cube", cube, cube_rays, mirrored_along_axes()),
        ("sphere", sphere, sphere_rays, askew()),
    ] {
        let mesh = Mesh::from_tri_mesh(tri_mesh, &BuildOptions::default());
        let world: Vec<Ray> = rays.iter().map(|ray| carried(transform, ray)).collect();
        for (variant, mesh) in variants(&mesh) {
            let instance = Instance::new(Arc::new(mesh), transform).expect("invertible");
            let label = format!("{name} instance, {variant}");
            let tally = check_level(
                &label,
                &instance,
                &world,
                ADVERSARIAL_LIMIT,
                every_third,
                0b1,
            );
            assert!(tally.hits * 2 > world.len(), "{label}: {}", tally.hits);
            assert!(tally.limited > 0 && tally.culled > 0 && tally.filtered > 0);
        }
    }
}

#[test]
fn adversarial_packets_in_scenes_match_single_rays() {
    let Adversarial {
        cube,
        sphere,
        cube_rays,
        sphere_rays,
    } = adversarial();
    let mut rays = cube_rays;
    rays.extend(sphere_rays);
    let cubes = variants(&Mesh::from_tri_mesh(cube, &BuildOptions::default()));
    let spheres = variants(&Mesh::from_tri_mesh(sphere, &BuildOptions::default()));
    for ((variant, cube), (_, sphere)) in cubes.into_iter().zip(spheres) {
        let (cube, sphere) = (Arc::new(cube), Arc::new(sphere));
        let place = |mesh: &Arc<Mesh>, transform: Affine3A, layers: u32| {
            Instance::new(Arc::clone(mesh), transform)
                .expect("invertible")
                .with_layers(layers)
        };
        // The cube as it is (the designed rays hit its vertices exactly), a sphere that
        // overlaps it, the cube mirrored onto itself, a sphere in front (removed), and the
        // cube turned a quarter onto itself.
        let mut scene = Scene::from_instances([
            place(&cube, Affine3A::IDENTITY, 0b001),
            place(
                &sphere,
                Affine3A::from_scale_rotation_translation(
                    Vec3::splat(1.1),
                    Quat::IDENTITY,
                    Vec3::new(0.5, 0.3, 0.2),
                ),
                0b010,
            ),
            place(
                &cube,
                Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
                0b100,
            ),
            place(&sphere, Affine3A::from_translation(Vec3::Z * 1.5), 0b001),
            place(
                &cube,
                Affine3A::from_rotation_z(0.5 * std::f32::consts::PI),
                0b011,
            ),
        ]);
        scene.remove(InstanceId::from_index(3)).expect("present");
        let label = format!("scene, {variant}");
        let tally = check_level(
            &label,
            &scene,
            &rays,
            ADVERSARIAL_LIMIT,
            every_third_in_scene,
            0b110,
        );
        assert!(tally.hits * 2 > rays.len(), "{label}: {}", tally.hits);
        assert!(tally.limited > 0 && tally.culled > 0 && tally.filtered > 0);
        assert!(tally.masked > 0, "{label}");
    }
}
