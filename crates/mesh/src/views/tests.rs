//! Ambient occlusion and thickness on the assets against brute force: the same rays, each
//! tested against every triangle with the rule stated as a filter (the triangles with a
//! corner at the ray's origin left out, `t = 0` included), on one and two threads.

use meshcast_primitives::{Contacts, Hit, Ray, Triangle};

use crate::mesh::Mesh;
use crate::triangles::LeafTest;

/// A mesh from an OBJ text's `v` and `f` lines, faces split into fans.
fn obj(text: &str) -> Mesh {
    let (mut positions, mut triangles) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let xyz: Vec<f32> = words
                    .take(3)
                    .map(|w| w.parse().expect("a number"))
                    .collect();
                positions.push([xyz[0], xyz[1], xyz[2]]);
            }
            Some("f") => {
                let corners: Vec<u32> = words
                    .map(|w| {
                        w.split('/')
                            .next()
                            .and_then(|i| i.parse().ok())
                            .expect("an index")
                    })
                    .map(|i: u32| i - 1)
                    .collect();
                for k in 1..corners.len() - 1 {
                    triangles.push([corners[0], corners[k], corners[k + 1]]);
                }
            }
            _ => {}
        }
    }
    Mesh::from_triangles(&positions, &triangles).expect("a valid asset")
}

fn assets() -> [(&'static str, Mesh); 2] {
    [
        (
            "suzanne",
            obj(include_str!("../../../../assets/suzanne.obj")),
        ),
        ("spot", obj(include_str!("../../../../assets/spot.obj"))),
    ]
}

/// The hits of `ray` by brute force on the triangles with no corner at its origin, over its
/// range with `t = 0` let in, in triangle order.
fn filtered_hits<'a>(triangles: &'a [Triangle], ray: &'a Ray) -> impl Iterator<Item = Hit> + 'a {
    let ray = ray.with_range(0.0, ray.t_max);
    triangles.iter().enumerate().filter_map(move |(i, t)| {
        let own = [t.v0, t.v1, t.v2].contains(&ray.origin);
        let hit = (!own)
            .then(|| t.intersect_with(&ray, Contacts::Hit))
            .flatten();
        hit.map(|h| h.with_triangle(i as u32))
    })
}

/// The bits of each value, so that NaNs compare equal.
fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn triangles(mesh: &Mesh) -> Vec<Triangle> {
    mesh.tri_mesh().triangles().collect()
}

fn two_threads<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool")
        .install(work)
}

#[test]
fn ambient_occlusion_equals_brute_force_on_the_assets() {
    for (name, mesh) in assets() {
        let all = triangles(&mesh);
        for max_distance in [f32::INFINITY, 0.2] {
            let fast = mesh.ambient_occlusion(4, max_distance, 3).expect("valid");
            let reference = mesh.occlusion_traced(4, max_distance, 3, |rays| {
                rays.iter()
                    .map(|ray| filtered_hits(&all, ray).next().is_some())
                    .collect()
            });
            assert_eq!(fast.len(), mesh.tri_mesh().vertex_count());
            for (v, (a, b)) in fast.iter().zip(&reference).enumerate() {
                assert!(a.to_bits() == b.to_bits(), "{name} vertex {v}: {a} != {b}");
            }
            let open = fast.iter().filter(|&&a| a == 0.0).count();
            let closed = fast.iter().filter(|&&a| a > 0.0).count();
            assert!(
                open > 0 && closed > 0,
                "{name}: {open} open, {closed} occluded"
            );
            let threaded = two_threads(|| mesh.ambient_occlusion(4, max_distance, 3));
            assert_eq!(bits(&threaded.expect("valid")), bits(&fast), "{name}");
        }
        // The transform test leaves the same triangles out by a filter.
        let transform = mesh.clone().with_leaf_test(LeafTest::Transform);
        let occlusion = transform
            .ambient_occlusion(4, f32::INFINITY, 9)
            .expect("valid");
        assert!(occlusion.iter().all(|a| (0.0..=1.0).contains(a)), "{name}");
    }
}

#[test]
fn thickness_equals_brute_force_on_the_assets() {
    for (name, mesh) in assets() {
        let all = triangles(&mesh);
        let cos_max = 60f64.to_radians().cos();
        let fast = mesh.thickness(6, 60.0, 5).expect("valid");
        let reference = mesh.thickness_traced(6, cos_max, 5, |rays| {
            rays.iter()
                .map(|ray| {
                    filtered_hits(&all, ray)
                        .reduce(|a, b| Hit::closest(Some(a), Some(b)).expect("a hit"))
                })
                .collect()
        });
        let threaded = two_threads(|| mesh.thickness(6, 60.0, 5)).expect("valid");
        assert_eq!(bits(&fast.mean), bits(&threaded.mean), "{name}");
        assert_eq!(fast.hits, threaded.hits, "{name}");
        assert_eq!(bits(&fast.mean), bits(&reference.mean), "{name}");
        assert_eq!(bits(&fast.min), bits(&reference.min), "{name}");
        assert_eq!(fast.hits, reference.hits, "{name}");
        let through = fast.hits.iter().filter(|&&h| h > 0).count();
        assert!(
            through * 2 > fast.hits.len(),
            "{name}: {through} vertices hit the far side"
        );
    }
}

#[test]
fn parameters_out_of_range_are_errors() {
    let mesh = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
        .expect("valid");
    assert!(mesh.ambient_occlusion(0, 1.0, 0).is_err());
    for bad in [f32::NAN, 0.0, -1.0, f32::NEG_INFINITY] {
        assert!(mesh.ambient_occlusion(4, bad, 0).is_err(), "{bad}");
    }
    assert!(mesh.thickness(0, 10.0, 0).is_err());
    for bad in [f32::NAN, -1.0, 90.5, f32::INFINITY] {
        assert!(mesh.thickness(4, bad, 0).is_err(), "{bad}");
    }
    // One triangle alone: nothing occludes it and nothing lies behind it.
    assert_eq!(
        mesh.ambient_occlusion(16, f32::INFINITY, 0).expect("valid"),
        [0.0; 3]
    );
    let thickness = mesh.thickness(16, 45.0, 0).expect("valid");
    assert_eq!(thickness.hits, [0; 3]);
    assert!(thickness.mean.iter().all(|&m| m == f32::INFINITY));
}
