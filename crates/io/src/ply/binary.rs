//! Binary PLY records, decoded by a plan made once per element from the header: which bytes
//! each property takes, and where in a [`Record`] its value goes.
//!
//! ply-rs-bw reads the header and the ASCII encoding; its binary element reader hands every
//! property to a setter by name and every list over as a new `Vec`, which held large files
//! to about 90 MB/s. Here a record is read field by field from the bytes, lists without
//! allocating, so that a binary mesh file loads at the speed of memory. The bytes come
//! through a [`Window`] of a megabyte, so that a file is never held whole.

use std::io::{BufRead, Read};

use ply_rs_bw::ply::{ElementDef, PropertyType, ScalarType};
use smallvec::SmallVec;

use super::Record;
use meshcast_bvh::{try_reserve, OutOfMemory};

/// One property of an element, as stored and as used.
struct Field {
    stored: PropertyType,
    /// Where its value goes in a [`Record`]: a value slot, the face's corners, or nowhere.
    slot: Option<usize>,
}

/// How to read one element's records.
pub(super) struct Plan {
    fields: Vec<Field>,
    /// For records of one size (no list): that size, and where each kept scalar lies in it.
    fixed: Option<(usize, Vec<Placed>)>,
}

/// A kept scalar of a fixed-size record: its offset, type and slot.
struct Placed {
    offset: usize,
    scalar: ScalarType,
    slot: usize,
}

/// Records whose layout is the one most binary meshes are written in, read many at a time
/// straight into the mesh's buffers ([`Plan::run`]): the generic record by record read
/// (a value slot and an `f64` per property, a list per face) took about two thirds of a
/// large file's load.
#[derive(Clone, Copy)]
pub(super) enum Run {
    /// No such layout: every record is read alone.
    None,
    /// Little-endian faces of one property, a list of `int` or `uint` indices after a
    /// one-byte count: a run holds the faces of three corners, 13 bytes each.
    Triangles,
    /// Little-endian vertices of fixed size whose kept properties are `x`, `y` and `z` as
    /// `float`: a run holds records of `size` bytes, the coordinates at `offsets`.
    Positions { size: usize, offsets: [usize; 3] },
}

impl Run {
    /// The bytes of one record of a run.
    pub(super) fn record_size(self) -> usize {
        match self {
            Run::None => 0,
            Run::Triangles => TRIANGLE_RECORD,
            Run::Positions { size, .. } => size,
        }
    }
}

/// The bytes of a face of three corners in the layout of [`Run::Triangles`].
pub(super) const TRIANGLE_RECORD: usize = 13;

/// Why a record could not be read.
pub(super) enum Problem {
    /// The bytes end inside it.
    Truncated,
    /// A list's count cannot be a count.
    BadCount(String),
    /// The input could not be read.
    Io(std::io::Error),
    /// A record larger than the window did not fit in memory.
    OutOfMemory(OutOfMemory),
}

/// An input that counts the bytes taken from it, so that the header's length is known.
pub(super) struct Counted<R> {
    input: R,
    consumed: u64,
}

impl<R> Counted<R> {
    pub(super) fn new(input: R) -> Self {
        Self { input, consumed: 0 }
    }

    /// The bytes taken so far.
    pub(super) fn consumed(&self) -> u64 {
        self.consumed
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.input.read(buf)?;
        self.consumed += read as u64;
        Ok(read)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.input.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.consumed += amount as u64;
        self.input.consume(amount);
    }
}

/// The bytes read ahead of the records: at least [`Window::CHUNK`] at a time, more when a
/// record (a long list) is larger, never more than the input holds.
pub(super) struct Window<R> {
    input: Counted<R>,
    bytes: Vec<u8>,
    /// The first byte not read yet.
    start: usize,
    /// Whether the input has ended.
    ended: bool,
}

impl<R: BufRead> Window<R> {
    /// What is read from the input at a time.
    const CHUNK: usize = 1 << 20;

    pub(super) fn new(input: Counted<R>) -> Self {
        Self {
            input,
            bytes: Vec::new(),
            start: 0,
            ended: false,
        }
    }

    /// The input, for reading lines (an ASCII file, which never fills the window).
    pub(super) fn input(&mut self) -> &mut Counted<R> {
        debug_assert_eq!(
            self.start,
            self.bytes.len(),
            "lines read past a binary window"
        );
        &mut self.input
    }

    /// The offset in the input of the first byte not read yet.
    fn offset(&self) -> u64 {
        self.input.consumed() - (self.bytes.len() - self.start) as u64
    }

    /// Runs `read` on the bytes ahead until it reads a record, reading more of the input
    /// while it finds them cut short; the error comes with the record's offset.
    pub(super) fn record<T>(
        &mut self,
        mut read: impl FnMut(&mut &[u8]) -> Result<T, Problem>,
    ) -> Result<T, (Problem, u64)> {
        loop {
            let mut rest = &self.bytes[self.start..];
            let before = rest.len();
            match read(&mut rest) {
                Ok(value) => {
                    self.start += before - rest.len();
                    return Ok(value);
                }
                Err(Problem::Truncated) if !self.ended => {
                    self.fill().map_err(|problem| (problem, self.offset()))?;
                }
                Err(problem) => return Err((problem, self.offset())),
            }
        }
    }

    /// The bytes ahead: at least `wanted` of them, reading more of the input if need be,
    /// unless it ends first. The caller steps over what it uses ([`Window::consume`]).
    pub(super) fn ahead(&mut self, wanted: usize) -> Result<&[u8], (Problem, u64)> {
        while self.bytes.len() - self.start < wanted && !self.ended {
            self.fill().map_err(|problem| (problem, self.offset()))?;
        }
        Ok(&self.bytes[self.start..])
    }

    /// Steps over `count` bytes of those [`Window::ahead`] gave.
    pub(super) fn consume(&mut self, count: usize) {
        debug_assert!(self.start + count <= self.bytes.len());
        self.start += count;
    }

    /// Drops the bytes read and appends the next chunk of the input (twice what is left
    /// when that is more, so that a record longer than a chunk is reached in few reads).
    fn fill(&mut self) -> Result<(), Problem> {
        self.bytes.drain(..self.start);
        self.start = 0;
        let kept = self.bytes.len();
        let wanted = Self::CHUNK.max(kept);
        try_reserve(&mut self.bytes, wanted, "a PLY record").map_err(Problem::OutOfMemory)?;
        self.bytes.resize(kept + wanted, 0);
        let mut filled = kept;
        while filled < self.bytes.len() {
            match self.input.read(&mut self.bytes[filled..]) {
                Ok(0) => {
                    self.ended = true;
                    break;
                }
                Ok(read) => filled += read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(Problem::Io(error)),
            }
        }
        self.bytes.truncate(filled);
        Ok(())
    }
}

impl Plan {
    /// The plan for `element`'s records, keeping the properties `slot` names a place for
    /// (`None` for an element whose records are only stepped over).
    pub(super) fn new(element: &ElementDef, slot: Option<fn(&str) -> Option<usize>>) -> Self {
        let fields: Vec<Field> = element
            .properties
            .values()
            .map(|property| {
                // A scalar goes to a value slot, a list to the corners: a property of the
                // other shape under a known name is skipped.
                let is_list = matches!(property.data_type, PropertyType::List(..));
                Field {
                    stored: property.data_type.clone(),
                    slot: slot
                        .and_then(|slot| slot(&property.name))
                        .filter(|&slot| (slot == Record::CORNERS) == is_list),
                }
            })
            .collect();
        let mut offset = 0;
        let mut placed = Vec::new();
        for field in &fields {
            let PropertyType::Scalar(scalar) = &field.stored else {
                return Self {
                    fields,
                    fixed: None,
                };
            };
            if let Some(slot) = field.slot {
                placed.push(Placed {
                    offset,
                    scalar: scalar.clone(),
                    slot,
                });
            }
            offset += size(scalar);
        }
        Self {
            fields,
            fixed: Some((offset, placed)),
        }
    }

    /// The run this plan's records can be read in, if their layout is one of [`Run`]'s:
    /// faces when `faces`, positions otherwise.
    pub(super) fn run(&self, big_endian: bool, faces: bool) -> Run {
        if big_endian {
            return Run::None;
        }
        if faces {
            return match self.fields.as_slice() {
                [Field {
                    stored:
                        PropertyType::List(ScalarType::UChar, ScalarType::Int | ScalarType::UInt),
                    slot: Some(Record::CORNERS),
                }] => Run::Triangles,
                _ => Run::None,
            };
        }
        let Some((size, placed)) = &self.fixed else {
            return Run::None;
        };
        let mut offsets = [usize::MAX; 3];
        for field in placed {
            match (field.slot, &field.scalar) {
                (slot @ 0..=2, ScalarType::Float) => offsets[slot] = field.offset,
                _ => return Run::None,
            }
        }
        if offsets.contains(&usize::MAX) {
            return Run::None;
        }
        Run::Positions {
            size: *size,
            offsets,
        }
    }

    /// Reads one record from the front of `rest` into `record` (its kept fields; the others
    /// as they were), in the given byte order.
    #[inline]
    pub(super) fn read(
        &self,
        rest: &mut &[u8],
        big_endian: bool,
        record: &mut Record,
    ) -> Result<(), Problem> {
        if let Some((size, placed)) = &self.fixed {
            let (bytes, after) = rest.split_at_checked(*size).ok_or(Problem::Truncated)?;
            for field in placed {
                let mut at = &bytes[field.offset..];
                record.values[field.slot] = Bytes {
                    rest: &mut at,
                    big_endian,
                }
                .number(&field.scalar)?;
            }
            *rest = after;
            return Ok(());
        }
        let mut bytes = Bytes { rest, big_endian };
        for field in &self.fields {
            match (&field.stored, field.slot) {
                (PropertyType::Scalar(scalar), Some(slot)) => {
                    record.values[slot] = bytes.number(scalar)?;
                }
                (PropertyType::Scalar(scalar), None) => bytes.skip(size(scalar))?,
                (PropertyType::List(count, item), slot) => {
                    let count = bytes.count(count)?;
                    let list_size = count.checked_mul(size(item)).ok_or(Problem::Truncated)?;
                    if bytes.rest.len() < list_size {
                        return Err(Problem::Truncated);
                    }
                    match slot {
                        Some(_) => bytes.integers(item, count, &mut record.corners)?,
                        None => bytes.skip(list_size)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// The bytes a scalar takes.
pub(super) fn size(scalar: &ScalarType) -> usize {
    match scalar {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    }
}

/// What is left of the element data, and its byte order.
struct Bytes<'r, 'a> {
    rest: &'r mut &'a [u8],
    big_endian: bool,
}

impl Bytes<'_, '_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Problem> {
        let (head, rest) = self
            .rest
            .split_first_chunk::<N>()
            .ok_or(Problem::Truncated)?;
        *self.rest = rest;
        Ok(if self.big_endian {
            let mut reversed = *head;
            reversed.reverse();
            reversed
        } else {
            *head
        })
    }

    fn skip(&mut self, bytes: usize) -> Result<(), Problem> {
        *self.rest = self.rest.get(bytes..).ok_or(Problem::Truncated)?;
        Ok(())
    }

    /// A scalar of any type, exactly, as `f64`.
    fn number(&mut self, scalar: &ScalarType) -> Result<f64, Problem> {
        Ok(match scalar {
            ScalarType::Float => f32::from_le_bytes(self.take()?).into(),
            ScalarType::Double => f64::from_le_bytes(self.take()?),
            integer => self.integer(integer)? as f64,
        })
    }

    /// An integer scalar, widened so that a negative one can be reported. Floats are refused
    /// by the header's checks for the lists read here; read as integers they truncate.
    fn integer(&mut self, scalar: &ScalarType) -> Result<i64, Problem> {
        Ok(match scalar {
            ScalarType::Char => i8::from_le_bytes(self.take()?).into(),
            ScalarType::UChar => u8::from_le_bytes(self.take()?).into(),
            ScalarType::Short => i16::from_le_bytes(self.take()?).into(),
            ScalarType::UShort => u16::from_le_bytes(self.take()?).into(),
            ScalarType::Int => i32::from_le_bytes(self.take()?).into(),
            ScalarType::UInt => u32::from_le_bytes(self.take()?).into(),
            ScalarType::Float => f32::from_le_bytes(self.take()?) as i64,
            ScalarType::Double => f64::from_le_bytes(self.take()?) as i64,
        })
    }

    /// `count` integers of type `scalar`, in place of those in `into`.
    fn integers(
        &mut self,
        scalar: &ScalarType,
        count: usize,
        into: &mut SmallVec<[i64; 4]>,
    ) -> Result<(), Problem> {
        into.clear();
        for _ in 0..count {
            into.push(self.integer(scalar)?);
        }
        Ok(())
    }

    /// A list's count.
    fn count(&mut self, scalar: &ScalarType) -> Result<usize, Problem> {
        if matches!(scalar, ScalarType::Float | ScalarType::Double) {
            return Err(Problem::BadCount(format!(
                "a list's count is stored as a {scalar:?}, not an integer"
            )));
        }
        let count = self.integer(scalar)?;
        usize::try_from(count)
            .map_err(|_| Problem::BadCount(format!("a list's count is negative: {count}")))
    }
}
