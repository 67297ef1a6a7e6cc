//! The image size and camera placement options shared by `pick` and `render`.

use std::str::FromStr;

use anyhow::{bail, Result};
use glam::{DVec3, Vec3};
use meshcast::Camera;

use crate::target::Target;

/// The largest accepted image side, in pixels.
const MAX_IMAGE_SIDE: u32 = 16_384;

/// The most pixels an image may have (a 8192 x 4096 picture), so that a typo cannot ask for
/// tens of gigabytes of rays.
const MAX_PIXELS: u64 = 1 << 25;

/// The default vertical field of view, in degrees.
pub const DEFAULT_FOV_DEGREES: f32 = 40.0;

/// An image size, `WIDTHxHEIGHT` on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Size {
    /// The default size of pictures and pick images.
    pub const DEFAULT: Self = Self {
        width: 800,
        height: 600,
    };

    /// The number of pixels.
    pub fn pixel_count(self) -> usize {
        self.width as usize * self.height as usize
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (width, height) = text
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 800x600, found `{text}`"))?;
        let side = |word: &str| match word.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_IMAGE_SIDE).contains(&n) => Ok(n),
            _ => Err(format!(
                "`{word}` in `{text}` is not a whole number from 1 to {MAX_IMAGE_SIDE}"
            )),
        };
        let size = Self {
            width: side(width)?,
            height: side(height)?,
        };
        if size.pixel_count() as u64 > MAX_PIXELS {
            return Err(format!("`{text}` has more than {MAX_PIXELS} pixels"));
        }
        Ok(size)
    }
}

/// Parses `x,y,z` into a finite vector.
pub fn parse_vec3(text: &str) -> Result<Vec3, String> {
    let point = parse_dvec3(text)?.as_vec3();
    if point.is_finite() {
        Ok(point)
    } else {
        Err(format!("`{text}` is beyond the range of f32"))
    }
}

/// Parses `x,y,z` into a finite vector in `f64`, every digit kept: a point in world
/// coordinates, which may lie far from the origin.
pub fn parse_dvec3(text: &str) -> Result<DVec3, String> {
    let numbers = text
        .split(',')
        .map(|word| word.trim().parse::<f64>().ok().filter(|n| n.is_finite()))
        .collect::<Option<Vec<f64>>>();
    match numbers.as_deref() {
        Some(&[x, y, z]) => Ok(DVec3::new(x, y, z)),
        _ => Err(format!(
            "expected three finite numbers x,y,z such as 0,1.5,-2, found `{text}`"
        )),
    }
}

/// Where the camera is and how large its image is.
#[derive(clap::Args, Debug, Clone)]
pub struct CameraOptions {
    /// Image size in pixels.
    #[arg(long, value_name = "WxH", default_value_t = Size::DEFAULT)]
    pub size: Size,

    /// Camera position in world coordinates, every digit kept (default: framing the whole
    /// mesh from the front right, a little above)
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dvec3, allow_hyphen_values = true)]
    pub eye: Option<DVec3>,

    /// The point at the centre of the image, in world coordinates (default: the framed
    /// mesh's centre)
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dvec3, allow_hyphen_values = true)]
    pub target: Option<DVec3>,

    /// The direction that is up in the image.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true,
          default_value = "0,1,0")]
    pub up: Vec3,

    /// Vertical field of view in degrees.
    #[arg(long, value_name = "DEGREES", default_value_t = DEFAULT_FOV_DEGREES)]
    pub fov: f32,
}

impl CameraOptions {
    /// The camera for `mesh`, in the frame whose origin lies at `origin` in the world (the
    /// mesh's own, [`meshcast::Mesh::origin`], or a far scene's): the options given, their
    /// points carried into the frame in `f64`, the rest from the default camera, which fits
    /// the mesh's vertices in the image.
    ///
    /// # Errors
    /// A field of view outside (0, 180) degrees, a zero `up`, or an eye on the target.
    pub fn camera(&self, mesh: &impl Target, origin: DVec3) -> Result<Camera> {
        if !(self.fov > 0.0 && self.fov < 180.0) {
            bail!("--fov {} is not between 0 and 180 degrees", self.fov);
        }
        if self.up == Vec3::ZERO {
            bail!("--up must not be zero");
        }
        let aspect = self.size.width as f32 / self.size.height as f32;
        let framing = default_camera(mesh, self.fov, aspect);
        let bounds = mesh.bounds();
        let carried = |point: Option<DVec3>| point.map(|p| (p - origin).as_vec3());
        let (eye, target) = (carried(self.eye), carried(self.target));
        let target = match (eye, target) {
            (_, Some(target)) => target,
            // A chosen eye looks at the middle of the mesh.
            (Some(_), None) if !bounds.is_empty() => bounds.centroid(),
            _ => framing.target,
        };
        let eye = eye.unwrap_or(framing.eye);
        if eye == target {
            bail!("the camera's eye and target are the same point {eye}");
        }
        Ok(Camera::new(eye, target, self.up, self.fov, aspect))
    }
}

/// The camera of `pick`, `render` and the demo when none is given: the mesh's vertices fitted
/// in the image, seen from the front right and a little above.
pub fn default_camera(mesh: &impl Target, fov_y_degrees: f32, aspect: f32) -> Camera {
    Camera::framing_points(&mesh.world_positions(), fov_y_degrees, aspect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_reject_nonsense() {
        assert_eq!(
            "640x480".parse(),
            Ok(Size {
                width: 640,
                height: 480
            })
        );
        assert_eq!("3X2".parse::<Size>().map(|s| s.pixel_count()), Ok(6));
        for bad in [
            "", "640", "0x10", "10x0", "-5x5", "axb", "640*480", "99999x2", "1x2x3",
        ] {
            assert!(bad.parse::<Size>().is_err(), "{bad}");
        }
    }

    #[test]
    fn vectors_parse_three_finite_numbers() {
        assert_eq!(parse_vec3("1,-2.5, 3e2"), Ok(Vec3::new(1.0, -2.5, 300.0)));
        for bad in ["", "1,2", "1,2,3,4", "1,nan,2", "inf,0,0", "a,b,c"] {
            assert!(parse_vec3(bad).is_err(), "{bad}");
        }
    }
}
