//! Where a [`TriMesh`]'s positions lie in the world: a mesh made from `f64` positions far
//! from the world's origin is stored in `f32` relative to an origin of its own
//! ([`TriMesh::from_world_triangles`], [`TriMesh::with_origin`], [`frame_origin`]).

use glam::DVec3;
use meshcast_primitives::{carry_point, FAR_SIZES};

use crate::error::{Error, Result};
use crate::triangles::TriMesh;

impl TriMesh {
    /// The mesh of these `f64` positions and index triples, stored as `f32` coordinates
    /// relative to an origin of its own ([`TriMesh::origin`]) when the positions lie far from
    /// the world's origin, so that they keep their precision wherever they lie (UTM or
    /// Earth-centred coordinates, say). The origin is the centre of the positions' box when
    /// the box lies farther from the world's origin than [`FAR_SIZES`] times its diagonal,
    /// zero otherwise: a mesh near the origin is stored as [`TriMesh::from_triangles`] stores
    /// the same positions rounded to `f32`, and answers every query in world coordinates.
    /// A mesh with an origin answers its `f32` queries in its own frame (world coordinates
    /// less the origin); its queries of `f64` rays and points ([`crate::QueryRay`],
    /// [`crate::QueryPoint`]) take world coordinates.
    ///
    /// # Errors
    /// As [`TriMesh::new`].
    pub fn from_world_triangles(positions: &[[f64; 3]], indices: &[[u32; 3]]) -> Result<Self> {
        let origin = frame_origin(positions.iter().map(|&p| DVec3::from(p)));
        let local = positions
            .iter()
            .map(|&p| carry_point(DVec3::from(p), origin))
            .collect();
        Ok(Self::new(local, indices.to_vec())?.with_frame_origin(origin))
    }

    /// The same mesh with the origin of its frame at `origin` in the world: its positions are
    /// then read as relative to that point ([`TriMesh::origin`]). For readers that store the
    /// origin (the cache) and loaders that rebase positions as they read them.
    ///
    /// # Errors
    /// [`Error::InvalidAttribute`] for an origin that is not finite.
    pub fn with_origin(self, origin: DVec3) -> Result<Self> {
        if !origin.is_finite() {
            return Err(Error::InvalidAttribute {
                attribute: "origin",
                problem: format!("the origin {origin} is not finite"),
            });
        }
        Ok(self.with_frame_origin(origin))
    }
}

/// The origin [`TriMesh::from_world_triangles`] gives a mesh of `positions`: the centre of
/// their box when the box lies farther from the world's origin than [`FAR_SIZES`] times its
/// diagonal, zero otherwise (or when a position is not finite, which the mesh's checks then
/// report).
pub fn frame_origin(positions: impl IntoIterator<Item = DVec3>) -> DVec3 {
    let (min, max) = positions
        .into_iter()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(min, max), p| {
            (min.min(p), max.max(p))
        });
    let centre = (min + max) * 0.5;
    if centre.is_finite() && centre.length() > FAR_SIZES * (max - min).length() {
        centre
    } else {
        DVec3::ZERO
    }
}
