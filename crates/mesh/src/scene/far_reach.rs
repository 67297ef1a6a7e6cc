//! [`FarReach`]: how far from the exact world ray an instance's hits may lie when the world
//! room's `f64` queries carry the ray into the instance's mesh, the widening the scene's top
//! level takes for those queries so that it culls no instance they would hit, and the
//! slack its nearest-point search keeps for the same reason.

use meshcast_primitives::FAR_SIZES;

use crate::scene::Instance;

/// How far from the exact world ray the `f64` queries of the world room
/// ([`Scene::cast`](crate::queries::RayQueries::cast)) may find an instance's hits, so that the scene's top level,
/// widened by it, culls no instance those queries would hit.
///
/// A world ray is carried into the mesh's space in `f64` (the inverse transform, then
/// [`meshcast_primitives::DRay::carry`] around the mesh's box) and rounded once to `f32`;
/// the mesh answers that rounded ray exactly. Where the rounded ray can hit, its origin lies
/// within [`FAR_SIZES`] diagonals `D` of the centre `c` of the mesh's box (closer only when
/// it starts there; when it is moved along itself, it sits at the point of its range nearest
/// `c`, no farther than any hit), and the hit within `D / 2` of `c`. Rounding the origin,
/// the direction and the mesh's `t` (a few steps) moves the hit from the exact local ray by
/// less than `2^-20 (|c| + (2 FAR_SIZES + 1) D)` per coordinate (max norm), sixteen float
/// steps of the largest coordinate involved; the transform's linear part `M` carries that
/// to the world, times `|M|` (max norm, its largest row sum). So [`FarReach::pad`] is
/// `|M| 2^-20 (|c| + 129 D)`, plus `2^-46 |M| |M^-1| |t|` for the `f64` rounding of the
/// transform's translation `t`. The rest of the `f64` rounding (carrying the ray's origin,
/// moving it along the ray, the slab test) grows with the ray's origin and the box, by the
/// condition number [`FarReach::condition`] `|M| |M^-1|` (a few `2^-52` of those each): a
/// query widens a box by `pad + 2^-46 (condition + 1) (|origin| + |box|)`, `|box|` bounded by
/// the top level's root box.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct FarReach {
    /// The widening every ray needs, in world units.
    pub(crate) pad: f64,
    /// The condition number of the linear part (max norm).
    pub(crate) condition: f64,
    /// The largest `|M| (|c| + D)`: the world size of an instance's mesh coordinates, `|c|`
    /// the largest coordinate of its box's centre (max norm) and `D` its diagonal.
    ///
    /// The `f64` closest-point queries ([`Scene::closest_point`](crate::points::PointQueries::closest_point)) carry each
    /// instance's triangles to the query point `q` by the transform `T(-q) M` rounded to
    /// `f32` once, and measure there. A carried corner `M x + t - q` is rounded by less than
    /// `2^-21 (|M| |x| + |t - q|)` per coordinate (the transform's rounding and the three
    /// products and sums of carrying, six float steps), and `|t - q|` is at most the
    /// distance from `q` to the exact corner plus `sqrt 3 |M| |x|`: so a carried point lies
    /// within `2^-18 span + 2^-19 d` of the exact one, `d` its distance from `q`. The top
    /// level's boxes hold the exact surface (their pad is sixteen steps of the coordinates),
    /// so a box at distance `d` holds nothing carried nearer than
    /// `d (1 - 2^-19) - 2^-18 span`.
    pub(crate) span: f64,
}

impl FarReach {
    /// The larger of both, for many instances.
    pub(crate) fn max(self, other: Self) -> Self {
        Self {
            pad: self.pad.max(other.pad),
            condition: self.condition.max(other.condition),
            span: self.span.max(other.span),
        }
    }
}

impl Instance {
    /// The instance's [`FarReach`] (zero for a mesh with no triangle).
    pub(crate) fn far_reach(&self) -> FarReach {
        let local = self.mesh().bounds();
        if local.is_empty() || !local.is_finite() {
            return FarReach::default();
        }
        let (min, max) = (local.min.as_dvec3(), local.max.as_dvec3());
        let centre = ((min + max) * 0.5).abs().max_element();
        let diagonal = (max - min).length();
        let forward = self.exact_transform();
        // The largest row sum of the absolute values: the max norm of a matrix.
        let norm =
            |m: glam::DMat3| (m.x_axis.abs() + m.y_axis.abs() + m.z_axis.abs()).max_element();
        let (scale, inverse) = (norm(forward.matrix3), norm(self.to_local_f64().matrix3));
        let condition = scale * inverse;
        let rounding = scale * 2f64.powi(-20) * (centre + (2.0 * FAR_SIZES + 1.0) * diagonal);
        let translation = condition * 2f64.powi(-46) * forward.translation.abs().max_element();
        FarReach {
            pad: rounding + translation,
            condition,
            span: scale * (centre + diagonal),
        }
    }
}
