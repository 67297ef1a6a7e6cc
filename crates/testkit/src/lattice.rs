//! Closed meshes whose coordinates are small integers, exact in `f32` (a box cut into unit
//! squares, a union of boxes with concave creases and corners, an octahedron cut into lattice
//! triangles), with half-integer origins inside and outside, and rays from those origins
//! aimed exactly at every vertex and edge midpoint at oblique angles (so `origin + dir` is
//! that point, exactly), and one ulp beside some vertices. Touching and crossing tests hold
//! every engine to an exact reference on them.

use std::collections::HashMap;

use meshcast::glam::Vec3;
use meshcast::{Ray, TriMesh};

/// A closed, consistently oriented mesh with integer coordinates, its exact inside test and
/// origins that lie off its surface.
pub struct LatticeSolid {
    /// What it is.
    pub name: &'static str,
    /// The surface.
    pub mesh: TriMesh,
    /// Whether a point off the surface is inside.
    pub inside: fn(Vec3) -> bool,
    /// Half-integer origins, inside and outside.
    pub origins: Vec<Vec3>,
}

impl LatticeSolid {
    /// Rays from each origin through every `stride`-th of the mesh's vertices, edge
    /// midpoints and points one ulp (`2^-19`) beside some vertices, each exactly: its origin
    /// plus its direction is the point.
    pub fn rays(&self, stride: usize) -> Vec<Ray> {
        let targets = targets(&self.mesh);
        let mut rays = Vec::new();
        for (k, &origin) in self.origins.iter().enumerate() {
            for &target in targets.iter().skip(k % stride).step_by(stride) {
                let ray = Ray::new(origin, target - origin);
                assert_eq!(origin + ray.dir, target, "exactly through the point");
                rays.push(ray);
            }
        }
        rays
    }
}

/// The three solids: a 6-unit cube cut into unit squares, a union of boxes and the lattice
/// octahedron `|x| + |y| + |z| <= 5`.
pub fn lattice_solids() -> Vec<LatticeSolid> {
    vec![
        LatticeSolid {
            name: "cube cut into unit squares",
            mesh: voxel_surface(in_cube, 6),
            inside: |p| in_cube(p.floor().as_ivec3().to_array()),
            origins: vec![
                Vec3::new(13.5, -4.5, 9.5),
                Vec3::new(-5.5, 2.5, 11.5),
                Vec3::new(3.5, 14.5, -6.5),
                Vec3::new(2.5, 3.5, 1.5),
                Vec3::new(4.5, 0.5, 5.5),
            ],
        },
        LatticeSolid {
            name: "union of boxes",
            mesh: voxel_surface(in_steps, 5),
            inside: |p| in_steps(p.floor().as_ivec3().to_array()),
            origins: vec![
                Vec3::new(9.5, 7.5, 8.5),
                Vec3::new(-4.5, -3.5, 6.5),
                Vec3::new(3.5, 3.5, 3.5),
                Vec3::new(1.5, 2.5, 3.5),
                Vec3::new(3.5, 0.5, 1.5),
            ],
        },
        LatticeSolid {
            name: "lattice octahedron",
            mesh: lattice_octahedron(5),
            inside: |p| p.abs().element_sum() < 5.0,
            origins: vec![
                Vec3::new(7.5, -3.5, 4.5),
                Vec3::new(-2.5, 8.5, -5.5),
                Vec3::new(0.5, -0.5, 1.5),
                Vec3::new(-1.5, 0.5, 0.5),
            ],
        },
    ]
}

fn in_cube([x, y, z]: [i32; 3]) -> bool {
    (0..6).contains(&x) && (0..6).contains(&y) && (0..6).contains(&z)
}

/// A block, a tower on half of it and a ledge.
fn in_steps([x, y, z]: [i32; 3]) -> bool {
    let within = |v: i32, hi: i32| (0..hi).contains(&v);
    within(x, 5) && within(y, 4) && within(z, 2)
        || within(x, 2) && within(y, 4) && within(z, 5)
        || within(x, 5) && within(y, 2) && (2..3).contains(&z)
}

/// The surface of a union of unit voxels within `[-1, size]^3`: every face between a
/// filled and an empty voxel, outwards, each unit square as two triangles.
pub fn voxel_surface(filled: fn([i32; 3]) -> bool, size: i32) -> TriMesh {
    let mut faces = Vec::new();
    for x in -1..=size {
        for y in -1..=size {
            for z in -1..=size {
                let voxel = [x, y, z];
                if !filled(voxel) {
                    continue;
                }
                for k in 0..3 {
                    for step in [1, -1] {
                        let mut next = voxel;
                        next[k] += step;
                        if filled(next) {
                            continue;
                        }
                        // Counter-clockwise about +k from outside when the step is +1.
                        let (u, w) = ((k + 1) % 3, (k + 2) % 3);
                        let mut square: Vec<[i32; 3]> = [(0, 0), (1, 0), (1, 1), (0, 1)]
                            .iter()
                            .map(|&(du, dw)| {
                                let mut p = voxel;
                                p[k] += i32::from(step > 0);
                                p[u] += du;
                                p[w] += dw;
                                p
                            })
                            .collect();
                        if step < 0 {
                            square.reverse();
                        }
                        faces.push(square);
                    }
                }
            }
        }
    }
    mesh_of(&faces)
}

/// The octahedron `|x| + |y| + |z| <= n` with each face cut into `n^2` lattice triangles,
/// outwards.
pub fn lattice_octahedron(n: i32) -> TriMesh {
    let mut faces = Vec::new();
    for signs in 0..8 {
        let s = [1, 2, 4].map(|bit| if signs & bit == 0 { 1 } else { -1 });
        let at = |i: i32, j: i32| [s[0] * i, s[1] * j, s[2] * (n - i - j)];
        for i in 0..n {
            for j in 0..n - i {
                let mut triangles = vec![vec![at(i, j), at(i + 1, j), at(i, j + 1)]];
                if i + j < n - 1 {
                    triangles.push(vec![at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]);
                }
                for mut triangle in triangles {
                    // A mirror in an odd number of axes turns the winding.
                    if s[0] * s[1] * s[2] < 0 {
                        triangle.reverse();
                    }
                    faces.push(triangle);
                }
            }
        }
    }
    mesh_of(&faces)
}

/// The mesh of `faces` (corner lists, each cut into a fan from its first corner), equal
/// corners shared.
fn mesh_of(faces: &[Vec<[i32; 3]>]) -> TriMesh {
    let mut index = HashMap::new();
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut corner = |p: [i32; 3]| {
        *index.entry(p).or_insert_with(|| {
            positions.push(p.map(|x| x as f32));
            positions.len() as u32 - 1
        })
    };
    let mut indices = Vec::new();
    for face in faces {
        let ids: Vec<u32> = face.iter().map(|&p| corner(p)).collect();
        for k in 1..ids.len() - 1 {
            indices.push([ids[0], ids[k], ids[k + 1]]);
        }
    }
    TriMesh::from_triangles(&positions, &indices).expect("a valid mesh")
}

/// Every vertex and edge midpoint of `mesh`, and points one ulp (`2^-19`, exact at these
/// magnitudes) beside every fifth vertex.
fn targets(mesh: &TriMesh) -> Vec<Vec3> {
    let positions = mesh.positions();
    let mut points: Vec<Vec3> = positions.to_vec();
    for &[a, b, c] in mesh.indices() {
        for (p, q) in [(a, b), (b, c), (c, a)] {
            if p < q {
                points.push((positions[p as usize] + positions[q as usize]) * 0.5);
            }
        }
    }
    let ulp = 1.0 / (1u32 << 19) as f32;
    for (i, &p) in positions.iter().enumerate().step_by(5) {
        let mut beside = p;
        beside[i % 3] += if i % 2 == 0 { ulp } else { -ulp };
        points.push(beside);
    }
    points
}
