//! The reference triangulation: meshcast's original ear clipper, kept here unchanged (apart
//! from its Newell normal, which the library keeps private) to check
//! [`meshcast::primitives::triangulate`] against and to time it. `O(n²)` for typical
//! polygons, `O(n³)` at worst: for tests and benchmarks only.

use meshcast::glam::Vec3;

type Point = [f64; 2];

/// The triangles of the original ear clipper (before the z-order hashing of issue 35): the
/// fan for convex polygons, zero-area and non-finite ones; otherwise the first ear found
/// scanning forward from the corner before the last one clipped (Meisters 1975; Eberly 2002),
/// with every remaining vertex tested against each candidate ear.
pub fn reference_triangulate(vertices: &[Vec3]) -> Vec<[u32; 3]> {
    let n = vertices.len();
    if n < 3 {
        return Vec::new();
    }
    let normal = newell_normal(vertices);
    if !normal.is_finite() || normal == Vec3::ZERO {
        return fan(n);
    }
    let k = normal.abs().max_position();
    let (ax, ay) = ((k + 1) % 3, (k + 2) % 3);
    let mirror = if normal[k] > 0.0 { 1.0 } else { -1.0 };
    let points: Vec<Point> = vertices
        .iter()
        .map(|v| [f64::from(v[ax]), mirror * f64::from(v[ay])])
        .collect();
    if is_convex(&points) {
        fan(n)
    } else {
        clip_ears(&points)
    }
}

fn newell_normal(vertices: &[Vec3]) -> Vec3 {
    let Some((&v0, rest)) = vertices.split_first() else {
        return Vec3::ZERO;
    };
    rest.windows(2)
        .map(|pair| (pair[0] - v0).cross(pair[1] - v0))
        .sum()
}

fn fan(n: usize) -> Vec<[u32; 3]> {
    (1..n as u32 - 1).map(|i| [0, i, i + 1]).collect()
}

fn orient(a: Point, b: Point, c: Point) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

fn is_convex(points: &[Point]) -> bool {
    let n = points.len();
    let at = |i: usize| points[i % n];
    let corners_turn_left = (0..n).all(|i| orient(at(i), at(i + 1), at(i + 2)) >= 0.0);
    let fan_is_ccw = (1..n - 1).all(|i| orient(points[0], at(i), at(i + 1)) >= 0.0);
    let sign_changes = |axis: usize| {
        let signs = (0..n)
            .map(|i| at(i + 1)[axis] - at(i)[axis])
            .filter(|d| *d != 0.0)
            .map(|d| d > 0.0);
        let signs: Vec<bool> = signs.collect();
        let changes = signs.windows(2).filter(|w| w[0] != w[1]).count();
        let wrap = usize::from(signs.first() != signs.last());
        changes + wrap
    };
    corners_turn_left && fan_is_ccw && sign_changes(0) <= 2 && sign_changes(1) <= 2
}

fn clip_ears(points: &[Point]) -> Vec<[u32; 3]> {
    let n = points.len();
    let mut remaining: Vec<u32> = (0..n as u32).collect();
    let mut triangles = Vec::with_capacity(n - 2);
    let mut start = 0;
    while remaining.len() > 3 {
        let m = remaining.len();
        let corner = |pos: usize| {
            let prev = remaining[(pos + m - 1) % m];
            let next = remaining[(pos + 1) % m];
            (prev, remaining[pos], next)
        };
        let turn = |pos: usize| {
            let (a, b, c) = corner(pos);
            orient(points[a as usize], points[b as usize], points[c as usize])
        };
        let positions = || (0..m).map(|i| (start + i) % m);
        let pos = positions()
            .find(|&pos| turn(pos) > 0.0 && is_empty(points, &remaining, corner(pos)))
            .or_else(|| positions().find(|&pos| turn(pos) == 0.0))
            .or_else(|| positions().find(|&pos| turn(pos) > 0.0))
            .unwrap_or(start % m);
        let (a, b, c) = corner(pos);
        triangles.push([a, b, c]);
        remaining.remove(pos);
        start = (pos + m - 2) % (m - 1);
    }
    triangles.push([remaining[0], remaining[1], remaining[2]]);
    triangles
}

fn is_empty(points: &[Point], remaining: &[u32], (a, b, c): (u32, u32, u32)) -> bool {
    let [pa, pb, pc] = [a, b, c].map(|i| points[i as usize]);
    remaining.iter().all(|&q| {
        let p = points[q as usize];
        q == a
            || q == b
            || q == c
            || p == pa
            || p == pb
            || p == pc
            || orient(pa, pb, p) < 0.0
            || orient(pb, pc, p) < 0.0
            || orient(pc, pa, p) < 0.0
    })
}
