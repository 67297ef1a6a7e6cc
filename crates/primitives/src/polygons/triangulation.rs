//! Triangulation of a planar polygon's face by ear clipping, keeping the plain fan of a convex
//! face.

use glam::{DVec3, Vec3};

use super::ear_clipping::clip_ears;
use super::projection::{orient, Point};

/// Triangulates the polygon with these vertices, in order: `n - 2` triangles of indices into
/// `vertices`, each wound like the polygon, that together cover it exactly.
///
/// A convex polygon (collinear vertices allowed) gets the fan `(0, i, i + 1)` for `i` in
/// `1..n - 1`, the triangulation OBJ loaders such as tobj apply to every face, so triangle
/// numbers agree with theirs and with [`Polygon::fan_triangle`](crate::Polygon::fan_triangle).
/// A concave polygon is triangulated by ear clipping (Meisters, *Polygons Have Ears*, 1975;
/// Eberly, *Triangulation by Ear Clipping*, 2002) in the projection along the Newell normal's
/// dominant axis: a corner whose triangle is convex and holds no other vertex is cut off,
/// smallest first, the vertices near each candidate found by z-order hashing (as in Mapbox's
/// earcut, Agafonkin 2016). Collinear vertices give zero-area triangles, which every ray test
/// misses.
///
/// The input is not validated (see [`Polygon::new`](crate::Polygon::new) for that): fewer
/// than three vertices give no triangles; a face with zero area or a non-finite vertex gets
/// the fan; a self-intersecting face still gets `n - 2` triangles, covering it as well as
/// ear clipping can.
///
/// # Cost
/// `O(n log n)` for the stars, spirals and other polygons we measured (about 1.5 s for a
/// 1M-corner star on one core of a shared 2-core server; `benches/triangulation.rs`). Whatever
/// the input, the search for ears stops after about 64 units of work per corner (an ear
/// test's visit of a nearby vertex, or a scan of the ring when no ear is left); the rest of
/// the polygon is then cut at its convex corners without testing them, in linear time, so
/// the worst case is `O(n log n)` too, but its triangles may then overlap or leave the
/// polygon. Simple polygons need that only when ear tests keep meeting many vertices in
/// their triangles' boxes, as in dense, deeply nested shapes; self-intersecting ones when
/// they have no ears left.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::triangulate;
///
/// let square = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
/// assert_eq!(triangulate(&square), vec![[0, 1, 2], [0, 2, 3]]);
/// // An arrowhead, concave at vertex 1: the fan's triangle (0, 1, 2) would be its notch.
/// let arrow = [
///     Vec3::new(2.0, 1.0, 0.0),
///     Vec3::new(1.0, 1.0, 0.0),
///     Vec3::new(0.0, 2.0, 0.0),
///     Vec3::ZERO,
/// ];
/// assert_eq!(triangulate(&arrow), vec![[3, 0, 1], [1, 2, 3]]);
/// ```
pub fn triangulate(vertices: &[Vec3]) -> Vec<[u32; 3]> {
    let n = vertices.len();
    if n < 3 {
        return Vec::new();
    }
    let normal = newell_normal(vertices);
    if !normal.is_finite() || normal == DVec3::ZERO {
        return fan(n);
    }
    // Project along the dominant axis, mirrored if needed so that the polygon winds
    // counter-clockwise: a positive orientation is then a convex turn.
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

/// The Newell normal: [`Polygon::normal`](crate::Polygon::normal)'s, in `f32`, so that the
/// projection is the polygon's own; recomputed in `f64`, where products of `f32` coordinates
/// cannot overflow, where it is infinite (coordinates near 10^19 and beyond), which took
/// every such face for degenerate and gave it the fan.
fn newell_normal(vertices: &[Vec3]) -> DVec3 {
    let normal = super::plane::newell_normal(vertices);
    if normal.is_finite() || !vertices.iter().all(|v| v.is_finite()) {
        return normal.as_dvec3();
    }
    let v0 = vertices[0].as_dvec3();
    vertices[1..]
        .windows(2)
        .map(|pair| (pair[0].as_dvec3() - v0).cross(pair[1].as_dvec3() - v0))
        .sum()
}

/// The fan `(0, i, i + 1)`.
fn fan(n: usize) -> Vec<[u32; 3]> {
    (1..n as u32 - 1).map(|i| [0, i, i + 1]).collect()
}

/// Whether the fan triangulates the counter-clockwise polygon: no corner turns clockwise, no
/// fan triangle is clockwise, and the edge directions change the sign of each coordinate at
/// most twice, as in a single turn (Schorn, Fisher, *Testing the Convexity of a Polygon*,
/// Graphics Gems IV, 1994), which rules out stars that wind twice.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn area(vertices: &[Vec3], triangles: &[[u32; 3]]) -> f32 {
        triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| vertices[i as usize]);
                (b - a).cross(c - a).length() * 0.5
            })
            .sum()
    }

    #[test]
    fn small_inputs() {
        assert!(triangulate(&[]).is_empty());
        assert!(triangulate(&[Vec3::ZERO, Vec3::X]).is_empty());
        assert_eq!(
            triangulate(&[Vec3::ZERO, Vec3::X, Vec3::Y]),
            vec![[0, 1, 2]]
        );
        // Zero area and NaN get the fan.
        let line = [Vec3::ZERO, Vec3::X, Vec3::new(2.0, 0.0, 0.0), Vec3::X];
        assert_eq!(triangulate(&line), fan(4));
        let nan = [Vec3::ZERO, Vec3::X, Vec3::NAN, Vec3::Y];
        assert_eq!(triangulate(&nan), fan(4));
    }

    #[test]
    fn convex_faces_with_collinear_vertices_keep_the_fan() {
        // A square with a vertex in the middle of each side, wound clockwise in the x = 3
        // plane.
        let square = [
            (0.0, 0.0),
            (0.0, 1.0),
            (0.0, 2.0),
            (1.0, 2.0),
            (2.0, 2.0),
            (2.0, 1.0),
            (2.0, 0.0),
            (1.0, 0.0),
        ]
        .map(|(y, z)| Vec3::new(3.0, y, z));
        assert_eq!(triangulate(&square), fan(8));
    }

    #[test]
    fn star_winding_twice_is_not_taken_for_convex() {
        let star: Vec<Vec3> = (0..5)
            .map(|i| {
                let a = (i * 2) as f32 / 5.0 * core::f32::consts::TAU;
                Vec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        let points: Vec<Point> = star
            .iter()
            .map(|v| [f64::from(v.x), f64::from(v.y)])
            .collect();
        assert!(!is_convex(&points));
        assert_eq!(triangulate(&star).len(), 3);
    }

    #[test]
    fn comb_is_covered_exactly() {
        // A comb with five teeth: deeply concave.
        let mut comb = vec![Vec3::new(10.0, 0.0, 0.0), Vec3::new(10.0, 3.0, 0.0)];
        for tooth in (0..5).rev() {
            let x = tooth as f32 * 2.0;
            comb.push(Vec3::new(x + 1.0, 3.0, 0.0));
            comb.push(Vec3::new(x + 1.0, 1.0, 0.0));
            comb.push(Vec3::new(x, 1.0, 0.0));
            if tooth > 0 {
                comb.push(Vec3::new(x, 3.0, 0.0));
            }
        }
        comb.push(Vec3::new(0.0, 0.0, 0.0));
        let triangles = triangulate(&comb);
        assert_eq!(triangles.len(), comb.len() - 2);
        // The base, 10 x 1, and five teeth of 1 x 2.
        assert!((area(&comb, &triangles) - 20.0).abs() < 1e-4);
        for t in &triangles {
            let [a, b, c] = t.map(|i| comb[i as usize]);
            assert!((b - a).cross(c - a).z >= 0.0, "{t:?} is wound backwards");
        }
    }
}
