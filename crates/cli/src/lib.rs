//! The `meshcast` command's input lines: rays (`ox oy oz dx dy dz`) and points (`x y z`),
//! read one per line in bounded chunks.
//!
//! A library of its own so that the line parsers can be tested and fuzzed outside the
//! command (`fuzz/fuzz_targets/cli_rays.rs`, `cli_points.rs`). Whatever the bytes, a parser
//! answers an item, nothing (a blank line or a comment) or an error naming the line; it never
//! panics.
//!
//! # Examples
//! ```
//! use meshcast_cli::{point_lines, rays};
//!
//! let range = rays::range_from_options(None, Some(10.0))?;
//! let ray = rays::parse_ray("0 0 -5  0 0 1", range)?.ok_or("a ray")?;
//! assert_eq!(ray.t_max, 10.0);
//! assert!(point_lines::parse_point("# a comment")?.is_none());
//! assert!(point_lines::parse_point("1 2 nan").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod input;
pub mod point_lines;
pub mod rays;
