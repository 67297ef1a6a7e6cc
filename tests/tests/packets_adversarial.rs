//! Packets built to be coherent but for one poisoned ray, or aimed at a closed mesh's shared
//! vertices and edges, along its faces, from a million units away and from inside: each batch
//! answer must be the single-ray call's, bit for bit, for a mesh, instances and a scene (the
//! checks are `packet_checks`'s, shared with `packets.rs`).

use std::array::from_fn;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Quat, Vec3};
use meshcast::{BuildOptions, Instance, InstanceId, Mesh, Ray, RayQueries, Scene, TriMesh};
use meshcast_testkit::{cube, icosphere};

use crate::packet_checks::*;

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
        let hits = rays.iter().filter(|ray| watertight.occluded(*ray)).count();
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
