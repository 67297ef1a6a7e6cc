//! An 8-bit RGB picture and its PNG file.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::{Context, Result};

/// A picture, row by row from the top-left, three bytes (red, green, blue) per pixel.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[u8; 3]>,
}

impl Image {
    /// Writes the picture as an 8-bit RGB PNG.
    ///
    /// # Errors
    /// The file cannot be created or written.
    pub fn write_png(&self, path: &Path) -> Result<()> {
        let context = || format!("writing {}", path.display());
        let file = File::create(path).with_context(context)?;
        let mut encoder = png::Encoder::new(BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().with_context(context)?;
        writer
            .write_image_data(self.pixels.as_flattened())
            .with_context(context)?;
        writer.finish().with_context(context)?;
        Ok(())
    }
}

/// Converts a linear colour channel in `[0, 1]` to an 8-bit sRGB value.
pub fn srgb_byte(linear: f32) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let encoded = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0 + 0.5) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_ends_and_middle() {
        assert_eq!(srgb_byte(0.0), 0);
        assert_eq!(srgb_byte(1.0), 255);
        assert_eq!(srgb_byte(2.0), 255);
        assert_eq!(srgb_byte(-1.0), 0);
        assert_eq!(srgb_byte(f32::NAN), 0);
        assert_eq!(srgb_byte(0.25), 137);
    }
}
