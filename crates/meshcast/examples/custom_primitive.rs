//! A hierarchy over your own primitives: spheres here. Give each a box and a ray test
//! ([`Primitive`]), build a [`Bvh`] over them, and ask the same questions as of a mesh: the
//! closest hit, any hit, every hit. The answers equal a loop over every sphere.
//!
//! `cargo run --release -p meshcast --example custom_primitive`

use meshcast::bvh::Primitive;
use meshcast::glam::Vec3;
use meshcast::{Aabb, BuildOptions, Bvh, Hit, Ray};

/// A solid ball.
struct Ball {
    centre: Vec3,
    radius: f32,
}

impl Primitive for Ball {
    /// Every point the ray test can report lies in this box.
    fn bounds(&self) -> Aabb {
        Aabb::new(self.centre - self.radius, self.centre + self.radius)
    }

    /// Where the ray enters the ball (or leaves it, from inside), within the ray's range.
    fn intersect(&self, ray: &Ray) -> Option<Hit> {
        // |origin + t dir - centre|^2 = radius^2, solved for t in the numerically stable form.
        let offset = ray.origin - self.centre;
        let a = ray.dir.length_squared();
        let half_b = offset.dot(ray.dir);
        let c = offset.length_squared() - self.radius * self.radius;
        let discriminant = half_b * half_b - a * c;
        if discriminant < 0.0 {
            return None;
        }
        let root = discriminant.sqrt();
        let q = -half_b - root.copysign(half_b);
        let (near, far) = if q == 0.0 {
            (0.0, 0.0)
        } else {
            let (t0, t1) = (q / a, c / q);
            (t0.min(t1), t0.max(t1))
        };
        [near, far]
            .into_iter()
            .find(|&t| ray.contains_t(t))
            .map(|t| Hit::new(t, 0.0, 0.0))
    }
}

fn main() {
    // A 20 x 20 x 20 lattice of balls, jittered so that sizes differ.
    let balls: Vec<Ball> = (0..8000)
        .map(|i| {
            let cell = Vec3::new((i % 20) as f32, (i / 20 % 20) as f32, (i / 400) as f32);
            let jitter = ((i * 7919) % 100) as f32 / 100.0;
            Ball {
                centre: cell * 3.0,
                radius: 0.3 + jitter,
            }
        })
        .collect();

    // Build once; the hierarchy keeps its own order, and answers in the balls' indices.
    let bvh = Bvh::build_primitives(&balls, &BuildOptions::default());
    println!("{} balls, {} nodes", balls.len(), bvh.nodes().len());

    let ray = Ray::new(Vec3::new(-5.0, 1.0, 2.0), Vec3::new(1.0, 0.55, 0.7));
    let closest = bvh.cast_primitives(&balls, &ray);
    let every = bvh.cast_all_primitives(&balls, &ray);
    let blocked = bvh.occluded_primitives(&balls, &ray);
    println!(
        "closest: {:?}, {} balls on the way, occluded: {blocked}",
        closest.map(|h| (h.triangle, h.t)),
        every.len()
    );

    // The same answer as testing every ball, ties going to the smaller index.
    let brute_force = balls
        .iter()
        .enumerate()
        .filter_map(|(i, ball)| Some(ball.intersect(&ray)?.with_triangle(i as u32)))
        .min_by(Hit::order);
    assert_eq!(closest, brute_force);
    assert_eq!(every.first().copied(), closest);
    println!("the hierarchy agrees with a loop over every ball");
}
