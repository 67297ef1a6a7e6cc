//! The meshcast cache: a mesh and its hierarchy in one versioned, checksummed file, loaded
//! without a build.
//!
//! Skeleton: the format is being written (issue 14).

use std::fmt;

use super::Source;
use crate::error::Place;
use crate::{Error, Mesh, Result};

/// The first bytes of every cache file.
pub(crate) const MAGIC: [u8; 8] = *b"MESHCAST";

/// What is wrong with a cache file ([`Error::Cache`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheProblem {
    /// The file does not start with the cache's magic number.
    NotACache,
}

impl fmt::Display for CacheProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotACache => f.write_str("not a meshcast cache file"),
        }
    }
}

/// The mesh a cache file holds.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<Mesh> {
    let _ = bytes;
    Err(Error::Cache {
        at: source.at(Place::File),
        problem: CacheProblem::NotACache,
    })
}
