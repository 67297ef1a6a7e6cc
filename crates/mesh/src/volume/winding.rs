//! The generalised winding number of a triangle surface under a wide tree (Jacobson, Kavan, Sorkine-Hornung, *Robust
//! Inside-Outside Segmentation using Generalized Winding Numbers*, 2013), summed over the
//! hierarchy with far-field expansions (Barill, Dickson, Schmidt, Levin, Jacobson, *Fast
//! Winding Numbers for Soups and Clouds*, 2018).

use std::f64::consts::PI;
use std::sync::OnceLock;

use glam::{DMat3, DVec3, Mat3, Vec3};
use meshcast_bvh::{WideBvh, WideLane, PADDING_SLOT, STACK_INLINE_CAPACITY, WIDE_WIDTH};
use meshcast_primitives::Triangle;
use smallvec::SmallVec;

/// How far a subtree must be for its expansion to stand in for its triangles: its centre is
/// more than `FAR_FIELD_RATIO` times its radius from the query point (Barill et al.'s β).
///
/// Measured against the exact sum on 3000 points around each of the cow, the bunny and the
/// ogre (half in a box twice theirs, half within 2% of their size from the surface): at 3,
/// the largest error 8.4e-4 and the mean 1e-4, 70k (cow) to 180k (ogre) instructions a
/// query; at 2, 4.4e-3 and 6e-4 in half the instructions; at 4, 2.8e-4 and 3e-5. Without
/// the third-order term, 2 gave errors above 1e-2. One expansion per node rather than per
/// lane (an eighth of the memory, leaves always summed exactly) took 2.4 times the
/// instructions for the same error.
pub(crate) const FAR_FIELD_RATIO: f64 = 3.0;

/// The far-field expansion of one subtree's triangles about their area-weighted centroid
/// `centre`, to third order (Barill et al. 2018, §3.2): the dipole `Σ A n` (area `A`, unit
/// normal `n`), the second-order matrix `Σ ∫ n (x - centre)ᵀ dA` and the third-order
/// tensor `Σ ∫ n (x - centre)(x - centre)ᵀ dA` over the triangles. Stored in `f32` (136 bytes),
/// evaluated in `f64`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Expansion {
    pub(super) centre: Vec3,
    /// The squared distance beyond which the expansion is used: `(β r)²`, `r` a bound on the
    /// distance from `centre` to the subtree's triangles.
    pub(super) far_squared: f32,
    pub(super) dipole: Vec3,
    pub(super) second: Mat3,
    /// For each component `a` of the normal, the symmetric matrix of `n_a (x - centre)
    /// (x - centre)ᵀ`, upper triangle by rows: `xx, xy, xz, yy, yz, zz`.
    pub(super) third: [[f32; 6]; 3],
}

impl Default for Expansion {
    /// Nothing: zero from everywhere.
    fn default() -> Self {
        Self {
            centre: Vec3::ZERO,
            far_squared: 0.0,
            dipole: Vec3::ZERO,
            second: Mat3::ZERO,
            third: [[0.0; 6]; 3],
        }
    }
}

impl Expansion {
    /// The expansion's solid angle seen from `q`, or `None` when `q` is too near for it.
    #[inline]
    pub(super) fn solid_angle(&self, q: DVec3) -> Option<f64> {
        let r = self.centre.as_dvec3() - q;
        let d2 = r.length_squared();
        if d2 <= f64::from(self.far_squared) {
            return None;
        }
        Some(self.value(r, d2))
    }

    /// The expansion's formula at `q`, near or far.
    pub(super) fn value_at(&self, q: DVec3) -> f64 {
        let r = self.centre.as_dvec3() - q;
        self.value(r, r.length_squared())
    }

    /// The expansion's formula at `r` from its centre, `d2 = |r|²`.
    #[inline(always)]
    fn value(&self, r: DVec3, d2: f64) -> f64 {
        let d = d2.sqrt();
        let inv_d3 = 1.0 / (d2 * d);
        let inv_d5 = inv_d3 / d2;
        // The solid angle of a patch is ∫ n · g(x) dA with g(x) = (x - q) / |x - q|³;
        // Taylor's expansion of g about the centre, term by term.
        let first = self.dipole.as_dvec3().dot(r) * inv_d3;
        let second = self.second.as_dmat3();
        let trace = second.x_axis.x + second.y_axis.y + second.z_axis.z;
        let second = trace * inv_d3 - 3.0 * r.dot(second * r) * inv_d5;
        // ½ ∂b ∂c g_a C_abc, with ∂b ∂c g_a = -3 (δab rc + δac rb + δbc ra) / |r|⁵
        // + 15 ra rb rc / |r|⁷, and C symmetric in b and c.
        let (mut rows, mut traces, mut cubic) = (0.0, 0.0, 0.0);
        for (a, c) in self.third.iter().enumerate() {
            let [xx, xy, xz, yy, yz, zz] = c.map(f64::from);
            let c_r = DVec3::new(
                xx * r.x + xy * r.y + xz * r.z,
                xy * r.x + yy * r.y + yz * r.z,
                xz * r.x + yz * r.y + zz * r.z,
            );
            rows += c_r[a];
            traces += r[a] * (xx + yy + zz);
            cubic += r[a] * r.dot(c_r);
        }
        let third = 0.5 * (-3.0 * (2.0 * rows + traces) * inv_d5 + 15.0 * cubic * inv_d5 / d2);
        first + second + third
    }
}

/// The sums an expansion is made from, about a fixed origin (the centre of the mesh's box,
/// so that the subtraction of the centre cancels little), additive over triangles and
/// subtrees.
#[derive(Clone, Copy)]
struct Moments {
    area: f64,
    /// `Σ A c`, `c` the triangle's centroid.
    area_centroid: DVec3,
    /// `Σ A n`.
    dipole: DVec3,
    /// `Σ A n cᵀ` (column `j` is `Σ A n c_j`): `∫ n xᵀ dA`, a triangle's mean being its
    /// centroid.
    first: DMat3,
    /// `∫ n_a x xᵀ dA` for each `a`: a triangle's second moment is
    /// `A (c cᵀ + Σ (v_i - c)(v_i - c)ᵀ / 12)`.
    second: [DMat3; 3],
}

impl Default for Moments {
    /// No triangle (glam's default matrix is the identity, not zero).
    fn default() -> Self {
        Self {
            area: 0.0,
            area_centroid: DVec3::ZERO,
            dipole: DVec3::ZERO,
            first: DMat3::ZERO,
            second: [DMat3::ZERO; 3],
        }
    }
}

impl Moments {
    fn of(triangle: &Triangle, origin: DVec3) -> Self {
        let [a, b, c] = triangle.vertices().map(|v| v.as_dvec3() - origin);
        let dipole = (b - a).cross(c - a) * 0.5;
        let area = dipole.length();
        let centroid = (a + b + c) / 3.0;
        let spread = [a, b, c].iter().fold(DMat3::ZERO, |sum, &v| {
            sum + outer(v - centroid, v - centroid)
        });
        let second_moment = outer(centroid, centroid) + spread * (1.0 / 12.0);
        Self {
            area,
            area_centroid: centroid * area,
            dipole,
            first: outer(dipole, centroid),
            second: [0, 1, 2].map(|k| second_moment * dipole[k]),
        }
    }

    fn add(self, other: Self) -> Self {
        Self {
            area: self.area + other.area,
            area_centroid: self.area_centroid + other.area_centroid,
            dipole: self.dipole + other.dipole,
            first: self.first + other.first,
            second: [0, 1, 2].map(|k| self.second[k] + other.second[k]),
        }
    }

    /// The area-weighted centroid (relative to the origin), or for no area the centre of
    /// the box `min..max` (relative too).
    fn centre(&self, min: DVec3, max: DVec3) -> DVec3 {
        if self.area > 0.0 {
            (self.area_centroid / self.area).clamp(min, max)
        } else {
            (min + max) * 0.5
        }
    }

    /// The expansion of these moments about `centre` (relative to `origin`), used beyond
    /// β times `radius` from it.
    fn expansion(&self, origin: DVec3, centre: DVec3, radius: f64) -> Expansion {
        let reach = FAR_FIELD_RATIO * radius;
        // Moments about the centre: ∫ n (x - p)ᵀ = F - m pᵀ, and
        // ∫ n_a (x - p)(x - p)ᵀ = S_a - F_a pᵀ - p F_aᵀ + m_a p pᵀ (F_a the row a of F).
        let second = self.first - outer(self.dipole, centre);
        let rows = self.first.transpose();
        let third = [0, 1, 2].map(|a| {
            let row = rows.col(a);
            let c = self.second[a] - outer(row, centre) - outer(centre, row)
                + outer(centre, centre) * self.dipole[a];
            [
                c.x_axis.x, c.y_axis.x, c.z_axis.x, c.y_axis.y, c.z_axis.y, c.z_axis.z,
            ]
            .map(|value| value as f32)
        });
        Expansion {
            centre: (centre + origin).as_vec3(),
            // Rounded up to f32 by a few steps so that rounding never brings a point nearer.
            far_squared: (reach * reach * (1.0 + 1e-6)) as f32,
            dipole: self.dipole.as_vec3(),
            second: second.as_mat3(),
            third,
        }
    }
}

/// The radius about `centre` of a ball holding the lanes' balls `(centre, radius)` (a
/// negative radius marks an empty lane).
fn enclosing(lanes: &[(DVec3, f64); WIDE_WIDTH], centre: DVec3) -> f64 {
    lanes
        .iter()
        .filter(|(_, radius)| *radius >= 0.0)
        .map(|(c, radius)| c.distance(centre) + radius)
        .fold(0.0, f64::max)
}

/// `a bᵀ`.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// The expansions of a mesh's hierarchy: one for the whole mesh and one per lane of each
/// wide node.
#[derive(Clone, Debug, Default)]
pub(crate) struct WindingTree {
    pub(super) root: Expansion,
    pub(super) lanes: Vec<[Expansion; WIDE_WIDTH]>,
}

impl WindingTree {
    /// The expansions of the hierarchy `wide`, whose slot `s` holds the triangle
    /// `leaf_triangle(s)`, bottom-up on one thread (a rayon build here
    /// could wait, inside the lazy cell, on a batch task of the same query).
    ///
    /// A subtree's radius bounds the distance from its centre to its triangles' corners:
    /// exact for a leaf, and for a node the largest over its lanes of the distance to the
    /// lane's centre plus the lane's radius, or if smaller, the distance to the farthest
    /// corner of its box.
    fn new(wide: &WideBvh, leaf_triangle: impl Fn(u32) -> Triangle) -> Self {
        let nodes = wide.nodes();
        let origin = wide.bounds().centroid().as_dvec3();
        let mut lanes = vec![[Expansion::default(); WIDE_WIDTH]; nodes.len()];
        // Children follow their parents: in reverse, each node's children are done. Per
        // node: the moments of all its triangles, and each lane's centre and radius
        // (negative for an empty lane).
        let mut totals = vec![Moments::default(); nodes.len()];
        let mut spheres = vec![[(DVec3::ZERO, -1.0); WIDE_WIDTH]; nodes.len()];
        for (index, node) in nodes.iter().enumerate().rev() {
            let mut total = Moments::default();
            for lane in 0..WIDE_WIDTH {
                let bounds = node.bounds(lane);
                let (min, max) = (
                    bounds.min.as_dvec3() - origin,
                    bounds.max.as_dvec3() - origin,
                );
                let (moments, centre, radius) = match node.lane(lane) {
                    WideLane::Empty => continue,
                    WideLane::Node(child) => {
                        let moments = totals[child as usize];
                        let centre = moments.centre(min, max);
                        (moments, centre, enclosing(&spheres[child as usize], centre))
                    }
                    WideLane::Leaf(slots) => {
                        let triangles: SmallVec<[Triangle; 8]> = slots
                            .filter(|&slot| wide.primitive_order()[slot as usize] != PADDING_SLOT)
                            .map(&leaf_triangle)
                            .collect();
                        let moments = triangles
                            .iter()
                            .map(|t| Moments::of(t, origin))
                            .fold(Moments::default(), Moments::add);
                        let centre = moments.centre(min, max);
                        let radius = triangles
                            .iter()
                            .flat_map(|t| t.vertices())
                            .map(|v| (v.as_dvec3() - origin).distance(centre))
                            .fold(0.0, f64::max);
                        (moments, centre, radius)
                    }
                };
                let corner = (centre - min).abs().max((max - centre).abs()).length();
                let radius = radius.min(corner);
                spheres[index][lane] = (centre, radius);
                lanes[index][lane] = moments.expansion(origin, centre, radius);
                total = total.add(moments);
            }
            totals[index] = total;
        }
        let root = match (totals.first(), spheres.first()) {
            (Some(total), Some(children)) => {
                let bounds = wide.bounds();
                let (min, max) = (
                    bounds.min.as_dvec3() - origin,
                    bounds.max.as_dvec3() - origin,
                );
                let centre = total.centre(min, max);
                let corner = (centre - min).abs().max((max - centre).abs()).length();
                total.expansion(origin, centre, enclosing(children, centre).min(corner))
            }
            _ => Expansion::default(),
        };
        Self { root, lanes }
    }

    /// Heap bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.lanes.capacity() * core::mem::size_of::<[Expansion; WIDE_WIDTH]>()
    }

    /// The total solid angle of the triangles of `wide` seen from `q`: expansions for subtrees far
    /// enough, the exact formula for the triangles of the others, summed in one fixed order
    /// (depth first, lanes in order).
    fn solid_angle(
        &self,
        wide: &WideBvh,
        leaf_triangle: impl Fn(u32) -> Triangle,
        q: DVec3,
    ) -> f64 {
        if wide.is_empty() {
            return 0.0;
        }
        if let Some(far) = self.root.solid_angle(q) {
            return far;
        }
        let nodes = wide.nodes();
        let mut sum = 0.0;
        let mut stack: SmallVec<[u32; STACK_INLINE_CAPACITY]> = SmallVec::new();
        stack.push(0);
        while let Some(index) = stack.pop() {
            let node = &nodes[index as usize];
            for (lane, expansion) in self.lanes[index as usize].iter().enumerate() {
                let content = node.lane(lane);
                if content == WideLane::Empty {
                    continue;
                }
                if let Some(far) = expansion.solid_angle(q) {
                    sum += far;
                    continue;
                }
                match content {
                    WideLane::Node(child) => stack.push(child),
                    WideLane::Leaf(slots) => {
                        for slot in slots {
                            if wide.primitive_order()[slot as usize] != PADDING_SLOT {
                                sum += leaf_triangle(slot).solid_angle(q);
                            }
                        }
                    }
                    WideLane::Empty => {}
                }
            }
        }
        sum
    }
}

/// A mesh's [`WindingTree`], made on first use (a `Mesh` holds one).
///
/// It is a function of the mesh's triangles and hierarchy, so two caches always compare
/// equal.
#[derive(Clone, Debug, Default)]
pub(crate) struct WindingCache(OnceLock<WindingTree>);

impl WindingCache {
    /// The tree if it has been made.
    pub(crate) fn get(&self) -> Option<&WindingTree> {
        self.0.get()
    }

    /// The tree of the triangles of `wide` (slot `s` holding `leaf_triangle(s)`), made on
    /// the first call. Every call must pass the same tree and triangles.
    pub(super) fn tree(
        &self,
        wide: &WideBvh,
        leaf_triangle: impl Fn(u32) -> Triangle,
    ) -> &WindingTree {
        self.0.get_or_init(|| WindingTree::new(wide, leaf_triangle))
    }

    /// The winding number at `q` of the triangles of `wide` (slot `s` holding
    /// `leaf_triangle(s)`): their signed solid angle over 4π, the tree made on the first
    /// call. Every call must pass the same tree and triangles.
    pub(crate) fn winding_at(
        &self,
        wide: &WideBvh,
        leaf_triangle: impl Fn(u32) -> Triangle + Copy,
        q: DVec3,
    ) -> f64 {
        let tree = self.tree(wide, leaf_triangle);
        tree.solid_angle(wide, leaf_triangle, q) / (4.0 * PI)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mesh;

    /// The winding number summed over every triangle, exactly.
    fn exact(mesh: &Mesh, q: DVec3) -> f64 {
        mesh.tri_mesh()
            .triangles()
            .filter(|t| !t.is_degenerate())
            .map(|t| t.solid_angle(q))
            .sum::<f64>()
            / (4.0 * PI)
    }

    #[test]
    fn expansions_match_the_exact_sum_far_away_and_near() {
        let octahedron = crate::volume::tests::octahedron(4);
        let mesh = Mesh::from_tri_mesh(octahedron, &Default::default());
        let points = [
            DVec3::ZERO,
            DVec3::new(0.3, -0.2, 0.1),
            DVec3::new(0.3, 0.3, 0.38),
            DVec3::new(0.3, 0.3, 0.42),
            DVec3::new(0.9, 0.5, 0.2),
            DVec3::new(3.0, 1.0, -2.0),
            DVec3::splat(50.0),
        ];
        for q in points {
            let (fast, exact) = (mesh.winding_at(q), exact(&mesh, q));
            assert!((fast - exact).abs() < 1e-3, "{q}: {fast} against {exact}");
        }
        // Far away, the whole mesh's moments cancel: zero up to rounding.
        assert!(mesh.winding_at(DVec3::splat(50.0)).abs() < 1e-12);
        // 136 bytes per lane, once made.
        let tree = mesh.winding.get().expect("made by the first query");
        assert_eq!(tree.bytes(), mesh.bvh().nodes().len() * 8 * 136);
    }
}
