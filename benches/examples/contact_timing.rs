//! Times the mesh-against-mesh queries on one mesh (the Stanford bunny by default) against a
//! copy of itself, and its self-intersections:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example contact_timing -- [MESH] [--subdivide L] [--threads N] [--only TEXT]
//! ```
//!
//! Placements: `overlapping` (the copy turned 0.3 rad about y and moved a tenth of the mesh's
//! size along x, so the surfaces cross), `barely overlapping` (turned, and moved as far
//! along x as it can while the surfaces still meet, to a millionth of the size), `apart` (moved 1.2 sizes along x) and `touching`
//! (the copy on top of itself); and `50 random poses`, the copy turned about its centre by
//! 50 seeded random rotations and moved by up to a fifth of the size along each axis (the
//! poses of `bindings/python/benchmarks/collision_vs_fcl.py`), one line for all 50. Each query runs until a second has passed (at least three
//! times); the median time and queries per second are printed. The walks of
//! `intersecting_pairs` and `self_intersections` run on rayon's threads (`--threads`, or
//! every core); the others are one walk each. `--only` keeps the lines whose name holds
//! `TEXT` (for a profiler); `--subdivide L` splits every triangle in four `L` times first
//! (the bunny's 69,451 triangles become 1.1 million at `L = 2`). `rebuild, then intersects`
//! is what a user without the dual walk would do: carry the copy's vertices into the first
//! mesh's space, build a tree over them, then walk both trees as they stand. A measurement,
//! not a benchmark.

use glam::{Affine3A, Quat, Vec3};
use meshcast::{BuildOptions, Instance, Mesh, MeshFiles};
use meshcast_benches::{median_run, MedianRun, TimingArgs};
use meshcast_testkit::{random_direction, rng, transformed};
use rand::Rng;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args = TimingArgs::from_env();
    let only = args.value("--only").unwrap_or_default().to_owned();
    let path = args.mesh_path();
    let pool = args.pool()?;
    let levels = args
        .value("--subdivide")
        .map(|n| n.parse::<u32>())
        .transpose()?;
    let mut mesh = Mesh::from_path(&path)?;
    if let Some(levels) = levels {
        mesh = Mesh::from_tri_mesh(mesh.tri_mesh().subdivide(levels)?, &BuildOptions::default());
    }
    println!(
        "{}: {} triangles, {} rayon threads",
        path.display(),
        mesh.triangle_count(),
        pool.current_num_threads()
    );
    let size = mesh.bounds().extent().max_element();
    let centre = mesh.bounds().centroid();
    let turned = |offset: Vec3| {
        Affine3A::from_translation(centre + offset)
            * Affine3A::from_rotation_y(0.3)
            * Affine3A::from_translation(-centre)
    };
    // The copy moved along x until the surfaces barely meet: the largest shift (to a
    // millionth of the size) at which they still intersect.
    let (mut meets, mut apart) = (0.0, 2.0 * size);
    while apart - meets > 1e-6 * size {
        let middle = 0.5 * (meets + apart);
        if mesh.intersects(&mesh, &turned(Vec3::X * middle)) {
            meets = middle;
        } else {
            apart = middle;
        }
    }
    let placements = [
        ("overlapping", turned(Vec3::X * 0.1 * size)),
        ("barely overlapping", turned(Vec3::X * meets)),
        ("apart", turned(Vec3::X * 1.2 * size)),
        ("touching", Affine3A::IDENTITY),
    ];
    let mut random = rng(50);
    let poses: Vec<Affine3A> = (0..50)
        .map(|_| {
            let axis = random_direction(&mut random);
            let turn = Quat::from_axis_angle(axis, random.gen_range(0.0..std::f32::consts::TAU));
            let shift = Vec3::from(random.gen::<[f32; 3]>().map(|x| (x - 0.5) * 0.4 * size));
            Affine3A::from_translation(centre + shift)
                * Affine3A::from_quat(turn)
                * Affine3A::from_translation(-centre)
        })
        .collect();
    let time = |name: &str, query: &mut dyn FnMut() -> String| {
        if name.contains(&only) {
            time(name, query);
        }
    };
    pool.install(|| {
        time("intersects, 50 random poses", &mut || {
            let meeting = poses.iter().filter(|p| mesh.intersects(&mesh, p)).count();
            format!("{meeting} of 50 meet")
        });
        // The same poses between two instances, each placed in the world (the first moved
        // to put its centre at the origin, as a collision manager places a mesh).
        let shared = std::sync::Arc::new(mesh.clone());
        let place = |t: Affine3A| Instance::new(shared.clone(), t).expect("invertible");
        let fixed = place(Affine3A::from_translation(-centre));
        let moved: Vec<Instance> = poses
            .iter()
            .map(|p| place(Affine3A::from_translation(-centre) * *p))
            .collect();
        time("Instance::intersects, 50 random poses", &mut || {
            let meeting = moved.iter().filter(|m| fixed.intersects(m)).count();
            format!("{meeting} of 50 meet")
        });
        time(
            "mesh_distance, 50 random poses moved 1.5 sizes apart",
            &mut || {
                let apart = Affine3A::from_translation(Vec3::X * 1.5 * size);
                let total: f32 = poses
                    .iter()
                    .filter_map(|p| mesh.mesh_distance(&mesh, &(apart * *p), None))
                    .map(|g| g.distance)
                    .sum();
                format!("sum {total:.4}")
            },
        );
        for (name, place) in &placements {
            time(&format!("intersects, {name}"), &mut || {
                mesh.intersects(&mesh, place).to_string()
            });
            time(&format!("rebuild, then intersects, {name}"), &mut || {
                let carried = transformed(mesh.tri_mesh(), *place);
                let rebuilt = Mesh::from_tri_mesh(carried, &BuildOptions::default());
                mesh.intersects(&rebuilt, &Affine3A::IDENTITY).to_string()
            });
            time(&format!("intersecting_pairs, {name}"), &mut || {
                format!("{} pairs", mesh.intersecting_pairs(&mesh, place).len())
            });
            time(&format!("mesh_distance, {name}"), &mut || {
                let gap = mesh.mesh_distance(&mesh, place, None);
                format!("{:?}", gap.map(|g| g.distance))
            });
            time(
                &format!("mesh_distance within 1% of size, {name}"),
                &mut || {
                    let gap = mesh.mesh_distance(&mesh, place, Some(0.01 * size));
                    format!("{:?}", gap.map(|g| g.distance))
                },
            );
            time(&format!("hausdorff_distance to 1e-3, {name}"), &mut || {
                let h = mesh.hausdorff_distance(&mesh, place, 1e-3);
                format!("{:?}", h.map(|h| h.distance()))
            });
        }
        time("self_intersections", &mut || {
            format!("{} pairs", mesh.self_intersections().len())
        });
    });
    Ok(())
}

/// Times `query` ([`median_run`]); prints its answer, the median time and the queries per
/// second at that median.
fn time(name: &str, query: &mut dyn FnMut() -> String) {
    let MedianRun {
        median,
        runs,
        answer,
    } = median_run(query);
    let median = median.as_secs_f64();
    println!(
        "{name:>48}: {:>9.3} ms median of {runs:>4}, {:>9.1} queries/s  ({answer})",
        median * 1e3,
        1.0 / median
    );
}
