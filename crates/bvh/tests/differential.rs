//! Every query of every build option equals the brute-force loop, bit for bit, on the assets
//! and on random soups.

use crate::common::*;

fn check_mesh(triangles: &[meshcast_primitives::Triangle], seed: u64, rays: usize, name: &str) {
    let reference = Reference::new(triangles, mixed_rays(triangles, seed, rays));
    assert!(
        reference.hit_count() > rays / 4,
        "{name}: too few hits ({}) for a meaningful test",
        reference.hit_count()
    );
    for options in all_options() {
        let bvh = build(triangles, &options);
        reference.check(triangles, &bvh, &format!("{name} seed {seed} {options:?}"));
    }
}

#[test]
fn closest_any_all_match_brute_force_on_small_assets() {
    for (name, rays) in [
        ("cow.obj", 1500),
        ("teapot.obj", 1500),
        ("suzanne.obj", 1500),
        ("spot.obj", 1200),
        ("fandisk.obj", 800),
        ("woody.obj", 1500),
    ] {
        check_mesh(&load_mesh(name), 11, rays, name);
    }
}

#[test]
fn closest_any_all_match_brute_force_on_large_assets() {
    for (name, rays) in [
        ("stanford-bunny.obj", 250),
        ("ogre.obj", 120),
        ("beast.obj", 150),
    ] {
        check_mesh(&load_mesh(name), 12, rays, name);
    }
}

#[test]
fn closest_any_all_match_brute_force_on_random_soups() {
    for seed in 0..6 {
        let count = [1, 2, 7, 100, 1000, 3000][seed as usize];
        let soup = random_soup(seed, count);
        let reference = Reference::new(&soup, mixed_rays(&soup, seed + 100, 1000));
        for options in all_options() {
            let bvh = build(&soup, &options);
            reference.check(
                &soup,
                &bvh,
                &format!("soup seed {seed} ({count}) {options:?}"),
            );
        }
    }
}
