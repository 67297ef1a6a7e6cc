//! Rays that start at a vertex: the rule that keeps a vertex's own triangles from hiding it,
//! and the batches that trace such rays.
//!
//! A ray whose origin is exactly a triangle's corner meets that triangle at `t = 0` exactly
//! in the watertight test (Woop, Benthin, Wald, *Watertight Ray/Triangle Intersection*,
//! 2013): the corner relative to the origin is the zero vector, so its sheared coordinates
//! are zeros, the two edge functions through it are exact zeros, and the scaled distance
//! `e0 * 0 + 0 * bz + 0 * cz` is zero (a ray in the triangle's plane misses it). Every
//! triangle with a corner at the vertex's position, its own and those of another vertex at
//! the same place (a seam), is therefore left out by the range `(0, t_max]`, with no filter,
//! and the rays can go through the batch and packet paths as they are. The transform test
//! ([`crate::LeafTest::Transform`]) computes that distance with rounding, so on its meshes
//! the same triangles are left out by a filter instead, ray by ray.

use glam::Vec3;
use meshcast_primitives::{Hit, Ray, T_MIN_POSITIVE};
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::mesh::Mesh;
use crate::queries::{QueryOptions, RayQueries};
use crate::triangles::LeafTest;

/// The ray from `origin` along `dir` over `(0, t_max]`: `t = 0`, where the triangles with a
/// corner at `origin` are met, is left out.
#[inline]
pub(super) fn sight_ray(origin: Vec3, dir: Vec3, t_max: f32) -> Ray {
    Ray::new(origin, dir).with_range(T_MIN_POSITIVE, t_max)
}

impl Mesh {
    /// Whether each ray, made by [`sight_ray`] from a point that may be a corner of the
    /// mesh's triangles, hits a triangle with no corner at its origin, in ray order, in
    /// parallel. On the watertight test (see the module doc) that is `occluded_batch`.
    pub(super) fn sight_occluded(&self, rays: &[Ray]) -> Vec<bool> {
        match self.leaf_test() {
            LeafTest::Watertight => self.occluded_batch(rays),
            LeafTest::Transform => rays
                .par_iter()
                .with_min_len(BATCH_GRAIN)
                .map(|ray| {
                    let away = |triangle: u32| !self.has_corner_at(triangle, ray.origin);
                    self.occluded_with(ray, &QueryOptions::new().with_filter(away))
                })
                .collect(),
        }
    }

    /// The closest hit of each ray that [`Mesh::sight_occluded`] counts, in ray order.
    pub(super) fn sight_cast(&self, rays: &[Ray]) -> Vec<Option<Hit>> {
        match self.leaf_test() {
            LeafTest::Watertight => self.cast_batch(rays),
            LeafTest::Transform => rays
                .par_iter()
                .with_min_len(BATCH_GRAIN)
                .map(|ray| {
                    let away = |triangle: u32| !self.has_corner_at(triangle, ray.origin);
                    self.cast_with(ray, &QueryOptions::new().with_filter(away))
                })
                .collect(),
        }
    }

    /// Every vertex, in the order the tree's leaves first reach them, then those on no
    /// triangle: surface neighbours lie near each other in it, so that the rays from
    /// consecutive vertices towards one eye, or along one direction of their frames, run
    /// side by side and are traced as packets. The order changes only the time taken.
    pub(super) fn vertices_by_leaves(&self) -> Vec<u32> {
        let indices = self.tri_mesh().indices();
        let mut reached = vec![false; self.tri_mesh().vertex_count()];
        let mut order = Vec::with_capacity(reached.len());
        for &triangle in self.bvh().primitive_order() {
            let Some(corners) = indices.get(triangle as usize) else {
                continue; // a padding slot
            };
            for &v in corners {
                if !std::mem::replace(&mut reached[v as usize], true) {
                    order.push(v);
                }
            }
        }
        order.extend((0..reached.len() as u32).filter(|&v| !reached[v as usize]));
        order
    }

    /// Whether a corner of `triangle` lies at `point` (`0.0` equal to `-0.0`).
    fn has_corner_at(&self, triangle: u32, point: Vec3) -> bool {
        let positions = self.tri_mesh().positions();
        self.tri_mesh().indices()[triangle as usize]
            .iter()
            .any(|&corner| positions[corner as usize] == point)
    }
}

#[cfg(test)]
mod tests {
    use meshcast_primitives::Contacts;

    use super::*;

    /// A fan of six triangles around a centre vertex, raised so that no ray lies in a
    /// triangle's plane: every ray from the centre meets them all at `t = 0` or not at all.
    #[test]
    fn a_vertexs_own_triangles_meet_its_rays_at_zero() {
        let centre = Vec3::new(0.3, -0.2, 0.7);
        let mut positions = vec![centre];
        for k in 0..6 {
            let angle = k as f32 * core::f32::consts::TAU / 6.0;
            positions.push(centre + Vec3::new(angle.cos(), angle.sin(), 0.1 * k as f32 - 0.2));
        }
        let triangles: Vec<[u32; 3]> = (0..6).map(|k| [0, 1 + k, 1 + (k + 1) % 6]).collect();
        let corners: Vec<[Vec3; 3]> = triangles
            .iter()
            .map(|t| t.map(|i| positions[i as usize]))
            .collect();
        let mut touched = 0;
        for k in 0..200 {
            let a = k as f32 * 0.37;
            let dir = Vec3::new(a.cos(), a.sin(), (k as f32 * 0.11).sin());
            let ray = Ray::new(centre, dir).with_range(0.0, f32::INFINITY);
            for [a, b, c] in &corners {
                let triangle = meshcast_primitives::Triangle::new(*a, *b, *c);
                if let Some(hit) = triangle.intersect_with(&ray, Contacts::Hit) {
                    assert_eq!(hit.t, 0.0, "ray {k}");
                    touched += 1;
                }
                assert!(triangle
                    .intersect_with(&sight_ray(centre, dir, f32::INFINITY), Contacts::Hit)
                    .is_none());
            }
        }
        assert!(touched > 0, "the rays should touch the fan at its centre");
    }
}
