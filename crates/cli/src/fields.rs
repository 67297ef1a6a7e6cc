//! `meshcast sdf` and `meshcast sample`: a signed distance grid over a mesh's box, written
//! as an NPY file, and points sampled on its surface.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use meshcast::glam::Vec3;
use meshcast::Aabb;

use crate::{loading, npy, output};

/// Write the signed distance (negative inside) at every point of a grid over the mesh's
/// bounding box, padded, as a float32 NPY array of shape (NX, NY, NZ) in C order (z
/// fastest; `numpy.load` reads it).
///
/// The grid's first point is the padded box's minimum corner and its last the maximum,
/// both printed with the shape: point (i, j, k) lies at min + (max - min) * (i, j, k) /
/// (shape - 1) along each axis. Distances are exact to f32 rounding; with --band, values
/// beyond the band read ±band.
#[derive(clap::Args, Debug)]
pub struct SdfArgs {
    /// The mesh (OBJ, glTF flattened into one mesh, PLY, STL, or a cache).
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// Points along each axis: one number for a cube of points, or NX,NY,NZ.
    #[arg(long, value_name = "N|NX,NY,NZ")]
    shape: String,

    /// Clamp distances beyond this length to ±band (computed faster: only the sign is asked
    /// there).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    band: Option<f32>,

    /// The margin added around the box on every side, as a fraction of its longest side.
    #[arg(
        long,
        value_name = "FRACTION",
        default_value_t = 0.1,
        allow_hyphen_values = true
    )]
    padding: f32,

    /// The NPY file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Print points sampled on the mesh's surface, uniform by area, one `X Y Z TRIANGLE` line
/// each (the triangle it lies on), the same for a seed on any number of threads.
///
/// With --even, the points are spread evenly (Poisson-disk, by Yuksel's sample elimination):
/// at most N of them, every two at least RADIUS apart when a radius is given.
#[derive(clap::Args, Debug)]
pub struct SampleArgs {
    /// The mesh (OBJ, glTF flattened into one mesh, PLY, STL, or a cache).
    #[arg(value_name = "MESH")]
    mesh: PathBuf,

    /// How many points.
    #[arg(short = 'n', value_name = "N")]
    count: usize,

    /// The seed of the random numbers.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,

    /// Spread the points evenly, at least RADIUS apart if given.
    #[arg(long, value_name = "RADIUS", num_args = 0..=1, allow_hyphen_values = true)]
    even: Option<Option<f32>>,
}

/// Writes the grid and prints `shape`, `bounds` and `out` lines.
pub fn run_sdf(args: &SdfArgs, out: &mut impl Write) -> Result<()> {
    let shape = parse_shape(&args.shape)?;
    if !(args.padding.is_finite() && args.padding >= 0.0) {
        bail!(
            "--padding: expected a finite fraction >= 0, found {}",
            args.padding
        );
    }
    if let Some(band) = args.band.filter(|b| !(b.is_finite() && *b > 0.0)) {
        bail!("--band: expected a positive finite length, found {band}");
    }
    let mesh = loading::load(&args.mesh)?.mesh;
    let bounds = padded(mesh.bounds(), args.padding).with_context(|| {
        format!(
            "{} has no triangles to take a box from",
            args.mesh.display()
        )
    })?;
    let values = mesh.signed_distance_grid(bounds, shape, args.band);
    let file =
        File::create(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let mut writer = BufWriter::new(file);
    npy::write_f32(&mut writer, &shape, &values)
        .and_then(|()| writer.flush())
        .with_context(|| format!("writing {}", args.out.display()))?;
    let [nx, ny, nz] = shape;
    let (min, max) = (bounds.min, bounds.max);
    writeln!(out, "shape          {nx} {ny} {nz}")?;
    writeln!(
        out,
        "bounds         {} {} {} {} {} {}",
        min.x, min.y, min.z, max.x, max.y, max.z
    )?;
    writeln!(out, "out            {}", args.out.display())?;
    Ok(())
}

/// Prints one `X Y Z TRIANGLE` line per sample.
pub fn run_sample(args: &SampleArgs, out: &mut impl Write) -> Result<()> {
    let mesh = loading::load(&args.mesh)?.mesh;
    let samples = match args.even {
        None => mesh.sample_surface(args.count, args.seed),
        Some(radius) => mesh.sample_surface_even(args.count, radius, args.seed)?,
    };
    let lines: Vec<(Vec3, u32)> = samples.points.into_iter().zip(samples.triangles).collect();
    for block in output::lines(&lines, |text, (p, triangle)| {
        output::sample(text, *p, *triangle)
    }) {
        out.write_all(block.as_bytes())?;
    }
    Ok(())
}

/// `N` or `NX,NY,NZ`, each at least 1, with a count of points that fits in memory's
/// addresses.
fn parse_shape(text: &str) -> Result<[usize; 3]> {
    let counts = text
        .split(',')
        .map(|n| {
            n.trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .with_context(|| format!("--shape: `{}` is not a count of at least 1", n.trim()))
        })
        .collect::<Result<Vec<usize>>>()?;
    let shape = match counts[..] {
        [n] => [n; 3],
        [nx, ny, nz] => [nx, ny, nz],
        _ => bail!(
            "--shape: expected N or NX,NY,NZ, found {} numbers",
            counts.len()
        ),
    };
    shape
        .iter()
        .try_fold(4usize, |bytes, &n| bytes.checked_mul(n))
        .filter(|&bytes| isize::try_from(bytes).is_ok())
        .with_context(|| format!("--shape: a grid of {text} points is too large"))?;
    Ok(shape)
}

/// The box grown by `padding` times its longest side on every side; `None` for an empty box.
fn padded(bounds: Aabb, padding: f32) -> Option<Aabb> {
    let extent = bounds.extent();
    if !(extent.is_finite() && extent.min_element() >= 0.0) {
        return None;
    }
    let margin = Vec3::splat(extent.max_element() * padding);
    Some(Aabb::new(bounds.min - margin, bounds.max + margin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_read_as_a_cube_or_three_counts() {
        assert_eq!(parse_shape("8").unwrap(), [8, 8, 8]);
        assert_eq!(parse_shape("4, 5,6").unwrap(), [4, 5, 6]);
        for bad in [
            "",
            "0",
            "4,5",
            "4,5,6,7",
            "-3",
            "x",
            "1.5",
            "4294967296,4294967296,4",
        ] {
            assert!(parse_shape(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn padding_grows_the_box_by_its_longest_side() {
        let box_ = Aabb::new(Vec3::ZERO, Vec3::new(10.0, 2.0, 1.0));
        let grown = padded(box_, 0.1).unwrap();
        assert_eq!(grown.min, Vec3::splat(-1.0));
        assert_eq!(grown.max, Vec3::new(11.0, 3.0, 2.0));
        assert!(padded(Aabb::EMPTY, 0.1).is_none());
    }
}
