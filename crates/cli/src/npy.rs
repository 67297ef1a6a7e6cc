//! NPY files, format version 1.0 (numpy's `numpy.lib.format`): the magic string `\x93NUMPY`,
//! the version bytes 1 and 0, the header's length as a little-endian `u16`, the header (a
//! Python dict literal of `descr`, `fortran_order` and `shape`, padded with spaces and ended
//! by a newline so that the data starts at a multiple of 64 bytes), then the values.

use std::io::{self, Write};

/// The magic string and the version, 1.0.
const PREAMBLE: &[u8; 8] = b"\x93NUMPY\x01\x00";

/// The alignment of the data's start.
const ALIGNMENT: usize = 64;

/// Writes `values`, an array of `shape` in C order, as little-endian `float32` (`<f4`).
///
/// # Panics
/// If `values` does not hold the product of `shape` values.
pub fn write_f32(out: &mut impl Write, shape: &[usize], values: &[f32]) -> io::Result<()> {
    assert_eq!(
        shape.iter().product::<usize>(),
        values.len(),
        "the shape's count"
    );
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    // A tuple of one element keeps its comma in Python.
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    let used = PREAMBLE.len() + 2 + header.len() + 1;
    header.push_str(&" ".repeat((ALIGNMENT - used % ALIGNMENT) % ALIGNMENT));
    header.push('\n');
    let length = u16::try_from(header.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NPY header too long"))?;
    out.write_all(PREAMBLE)?;
    out.write_all(&length.to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    for chunk in values.chunks(1 << 14) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
        out.write_all(&bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_aligned_and_values_follow_in_order() {
        let mut bytes = Vec::new();
        write_f32(
            &mut bytes,
            &[2, 1, 3],
            &[1.0, -2.5, 0.0, 3.0, f32::INFINITY, -0.0],
        )
        .unwrap();
        assert_eq!(&bytes[..8], PREAMBLE);
        let length = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + length) % ALIGNMENT, 0);
        let header = std::str::from_utf8(&bytes[10..10 + length]).unwrap();
        assert!(
            header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1, 3), }")
        );
        assert!(header.ends_with('\n'));
        let values: Vec<f32> = bytes[10 + length..]
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(values.len(), 6);
        assert_eq!(values[4], f32::INFINITY);
        assert_eq!(values[5].to_bits(), (-0.0f32).to_bits());

        let mut line = Vec::new();
        write_f32(&mut line, &[3], &[1.0, 2.0, 3.0]).unwrap();
        let length = u16::from_le_bytes([line[8], line[9]]) as usize;
        let header = std::str::from_utf8(&line[10..10 + length]).unwrap();
        assert!(header.contains("'shape': (3,), }"), "{header}");
    }
}
