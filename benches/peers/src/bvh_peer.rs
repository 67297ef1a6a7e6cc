//! The `bvh` crate: `Bvh::build` / `Bvh::build_par` over triangle shapes. Its traversal yields
//! the shapes whose boxes the ray hits and leaves the primitive test to the caller, so each
//! candidate is tested with the crate's own `Ray::intersects_triangle`.
//!
//! `nearest_traverse_iterator` yields candidates in order of their boxes' entry distance, so
//! the closest-hit loop stops at the first box that starts beyond the best hit so far. Its
//! traversal keeps a heap rather than the fixed 32-entry stack of `traverse_iterator`, which
//! a deep tree over millions of triangles could overflow.

use anyhow::Result;
use bvh::aabb::{Aabb, Bounded};
use bvh::bounding_hierarchy::{BHShape, BoundingHierarchy};
use bvh::bvh::Bvh;
use bvh::ray::Ray as BvhRay;
use meshcast::Ray;
use nalgebra::Point3;

use crate::tracer::{xyz, Geometry, Library, Threads, Tracer};

/// The bvh crate.
pub struct BvhCrate;

/// One triangle as a `bvh` shape.
pub struct Shape {
    a: Point3<f32>,
    b: Point3<f32>,
    c: Point3<f32>,
    node: usize,
}

impl Bounded<f32, 3> for Shape {
    fn aabb(&self) -> Aabb<f32, 3> {
        Aabb::with_bounds(
            self.a.inf(&self.b).inf(&self.c),
            self.a.sup(&self.b).sup(&self.c),
        )
    }
}

impl BHShape<f32, 3> for Shape {
    fn set_bh_node_index(&mut self, index: usize) {
        self.node = index;
    }

    fn bh_node_index(&self) -> usize {
        self.node
    }
}

/// The hierarchy and its shapes.
pub struct BvhTracer {
    bvh: Bvh<f32, 3>,
    shapes: Vec<Shape>,
}

impl Library for BvhCrate {
    fn name(&self) -> &'static str {
        "bvh"
    }

    fn version(&self) -> String {
        env!("PEER_VERSION_BVH").to_string()
    }

    fn builds_in_parallel(&self) -> bool {
        true
    }

    fn notes(&self) -> &'static str {
        "`Bvh::build` / `Bvh::build_par` (rayon); `Bvh::nearest_traverse_iterator` with an \
         early exit once a box starts beyond the best hit (closest and any hit); \
         `Ray::intersects_triangle` (Möller–Trumbore, back-face culling, so called with both \
         windings; it rejects determinants below `f32::EPSILON` in absolute terms, so it misses \
         small triangles: see the correctness table)"
    }

    fn build(&self, geometry: &Geometry, threads: Threads) -> Result<Box<dyn Tracer>> {
        let point = |i: u32| Point3::from(geometry.positions[i as usize]);
        let mut shapes: Vec<Shape> = geometry
            .indices
            .iter()
            .map(|&[a, b, c]| Shape {
                a: point(a),
                b: point(b),
                c: point(c),
                node: 0,
            })
            .collect();
        let bvh = match threads {
            Threads::One => Bvh::build(&mut shapes),
            Threads::All => Bvh::build_par(&mut shapes),
        };
        Ok(Box::new(BvhTracer { bvh, shapes }))
    }
}

impl BvhTracer {
    /// The distance to `shape` along `ray`, from either side: the crate's test culls back
    /// faces, so the flipped winding catches hits from behind.
    #[inline]
    fn hit(ray: &BvhRay<f32, 3>, shape: &Shape) -> f32 {
        let front = ray
            .intersects_triangle(&shape.a, &shape.b, &shape.c)
            .distance;
        if front.is_finite() {
            front
        } else {
            ray.intersects_triangle(&shape.a, &shape.c, &shape.b)
                .distance
        }
    }

    /// The closest hit within `[t_min, t_max]`, or the first one found when `any`.
    #[inline]
    fn search(&self, ray: &Ray, any: bool) -> Option<f32> {
        let bvh_ray = BvhRay::new(xyz(ray.origin).into(), xyz(ray.dir).into());
        let mut best = ray.t_max;
        let mut found = false;
        for shape in self.bvh.nearest_traverse_iterator(&bvh_ray, &self.shapes) {
            if found {
                // Boxes come nearest first: one that starts beyond the best hit ends the search.
                if let Some((near, _)) = bvh_ray.intersection_slice_for_aabb(&shape.aabb()) {
                    if near > best {
                        break;
                    }
                }
            }
            let t = Self::hit(&bvh_ray, shape);
            if t.is_finite() && t >= ray.t_min && t <= best {
                best = t;
                found = true;
                if any {
                    break;
                }
            }
        }
        found.then_some(best)
    }
}

impl Tracer for BvhTracer {
    #[inline]
    fn closest(&self, ray: &Ray) -> Option<f32> {
        self.search(ray, false)
    }

    #[inline]
    fn occluded(&self, ray: &Ray) -> bool {
        self.search(ray, true).is_some()
    }
}
