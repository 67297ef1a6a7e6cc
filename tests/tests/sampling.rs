//! `Mesh::sample_surface` on the assets: uniform by area (chi-square tests over groups of
//! triangles, over bins of equal area in index order and along x, and over the four
//! midpoint sub-triangles of the barycentric square), points on their triangles, and the
//! same samples for a seed whatever the number of threads.

use meshcast::{Mesh, MeshFiles, SurfaceSamples};
use meshcast_testkit::{asset, triangle_areas};

/// Samples per asset.
const SAMPLES: usize = 100_000;
/// Groups of consecutive triangles whose counts are compared with their areas.
const GROUPS: usize = 40;
/// The chi-square statistic's 0.999 quantile for 39 degrees of freedom (40 groups).
const CHI_SQUARE_39: f64 = 72.05;
/// The 0.999 quantile for 3 degrees of freedom (4 sub-triangles).
const CHI_SQUARE_3: f64 = 16.27;
/// Bins of triangles holding equal shares of the area.
const AREA_BINS: usize = 50;
/// The 0.999 quantile for 49 degrees of freedom (50 bins).
const CHI_SQUARE_49: f64 = 85.35;

const ASSETS: [&str; 5] = [
    "stanford-bunny.obj",
    "cow.obj",
    "suzanne.obj",
    "spot.obj",
    "teapot.obj",
];

/// Pearson's statistic of `counts` against `expected`.
fn chi_square(counts: &[usize], expected: &[f64]) -> f64 {
    counts
        .iter()
        .zip(expected)
        .map(|(&count, &e)| (count as f64 - e).powi(2) / e)
        .sum()
}

#[test]
fn samples_are_uniform_by_area_on_the_assets() {
    for name in ASSETS {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let areas = triangle_areas(&mesh);
        let total: f64 = areas.iter().sum();
        let samples = mesh.sample_surface(SAMPLES, 2024);
        assert_eq!(samples.len(), SAMPLES);

        // Groups of consecutive triangles.
        let group = |t: usize| t * GROUPS / areas.len();
        let mut expected = vec![0.0; GROUPS];
        for (t, area) in areas.iter().enumerate() {
            expected[group(t)] += area / total * SAMPLES as f64;
        }
        let mut counts = vec![0; GROUPS];
        for &t in &samples.triangles {
            assert!(
                areas[t as usize] > 0.0,
                "{name}: a degenerate triangle was picked"
            );
            counts[group(t as usize)] += 1;
        }
        let groups = chi_square(&counts, &expected);
        assert!(
            groups < CHI_SQUARE_39,
            "{name}: chi-square over groups {groups}"
        );

        // The midpoint sub-triangles: each a quarter of every triangle's area (the same
        // for every asset, the barycentrics coming from the seed alone).
        let mut quarters = [0; 4];
        for &[u, v] in &samples.barycentrics {
            let quarter = if u + v < 0.5 {
                0
            } else if u > 0.5 {
                1
            } else if v > 0.5 {
                2
            } else {
                3
            };
            quarters[quarter] += 1;
        }
        let statistic = chi_square(&quarters, &[SAMPLES as f64 / 4.0; 4]);
        assert!(
            statistic < CHI_SQUARE_3,
            "{name}: chi-square over quarters {statistic}"
        );
        println!(
            "{name}: chi-square {groups:.1} over {GROUPS} groups, {statistic:.2} over quarters"
        );
    }
}

/// Each triangle's bin when the triangles, taken in `order`, are cut into [`AREA_BINS`]
/// runs of equal area: a triangle goes where its area's midpoint falls.
fn area_bins(areas: &[f64], order: &[usize]) -> Vec<usize> {
    let total: f64 = areas.iter().sum();
    let mut bins = vec![0; areas.len()];
    let mut before = 0.0;
    for &t in order {
        let middle = before + areas[t] / 2.0;
        bins[t] = ((middle / total * AREA_BINS as f64) as usize).min(AREA_BINS - 1);
        before += areas[t];
    }
    bins
}

#[test]
fn samples_fill_area_balanced_bins_evenly_on_the_assets() {
    for name in ASSETS {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let areas = triangle_areas(&mesh);
        let total: f64 = areas.iter().sum();
        let samples = mesh.sample_surface(SAMPLES, 77);
        // In the triangles' order, and along x by centroid (a bias in space).
        let by_index: Vec<usize> = (0..areas.len()).collect();
        let tri_mesh = mesh.tri_mesh();
        let centroid_x = |t: usize| {
            tri_mesh.indices()[t]
                .iter()
                .map(|&i| tri_mesh.positions()[i as usize].x)
                .sum::<f32>()
        };
        let mut along_x = by_index.clone();
        along_x.sort_by(|&a, &b| centroid_x(a).total_cmp(&centroid_x(b)).then(a.cmp(&b)));
        for (grouping, order) in [("index", by_index), ("x", along_x)] {
            let bins = area_bins(&areas, &order);
            let mut expected = vec![0.0; AREA_BINS];
            for (t, area) in areas.iter().enumerate() {
                expected[bins[t]] += area / total * SAMPLES as f64;
            }
            // Balanced: no bin is far from a fiftieth of the samples.
            let share = SAMPLES as f64 / AREA_BINS as f64;
            assert!(
                expected.iter().all(|&e| (e - share).abs() < 0.5 * share),
                "{name}: unbalanced bins {expected:?}"
            );
            let mut counts = vec![0; AREA_BINS];
            for &t in &samples.triangles {
                counts[bins[t as usize]] += 1;
            }
            let statistic = chi_square(&counts, &expected);
            println!("{name}: chi-square {statistic:.1} over {AREA_BINS} area bins by {grouping}");
            assert!(
                statistic < CHI_SQUARE_49,
                "{name}: chi-square {statistic} over area bins by {grouping} (seed 77)"
            );
        }
    }
}

#[test]
fn samples_lie_on_their_triangles() {
    for name in ASSETS {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let tri_mesh = mesh.tri_mesh();
        let samples = mesh.sample_surface(10_000, 3);
        for ((point, &t), &[u, v]) in samples
            .points
            .iter()
            .zip(&samples.triangles)
            .zip(&samples.barycentrics)
        {
            assert!(
                u >= 0.0 && v >= 0.0 && u + v <= 1.0 + 1e-6,
                "{name}: {u}, {v}"
            );
            let [p0, p1, p2] =
                tri_mesh.indices()[t as usize].map(|i| tri_mesh.positions()[i as usize]);
            assert_eq!(*point, p0 + u * (p1 - p0) + v * (p2 - p0), "{name}");
        }
    }
}

#[test]
fn samples_depend_on_the_seed_alone() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    let in_pool = |threads: usize, seed: u64| -> SurfaceSamples {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
            .install(|| mesh.sample_surface(20_000, seed))
    };
    let one = in_pool(1, 9);
    assert_eq!(one, in_pool(3, 9));
    assert_eq!(one, in_pool(8, 9));
    assert_ne!(one, in_pool(1, 10));
    // A longer run starts with the shorter one.
    let longer = in_pool(2, 9);
    assert_eq!(
        mesh.sample_surface(30_000, 9).points[..20_000],
        longer.points[..]
    );
}

#[test]
fn no_samples_without_area() {
    let empty = Mesh::from_triangles(&[], &[]).expect("an empty mesh");
    assert!(empty.sample_surface(10, 1).is_empty());
    let flat = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], &[[0, 1, 2]])
        .expect("a degenerate triangle");
    assert!(flat.sample_surface(10, 1).is_empty());
    let cow = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    assert!(cow.sample_surface(0, 1).is_empty());
}
