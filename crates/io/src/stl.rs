//! STL, ASCII and binary, through stl_io; repeated corners welded into shared vertices.
//!
//! The encoding is chosen here, not by stl_io (which takes any file whose first line starts
//! with `solid ` for ASCII, though many binary files begin so): binary when the size is
//! exactly `84 + 50 n` for the triangle count `n` at byte 80, else ASCII when the file
//! starts with `solid` and its first kilobyte holds no NUL byte. stl_io is then shown the
//! file with a header that makes it take the same decision.
//!
//! A binary file's records (50 bytes: a normal, three corners, two attribute bytes) are
//! decoded here, many at a time, without stl_io's reader per triangle: a file named `.stl`
//! whose size says binary streams from disk a window at a time straight into the mesh's
//! buffers ([`read_binary_file`]), never held whole. The weld table hashes with foldhash,
//! seeded per process (SipHash was a tenth of loading and the table's misses most of it).

use std::collections::hash_map::{Entry, HashMap};
use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::Path;

use glam::Vec3;

use crate::source::excerpt;
use crate::source::Source;
use crate::{Error, Format, Location, Place, Result};
use meshcast_bvh::{try_filled, try_grow, try_reserve, OutOfMemory};
use meshcast_mesh::TriMesh;

/// A binary STL's header: 80 free bytes and the triangle count.
const BINARY_HEADER_BYTES: usize = 84;
/// A binary STL's triangle: normal, three corners, attribute byte count.
const BINARY_TRIANGLE_BYTES: u64 = 50;
/// How much of a file starting with `solid` is searched for a NUL byte, the sign of binary.
const ASCII_PROBE_BYTES: usize = 1024;
/// Binary records a streamed file is read by at once: 400 KiB.
const WINDOW_RECORDS: usize = 1 << 13;

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
            let records = &bytes[BINARY_HEADER_BYTES..];
            welder.reserve(records.len() / BINARY_TRIANGLE_BYTES as usize, source)?;
            welder.records(records, source)?;
        }
        Encoding::Ascii { body } => {
            let mut body = Some(body);
            while let Some(start) = body {
                welder.read(b"solid meshcast\n", &bytes[start..], source)?;
                body = next_solid(bytes, start);
            }
        }
    }
    welder.into_mesh(source)
}

/// The mesh of the file at `path` streamed from disk, if it is a binary STL file named
/// `.stl`: its size exactly `84 + 50 n` bytes for the count `n` at byte 80, the rule
/// [`read`] decides by. `None` for any other file, which is read whole.
pub(crate) fn read_binary_file(path: &Path) -> Result<Option<TriMesh>> {
    if Format::from_extension(path) != Some(Format::Stl) {
        return Ok(None);
    }
    let source = Source::file(path);
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io_error)?;
    let size = file.metadata().map_err(io_error)?.len();
    let mut header = [0; BINARY_HEADER_BYTES];
    if size < BINARY_HEADER_BYTES as u64 {
        return Ok(None);
    }
    file.read_exact(&mut header).map_err(io_error)?;
    let count = u32::from_le_bytes([header[80], header[81], header[82], header[83]]);
    if size != BINARY_HEADER_BYTES as u64 + BINARY_TRIANGLE_BYTES * u64::from(count) {
        return Ok(None);
    }
    let mut welder = Welder::default();
    welder.reserve(count as usize, source)?;
    let mut window = vec![0; WINDOW_RECORDS * BINARY_TRIANGLE_BYTES as usize];
    let mut left = count as usize;
    while left > 0 {
        let records = &mut window[..left.min(WINDOW_RECORDS) * BINARY_TRIANGLE_BYTES as usize];
        let read = welder.indices.len() as u64 * BINARY_TRIANGLE_BYTES;
        file.read_exact(records)
            .map_err(|error| match error.kind() {
                // The file shrank under the reader.
                ErrorKind::UnexpectedEof => Error::Truncated {
                    at: source.at(Place::Byte(BINARY_HEADER_BYTES as u64 + read)),
                    expected: format!("{count} triangles of 50 bytes, {size} bytes in all"),
                },
                _ => io_error(error),
            })?;
        welder.records(records, source)?;
        left -= records.len() / BINARY_TRIANGLE_BYTES as usize;
    }
    welder.into_mesh(source).map(Some)
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
    vertices: HashMap<[u32; 3], u32, foldhash::fast::RandomState>,
    /// The vertices met lately, in front of `vertices`.
    recent: Recent,
}

/// The vertices met lately, a direct-mapped table about the size of a core's own cache, in
/// front of the weld table: neighbouring triangles of a file share corners, so most corners
/// are found here and only a corner not met lately waits on the weld table's memory. At 10M
/// triangles (`meshcast info` on a binary STL of `benches/large_mesh.sh 10M X stl`) that wait
/// was 40% of loading and building; 2^12 lines loaded in 4.5 s, 2^14 in 4.2 s, 2^16 in 4.1 s
/// and 2^18 in 4.5 s, against 5.8 s without.
#[derive(Default)]
struct Recent {
    /// Each line's key and vertex, [`Recent::NONE`] for no key; empty for none kept (an
    /// ASCII file, whose parsing is the cost).
    lines: Vec<([u32; 3], u32)>,
}

impl Recent {
    /// No key: the bits of NaN, which a welded corner never has.
    const NONE: [u32; 3] = [u32::MAX; 3];
    /// Lines at most: 1 MiB.
    const MAX_LINES: usize = 1 << 16;

    /// Lines for a file of `triangles` triangles.
    fn with_capacity(triangles: usize) -> std::result::Result<Self, OutOfMemory> {
        let count = triangles.next_power_of_two().clamp(64, Self::MAX_LINES);
        let lines = try_filled(count, (Self::NONE, 0), "the STL file's recent vertices")?;
        Ok(Self { lines })
    }

    /// Where `key`'s line is, if lines are kept.
    fn line_of(&self, key: [u32; 3]) -> Option<usize> {
        let mixed =
            (key[0] ^ key[1].rotate_left(11) ^ key[2].rotate_left(22)).wrapping_mul(0x9e37_79b1);
        // No lines (a length of 0 has 64 trailing zeros) is no shift.
        let shift = 32u32.checked_sub(self.lines.len().trailing_zeros())?;
        Some(mixed.checked_shr(shift)? as usize)
    }
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
        self.recent = Recent::with_capacity(triangles).map_err(out_of_memory(source))?;
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

    /// The mesh of the triangles read, or [`Error::NoFaces`].
    fn into_mesh(self, source: Source) -> Result<TriMesh> {
        if self.indices.is_empty() {
            return Err(Error::NoFaces {
                at: source.at(Place::File),
            });
        }
        Ok(TriMesh::new(self.positions, self.indices)?)
    }

    /// Reads binary records (`records` a whole number of them, room for their triangles
    /// reserved by [`Welder::reserve`]), numbering their triangles after those read before.
    fn records(&mut self, records: &[u8], source: Source) -> Result<()> {
        for record in records.chunks_exact(BINARY_TRIANGLE_BYTES as usize) {
            let (corners, _) = record[12..48].as_chunks::<4>();
            let corners: [f32; 9] = core::array::from_fn(|i| f32::from_le_bytes(corners[i]));
            if let Some(&bad) = corners.iter().find(|c| !c.is_finite()) {
                let index = self.indices.len();
                return Err(Error::NonFiniteValue {
                    at: source.at(Place::Element {
                        kind: "triangle",
                        index,
                    }),
                    found: bad.to_string(),
                });
            }
            let triangle = [0, 3, 6].map(|c| Vec3::from_slice(&corners[c..c + 3]));
            let mut vertices = [0; 3];
            for (vertex, position) in vertices.iter_mut().zip(triangle) {
                *vertex = self.vertex(position, source)?;
            }
            self.indices.push(vertices);
        }
        Ok(())
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
        // The line is found once: looked up, then written on a miss.
        let line = self.recent.line_of(key);
        if let Some((met, vertex)) = line.map(|l| self.recent.lines[l]) {
            if met == key {
                return Ok(vertex);
            }
        }
        let vertex = self.welded(key, position, source)?;
        if let Some(l) = line {
            self.recent.lines[l] = (key, vertex);
        }
        Ok(vertex)
    }

    /// The vertex of `key` in the weld table, added at `position` if new.
    fn welded(&mut self, key: [u32; 3], position: Vec3, source: Source) -> Result<u32> {
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
