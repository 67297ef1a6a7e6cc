//! The grid a compressed node's child boxes are snapped to (Ylitie, Karras, Laine 2017): per
//! axis an origin and a power-of-two step, and each box as eight-bit steps from the origin,
//! rounded outwards so that the box the shader decodes contains the exact one.

use meshcast_primitives::Aabb;

/// The most steps a box may span from its node's origin: an eight-bit count.
pub(crate) const MAX_STEPS: f64 = 255.0;

/// The finest step, `2^-126`, the smallest normal `f32` power of two: every decoded value is
/// then a multiple of a normal number, so neither it nor any term of its sum is subnormal,
/// and no GPU that flushes subnormals changes it.
const EXPONENT_MIN: i32 = -126;

/// The coarsest step, `2^127`.
const EXPONENT_MAX: i32 = 127;

/// The quantized box of an empty lane: its low plane above its high one, so that it holds
/// nothing (the shader reads an empty lane from its metadata and never tests it).
pub(crate) const EMPTY_STEPS: ([u8; 3], [u8; 3]) = ([u8::MAX; 3], [0; 3]);

/// One axis of a node's grid: the values `origin + q * 2^exponent` for `q` in `0..=255`.
///
/// # Why the decoded boxes contain the exact ones
/// The origin is itself a multiple of the step, `K * 2^e`, so every grid value is an exact
/// multiple `(K + q) * 2^e`, and a lane's `q_lo` is the largest `q` whose grid value is at
/// most the lane's `min` (`floor(min / 2^e) - K`), `q_hi` the smallest whose grid value is at
/// least its `max`. The shader decodes `origin + f32(q) * 2^e`: the product is exact (eight
/// bits times a normal power of two), so the sum, fused or not, is one rounding of the exact
/// grid value. A rounding of any kind (to nearest, towards zero, faithful) is monotone and
/// leaves a float unchanged, so a value at most `min`, a float, rounds to at most `min`; and
/// the exact grid value is zero or a multiple of `2^e >= 2^-126`, never subnormal, so
/// flushing subnormals (inputs or result) changes nothing either. The host computes in
/// `f64`, where every step is exact: scaling an `f32` by a power of two of exponent within
/// +-127 stays normal and exact, `floor` and `ceil` are exact, and a difference whose exact
/// value is an integer of at most 255, or the check `<= 255` of one, is decided exactly by a
/// correctly rounded subtraction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Axis {
    /// `K * 2^exponent`, an `f32` exactly (see [`Axis::spanning`]).
    pub(crate) origin: f32,
    pub(crate) exponent: i32,
}

impl Axis {
    /// The grid that lays `[lo, hi]` out in the fewest steps from a grid origin: the smallest
    /// exponent (at least `2^-126`) on which `ceil(hi / 2^e) - floor(lo / 2^e) <= 255`.
    ///
    /// The origin `floor(lo / 2^e) * 2^e` is an `f32`: either `2^e` is at most the spacing of
    /// the floats around `lo`, and it is `lo`, or `|lo| < 2^23 * 2^e`, and it is an integer of
    /// at most 24 bits times `2^e`.
    ///
    /// # Panics
    /// If `lo > hi`, or either is not finite or beyond `2^100` in magnitude (the caller lays
    /// out only traceable meshes, whose coordinates lie within `2^28`).
    pub(crate) fn spanning(lo: f32, hi: f32) -> Self {
        assert!(
            lo <= hi && lo.abs().max(hi.abs()) <= 2f32.powi(100),
            "a grid spans a range within 2^100"
        );
        let steps = |e: i32| (f64::from(hi) * pow2(-e)).ceil() - (f64::from(lo) * pow2(-e)).floor();
        // No exponent whose 255 steps fall short of the extent can do; the estimate starts
        // one below that bound and the first exponent that fits is the smallest, since a
        // range that fits in 255 steps fits in 255 steps of twice the size.
        let extent = f64::from(hi) - f64::from(lo);
        let start = if extent > 0.0 {
            ((extent / MAX_STEPS).log2().floor() as i32 - 1).max(EXPONENT_MIN)
        } else {
            EXPONENT_MIN
        };
        let exponent = (start..=EXPONENT_MAX)
            .find(|&e| steps(e) <= MAX_STEPS)
            .expect("a range within 2^100 fits in 255 steps of 2^127");
        let first = (f64::from(lo) * pow2(-exponent)).floor() * pow2(exponent);
        // `+ 0.0` makes a negative zero positive.
        let origin = first as f32 + 0.0;
        assert_eq!(f64::from(origin), first, "a grid origin is an f32");
        Self { origin, exponent }
    }

    /// The largest step whose grid value is at most `x` (`x` within the spanned range).
    pub(crate) fn step_below(&self, x: f32) -> u8 {
        self.steps_to((f64::from(x) * pow2(-self.exponent)).floor())
    }

    /// The smallest step whose grid value is at least `x` (`x` within the spanned range).
    pub(crate) fn step_above(&self, x: f32) -> u8 {
        self.steps_to((f64::from(x) * pow2(-self.exponent)).ceil())
    }

    /// `multiple - K`, the steps from the origin to the grid value `multiple * 2^e`.
    fn steps_to(&self, multiple: f64) -> u8 {
        let steps = multiple - f64::from(self.origin) * pow2(-self.exponent);
        assert!(
            (0.0..=MAX_STEPS).contains(&steps),
            "a value outside the spanned range"
        );
        steps as u8
    }

    /// The exponent as the shader reads it: the biased exponent of the `f32` `2^exponent`.
    pub(crate) fn exponent_byte(&self) -> u8 {
        (self.exponent + 127) as u8
    }

    /// The value of step `q` exactly as the shader decodes it, in `f32`:
    /// `origin + f32(q) * 2^exponent`.
    #[cfg(test)]
    pub(crate) fn decode(&self, q: u8) -> f32 {
        let step = f32::from_bits(u32::from(self.exponent_byte()) << 23);
        self.origin + f32::from(q) * step
    }
}

/// The grid of a node's boxes: each axis spans the union of the boxes that hold something
/// (finite and not empty). A node with none gets any grid.
pub(crate) fn grid(boxes: impl IntoIterator<Item = Aabb>) -> [Axis; 3] {
    let union = boxes
        .into_iter()
        .filter(|b| b.is_finite() && !b.is_empty())
        .fold(Aabb::EMPTY, Aabb::union);
    std::array::from_fn(|axis| {
        if union.is_empty() {
            Axis::spanning(0.0, 0.0)
        } else {
            Axis::spanning(union.min[axis], union.max[axis])
        }
    })
}

/// The steps of `bounds` on `grid`, low and high per axis, rounded outwards; a box that holds
/// nothing (empty or not finite) gets [`EMPTY_STEPS`].
pub(crate) fn steps(grid: &[Axis; 3], bounds: Aabb) -> ([u8; 3], [u8; 3]) {
    if !bounds.is_finite() || bounds.is_empty() {
        return EMPTY_STEPS;
    }
    (
        std::array::from_fn(|axis| grid[axis].step_below(bounds.min[axis])),
        std::array::from_fn(|axis| grid[axis].step_above(bounds.max[axis])),
    )
}

/// `2^e` as an `f64`, exactly (`e` within the normal range).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use meshcast_testkit::rng;
    use rand::Rng;

    use super::*;

    /// Whether the box decoded from `(lo, hi)` on `grid` contains `exact`: in exact
    /// arithmetic (so under every rounding), and as the shader's `f32` evaluates it, with the
    /// sum rounded once after an exact product and (as a fused multiply-add would) once
    /// after nothing, to nearest and towards zero.
    fn contains(grid: &[Axis; 3], (lo, hi): ([u8; 3], [u8; 3]), exact: Aabb) -> bool {
        (0..3).all(|axis| {
            let a = grid[axis];
            let (min, max) = (exact.min[axis], exact.max[axis]);
            let scale = pow2(-a.exponent);
            let k = f64::from(a.origin) * scale;
            let exactly = k + f64::from(lo[axis]) <= f64::from(min) * scale
                && k + f64::from(hi[axis]) >= f64::from(max) * scale;
            let grid_value = |q: u8| f64::from(a.origin) + f64::from(q) * pow2(a.exponent);
            let towards_zero = |x: f64| {
                let nearest = x as f32;
                if f64::from(nearest).abs() > x.abs() {
                    f32::from_bits(nearest.to_bits() - 1)
                } else {
                    nearest
                }
            };
            let (low, high) = (grid_value(lo[axis]), grid_value(hi[axis]));
            exactly
                && a.decode(lo[axis]) <= min
                && a.decode(hi[axis]) >= max
                && (low as f32) <= min
                && (high as f32) >= max
                && towards_zero(low) <= min
                && towards_zero(high) >= max
        })
    }

    /// A random coordinate of magnitude `2^-100` to `2^28`, either sign, or zero.
    fn coordinate(random: &mut impl Rng) -> f32 {
        if random.gen_bool(0.05) {
            return 0.0;
        }
        let magnitude = 2f32.powf(random.gen_range(-100.0..28.0));
        if random.gen_bool(0.5) {
            -magnitude
        } else {
            magnitude
        }
    }

    /// A point near `centre`, `spread` away at most (relative, so as small as one float
    /// apart), clamped to the traced range.
    fn near(random: &mut impl Rng, centre: Vec3, spread: f32) -> Vec3 {
        Vec3::from(std::array::from_fn::<f32, 3, _>(|axis| {
            let c = centre[axis];
            let offset = c.abs().max(7.9e-31) * spread * random.gen_range(-1.0..1.0);
            let mut x = (c + offset).clamp(-268_435_456.0, 268_435_456.0);
            if random.gen_bool(0.1) {
                // One float step from the centre.
                x = f32::from_bits(c.to_bits().wrapping_add(1));
                if !x.is_finite() || x.abs() > 268_435_456.0 {
                    x = c;
                }
            }
            x
        }))
    }

    /// Random boxes at every magnitude the shader traces, from a float apart to the whole
    /// range, decode to boxes that contain them, and the steps fit eight bits.
    #[test]
    fn decoded_boxes_contain_random_boxes_at_every_magnitude() {
        for seed in 0..400 {
            let mut random = rng(seed);
            let centre = Vec3::new(
                coordinate(&mut random),
                coordinate(&mut random),
                coordinate(&mut random),
            );
            let spread = 2f32.powf(random.gen_range(-30.0..4.0));
            let boxes: Vec<Aabb> = (0..random.gen_range(1..=8))
                .map(|_| {
                    let p = near(&mut random, centre, spread);
                    let q = near(&mut random, centre, spread);
                    if random.gen_bool(0.1) {
                        Aabb::new(p, p)
                    } else {
                        Aabb::new(p.min(q), p.max(q))
                    }
                })
                .collect();
            let grid = grid(boxes.iter().copied());
            for (lane, &exact) in boxes.iter().enumerate() {
                let steps = steps(&grid, exact);
                assert!(
                    contains(&grid, steps, exact),
                    "seed {seed}, lane {lane}: {exact:?} on {grid:?} is {steps:?}"
                );
            }
        }
    }

    /// Boxes built to be hard: zero extents, negative and mixed signs, the smallest and
    /// largest traced magnitudes, one float wide, and spans that need exactly 255 steps.
    #[test]
    fn decoded_boxes_contain_adversarial_boxes() {
        let limit = 268_435_456.0f32;
        let floor = 7.888_609e-31f32;
        let one_up = |x: f32| f32::from_bits(x.to_bits() + 1);
        let cases: Vec<Vec<Aabb>> = vec![
            vec![Aabb::new(Vec3::ZERO, Vec3::ZERO)],
            vec![Aabb::new(Vec3::splat(-limit), Vec3::splat(limit))],
            vec![Aabb::new(Vec3::splat(floor), Vec3::splat(one_up(floor)))],
            vec![Aabb::new(Vec3::splat(-floor), Vec3::splat(floor))],
            vec![Aabb::new(Vec3::splat(-limit), Vec3::splat(-floor))],
            vec![Aabb::new(Vec3::splat(limit), Vec3::splat(limit))],
            vec![Aabb::new(
                Vec3::splat(one_up(1.0e6)),
                Vec3::splat(one_up(one_up(1.0e6))),
            )],
            vec![
                Aabb::new(Vec3::splat(-limit), Vec3::splat(-limit)),
                Aabb::new(Vec3::splat(floor), Vec3::splat(floor)),
                Aabb::new(Vec3::splat(limit), Vec3::splat(limit)),
            ],
            vec![
                Aabb::new(Vec3::new(0.0, -1.0, 3.0), Vec3::new(255.0, -1.0, 3.0)),
                Aabb::new(Vec3::new(254.0, -1.5, 3.0), Vec3::new(255.0, -1.0, 3.0)),
                Aabb::new(Vec3::new(0.5, -1.0, 3.0), Vec3::new(0.75, -1.0, 3.0)),
            ],
            vec![
                Aabb::new(Vec3::splat(-0.0), Vec3::splat(0.0)),
                Aabb::new(Vec3::splat(-3.0e-30), Vec3::splat(-1.0e-30)),
            ],
            (0..8)
                .map(|i| {
                    let p = Vec3::splat(1000.0 + i as f32 * 0.3);
                    Aabb::new(p, p + Vec3::new(0.1, 0.0, 1.0e-4))
                })
                .collect(),
        ];
        for (case, boxes) in cases.iter().enumerate() {
            let grid = grid(boxes.iter().copied());
            for &exact in boxes {
                let steps = steps(&grid, exact);
                assert!(
                    contains(&grid, steps, exact),
                    "case {case}: {exact:?} on {grid:?}"
                );
            }
        }
        // Nothing to span: any grid, and an empty box gets the empty steps.
        let grid = grid([Aabb::EMPTY]);
        assert_eq!(steps(&grid, Aabb::EMPTY), EMPTY_STEPS);
    }

    /// The grid is as fine as eight bits allow: the range fits 255 steps but not 255 steps
    /// of half the size (above the finest step).
    #[test]
    fn the_grid_is_the_finest_that_fits() {
        let mut random = rng(7);
        for _ in 0..2000 {
            let (a, b) = (coordinate(&mut random), coordinate(&mut random));
            let (lo, hi) = (a.min(b), a.max(b));
            let axis = Axis::spanning(lo, hi);
            let steps =
                |e: i32| (f64::from(hi) * pow2(-e)).ceil() - (f64::from(lo) * pow2(-e)).floor();
            assert!(steps(axis.exponent) <= MAX_STEPS);
            assert!(axis.exponent == EXPONENT_MIN || steps(axis.exponent - 1) > MAX_STEPS);
        }
    }
}
