//! The chart: Mrays/s per library, grouped by mesh, one panel per query and thread setting,
//! drawn with plotters' bitmap backend and a font registered from bytes (no fontconfig).

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::results::{Figure, MeshResult};
use crate::tracer::Threads;
use crate::Options;

/// The font: DejaVu Sans, as Debian installs it (package fonts-dejavu-core).
const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Bar colours per row, in row order.
const COLOURS: [RGBColor; 10] = [
    RGBColor(214, 39, 40),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Registers the font once; plotters keeps a `'static` reference to its bytes.
fn register() -> Result<()> {
    let bytes = std::fs::read(FONT_PATH).with_context(|| {
        format!("the chart needs the font {FONT_PATH} (Debian package fonts-dejavu-core)")
    })?;
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| anyhow!("{FONT_PATH} is not a usable font"))
}

/// Draws the chart to `path` (PNG).
pub fn draw(path: &Path, results: &[MeshResult], options: &Options) -> Result<()> {
    register()?;
    draw_panels(path, results, options).map_err(|err| anyhow!("drawing {}: {err}", path.display()))
}

fn draw_panels(
    path: &Path,
    results: &[MeshResult],
    options: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    let names: Vec<String> = results
        .first()
        .map(|r| r.rows.iter().map(|row| row.name.clone()).collect())
        .unwrap_or_default();
    let root = BitMapBackend::new(path, (1800, 1100)).into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(60);
    title.draw(&Text::new(
        format!(
            "Mrays/s per library and mesh ({} rays per set, median of {} rounds; higher is faster)",
            options.rays, options.rounds
        ),
        (20, 18),
        ("sans-serif", 26).into_font(),
    ))?;
    let (panels, legend) = body.split_vertically(990);
    let panels = panels.split_evenly((2, 3));
    let settings = [Threads::One, Threads::All];
    for (index, panel) in panels.iter().enumerate() {
        let threads = settings[index / 3];
        let figure = Figure::RAYS[index % 3];
        let thread_label = match threads {
            Threads::One => "1 thread".to_string(),
            Threads::All => format!("{} threads", options.threads),
        };
        let top = results
            .iter()
            .flat_map(|r| r.rows.iter().filter_map(|row| row.median(figure, threads)))
            .fold(0.0f64, f64::max)
            * 1.1;
        let groups = results.len().max(1);
        let bars = names.len().max(1) as f64;
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("{}, {thread_label}", figure.name()),
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..groups as f64, 0f64..top.max(1e-3))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(groups * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.5).abs() < 1e-6 && i < results.len() {
                    results[i].name.to_string()
                } else {
                    String::new()
                }
            })
            .y_desc("Mrays/s")
            .label_style(("sans-serif", 16))
            .draw()?;
        for (group, result) in results.iter().enumerate() {
            for (b, name) in names.iter().enumerate() {
                let Some(value) = result.row(name).and_then(|row| row.median(figure, threads))
                else {
                    continue;
                };
                let width = 0.8 / bars;
                let x0 = group as f64 + 0.1 + b as f64 * width;
                let colour = COLOURS[b % COLOURS.len()];
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, 0.0), (x0 + width * 0.9, value)],
                    colour.filled(),
                )))?;
            }
        }
    }
    // The legend: one swatch per row.
    let mut x = 80;
    for (b, name) in names.iter().enumerate() {
        let colour = COLOURS[b % COLOURS.len()];
        legend.draw(&Rectangle::new([(x, 12), (x + 24, 36)], colour.filled()))?;
        legend.draw(&Text::new(
            name.clone(),
            (x + 32, 14),
            ("sans-serif", 20).into_font(),
        ))?;
        x += 60 + 12 * name.chars().count() as i32;
    }
    root.present()?;
    Ok(())
}
