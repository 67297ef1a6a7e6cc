//! Batches that are camera images: the width of their rows ([`image_width`]), found so that
//! the batch driver traces them in square tiles of [`TILE_SIDE`] rows and columns, each tile
//! a pair of packets, rather than along rows.

use glam::Vec3;
use meshcast_primitives::Ray;

use crate::batches::batch_ray::BatchRay;

/// The side of the square tiles an image is traced in: a tile's sixteen rays are the two
/// chunks of a packet pair, its top two rows and its bottom two.
pub(crate) const TILE_SIDE: usize = 4;

/// The widest image row [`image_width`] looks for.
const MAX_IMAGE_WIDTH: usize = 1 << 16;

/// The width of the image whose rays `rays` are, in row-major order, if they look like one:
/// rows of at least [`TILE_SIDE`] rays, at least [`TILE_SIDE`] of them, along which each ray
/// steps on from the one before as the first step did, each row starting back where the row
/// before started, one step down. A camera's pixel rays (`Camera::pixel_rays`, a pinhole or
/// an orthographic camera) pass; random rays fail within a few rays.
///
/// The answer only chooses which rays are traced together, in square tiles rather than
/// along rows, never what any ray's answer is, so a few rows are checked rather than all.
pub(crate) fn image_width<R: BatchRay>(rays: &[R]) -> Option<usize> {
    let step = |a: usize, b: usize| RayStep::between(&rays[a].seen(), &rays[b].seen());
    if rays.len() < TILE_SIDE * TILE_SIDE {
        return None;
    }
    let along = step(0, 1);
    if along.is_zero() {
        return None;
    }
    // A row ends where the next step turns back against the first.
    let width =
        (2..rays.len().min(MAX_IMAGE_WIDTH + 1)).find(|&i| !step(i - 1, i).agrees(&along))?;
    let rows = rays.len() / width;
    if width < TILE_SIDE || rows < TILE_SIDE {
        return None;
    }
    let down = step(0, width);
    let row_fits = |row: usize| {
        let start = row * width;
        let end = start + width - 1;
        step(start - width, start).agrees(&down)
            && step(end - width, end).agrees(&down)
            && step(start, start + 1).agrees(&along)
            && step(end - 1, end).agrees(&along)
            && (end + 1 == rays.len() || !step(end, end + 1).agrees(&along))
    };
    [1, 2, 3, rows / 2, rows - 1]
        .into_iter()
        .all(row_fits)
        .then_some(width)
}

/// The change from one ray to another, origin and direction.
struct RayStep {
    origin: Vec3,
    dir: Vec3,
}

impl RayStep {
    fn between(from: &Ray, to: &Ray) -> Self {
        Self {
            origin: to.origin - from.origin,
            dir: to.dir - from.dir,
        }
    }

    fn is_zero(&self) -> bool {
        self.origin == Vec3::ZERO && self.dir == Vec3::ZERO
    }

    /// Whether this step goes the way `other` goes (false for NaN).
    fn agrees(&self, other: &Self) -> bool {
        let (o, d) = (self.origin.dot(other.origin), self.dir.dot(other.dir));
        o >= 0.0 && d >= 0.0 && o + d > 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshcast_primitives::Aabb;

    /// A pinhole camera's `width` x `height` image of the unit box, row by row.
    fn pinhole(width: u32, height: u32) -> Vec<Ray> {
        let bounds = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let aspect = width as f32 / height as f32;
        meshcast_primitives::Camera::framing(bounds, 40.0, aspect)
            .pixel_rays(width, height)
            .collect()
    }

    #[test]
    fn camera_images_are_recognised_by_their_width() {
        for (width, height) in [
            (4, 4),
            (5, 4),
            (45, 29),
            (64, 48),
            (3, 40),
            (40, 3),
            (1, 64),
        ] {
            let expected = (width >= 4 && height >= 4).then_some(width as usize);
            assert_eq!(
                image_width(&pinhole(width, height)),
                expected,
                "{width} x {height}"
            );
        }
        // An orthographic image: one direction, origins on a grid.
        let grid: Vec<Ray> = (0..24)
            .flat_map(|row| (0..33).map(move |column| (row, column)))
            .map(|(row, column)| {
                let origin = Vec3::new(column as f32 * 0.1, -row as f32 * 0.1, 5.0);
                Ray::new(origin, Vec3::NEG_Z)
            })
            .collect();
        assert_eq!(image_width(&grid), Some(33));
        // A whole image and part of another row: still rows of 45.
        let mut longer = pinhole(45, 29);
        longer.extend_from_slice(&pinhole(45, 29)[..20]);
        assert_eq!(image_width(&longer), Some(45));
    }

    #[test]
    fn other_batches_are_not_images() {
        // A linear congruential generator's numbers in [-1, 1).
        let mut state = 7u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1 << 23) as f32 - 1.0
        };
        let random_rays: Vec<Ray> = (0..4096)
            .map(|_| {
                let origin = Vec3::new(next(), next(), next()) * 3.0;
                Ray::new(origin, Vec3::new(next(), next(), next()))
            })
            .collect();
        assert_eq!(image_width(&random_rays), None);
        // One ray repeated, an image started a few rays late, and too few rays.
        assert_eq!(image_width(&[Ray::new(Vec3::ZERO, Vec3::X); 64]), None);
        assert_eq!(image_width(&pinhole(45, 29)[3..]), None);
        assert_eq!(image_width(&pinhole(64, 48)[..15]), None);
        // Degenerate rays break the rows they are in.
        let mut poisoned = pinhole(16, 16);
        for ray in poisoned.iter_mut().step_by(37) {
            ray.dir = Vec3::NAN;
        }
        assert_eq!(image_width(&poisoned), None);
    }
}
