//! `meshcast render`: one ray per pixel in parallel, written as a PNG.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use glam::Vec3;
use meshcast::Camera;
use rayon::prelude::*;

use crate::camera_options::{CameraOptions, Size};
use crate::image::{srgb_byte, Image};
use crate::loading::{self, Loaded};
use crate::shading::{self, Shading};
use crate::target::{HitFields, Target};
use crate::timing::{millions_per_second, ms, timed};

/// Render a picture of a mesh to a PNG file.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The mesh file (OBJ, glTF, PLY, STL); a glTF file's nodes make a scene.
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// The PNG file to write.
    #[arg(short, long, value_name = "OUT.png")]
    output: PathBuf,

    /// What the picture shows.
    #[arg(long, value_enum, default_value_t = Mode::Shaded)]
    mode: Mode,

    #[command(flatten)]
    camera: CameraOptions,
}

/// What a rendered picture shows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Clay look: key light with shadow rays, headlight fill and ambient occlusion.
    Shaded,
    /// Distance from the eye: near is bright, far is dark.
    Depth,
    /// The surface normal facing the camera, as RGB.
    Normal,
}

impl Mode {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Shaded => "shaded",
            Self::Depth => "depth",
            Self::Normal => "normal",
        }
    }
}

/// What a render did and how long it took.
pub struct RenderReport {
    pub image: Image,
    /// Camera rays, one per pixel.
    pub primary_rays: usize,
    pub primary_time: Duration,
    /// Shadow and ambient occlusion rays.
    pub secondary_rays: u64,
    /// Primary rays, shading and secondary rays.
    pub total_time: Duration,
    /// Pixels that show the mesh.
    pub covered_pixels: usize,
}

impl RenderReport {
    /// All rays (primary and secondary) per second over the whole render, in millions.
    pub fn total_rate(&self) -> f64 {
        let rays = self.primary_rays as u64 + self.secondary_rays;
        millions_per_second(rays as usize, self.total_time)
    }

    /// One line for people: size, time, rays and their rate.
    pub fn summary(&self, mode: Mode) -> String {
        let mut line = format!(
            "rendered {}x{} ({}) in {:.1} ms: {} camera rays at {:.2} Mrays/s",
            self.image.width,
            self.image.height,
            mode.name(),
            ms(self.total_time),
            self.primary_rays,
            millions_per_second(self.primary_rays, self.primary_time),
        );
        if self.secondary_rays > 0 {
            line += &format!(
                ", {} shadow and occlusion rays; {:.2} Mrays/s overall",
                self.secondary_rays,
                self.total_rate()
            );
        }
        line
    }
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let report = match loading::load_target(&args.mesh)? {
        Loaded::Mesh(mesh) => render_with_options(mesh.as_ref(), args)?,
        Loaded::Scene(scene) => render_with_options(&scene, args)?,
    };
    report.image.write_png(&args.output)?;
    writeln!(out, "{}", report.summary(args.mode))?;
    writeln!(out, "wrote {}", args.output.display())?;
    Ok(())
}

/// Renders a mesh or a scene through the camera the options choose.
fn render_with_options(target: &impl Target, args: &Args) -> Result<RenderReport> {
    let camera = args.camera.camera(target)?;
    Ok(render(target, &camera, args.camera.size, args.mode))
}

/// Renders `mesh` through `camera` at `size`.
pub fn render<T: Target>(mesh: &T, camera: &Camera, size: Size, mode: Mode) -> RenderReport {
    let ((report_parts, pixels), total_time) = timed(|| {
        let rays: Vec<meshcast::Ray> = camera.pixel_rays(size.width, size.height).collect();
        let (hits, primary_time) = timed(|| mesh.cast_batch(&rays));
        let (pixels, secondary_rays) = match mode {
            Mode::Shaded => shaded(mesh, camera, size, &rays, &hits),
            Mode::Depth => (depth(size, &hits), 0),
            Mode::Normal => (normals(mesh, camera, size, &rays, &hits), 0),
        };
        let covered = hits.iter().filter(|hit| hit.is_some()).count();
        ((primary_time, secondary_rays, covered), pixels)
    });
    let (primary_time, secondary_rays, covered_pixels) = report_parts;
    RenderReport {
        image: Image {
            width: size.width,
            height: size.height,
            pixels,
        },
        primary_rays: size.pixel_count(),
        primary_time,
        secondary_rays,
        total_time,
        covered_pixels,
    }
}

/// The clay picture, and how many secondary rays it took.
fn shaded<T: Target>(
    mesh: &T,
    camera: &Camera,
    size: Size,
    rays: &[meshcast::Ray],
    hits: &[Option<T::Hit>],
) -> (Vec<[u8; 3]>, u64) {
    let shading = Shading::new(mesh, camera);
    let shades: Vec<([u8; 3], u32)> = (rays, hits)
        .into_par_iter()
        .enumerate()
        .map(|(index, (ray, hit))| match hit {
            Some(hit) => {
                let shade = shading.shade(ray, hit, index as u32);
                (to_bytes(shade.colour), shade.secondary_rays)
            }
            None => (to_bytes(background_at(index, size)), 0),
        })
        .collect();
    let secondary = shades.iter().map(|&(_, n)| u64::from(n)).sum();
    (
        shades.into_iter().map(|(pixel, _)| pixel).collect(),
        secondary,
    )
}

/// The depth picture: distances mapped from the nearest (white) to the farthest (dark).
fn depth<H: HitFields + Sync>(size: Size, hits: &[Option<H>]) -> Vec<[u8; 3]> {
    let (near, far) = hits
        .iter()
        .flatten()
        .map(HitFields::mesh_hit)
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), hit| {
            (lo.min(hit.t), hi.max(hit.t))
        });
    let span = (far - near).max(f32::MIN_POSITIVE);
    hits.par_iter()
        .enumerate()
        .map(|(index, hit)| match hit {
            Some(hit) => {
                // Stored linearly (not sRGB encoded), so equal steps of distance look equal.
                let closeness = 1.0 - (hit.mesh_hit().t - near) / span;
                [(20.0 + 235.0 * closeness).round() as u8; 3]
            }
            None => to_bytes(background_at(index, size) * 0.3),
        })
        .collect()
}

/// The normal picture.
fn normals<T: Target>(
    mesh: &T,
    camera: &Camera,
    size: Size,
    rays: &[meshcast::Ray],
    hits: &[Option<T::Hit>],
) -> Vec<[u8; 3]> {
    let shading = Shading::new(mesh, camera);
    (rays, hits)
        .into_par_iter()
        .enumerate()
        .map(
            |(index, (ray, hit))| match hit.as_ref().and_then(|hit| mesh.surface(hit)) {
                // Normal maps store the mapped values as they are, not sRGB encoded.
                Some(surface) => shading::normal_colour(shading.facing_normal(ray, &surface))
                    .to_array()
                    .map(|c| (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8),
                None => to_bytes(background_at(index, size) * 0.3),
            },
        )
        .collect()
}

fn background_at(index: usize, size: Size) -> Vec3 {
    let row = index / size.width as usize;
    shading::background(row as f32 / size.height as f32)
}

fn to_bytes(linear: Vec3) -> [u8; 3] {
    [
        srgb_byte(linear.x),
        srgb_byte(linear.y),
        srgb_byte(linear.z),
    ]
}

/// Renders and writes a PNG; used by the demo.
pub fn render_to_file(
    mesh: &meshcast::Mesh,
    camera: &Camera,
    size: Size,
    path: &Path,
) -> Result<RenderReport> {
    let report = render(mesh, camera, size, Mode::Shaded);
    report.image.write_png(path)?;
    Ok(report)
}
