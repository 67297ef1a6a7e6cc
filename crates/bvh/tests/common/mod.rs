//! Shared support of the BVH tests: meshes from the assets, seeded ray generators, the
//! brute-force reference, and the comparison of every query against it.
use glam::Vec3;
use meshcast_bvh::{
    All, Any, BuildOptions, Bvh, Closest, Count, Kernel, LeafHits, Parallel, Quality, WideBvh,
    PADDING_SLOT,
};
use meshcast_primitives::{Aabb, Hit, Ray, Triangle};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The seeded generator every test uses.
pub fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// An asset's triangles: every model of the file, concatenated.
pub fn load_mesh(name: &str) -> Vec<Triangle> {
    let path = format!("{}/../../assets/{name}", env!("CARGO_MANIFEST_DIR"));
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ..Default::default()
    };
    let (models, _) = tobj::load_obj(&path, &options).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut triangles = Vec::new();
    for model in models {
        let p = &model.mesh.positions;
        let vertex = |i: u32| {
            let i = i as usize * 3;
            Vec3::new(p[i] as f32, p[i + 1] as f32, p[i + 2] as f32)
        };
        for f in model.mesh.indices.chunks_exact(3) {
            triangles.push(Triangle::new(vertex(f[0]), vertex(f[1]), vertex(f[2])));
        }
    }
    assert!(!triangles.is_empty(), "{path} has no triangles");
    triangles
}

/// A soup of `count` random triangles in the unit cube, of random sizes.
pub fn random_soup(seed: u64, count: usize) -> Vec<Triangle> {
    let mut r = rng(seed);
    (0..count)
        .map(|_| {
            let c = Vec3::new(r.gen(), r.gen(), r.gen());
            let size: f32 = 0.3 * r.gen::<f32>().powi(3);
            let mut corner = || c + (Vec3::new(r.gen(), r.gen(), r.gen()) - 0.5) * size;
            Triangle::new(corner(), corner(), corner())
        })
        .collect()
}

pub fn boxes(triangles: &[Triangle]) -> Vec<Aabb> {
    triangles.iter().map(Triangle::bounds).collect()
}

pub fn bounds(triangles: &[Triangle]) -> Aabb {
    triangles
        .iter()
        .fold(Aabb::EMPTY, |b, t| b.union(t.bounds()))
}

/// The build options every differential test runs: every step of the quality ladder,
/// several bin counts and leaf sizes, sequential and parallel.
pub fn all_options() -> Vec<BuildOptions> {
    let base = BuildOptions::default();
    vec![
        base,
        BuildOptions {
            bins: 8,
            max_leaf_primitives: 1,
            parallel: Parallel::Sequential,
            ..base
        },
        BuildOptions {
            bins: 32,
            max_leaf_primitives: 4,
            traversal_cost: 1.0,
            ..base
        },
        BuildOptions {
            leaf_block: 4,
            ..base
        },
        BuildOptions {
            bins: 12,
            max_leaf_primitives: 16,
            traversal_cost: 3.0,
            ..base
        },
        BuildOptions {
            quality: Quality::Fast,
            ..base
        },
        BuildOptions {
            quality: Quality::Fast,
            max_leaf_primitives: 1,
            parallel: Parallel::Sequential,
            ..base
        },
        BuildOptions {
            quality: Quality::High,
            ..base
        },
        BuildOptions {
            quality: Quality::High,
            max_leaf_primitives: 1,
            parallel: Parallel::Sequential,
            ..base
        },
        BuildOptions {
            quality: Quality::High,
            leaf_block: 4,
            traversal_cost: 1.0,
            ..base
        },
    ]
}

/// Builds and validates.
pub fn build(triangles: &[Triangle], options: &BuildOptions) -> Bvh {
    let bvh = Bvh::build_primitives(triangles, options);
    if let Err(e) = bvh.validate(&boxes(triangles)) {
        panic!("invalid hierarchy with {options:?}: {e}");
    }
    bvh
}

/// The reference: every triangle tested, the closest kept by the tie rule.
pub fn brute_closest(triangles: &[Triangle], ray: &Ray) -> Option<Hit> {
    triangles
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some(t.intersect(ray)?.with_triangle(i as u32)))
        .fold(None, |best, hit| Hit::closest(best, Some(hit)))
}

/// The reference for all hits, sorted by `(t, index)`.
pub fn brute_all(triangles: &[Triangle], ray: &Ray) -> Vec<Hit> {
    let mut hits: Vec<Hit> = triangles
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some(t.intersect(ray)?.with_triangle(i as u32)))
        .collect();
    hits.sort_by(Hit::order);
    hits
}

/// A hit as exact bits, to compare without float tolerance.
pub fn key(hit: &Hit) -> (u32, u32, u32, u32) {
    (
        hit.triangle,
        hit.t.to_bits(),
        hit.u.to_bits(),
        hit.v.to_bits(),
    )
}

/// The caps `cast_first` is checked with: none, one, a few, more than most rays hit.
pub const FIRST_HITS_CAPS: [usize; 4] = [0, 1, 3, 16];

/// Expected answers for a ray set, computed once and checked against many hierarchies.
pub struct Reference {
    pub rays: Vec<Ray>,
    pub closest: Vec<Option<Hit>>,
    pub all: Vec<Vec<Hit>>,
}

impl Reference {
    pub fn new(triangles: &[Triangle], rays: Vec<Ray>) -> Self {
        use rayon::prelude::*;
        let closest = rays
            .par_iter()
            .map(|r| brute_closest(triangles, r))
            .collect();
        let all = rays.par_iter().map(|r| brute_all(triangles, r)).collect();
        Self { rays, closest, all }
    }

    /// How many rays hit something.
    pub fn hit_count(&self) -> usize {
        self.closest.iter().filter(|h| h.is_some()).count()
    }

    /// Checks closest, any and all hits of `bvh` (through the slice queries and through the
    /// leaf-order closure queries) against the reference; panics naming the case and ray.
    pub fn check(&self, triangles: &[Triangle], bvh: &Bvh, case: &str) {
        let order = bvh.primitive_order();
        let leaf_order: Vec<Triangle> = order.iter().map(|&i| triangles[i as usize]).collect();
        let wide = WideBvh::from_binary(bvh);
        wide.validate(&boxes(triangles))
            .unwrap_or_else(|e| panic!("{case}: invalid wide hierarchy: {e}"));
        let wides = every_kernel(&wide);
        for (i, ray) in self.rays.iter().enumerate() {
            self.expect(
                i,
                &format!("{case}: slice queries"),
                bvh.cast_primitives(triangles, ray),
                bvh.occluded_primitives(triangles, ray),
                Some(bvh.cast_all_primitives(triangles, ray)),
            );
            let closest = bvh.walk(ray, Closest, |slot, r| {
                Some(
                    leaf_order[slot as usize]
                        .intersect(r)?
                        .with_triangle(order[slot as usize]),
                )
            });
            let occluded = bvh.walk::<_, Hit>(ray, Any, |slot, r| {
                leaf_order[slot as usize].intersect(r).is_some()
            });
            self.expect(
                i,
                &format!("{case}: leaf-order closures"),
                closest,
                occluded,
                None,
            );
            for max_hits in FIRST_HITS_CAPS {
                let first = bvh.walk(ray, All { max_hits }, |slot, r| {
                    let hit = leaf_order[slot as usize].intersect(r);
                    Vec::from_iter(hit.map(|h| h.with_triangle(order[slot as usize])))
                });
                self.expect_first(i, &format!("{case}: cast_first"), max_hits, &first);
                let count = bvh.walk::<_, Hit>(ray, Count { max_hits }, |slot, r| {
                    usize::from(leaf_order[slot as usize].intersect(r).is_some())
                });
                self.expect_count(i, case, max_hits, count);
            }
            self.check_wide(triangles, &wides, i, case);
            if let Some(first) = self.all[i].first() {
                assert_eq!(
                    Some(key(first)),
                    self.closest[i].as_ref().map(key),
                    "{case}: reference disagrees with itself"
                );
            }
        }
    }

    /// Checks closest, any and all hits of each eight-wide hierarchy of `wides` (the same tree
    /// with each kernel, from [`every_kernel`]) for ray `i`, its leaves tested a whole leaf at a
    /// time as a mesh does.
    pub fn check_wide(&self, triangles: &[Triangle], wides: &[WideBvh], i: usize, case: &str) {
        for wide in wides {
            let case = format!("{case} ({})", wide.kernel());
            self.check_wide_kernel(triangles, wide, i, &case);
        }
    }

    fn check_wide_kernel(&self, triangles: &[Triangle], wide: &WideBvh, i: usize, case: &str) {
        let ray = &self.rays[i];
        let order = wide.primitive_order();
        let leaf_hits = |slots: core::ops::Range<u32>, r: &Ray| {
            order[slots.start as usize..slots.end as usize]
                .iter()
                .filter(|&&p| p != PADDING_SLOT)
                .filter_map(|&p| Some(triangles[p as usize].intersect(r)?.with_triangle(p)))
                .collect::<Vec<Hit>>()
        };
        let leaves = || {
            LeafHits::new(|slots, r: &Ray, hits: &mut Vec<Hit>| hits.extend(leaf_hits(slots, r)))
        };
        let closest = wide.walk(ray, Closest, leaves());
        let occluded = wide.walk(ray, Any, leaves());
        let all = wide.walk(ray, All::EVERY, leaves());
        for max_hits in FIRST_HITS_CAPS {
            let first = wide.walk(ray, All { max_hits }, leaves());
            self.expect_first(i, &format!("{case}: wide cast_first"), max_hits, &first);
            self.expect_count(
                i,
                case,
                max_hits,
                wide.walk(ray, Count { max_hits }, leaves()),
            );
        }
        let count = wide.walk(ray, Count::EVERY, leaves());
        self.expect_count(i, case, usize::MAX, count);
        self.expect(
            i,
            &format!("{case}: wide tree"),
            closest,
            occluded,
            Some(all),
        );
    }

    /// Asserts that `count` is the number of the reference's hits for ray `i`, at most
    /// `max_hits`.
    fn expect_count(&self, i: usize, case: &str, max_hits: usize, count: usize) {
        assert_eq!(
            count,
            self.all[i].len().min(max_hits),
            "{case}: the count of at most {max_hits} hits differs for ray {i} {:?}",
            self.rays[i]
        );
    }

    /// Asserts that `first` is the first `max_hits` of the reference's hits for ray `i`, bit
    /// for bit.
    fn expect_first(&self, i: usize, what: &str, max_hits: usize, first: &[Hit]) {
        let expected: Vec<_> = self.all[i].iter().take(max_hits).map(key).collect();
        let first: Vec<_> = first.iter().map(key).collect();
        assert_eq!(
            first, expected,
            "{what}: the first {max_hits} hits differ for ray {i} {:?}",
            self.rays[i]
        );
    }

    /// Asserts that the answers for ray `i` are the reference's: the closest hit bit for bit,
    /// whether anything is hit, and (when given) every hit in order.
    fn expect(
        &self,
        i: usize,
        what: &str,
        closest: Option<Hit>,
        occluded: bool,
        all: Option<Vec<Hit>>,
    ) {
        let ray = &self.rays[i];
        let expected = self.closest[i].as_ref().map(key);
        assert_eq!(
            closest.as_ref().map(key),
            expected,
            "{what}: closest hit differs for ray {i} {ray:?}: got {closest:?}, expected {:?}",
            self.closest[i]
        );
        assert_eq!(
            occluded,
            expected.is_some(),
            "{what}: any hit differs for ray {i} {ray:?}"
        );
        if let Some(all) = all {
            let all: Vec<_> = all.iter().map(key).collect();
            let expected_all: Vec<_> = self.all[i].iter().map(key).collect();
            assert_eq!(
                all, expected_all,
                "{what}: all hits differ for ray {i} {ray:?}"
            );
        }
    }
}

/// A random point in `b`.
pub fn point_in(r: &mut Pcg64, b: &Aabb) -> Vec3 {
    b.min + Vec3::new(r.gen(), r.gen(), r.gen()) * b.extent()
}

/// A random point on the sphere around `b` (radius twice the half diagonal).
pub fn point_around(r: &mut Pcg64, b: &Aabb) -> Vec3 {
    let radius = b.extent().length().max(1e-30);
    let dir = loop {
        let d = Vec3::new(r.gen(), r.gen(), r.gen()) * 2.0 - 1.0;
        let l = d.length_squared();
        if l > 1e-4 && l <= 1.0 {
            break d / l.sqrt();
        }
    };
    b.centroid() + dir * radius
}

/// Rays from around the mesh towards random points in its box, towards vertices and edge
/// midpoints (shared by neighbouring triangles), and from inside the box; directions of
/// random length.
pub fn mixed_rays(triangles: &[Triangle], seed: u64, count: usize) -> Vec<Ray> {
    let mut r = rng(seed);
    let b = bounds(triangles);
    (0..count)
        .map(|i| {
            let tri = triangles[r.gen_range(0..triangles.len())];
            let v = tri.vertices();
            let target = match i % 4 {
                0 => point_in(&mut r, &b),
                1 => v[r.gen_range(0..3)],
                2 => (v[0] + v[1]) * 0.5,
                _ => tri.centroid(),
            };
            let origin = if i % 5 == 4 {
                point_in(&mut r, &b)
            } else {
                point_around(&mut r, &b)
            };
            let scale = 10f32.powf(r.gen_range(-2.0..2.0));
            Ray::new(origin, (target - origin) * scale)
        })
        .collect()
}

/// A flat `n` x `n` grid of unit squares in the plane `z = 0`, two triangles each: rays
/// through its vertices and edges tie exactly between neighbours.
pub fn grid(n: usize) -> Vec<Triangle> {
    let mut triangles = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let p = |dx: usize, dy: usize| Vec3::new((x + dx) as f32, (y + dy) as f32, 0.0);
            if (x + y) % 2 == 0 {
                triangles.push(Triangle::new(p(0, 0), p(1, 0), p(1, 1)));
                triangles.push(Triangle::new(p(0, 0), p(1, 1), p(0, 1)));
            } else {
                triangles.push(Triangle::new(p(0, 0), p(1, 0), p(0, 1)));
                triangles.push(Triangle::new(p(1, 0), p(1, 1), p(0, 1)));
            }
        }
    }
    triangles
}

/// Checks `triangles` under every build option against the reference for `rays`.
pub fn check_all_options(triangles: &[Triangle], rays: Vec<Ray>, case: &str) -> Reference {
    let reference = Reference::new(triangles, rays);
    for options in all_options() {
        let bvh = build(triangles, &options);
        reference.check(triangles, &bvh, &format!("{case} {options:?}"));
    }
    reference
}

/// `wide` once with each node kernel this CPU runs.
pub fn every_kernel(wide: &WideBvh) -> Vec<WideBvh> {
    Kernel::supported()
        .into_iter()
        .map(|kernel| {
            let mut wide = wide.clone();
            wide.set_kernel(kernel).expect("a supported kernel");
            wide
        })
        .collect()
}
