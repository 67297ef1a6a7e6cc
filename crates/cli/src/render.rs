//! `meshcast render`: one ray per pixel in parallel, written as a PNG.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use glam::Vec3;
use meshcast::{Camera, Ray};
use rayon::prelude::*;

use crate::camera_options::{CameraOptions, Size};
use crate::image::{srgb_byte, Image};
use crate::loading::{self, Loaded};
use crate::shading::{self, Shading, ShadingPoint, AO_SAMPLES};
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
    let loaded = loading::load_target(&args.mesh)?;
    let origin = loaded.origin();
    let report = match &loaded {
        Loaded::Mesh(mesh) => render_with_options(mesh.as_ref(), origin, args)?,
        Loaded::Scene { scene, .. } => render_with_options(scene, origin, args)?,
    };
    report.image.write_png(&args.output)?;
    writeln!(out, "{}", report.summary(args.mode))?;
    writeln!(out, "wrote {}", args.output.display())?;
    Ok(())
}

/// Renders a mesh or a scene, whose frame lies at `origin` in the world, through the camera
/// the options choose.
fn render_with_options(
    target: &impl Target,
    origin: glam::DVec3,
    args: &Args,
) -> Result<RenderReport> {
    let camera = args.camera.camera(target, origin)?;
    Ok(render(target, &camera, args.camera.size, args.mode))
}

/// Renders `mesh` through `camera` at `size`.
pub fn render<T: Target>(mesh: &T, camera: &Camera, size: Size, mode: Mode) -> RenderReport {
    let ((report_parts, pixels), total_time) = timed(|| {
        let rays: Vec<Ray> = camera.pixel_rays(size.width, size.height).collect();
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

/// Pixels shaded together: their secondary rays (up to `1 + AO_SAMPLES` a pixel, 32 bytes
/// each) are held at once, about 13 MB, whatever the size of the picture.
const SHADING_BAND_PIXELS: usize = 1 << 15;

/// The clay picture, and how many secondary rays it took.
fn shaded<T: Target>(
    mesh: &T,
    camera: &Camera,
    size: Size,
    rays: &[Ray],
    hits: &[Option<T::Hit>],
) -> (Vec<[u8; 3]>, u64) {
    shaded_in_bands(mesh, camera, size, rays, hits, SHADING_BAND_PIXELS)
}

/// [`shaded`], `band` pixels at a time.
fn shaded_in_bands<T: Target>(
    mesh: &T,
    camera: &Camera,
    size: Size,
    rays: &[Ray],
    hits: &[Option<T::Hit>],
    band: usize,
) -> (Vec<[u8; 3]>, u64) {
    let shading = Shading::new(mesh, camera);
    let mut pixels = Vec::with_capacity(rays.len());
    let mut secondary = 0;
    for (index, (rays, hits)) in rays.chunks(band).zip(hits.chunks(band)).enumerate() {
        let first = index * band;
        secondary += shade_band(&shading, mesh, size, first, rays, hits, &mut pixels);
    }
    (pixels, secondary)
}

/// Shades the pixels from `first` on, whose camera rays and hits are given, appends their
/// colours to `pixels` and returns how many secondary rays they took.
///
/// The secondary rays go to the library in two batches, each in pixel order (row-major, one
/// pixel's rays together): a shadow ray for each pixel whose surface faces the key light,
/// parallel rays from neighbouring points that are traced as packets, then each pixel's
/// ambient occlusion rays. The picture is the one asking each ray alone would make.
fn shade_band<T: Target>(
    shading: &Shading<'_, T>,
    mesh: &T,
    size: Size,
    first: usize,
    rays: &[Ray],
    hits: &[Option<T::Hit>],
    pixels: &mut Vec<[u8; 3]>,
) -> u64 {
    let points: Vec<Option<ShadingPoint>> = (rays, hits)
        .into_par_iter()
        .map(|(ray, hit)| hit.as_ref().and_then(|hit| shading.point(ray, hit)))
        .collect();
    let shadow_rays: Vec<Ray> = points
        .iter()
        .flatten()
        .filter_map(|point| shading.shadow_ray(point))
        .collect();
    let occlusion_rays: Vec<Ray> = points
        .par_iter()
        .enumerate()
        .flat_map_iter(|(index, point)| {
            let pixel = (first + index) as u32;
            point
                .iter()
                .flat_map(move |point| shading.occlusion_rays(point, pixel))
        })
        .collect();
    let shadowed = mesh.occluded_batch(&shadow_rays);
    let occluded = mesh.occluded_batch(&occlusion_rays);

    // Each pixel's answers, taken in the order its rays were laid out: whether the key light
    // reaches it, and how many occlusion rays found nothing.
    let mut shadowed = shadowed.iter();
    let mut occluded = occluded.chunks_exact(AO_SAMPLES as usize);
    let visibility: Vec<Option<(bool, u32)>> = points
        .iter()
        .map(|point| {
            let point = point.as_ref()?;
            let key_light_visible = point.faces_key_light() && shadowed.next() == Some(&false);
            let open = occluded.next()?.iter().filter(|&&hit| !hit).count();
            Some((key_light_visible, open as u32))
        })
        .collect();
    pixels.par_extend(
        (&points, &visibility, hits)
            .into_par_iter()
            .enumerate()
            .map(|(index, (point, visibility, hit))| {
                match (point.as_ref().zip(*visibility), hit) {
                    (Some((point, (visible, open))), _) => {
                        to_bytes(shading.colour(point, visible, open))
                    }
                    // A hit that is not of this mesh: nothing to shade.
                    (None, Some(_)) => to_bytes(Vec3::ZERO),
                    (None, None) => to_bytes(background_at(first + index, size)),
                }
            }),
    );
    (shadow_rays.len() + occlusion_rays.len()) as u64
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
    rays: &[Ray],
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

#[cfg(test)]
mod tests {
    use meshcast::{Kernel, Mesh, MeshFiles, Scene, SceneFiles};
    use meshcast_testkit::asset;

    use super::*;
    use crate::camera_options::{default_camera, DEFAULT_FOV_DEGREES};

    /// The clay picture with every ray asked alone, pixel by pixel: camera rays by `cast`,
    /// shadow and occlusion rays by `occluded`.
    fn shaded_one_ray_at_a_time<T: Target>(
        mesh: &T,
        camera: &Camera,
        size: Size,
    ) -> (Vec<[u8; 3]>, u64) {
        let shading = Shading::new(mesh, camera);
        let mut secondary = 0;
        let pixels = camera
            .pixel_rays(size.width, size.height)
            .enumerate()
            .map(|(index, ray)| {
                let Some(hit) = mesh.cast(&ray) else {
                    return to_bytes(background_at(index, size));
                };
                let Some(point) = shading.point(&ray, &hit) else {
                    return to_bytes(Vec3::ZERO);
                };
                let shadow = shading.shadow_ray(&point);
                let visible = shadow.is_some_and(|ray| !mesh.occluded(&ray));
                let mut open = 0;
                for probe in shading.occlusion_rays(&point, index as u32) {
                    open += u32::from(!mesh.occluded(&probe));
                    secondary += 1;
                }
                secondary += u64::from(shadow.is_some());
                to_bytes(shading.colour(&point, visible, open))
            })
            .collect();
        (pixels, secondary)
    }

    /// Renders `mesh` in bands of several sizes (one pixel, a band that ends mid-row, the
    /// whole picture) and checks each picture, and its count of secondary rays, against
    /// [`shaded_one_ray_at_a_time`].
    fn check_batched_shading_matches_single_rays<T: Target>(mesh: &T, size: Size, what: &str) {
        let aspect = size.width as f32 / size.height as f32;
        let camera = default_camera(mesh, DEFAULT_FOV_DEGREES, aspect);
        let (expected, expected_secondary) = shaded_one_ray_at_a_time(mesh, &camera, size);
        assert!(expected_secondary > 0, "{what}: the camera sees the mesh");
        let rays: Vec<Ray> = camera.pixel_rays(size.width, size.height).collect();
        let hits = mesh.cast_batch(&rays);
        for band in [1, 1000, SHADING_BAND_PIXELS] {
            let (pixels, secondary) = shaded_in_bands(mesh, &camera, size, &rays, &hits, band);
            assert_eq!(secondary, expected_secondary, "{what}, bands of {band}");
            let differing = pixels.iter().zip(&expected).position(|(a, b)| a != b);
            assert_eq!(pixels.len(), expected.len(), "{what}, bands of {band}");
            assert_eq!(
                differing, None,
                "{what}, bands of {band}: first differing pixel"
            );
        }
    }

    #[test]
    fn batched_shading_matches_single_rays_on_a_mesh_with_every_kernel() {
        let mut bunny = Mesh::from_obj(asset("stanford-bunny.obj")).unwrap();
        let size = Size {
            width: 97,
            height: 61,
        };
        for kernel in Kernel::supported() {
            bunny.set_kernel(kernel).unwrap();
            check_batched_shading_matches_single_rays(&bunny, size, kernel.name());
        }
    }

    #[test]
    fn batched_shading_matches_single_rays_on_a_scene() {
        let scene = Scene::from_path(asset("gltf/SimpleMeshes.gltf")).unwrap();
        let size = Size {
            width: 80,
            height: 40,
        };
        check_batched_shading_matches_single_rays(&scene, size, "SimpleMeshes.gltf");
    }
}
