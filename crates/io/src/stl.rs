//! STL, ASCII and binary, through stl_io; repeated corners welded into shared vertices.
//!
//! The encoding is chosen here, not by stl_io (which takes any file whose first line starts
//! with `solid ` for ASCII, though many binary files begin so): binary when the size is
//! exactly `84 + 50 n` for the triangle count `n` at byte 80, else ASCII when the file
//! starts with `solid` and its first kilobyte holds no NUL byte. stl_io is then shown the
//! file with a header that makes it take the same decision.

use std::collections::hash_map::{Entry, HashMap};
use std::io::{ErrorKind, Read, Seek, SeekFrom};

use glam::Vec3;

use crate::source::excerpt;
use crate::source::Source;
use crate::{Error, Format, Location, Place, Result};
use meshcast_bvh::{try_grow, try_reserve, OutOfMemory};
use meshcast_mesh::TriMesh;

/// A binary STL's header: 80 free bytes and the triangle count.
const BINARY_HEADER_BYTES: usize = 84;
/// A binary STL's triangle: normal, three corners, attribute byte count.
const BINARY_TRIANGLE_BYTES: u64 = 50;
/// How much of a file starting with `solid` is searched for a NUL byte, the sign of binary.
const ASCII_PROBE_BYTES: usize = 1024;

/// Reads the triangles of an STL file in file order, welding corners whose coordinates are
/// bit for bit equal (`-0.0` welded with `0.0`, the same point) into one vertex, numbered
/// in order of first use. Stored facet normals and attribute bytes are ignored. An ASCII
/// file may hold several solids, one after another; text after the last `endsolid` line that
/// does not start another solid is ignored.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let mut welder = Welder::default();
    match encoding(bytes, source)? {
        Encoding::Binary => {
            // The size matched the count: reserve for it, and for the vertices of a closed
            // surface (half as many), growing past that as needed.
            let count = (bytes.len() - BINARY_HEADER_BYTES) / BINARY_TRIANGLE_BYTES as usize;
            welder.reserve(count, source)?;
            welder.read(&[0; 80], &bytes[80..], source)?
        }
        Encoding::Ascii { body } => {
            let mut body = Some(body);
            while let Some(start) = body {
                welder.read(b"solid meshcast\n", &bytes[start..], source)?;
                body = next_solid(bytes, start);
            }
        }
    }
    if welder.indices.is_empty() {
        return Err(Error::NoFaces {
            at: source.at(Place::File),
        });
    }
    Ok(TriMesh::new(welder.positions, welder.indices)?)
}

/// Where the facets of the next solid begin, after the solid whose facets begin at `start`:
/// past the first line whose first word is `endsolid` (where stl_io stops), the next line
/// that is not blank, if it starts with `solid`.
fn next_solid(bytes: &[u8], start: usize) -> Option<usize> {
    let mut offset = start;
    for line in bytes[start..].split_inclusive(|&b| b == b'\n') {
        offset += line.len();
        let first = line
            .split(|b| b.is_ascii_whitespace())
            .find(|word| !word.is_empty());
        if first == Some(&b"endsolid"[..]) {
            return ascii_body(bytes, offset);
        }
    }
    None
}

/// Where the facets begin, if the text from `from` (after white space) starts with
/// `solid`: after that line.
fn ascii_body(bytes: &[u8], from: usize) -> Option<usize> {
    let text = crate::format::text_start(&bytes[from..]);
    let solid = bytes.len() - text.len();
    text.get(..5)
        .is_some_and(|word| word.eq_ignore_ascii_case(b"solid"))
        .then(|| {
            text.iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |end| solid + end + 1)
        })
}

/// How an STL file is stored.
enum Encoding {
    Binary,
    /// ASCII, its facets starting at byte `body` (after the `solid` line).
    Ascii {
        body: usize,
    },
}

/// Binary when the size matches the count, else ASCII when it looks like text starting with
/// `solid`, else a binary file whose size is wrong.
fn encoding(bytes: &[u8], source: Source) -> Result<Encoding> {
    let count = bytes
        .get(80..BINARY_HEADER_BYTES)
        .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    let expected = count.map(|n| BINARY_HEADER_BYTES as u64 + BINARY_TRIANGLE_BYTES * n);
    if expected == Some(bytes.len() as u64) {
        return Ok(Encoding::Binary);
    }
    let is_text = !bytes[..bytes.len().min(ASCII_PROBE_BYTES)].contains(&0);
    if let Some(body) = ascii_body(bytes, 0).filter(|_| is_text) {
        return Ok(Encoding::Ascii { body });
    }
    let at = source.at(Place::Byte(bytes.len() as u64));
    match (count, expected) {
        (Some(count), Some(expected)) if expected > bytes.len() as u64 => Err(Error::Truncated {
            at,
            expected: format!("{count} triangles of 50 bytes, {expected} bytes in all"),
        }),
        (Some(count), Some(expected)) => Err(Error::Malformed {
            at: source.at(Place::Byte(expected)),
            format: Format::Stl,
            problem: format!(
                "{} bytes after the {count} triangles the header counts",
                bytes.len() as u64 - expected
            ),
        }),
        _ => Err(Error::Truncated {
            at,
            expected: "an 80-byte header and a triangle count".into(),
        }),
    }
}

/// An stl_io error as ours: [`Error::Truncated`] at the end of the text,
/// [`Error::NonFiniteValue`] for the number stl_io's finiteness check names, else
/// [`Error::Malformed`].
fn stl_error(at: Location, error: &std::io::Error) -> Error {
    let message = error.to_string();
    if error.kind() == ErrorKind::UnexpectedEof {
        return Error::Truncated {
            at,
            expected: excerpt(&message),
        };
    }
    // stl_io says "expected finite f32, got inf which is Infinite".
    if let Some(found) = message
        .strip_prefix("expected finite f32, got ")
        .and_then(|rest| rest.split(' ').next())
    {
        return Error::NonFiniteValue {
            at,
            found: excerpt(found),
        };
    }
    const MAX_CHARS: usize = 160;
    let problem = match message.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &message[..cut]),
        None => message,
    };
    Error::Malformed {
        at,
        format: Format::Stl,
        problem,
    }
}

/// Vertices welded by their coordinates' bits.
#[derive(Default)]
struct Welder {
    positions: Vec<Vec3>,
    indices: Vec<[u32; 3]>,
    /// Each position's vertex, keyed by its bits with `-0.0` made `0.0`.
    vertices: HashMap<[u32; 3], u32>,
}

/// [`Error::OutOfMemory`] for a buffer of the file's mesh.
fn out_of_memory(source: Source<'_>) -> impl Fn(OutOfMemory) -> Error + '_ {
    move |error| Error::OutOfMemory {
        at: source.at(Place::File),
        source: error,
    }
}

/// What the welder's buffers are called in an out-of-memory error.
const TRIANGLES: &str = "the STL file's triangles";
const VERTICES: &str = "the STL file's vertices";
const WELD_TABLE: &str = "the STL file's table of welded vertices";

impl Welder {
    /// Room for `triangles` triangles and half as many vertices.
    fn reserve(&mut self, triangles: usize, source: Source) -> Result<()> {
        try_reserve(&mut self.indices, triangles, TRIANGLES).map_err(out_of_memory(source))?;
        let vertices = triangles / 2 + 2;
        try_reserve(&mut self.positions, vertices, VERTICES).map_err(out_of_memory(source))?;
        self.grow_table(vertices, source)
    }

    /// Room in the weld table for `additional` more vertices.
    fn grow_table(&mut self, additional: usize, source: Source) -> Result<()> {
        self.vertices.try_reserve(additional).map_err(|_| {
            // A table of `[u32; 3]` keys and `u32` vertices, and a control byte each.
            let entries = (self.vertices.len() + additional).saturating_mul(8) / 7;
            Error::OutOfMemory {
                at: source.at(Place::File),
                source: OutOfMemory::of::<([u32; 3], u32, u8)>(entries, WELD_TABLE),
            }
        })
    }

    /// Reads the triangles of `head` followed by `tail` with stl_io, numbering them after
    /// those read before.
    fn read(&mut self, head: &[u8], tail: &[u8], source: Source) -> Result<()> {
        let mut view = Spliced {
            head,
            tail,
            position: 0,
        };
        let triangles = stl_io::create_stl_reader(&mut view).map_err(|error| Error::Malformed {
            at: source.at(Place::File),
            format: Format::Stl,
            problem: error.to_string(),
        })?;
        for triangle in triangles {
            let index = self.indices.len();
            let at = || {
                source.at(Place::Element {
                    kind: "triangle",
                    index,
                })
            };
            let triangle = triangle.map_err(|error| stl_error(at(), &error))?;
            let mut corners = [0u32; 3];
            for (corner, vertex) in corners.iter_mut().zip(triangle.vertices) {
                if let Some(&bad) = vertex.0.iter().find(|c| !c.is_finite()) {
                    return Err(Error::NonFiniteValue {
                        at: at(),
                        found: bad.to_string(),
                    });
                }
                *corner = self.vertex(Vec3::from_array(vertex.0), source)?;
            }
            try_grow(&mut self.indices, TRIANGLES).map_err(out_of_memory(source))?;
            self.indices.push(corners);
        }
        Ok(())
    }

    /// The vertex at `position`, added if new.
    fn vertex(&mut self, position: Vec3, source: Source) -> Result<u32> {
        // Adding zero turns -0.0 into 0.0 and changes nothing else.
        let key = (position + Vec3::ZERO).to_array().map(f32::to_bits);
        if self.vertices.len() == self.vertices.capacity() {
            self.grow_table(self.vertices.len().max(64), source)?;
        }
        match self.vertices.entry(key) {
            Entry::Occupied(entry) => Ok(*entry.get()),
            Entry::Vacant(entry) => {
                let count = self.positions.len();
                let vertex = u32::try_from(count)
                    .map_err(|_| Error::too_large("vertex", count as u64 + 1))?;
                try_grow(&mut self.positions, VERTICES).map_err(out_of_memory(source))?;
                self.positions.push(position);
                Ok(*entry.insert(vertex))
            }
        }
    }
}

/// Two byte slices read as one, with seeking: a file with its first part replaced.
struct Spliced<'a> {
    head: &'a [u8],
    tail: &'a [u8],
    position: u64,
}

impl Read for Spliced<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let position = usize::try_from(self.position).unwrap_or(usize::MAX);
        let rest = match position.checked_sub(self.head.len()) {
            None => &self.head[position..],
            Some(in_tail) => self.tail.get(in_tail..).unwrap_or_default(),
        };
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for Spliced<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let length = (self.head.len() + self.tail.len()) as i128;
        let target = match to {
            SeekFrom::Start(offset) => i128::from(offset),
            SeekFrom::End(offset) => length + i128::from(offset),
            SeekFrom::Current(offset) => i128::from(self.position) + i128::from(offset),
        };
        self.position = u64::try_from(target)
            .map_err(|_| std::io::Error::new(ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.position)
    }
}
