//! Where in a file something is ([`Location`], [`Place`]) and which list a face's index
//! points into ([`IndexKind`]): what the readers' errors name.

use std::fmt;
use std::path::{Path, PathBuf};

/// A place in a mesh file: the file (none for bytes in memory) and where in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file, or `None` for bytes and readers.
    pub file: Option<PathBuf>,
    /// Where in it.
    pub place: Place,
}

/// Where in a file something is: a line of a text format, a byte of a binary one, an element
/// of a format made of numbered parts (a glTF accessor, a PLY face), or the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The whole file.
    File,
    /// A line, counting from 1.
    Line(usize),
    /// A byte offset, counting from 0.
    Byte(u64),
    /// An element, counting from 0: `kind` names it (`"accessor"`, `"face"`, `"section"`).
    Element {
        /// What sort of element.
        kind: &'static str,
        /// Its index.
        index: usize,
    },
}

impl Location {
    /// `place` in `file` (`None` for bytes in memory).
    pub fn new(file: Option<&Path>, place: Place) -> Self {
        Self {
            file: file.map(Path::to_path_buf),
            place,
        }
    }

    /// The line, for a place in a text format.
    pub fn line(&self) -> Option<usize> {
        match self.place {
            Place::Line(line) => Some(line),
            _ => None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}", file.display())?,
            None => f.write_str("<bytes>")?,
        }
        match self.place {
            Place::File => Ok(()),
            Place::Line(line) => write!(f, ":{line}"),
            Place::Byte(offset) => write!(f, ": byte {offset}"),
            Place::Element { kind, index } => write!(f, ": {kind} {index}"),
        }
    }
}

/// Which per-vertex list a face index points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    /// A position (`v`).
    Position,
    /// A texture coordinate (`vt`).
    TextureCoordinate,
    /// A normal (`vn`).
    Normal,
}

impl fmt::Display for IndexKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Position => "vertex",
            Self::TextureCoordinate => "texture coordinate",
            Self::Normal => "normal",
        })
    }
}
