//! Smooth vertex normals of a [`TriMesh`], angle-weighted, computed on first use and kept.

use glam::{DVec3, Vec3};
use meshcast_primitives::Triangle;
use std::f64::consts::PI;

use super::derived::Derived;
use crate::triangles::TriMesh;

/// The vertex normals of a [`TriMesh`], computed on first use.
pub(crate) type VertexNormalCache = Derived<Vec<Vec3>>;

impl TriMesh {
    /// One smooth unit normal per vertex, angle-weighted (Thürmer and Wüthrich, "Computing
    /// vertex normals from polygonal facets", 1998): each corner of each non-degenerate
    /// triangle adds the triangle's unit normal, `(v1 - v0) x (v2 - v0)` normalised (the side
    /// from which the corners run counter-clockwise), weighted by the triangle's interior
    /// angle at that corner; each vertex's sum is then normalised.
    ///
    /// Angle weighting makes a vertex's normal independent of how the faces around it are
    /// split into triangles. A vertex that no non-degenerate triangle uses, or whose
    /// contributions cancel out (two coincident triangles of opposite winding), gets
    /// [`Vec3::ZERO`]. File normals ([`TriMesh::normals`]) play no part.
    ///
    /// Computed on the first call, in O(triangles) time, and kept (12 bytes per vertex);
    /// later calls, from any thread, return the same slice. The sums are taken in triangle
    /// order in `f64`, so the same mesh gives the same bits every time, on any number of
    /// threads, and no finite coordinate overflows. [`crate::Mesh::set_positions`] makes a
    /// new mesh, whose normals are computed afresh.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::TriMesh;
    ///
    /// // Two triangles at a right angle along the x axis, facing +z and +y.
    /// let fold = TriMesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    ///     &[[0, 1, 2], [0, 3, 1]],
    /// )?;
    /// let normals = fold.vertex_normals();
    /// assert_eq!(normals[2], Vec3::Z);
    /// // On the shared edge, halfway.
    /// assert!(normals[1].distance(Vec3::new(0.0, 1.0, 1.0).normalize()) < 1e-6);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn vertex_normals(&self) -> &[Vec3] {
        self.vertex_normals
            .get_or_find(|| angle_weighted_normals(self))
    }
}

/// Angle-weighted vertex normals, summed in triangle order.
///
/// In `f64`: every product of finite `f32` coordinates stays finite and normal there, so huge
/// and tiny meshes need no rescaling, and the angles of thin triangles keep their digits.
///
/// Measured on the bunny subdivided twice (1.1M triangles, a loaded two-core machine):
/// 88 ms with three `atan2`, 75 ms with two and the third angle from the sum π (the same
/// bits after rounding to `f32`), 23 ms of it memory traffic (no trigonometry at all). `f32`
/// `atan2` is hardly faster (88 ms with three) and overflows beyond 1e19. Dead end: angles
/// in parallel by rayon, summed in order afterwards (bit-identical): 117 ms on two busy
/// cores; it would also run rayon inside the `OnceLock`'s initialisation, where a worker
/// that steals a job calling [`TriMesh::vertex_normals`] would wait on itself.
fn angle_weighted_normals(tri_mesh: &TriMesh) -> Vec<Vec3> {
    let positions = tri_mesh.positions();
    let mut sums = vec![DVec3::ZERO; positions.len()];
    for &[a, b, c] in tri_mesh.indices() {
        let corners = [a, b, c].map(|i| positions[i as usize]);
        // Skip what the rest of the crate calls degenerate (never hit, zero area in f32).
        if Triangle::new(corners[0], corners[1], corners[2]).is_degenerate() {
            continue;
        }
        let [p0, p1, p2] = corners.map(|p| p.as_dvec3());
        let (e01, e02, e12) = (p1 - p0, p2 - p0, p2 - p1);
        let cross = e01.cross(e02);
        let twice_area = cross.length();
        if twice_area == 0.0 {
            // Collinear after all: the f32 test saw its own rounding of the edges.
            continue;
        }
        let unit = cross / twice_area;
        // The angle between edges e and f is atan2(|e x f|, e . f), and |e x f| is twice the
        // area at every corner; atan2 keeps small angles exact where acos of a cosine near 1
        // would not. The third angle is what the other two leave of π.
        let angle0 = twice_area.atan2(e01.dot(e02));
        let angle1 = twice_area.atan2(-e01.dot(e12));
        let angle2 = (PI - angle0 - angle1).max(0.0);
        for (vertex, angle) in [(a, angle0), (b, angle1), (c, angle2)] {
            sums[vertex as usize] += unit * angle;
        }
    }
    sums.into_iter()
        .map(|sum| sum.normalize_or_zero().as_vec3())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corners of the cube from -1 to 1: bit 0 of the index is x, bit 1 y, bit 2 z.
    fn cube_corners() -> Vec<Vec3> {
        (0..8)
            .map(|i: u32| {
                Vec3::new(
                    if i & 1 == 1 { 1.0 } else { -1.0 },
                    if i & 2 == 2 { 1.0 } else { -1.0 },
                    if i & 4 == 4 { 1.0 } else { -1.0 },
                )
            })
            .collect()
    }

    /// The cube's six faces, counter-clockwise seen from outside.
    const CUBE_FACES: [[u32; 4]; 6] = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];

    /// The cube with each face split along one of its diagonals, chosen by `split(face)`.
    fn cube(split: impl Fn(usize) -> bool) -> TriMesh {
        let triangles = CUBE_FACES
            .iter()
            .enumerate()
            .flat_map(|(face, &[a, b, c, d])| {
                if split(face) {
                    [[a, b, c], [a, c, d]]
                } else {
                    [[b, c, d], [b, d, a]]
                }
            })
            .collect();
        TriMesh::new(cube_corners(), triangles).expect("valid cube")
    }

    #[test]
    fn cube_corners_get_the_outward_diagonal_whatever_the_triangulation() {
        let triangulations = [cube(|_| true), cube(|_| false), cube(|face| face % 2 == 0)];
        for (which, cube) in triangulations.iter().enumerate() {
            assert!(cube.triangles().all(|t| t.normal().dot(t.centroid()) > 0.0));
            // Weighting by area or by triangle count would lean towards the face whose two
            // triangles both touch the corner, and differ between triangulations.
            for (corner, (&normal, &position)) in cube
                .vertex_normals()
                .iter()
                .zip(cube.positions())
                .enumerate()
            {
                // The corner's own direction is the outward diagonal, (±1, ±1, ±1) / √3.
                let expected = position / 3f32.sqrt();
                assert!(
                    normal.distance(expected) < 1e-6,
                    "triangulation {which}, corner {corner}: {normal} != {expected}"
                );
            }
        }
    }

    #[test]
    fn a_planar_grid_has_the_plane_normal_everywhere() {
        // An uneven 7 x 5 grid on a tilted plane, so triangles differ in shape.
        let (a, b) = (Vec3::new(1.0, 0.2, -0.3), Vec3::new(-0.1, 0.8, 0.5));
        let plane_normal = a.cross(b).normalize();
        let (columns, rows) = (7u32, 5u32);
        let positions = (0..rows)
            .flat_map(|j| (0..columns).map(move |i| (i, j)))
            .map(|(i, j)| {
                let (x, y) = (i as f32, j as f32);
                a * (x + 0.3 * (x * 1.7).sin()) + b * (y + 0.25 * (y * 2.3).cos())
            })
            .collect();
        let triangles = (0..rows - 1)
            .flat_map(|j| (0..columns - 1).map(move |i| (i, j)))
            .flat_map(|(i, j)| {
                let corner = j * columns + i;
                let [p, q, r, s] = [corner, corner + 1, corner + columns + 1, corner + columns];
                // Alternate the diagonals, so valences differ too.
                if (i + j) % 2 == 0 {
                    [[p, q, r], [p, r, s]]
                } else {
                    [[p, q, s], [q, r, s]]
                }
            })
            .collect();
        let grid = TriMesh::new(positions, triangles).expect("valid grid");
        assert_eq!(grid.degenerate_count(), 0);
        for (vertex, normal) in grid.vertex_normals().iter().enumerate() {
            assert!(
                normal.distance(plane_normal) < 1e-6,
                "vertex {vertex}: {normal} != {plane_normal}"
            );
        }
    }

    /// The octahedron subdivided `levels` times, every vertex pushed out to the unit sphere.
    fn sphere(levels: u32) -> TriMesh {
        let positions = [
            Vec3::X,
            Vec3::NEG_X,
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
        ];
        let octahedron = TriMesh::new(
            positions.to_vec(),
            vec![
                [0, 2, 4],
                [2, 1, 4],
                [1, 3, 4],
                [3, 0, 4],
                [2, 0, 5],
                [1, 2, 5],
                [3, 1, 5],
                [0, 3, 5],
            ],
        )
        .expect("valid octahedron");
        let fine = octahedron.subdivide(levels).expect("small");
        let on_sphere = fine.positions().iter().map(|p| p.normalize()).collect();
        TriMesh::new(on_sphere, fine.indices().to_vec()).expect("valid sphere")
    }

    #[test]
    fn a_sphere_has_radial_normals() {
        let sphere = sphere(4);
        assert_eq!(sphere.triangle_count(), 2048);
        let worst = sphere
            .vertex_normals()
            .iter()
            .zip(sphere.positions())
            .map(|(normal, position)| normal.angle_between(*position).to_degrees())
            .fold(0.0f32, f32::max);
        // Measured: 0.23 degrees. The triangles' own normals stray up to 5.1 degrees from the
        // radius at their corners, and counting triangles instead of angles gives 0.47.
        assert!(worst < 0.3, "worst angle {worst} degrees");
    }

    #[test]
    fn degenerate_triangles_add_nothing_and_unused_vertices_get_zero() {
        let mesh = TriMesh::from_triangles(
            &[
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [2.0, 0.0, 0.0],
                [5.0, 5.0, 5.0],
            ],
            // A good triangle, one on a line (vertex 3 is used by it alone), one point.
            &[[0, 1, 2], [0, 1, 3], [2, 2, 2]],
        )
        .expect("valid");
        assert_eq!(mesh.degenerate_count(), 2);
        assert_eq!(
            mesh.vertex_normals(),
            &[Vec3::Z, Vec3::Z, Vec3::Z, Vec3::ZERO, Vec3::ZERO]
        );
        let empty = TriMesh::from_triangles(&[[1.0; 3]], &[]).expect("valid");
        assert_eq!(empty.vertex_normals(), &[Vec3::ZERO]);
    }

    #[test]
    fn normals_are_the_same_bits_every_time_and_on_any_thread_count() {
        let bits = |mesh: &TriMesh| -> Vec<[u32; 3]> {
            mesh.vertex_normals()
                .iter()
                .map(|n| n.to_array().map(f32::to_bits))
                .collect()
        };
        let reference = bits(&sphere(3));
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            assert_eq!(pool.install(|| bits(&sphere(3))), reference);
        }
        // A clone keeps the computed normals; equality ignores whether they are computed.
        let computed = sphere(2);
        computed.vertex_normals();
        let copy = computed.clone();
        assert!(copy.vertex_normals.get().is_some());
        assert_eq!(bits(&copy), bits(&computed));
        assert_eq!(sphere(2), computed);
        assert!(sphere(2).vertex_normals.get().is_none());
    }
}
