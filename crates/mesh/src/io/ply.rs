//! Skeleton: this reader is being written (issue 14).

use super::Source;
use crate::error::Place;
use crate::{Error, Format, Result, TriMesh};

/// The mesh in `bytes`.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let _ = bytes;
    Err(Error::Unsupported {
        at: source.at(Place::File),
        what: format!("{} is not read yet", Format::Ply),
    })
}
