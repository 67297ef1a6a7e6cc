//! Point lines: `x y z`, three finite numbers.

use anyhow::{bail, Result};
use glam::{DVec3, Vec3};

use crate::input;

/// Parses one line into a point: three finite numbers separated by white space. Returns
/// `None` for a blank line or a comment (`#` first).
///
/// # Errors
/// A line with too few or too many numbers, a word that is not a number, or a number that
/// is not finite (`nan`, `inf`, `1e39`).
pub fn parse_point(line: &str) -> Result<Option<Vec3>> {
    let numbers = input::numbers::<3, f32>(line, "x y z", input::finite_number)?;
    Ok(numbers.map(Vec3::from_array))
}

/// [`parse_point`] in `f64`, every digit kept: the points of a mesh far from the origin,
/// which carries them into its frame before rounding ([`meshcast::Mesh::carry_point`]).
///
/// # Errors
/// As [`parse_point`].
pub fn parse_world_point(line: &str) -> Result<Option<DVec3>> {
    let finite = |word: &str| {
        let value = input::number_f64(word)?;
        if !value.is_finite() {
            bail!("`{word}` is not a finite number");
        }
        Ok(value)
    };
    let numbers = input::numbers::<3, f64>(line, "x y z", finite)?;
    Ok(numbers.map(DVec3::from_array))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_white_space_separated_finite_numbers() {
        let point = parse_point(" 1\t-2.5   3e-2 \r\n").unwrap();
        assert_eq!(point, Some(Vec3::new(1.0, -2.5, 0.03)));
        assert_eq!(
            parse_point("-0 0 0").unwrap().unwrap().x.to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(parse_point("   \n").unwrap(), None);
        assert_eq!(parse_point("# 1 2 3").unwrap(), None);
    }

    #[test]
    fn world_points_keep_every_digit() {
        let point = parse_world_point("500123.37 5000456.71 100.25").unwrap();
        assert_eq!(point, Some(DVec3::new(500_123.37, 5_000_456.71, 100.25)));
        assert!(parse_world_point("1 2 nan").is_err());
        assert!(parse_world_point("1 2").is_err());
    }

    #[test]
    fn malformed_points_say_what_is_wrong() {
        let message = |line| parse_point(line).unwrap_err().to_string();
        assert_eq!(message("1 2"), "expected 3 numbers `x y z`, found 2");
        assert_eq!(message("1 2 3 4"), "expected 3 numbers `x y z`, found 4");
        assert_eq!(message("1 y 3"), "`y` is not a number");
        assert_eq!(message("1 2 nan"), "`nan` is not a finite number");
        assert_eq!(message("-inf 2 3"), "`-inf` is not a finite number");
        assert_eq!(message("1e39 2 3"), "`1e39` is not a finite number");
        assert_eq!(message("1,2,3"), "`1,2,3` is not a number");
    }
}
