//! Where bytes being read came from, reading a whole file, and choosing its format.

use std::fs::File;
use std::io::Read;
#[cfg(feature = "ply")]
use std::io::{BufRead, BufReader};
use std::path::Path;

use meshcast_bvh::try_vec;

use crate::{Error, Format, Location, Place, Result};

/// Where bytes being read came from: a file (named in errors, and the folder of the files
/// it refers to) or memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source<'a> {
    file: Option<&'a Path>,
}

impl<'a> Source<'a> {
    /// Bytes in memory: no name, no folder.
    pub(crate) const MEMORY: Source<'static> = Source { file: None };

    /// The file at `path`.
    pub(crate) fn file(path: &'a Path) -> Self {
        Self { file: Some(path) }
    }

    /// `place` in this source.
    pub(crate) fn at(self, place: Place) -> Location {
        Location::new(self.file, place)
    }

    /// The file's path, or `<bytes>` for memory, for [`Error::Io`].
    #[cfg(feature = "ply")]
    pub(crate) fn path(self) -> &'a Path {
        self.file.unwrap_or(Path::new("<bytes>"))
    }

    /// The folder that files named by this one are relative to (none for memory).
    #[cfg_attr(not(any(feature = "obj", feature = "gltf")), allow(dead_code))]
    pub(crate) fn folder(self) -> Option<&'a Path> {
        self.file.map(|file| file.parent().unwrap_or(Path::new("")))
    }
}

/// Reads a whole file into a buffer reserved for its size first:
/// [`Error::OutOfMemory`] if that cannot be allocated.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io_error)?;
    // The size is a hint (the file may change); reading goes on to its end either way.
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = try_vec(
        usize::try_from(size).unwrap_or(usize::MAX),
        "the file's bytes",
    )
    .map_err(|source| Error::OutOfMemory {
        at: Source::file(path).at(Place::File),
        source,
    })?;
    file.read_to_end(&mut bytes).map_err(io_error)?;
    Ok(bytes)
}

/// The file at `path` opened to be streamed, with its size, if it is a PLY file: one whose
/// content starts as PLY does, named `.ply` or by no other format's extension that its
/// content could match (a file named `.stl` is read whole, as its size decides).
#[cfg(feature = "ply")]
pub(crate) fn ply_file(path: &Path) -> Result<Option<(BufReader<File>, u64)>> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut input = BufReader::with_capacity(1 << 16, file);
    let head = input.fill_buf().map_err(io_error)?;
    let streamed = Format::Ply.accepts(head) && Format::from_extension(path) != Some(Format::Stl);
    Ok(streamed.then_some((input, size)))
}

/// `format` if given, else the one `bytes` look like.
pub(crate) fn given_or_detected(
    format: Option<Format>,
    bytes: &[u8],
    source: Source,
) -> Result<Format> {
    format
        .or_else(|| Format::detect(bytes))
        .ok_or_else(|| Error::UnknownFormat {
            at: source.at(Place::File),
        })
}

/// The format of a file: its extension's when its bytes look like that format, else the one
/// its bytes look like, else its extension's (whose reader then says what is wrong).
pub(crate) fn format_of_file(source: Source, bytes: &[u8]) -> Result<Format> {
    let named = source.file.and_then(Format::from_extension);
    match named {
        Some(format) if format.accepts(bytes) => Ok(format),
        _ => Format::detect(bytes)
            .or(named)
            .ok_or_else(|| Error::UnknownFormat {
                at: source.at(Place::File),
            }),
    }
}

/// Shortens text quoted in an error so that a megabyte line does not become a megabyte
/// message.
#[cfg_attr(
    not(any(feature = "obj", feature = "gltf", feature = "stl")),
    allow(dead_code)
)]
pub(crate) fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 40;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}
