//! Ray lines: `ox oy oz dx dy dz`, and the range of `t` given on the command line.

use anyhow::{bail, Result};
use glam::{DVec3, Vec3};
use meshcast::{DRay, Ray};

use crate::input;

/// The accepted range of `t` given on the command line, applied to every ray.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// The smallest `t` a hit may have.
    pub t_min: f32,
    /// The largest `t` a hit may have.
    pub t_max: f32,
}

/// Parses one line into a ray with the given range: six numbers separated by white space.
/// Returns `None` for a blank line or a comment (`#` first). Numbers may be `nan` or `inf`;
/// such rays are degenerate and every query treats them as a miss.
///
/// # Errors
/// A line with another count of numbers than six, or a word that is not a number.
pub fn parse_ray(line: &str, range: Range) -> Result<Option<Ray>> {
    let numbers = input::numbers::<6, f32>(line, "ox oy oz dx dy dz", input::number)?;
    Ok(numbers.map(|[ox, oy, oz, dx, dy, dz]| {
        Ray::new(Vec3::new(ox, oy, oz), Vec3::new(dx, dy, dz)).with_range(range.t_min, range.t_max)
    }))
}

/// [`parse_ray`] in `f64`, every digit kept: the rays of a mesh far from the origin, which
/// carries them into its frame before rounding ([`meshcast::Mesh::carry_ray`]). The range is
/// the command line's, as `f64`.
///
/// # Errors
/// As [`parse_ray`].
pub fn parse_world_ray(line: &str, range: Range) -> Result<Option<DRay>> {
    let numbers = input::numbers::<6, f64>(line, "ox oy oz dx dy dz", input::number_f64)?;
    Ok(numbers.map(|[ox, oy, oz, dx, dy, dz]| {
        DRay::new(DVec3::new(ox, oy, oz), DVec3::new(dx, dy, dz))
            .with_range(f64::from(range.t_min), f64::from(range.t_max))
    }))
}

/// Checks a `--t-min`/`--t-max` pair; a missing bound is the default's (`t` just above 0,
/// infinity).
///
/// # Errors
/// A bound that is NaN, or a range with no `t` in it.
pub fn range_from_options(t_min: Option<f32>, t_max: Option<f32>) -> Result<Range> {
    if t_min.is_some_and(f32::is_nan) || t_max.is_some_and(f32::is_nan) {
        bail!("--t-min and --t-max must be numbers");
    }
    let range = Range {
        t_min: t_min.unwrap_or(meshcast::primitives::T_MIN_POSITIVE),
        t_max: t_max.unwrap_or(f32::INFINITY),
    };
    if range.t_min > range.t_max {
        match t_min {
            Some(t_min) => bail!("--t-min {t_min} is greater than --t-max {}", range.t_max),
            None => bail!("--t-max {} leaves no t > 0 to hit", range.t_max),
        }
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERYTHING: Range = Range {
        t_min: 0.0,
        t_max: f32::INFINITY,
    };

    #[test]
    fn parses_white_space_separated_numbers() {
        let ray = parse_ray(" 1 2\t3   0 0 -1.5e0 \r\n", EVERYTHING)
            .unwrap()
            .unwrap();
        assert_eq!(ray.origin, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(ray.dir, Vec3::new(0.0, 0.0, -1.5));
        assert_eq!((ray.t_min, ray.t_max), (0.0, f32::INFINITY));
        assert!(parse_ray("   \n", EVERYTHING).unwrap().is_none());
        assert!(parse_ray("# a comment", EVERYTHING).unwrap().is_none());
        let nan = parse_ray("nan 0 0 1 0 0", EVERYTHING).unwrap().unwrap();
        assert!(!nan.is_valid());
    }

    #[test]
    fn world_rays_keep_every_digit() {
        let ray = parse_world_ray("500123.37 5000456.71 100.25 0 0 -1", EVERYTHING)
            .unwrap()
            .unwrap();
        assert_eq!(ray.origin, DVec3::new(500_123.37, 5_000_456.71, 100.25));
        assert_eq!((ray.t_min, ray.t_max), (0.0, f64::INFINITY));
        assert!(parse_world_ray("1 2 x 4 5 6", EVERYTHING).is_err());
        assert!(parse_world_ray("# a comment", EVERYTHING)
            .unwrap()
            .is_none());
    }

    #[test]
    fn malformed_lines_say_what_is_wrong() {
        let few = parse_ray("1 2 3 4 5", EVERYTHING).unwrap_err().to_string();
        assert_eq!(few, "expected 6 numbers `ox oy oz dx dy dz`, found 5");
        let many = parse_ray("1 2 3 4 5 6 7", EVERYTHING)
            .unwrap_err()
            .to_string();
        assert!(many.contains("found 7"), "{many}");
        let word = parse_ray("1 2 x 4 5 6", EVERYTHING)
            .unwrap_err()
            .to_string();
        assert_eq!(word, "`x` is not a number");
        assert!(parse_ray("1,2,3,4,5,6", EVERYTHING).is_err());
    }

    #[test]
    fn ranges_are_checked() {
        let reversed = range_from_options(Some(2.0), Some(1.0)).unwrap_err();
        assert_eq!(reversed.to_string(), "--t-min 2 is greater than --t-max 1");
        let negative = range_from_options(None, Some(-1.0)).unwrap_err();
        assert_eq!(negative.to_string(), "--t-max -1 leaves no t > 0 to hit");
        assert!(range_from_options(Some(f32::NAN), None).is_err());
        let default = range_from_options(None, None).unwrap();
        assert_eq!(default.t_min, meshcast::primitives::T_MIN_POSITIVE);
        assert_eq!(default.t_max, f32::INFINITY);
    }
}
