//! Rays chosen to break a BVH: axis-parallel with signed zeros, along box faces, from inside
//! boxes and on surfaces, through shared vertices and edges, grazing, far from the origin or
//! tiny, with extreme direction lengths, clipped ranges, and NaN or infinite input.

use crate::common::*;
use glam::Vec3;
use meshcast_bvh::{All, Any, BuildOptions, Closest};
use meshcast_primitives::{Hit, Ray, Triangle};
use rand::Rng;

/// The six axis directions with every sign of zero in the other components.
fn axis_directions() -> Vec<Vec3> {
    let mut dirs = Vec::new();
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            for zeros in 0..4 {
                let mut d = Vec3::ZERO;
                let others = [(axis + 1) % 3, (axis + 2) % 3];
                d[others[0]] = if zeros & 1 == 0 { 0.0 } else { -0.0 };
                d[others[1]] = if zeros & 2 == 0 { 0.0 } else { -0.0 };
                d[axis] = sign;
                dirs.push(d);
            }
        }
    }
    dirs
}

/// Axis-parallel rays through vertices, edge midpoints and box corners, so that rays run
/// exactly along node box faces.
fn axis_parallel_rays(triangles: &[Triangle], seed: u64, count: usize) -> Vec<Ray> {
    let mut r = rng(seed);
    let b = bounds(triangles);
    let dirs = axis_directions();
    (0..count)
        .map(|i| {
            let t = triangles[r.gen_range(0..triangles.len())];
            let target = match i % 3 {
                0 => t.vertices()[r.gen_range(0..3)],
                1 => (t.v1 + t.v2) * 0.5,
                _ => t.bounds().min,
            };
            let d = dirs[r.gen_range(0..dirs.len())];
            let back = b.extent().max_element() * 2.0 + 1.0;
            let origin = if i % 7 == 0 {
                target
            } else {
                target - d * back
            };
            Ray::new(origin, d * r.gen_range(0.5..3.0))
        })
        .collect()
}

#[test]
fn axis_parallel_rays_with_signed_zeros_match_brute_force() {
    for name in ["cow.obj", "fandisk.obj"] {
        let mesh = load_mesh(name);
        let reference = check_all_options(&mesh, axis_parallel_rays(&mesh, 21, 1200), name);
        assert!(
            reference.hit_count() > 300,
            "{name}: {} hits",
            reference.hit_count()
        );
    }
    let grid = grid(16);
    check_all_options(&grid, axis_parallel_rays(&grid, 22, 1500), "grid");
}

#[test]
fn rays_along_the_root_box_faces_match_brute_force() {
    let mesh = load_mesh("rocker-arm.obj");
    let b = bounds(&mesh);
    let mut r = rng(23);
    let mut rays = Vec::new();
    for _ in 0..600 {
        let axis = r.gen_range(0..3);
        let mut origin = point_around(&mut r, &b);
        origin[axis] = if r.gen() { b.min[axis] } else { b.max[axis] };
        let mut target = point_in(&mut r, &b);
        target[axis] = origin[axis];
        let mut dir = target - origin;
        dir[axis] = if r.gen() { 0.0 } else { -0.0 };
        rays.push(Ray::new(origin, dir));
    }
    check_all_options(&mesh, rays, "rocker-arm box faces");
}

#[test]
fn rays_from_inside_and_from_the_surface_match_brute_force() {
    let mesh = load_mesh("cheburashka.obj");
    let b = bounds(&mesh);
    let mut r = rng(24);
    let mut rays = Vec::new();
    for i in 0..1500 {
        let t = mesh[r.gen_range(0..mesh.len())];
        let origin = match i % 3 {
            0 => point_in(&mut r, &b),
            1 => t.centroid(),
            _ => t.v0,
        };
        let dir = point_around(&mut r, &b) - origin;
        let ray = Ray::new(origin, dir);
        rays.push(if i % 2 == 0 {
            ray
        } else {
            ray.with_range(0.0, f32::INFINITY)
        });
    }
    let reference = check_all_options(&mesh, rays, "cheburashka inside");
    assert!(reference.hit_count() > 1000);
}

/// A flat grid, twice over (a second copy exactly on the first), hit through its vertices
/// and edges: each copy is crossed exactly once however many of its triangles meet at the
/// point (the watertight test's tie rule), and the two coincident hits at the same `t` go to
/// the smaller index whatever the visiting order.
#[test]
fn shared_vertices_and_edges_are_crossed_once_and_ties_go_to_the_smallest_index() {
    let single = grid(20);
    let twice: Vec<Triangle> = single.iter().chain(&single).copied().collect();
    let mut r = rng(25);
    let mut rays = Vec::new();
    for i in 0..2000 {
        let (x, y) = (r.gen_range(1..=18) as f32, r.gen_range(1..=18) as f32);
        let target = match i % 3 {
            0 => Vec3::new(x, y, 0.0),
            1 => Vec3::new(x + 0.5, y, 0.0),
            _ => Vec3::new(x + 0.5, y + 0.5, 0.0),
        };
        let origin = Vec3::new(
            r.gen_range(-30.0..50.0),
            r.gen_range(-30.0..50.0),
            r.gen_range(1.0..40.0),
        );
        let origin = if i % 2 == 0 {
            origin
        } else {
            origin * Vec3::new(1.0, 1.0, -1.0)
        };
        rays.push(Ray::new(origin, target - origin));
    }
    let reference = check_all_options(&twice, rays.clone(), "grid ties");
    let copies = single.len() as u32;
    for (ray, hits) in rays.iter().zip(&reference.all) {
        // Interior points of the grid: one hit per copy, the same triangle in each.
        assert_eq!(hits.len(), 2, "{ray:?}: {hits:?}");
        assert_eq!(hits[0].t, hits[1].t);
        assert_eq!(hits[0].triangle + copies, hits[1].triangle, "{ray:?}");
    }
    // Shuffling the triangles changes the tree but must not change which index wins.
    let mut shuffled: Vec<(usize, Triangle)> = twice.iter().copied().enumerate().collect();
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, r.gen_range(0..=i));
    }
    let soup: Vec<Triangle> = shuffled.iter().map(|s| s.1).collect();
    check_all_options(&soup, rays, "shuffled grid ties");
}

#[test]
fn grazing_and_in_plane_rays_match_brute_force() {
    let grid = grid(12);
    let mut r = rng(26);
    let mut rays = Vec::new();
    for i in 0..1500 {
        let origin = Vec3::new(r.gen_range(-5.0..17.0), r.gen_range(-5.0..17.0), 0.0);
        let target = Vec3::new(r.gen_range(0.0..12.0), r.gen_range(0.0..12.0), 0.0);
        let mut dir = target - origin;
        dir.z = match i % 4 {
            0 => 0.0,
            1 => -0.0,
            2 => 1e-7 * if r.gen() { 1.0 } else { -1.0 },
            _ => -origin.z,
        };
        let origin = if i % 4 == 3 {
            origin + Vec3::Z * 1e-6
        } else {
            origin
        };
        rays.push(Ray::new(origin, dir));
    }
    check_all_options(&grid, rays, "grid grazing");
    let mesh = load_mesh("beetle-alt.obj");
    let mut rays = Vec::new();
    for _ in 0..300 {
        let t = mesh[r.gen_range(0..mesh.len())];
        // Along an edge of a triangle, from outside the mesh.
        let dir = t.v1 - t.v0;
        rays.push(Ray::new(t.v0 - dir * r.gen_range(1.0..50.0), dir));
    }
    check_all_options(&mesh, rays, "beetle edges");
}

#[test]
fn huge_and_tiny_coordinates_match_brute_force() {
    let mesh = load_mesh("woody.obj");
    for (scale, offset) in [
        (1e3f32, Vec3::new(1e5, -2e5, 3e5)),
        (1.0, Vec3::new(-3e6, 1e6, 5e5)),
        (1e-6, Vec3::ZERO),
        (1e-15, Vec3::new(1e-14, 0.0, 0.0)),
        (1e15, Vec3::new(0.0, 3e16, 0.0)),
        // Areas overflow or underflow: every triangle is degenerate and every ray misses.
        (1e30, Vec3::ZERO),
        (1e-30, Vec3::new(1e-29, 0.0, 0.0)),
    ] {
        let moved: Vec<Triangle> = mesh
            .iter()
            .map(|t| {
                let [a, b, c] = t.vertices().map(|v| v * scale + offset);
                Triangle::new(a, b, c)
            })
            .collect();
        let case = format!("woody x {scale} + {offset}");
        let reference = check_all_options(&moved, mixed_rays(&moved, 27, 600), &case);
        let hits = reference.hit_count();
        let degenerate = !(1e-20..1e20).contains(&scale);
        assert!(hits > 100 || degenerate, "{case}: {hits} hits");
    }
}

#[test]
fn extreme_direction_lengths_match_brute_force() {
    let mesh = load_mesh("alligator.obj");
    let mut rays = mixed_rays(&mesh, 28, 800);
    for (i, ray) in rays.iter_mut().enumerate() {
        let scale = [1e-20f32, 1e-10, 1e10, 1e20][i % 4];
        ray.dir *= scale;
    }
    let reference = check_all_options(&mesh, rays, "alligator extreme directions");
    assert!(reference.hit_count() > 200);
}

#[test]
fn clipped_ranges_match_brute_force() {
    let mesh = load_mesh("homer.obj");
    let base = mixed_rays(&mesh, 29, 500);
    let mut r = rng(29);
    let mut rays = Vec::new();
    for ray in base {
        let Some(hit) = brute_closest(&mesh, &ray) else {
            continue;
        };
        let t = hit.t;
        let below = f32::from_bits(t.to_bits() - 1);
        let above = f32::from_bits(t.to_bits() + 1);
        rays.push(ray.with_range(0.0, t)); // inclusive end: still hits
        rays.push(ray.with_range(0.0, below)); // just short of it
        rays.push(ray.with_range(t, t)); // a single point
        rays.push(ray.with_range(above, f32::INFINITY)); // just past it
        rays.push(ray.with_range(t * r.gen::<f32>(), t * (1.0 + 3.0 * r.gen::<f32>())));
        rays.push(Ray::segment(ray.origin, ray.at(t * r.gen_range(0.5..2.0))));
    }
    let reference = check_all_options(&mesh, rays, "homer clipped");
    assert!(reference.hit_count() > 600);
}

#[test]
fn nan_infinite_and_degenerate_rays_miss_without_testing_leaves() {
    let mesh = load_mesh("cow.obj");
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let c = bounds(&mesh).centroid();
    let out = c + Vec3::splat(100.0);
    let rays = [
        Ray::new(Vec3::new(nan, 0.0, 0.0), c - out),
        Ray::new(out, Vec3::new(0.0, nan, 1.0)),
        Ray::new(Vec3::new(inf, 0.0, 0.0), c - out),
        Ray::new(out, Vec3::new(-inf, 0.0, 0.0)),
        Ray::new(out, Vec3::ZERO),
        Ray::new(out, Vec3::new(0.0, -0.0, 0.0)),
        Ray::new(out, c - out).with_range(nan, 1e9),
        Ray::new(out, c - out).with_range(0.0, nan),
        Ray::new(out, c - out).with_range(5.0, 1.0),
        Ray::new(out, c - out).with_range(inf, inf),
    ];
    for options in all_options() {
        let bvh = build(&mesh, &options);
        for ray in &rays {
            assert_eq!(bvh.cast_primitives(&mesh, ray), None, "{ray:?}");
            assert!(!bvh.occluded_primitives(&mesh, ray), "{ray:?}");
            assert!(bvh.cast_all_primitives(&mesh, ray).is_empty(), "{ray:?}");
            let mut calls = 0;
            bvh.walk(ray, Closest, |_, _| {
                calls += 1;
                None::<Hit>
            });
            bvh.walk::<_, Hit>(ray, Any, |_, _| {
                calls += 1;
                false
            });
            bvh.walk(ray, All::EVERY, |_, _| {
                calls += 1;
                Vec::<Hit>::new()
            });
            assert_eq!(calls, 0, "{ray:?}");
            assert_eq!(brute_closest(&mesh, ray), None);
        }
    }
}

#[test]
fn filtered_queries_match_brute_force_over_the_kept_primitives() {
    let mesh = load_mesh("spot.obj");
    let bvh = build(&mesh, &BuildOptions::default());
    let mut r = rng(30);
    let rays = mixed_rays(&mesh, 30, 800);
    for (i, ray) in rays.iter().enumerate() {
        // Skip the closest triangle (the surface a secondary ray starts on), and a random
        // third of the rest (a mask).
        let skip = brute_closest(&mesh, ray).map(|h| h.triangle);
        let salt: u32 = r.gen();
        let keep = |index: u32| Some(index) != skip && !(index ^ salt).is_multiple_of(3);
        let kept: Vec<Triangle> = mesh
            .iter()
            .enumerate()
            .map(|(j, t)| {
                if keep(j as u32) {
                    *t
                } else {
                    Triangle::new(Vec3::NAN, Vec3::NAN, Vec3::NAN)
                }
            })
            .collect();
        let expected = brute_closest(&kept, ray);
        let got = bvh.cast_primitives_filtered(&mesh, ray, keep);
        assert_eq!(
            got.as_ref().map(key),
            expected.as_ref().map(key),
            "ray {i} {ray:?}"
        );
        assert_eq!(
            bvh.occluded_primitives_filtered(&mesh, ray, keep),
            expected.is_some()
        );
        let all: Vec<_> = bvh
            .cast_all_primitives_filtered(&mesh, ray, keep)
            .iter()
            .map(key)
            .collect();
        let expected_all: Vec<_> = brute_all(&kept, ray).iter().map(key).collect();
        assert_eq!(all, expected_all, "ray {i}");
    }
}

/// Regression: a relative widening of the slab distances culled this hit. The ray starts on
/// the flat grid and leaves it at a grazing angle; the triangle test computes `t = 2.4e-9`
/// while the flat node box's exact range is `[0, 0]`.
#[test]
fn ray_starting_on_a_flat_mesh_at_a_grazing_angle_is_not_culled() {
    let grid = grid(12);
    let ray = Ray::new(
        Vec3::new(0.61200094, 4.005945, 0.0),
        Vec3::new(2.6349468, 1.5681615, 1e-7),
    );
    let expected = brute_closest(&grid, &ray).expect("the reference hits");
    for options in all_options() {
        let bvh = build(&grid, &options);
        let hit = bvh.cast_primitives(&grid, &ray);
        assert_eq!(hit.as_ref().map(key), Some(key(&expected)), "{options:?}");
    }
}
