//! `Instance`: a shared mesh placed in the world by an affine transform.

use std::sync::Arc;

use glam::{Affine3A, DAffine3, DVec3, Mat3A, Vec3, Vec3A};
use meshcast_primitives::{Aabb, Hit, Ray, RayPacket, Triangle, PACKET_WIDTH};

use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::queries::{Facing, ALL_LAYERS};
use crate::triangles::SurfacePoint;

/// A [`Mesh`] (shared through an [`Arc`], so many instances cost one mesh and one BVH) placed
/// in the world by an affine transform: rotation, non-uniform scale (mirroring included),
/// translation.
///
/// Queries ([`crate::RayQueries`]) take world rays and carry them into the mesh's space by the inverse transform
/// ([`Instance::to_local`]). The direction is not renormalised, so a hit's `t` is the world
/// ray's own parameter, and its barycentrics `u`, `v` and `triangle` are the same in both
/// spaces. [`Instance::surface`] carries the hit point back by the transform and normals by
/// its inverse transpose.
///
/// Closest points and volume queries (selections) measure in world space: on the mesh's
/// triangles with each corner carried by the transform ([`Instance::world_triangle`]), so
/// that a non-uniform scale stretches distances as it should. Inside and the winding number
/// ([`crate::PointQueries`]) are the mesh's at the point carried into its space, the winding
/// number turned over by a mirroring transform. Each instance is on a set
/// of layers, a 32-bit mask ([`Instance::layers`], every layer by default), that a query's
/// [`crate::QueryOptions::mask`] selects.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, RayQueries};
/// use meshcast_primitives::Ray;
///
/// let square = Arc::new(Mesh::from_triangles(
///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
///     &[[0, 1, 2], [0, 2, 3]],
/// )?);
/// // Twice as large, lifted to z = 5.
/// let placed = Instance::new(
///     square,
///     Affine3A::from_scale_rotation_translation(Vec3::splat(2.0), Default::default(), Vec3::Z * 5.0),
/// )?;
/// let ray = Ray::new(Vec3::new(1.5, 0.5, 10.0), Vec3::NEG_Z);
/// let hit = placed.cast(&ray).ok_or("miss")?;
/// assert_eq!(hit.t, 5.0);
/// assert_eq!(placed.surface(&hit).ok_or("stale hit")?.point, Vec3::new(1.5, 0.5, 5.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Instance {
    mesh: Arc<Mesh>,
    /// The transform given to [`Instance::new`], from the mesh's world coordinates to
    /// the scene's world, in `f64`.
    placement: DAffine3,
    /// The transform from mesh space to world space, rounded to `f32`.
    transform: Affine3A,
    /// The inverse transform in `f64`, so that a carried ray is the correctly rounded image
    /// of the world ray.
    to_local: DAffine3,
    /// The inverse transpose of the linear part, for normals.
    normal_matrix: Mat3A,
    /// The world box of the mesh's box, padded for rounding.
    bounds: Aabb,
    /// Whether the transform mirrors (a negative determinant), which swaps front and back.
    mirrored: bool,
    /// The layers the instance is on.
    layers: u32,
}

mod walks;

impl Instance {
    /// `mesh` placed by `transform`, in `f32` ([`Affine3A`]) or `f64` ([`DAffine3`]): from
    /// the mesh's world coordinates (a point `p` of its [`TriMesh`](crate::TriMesh) at
    /// [`Mesh::origin`]` + p`) to the scene's world. For a mesh whose origin is zero, the
    /// transform takes its positions as they are. A far mesh (made from `f64` positions, read
    /// from a file of UTM coordinates) is placed where it lies, the origin folded into the
    /// transform in `f64` before anything is rounded. The instance keeps the `f64` transform
    /// ([`Instance::exact_transform`]; an `f32` one exactly) beside its `f32` rounding: `f32`
    /// rays use the rounding as they always have, and `f64` rays ([`crate::QueryRay`],
    /// [`Instance::carry_ray`]) the `f64` one, so that a mesh placed ten thousand kilometres
    /// away keeps its own precision.
    ///
    /// # Errors
    /// [`Error::InvalidTransform`] if the transform is not finite or not invertible (a zero
    /// scale, or one so small that the inverse overflows).
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// // A triangle 1000 km east, placed 1000 km west again: it lies at the world's origin.
    /// let far = Mesh::from_world_triangles(&[[1e6, 0.0, 0.0], [1e6 + 1.0, 0.0, 0.0], [1e6, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let back = Instance::new(Arc::new(far), DAffine3::from_translation(DVec3::new(-1e6, 0.0, 0.0)))?;
    /// let hit = back.cast(&Ray::new(Vec3::new(0.25, 0.25, 1.0), Vec3::NEG_Z)).ok_or("miss")?;
    /// assert_eq!(hit.t, 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(mesh: Arc<Mesh>, transform: impl Placement) -> Result<Self> {
        let transform = transform.in_f64();
        let forward = transform * DAffine3::from_translation(mesh.origin());
        let placed = forward.as_affine3a();
        let (to_local, normal_matrix) = invert(forward, placed)?;
        // Also around the corners as `world_triangle` rounds them, for point and volume
        // queries.
        let carried = carried_box(&placed, &mesh.bounds());
        let mut bounds = world_bounds(mesh.bounds(), &forward, &to_local);
        if carried.is_finite() && !bounds.is_empty() {
            bounds = bounds.union(carried);
        }
        let mirrored = forward.matrix3.determinant() < 0.0;
        Ok(Self {
            mesh,
            placement: transform,
            transform: placed,
            to_local,
            normal_matrix,
            bounds,
            mirrored,
            layers: ALL_LAYERS,
        })
    }

    /// The same instance on these layers (a 32-bit mask; a query sees it when the mask
    /// shares a bit with [`crate::QueryOptions::mask`]).
    #[must_use]
    pub fn with_layers(self, layers: u32) -> Self {
        Self { layers, ..self }
    }

    /// The layers the instance is on ([`ALL_LAYERS`] unless set).
    pub fn layers(&self) -> u32 {
        self.layers
    }

    /// Puts the instance on these layers (within a [`crate::Scene`], use
    /// [`crate::Scene::set_layers`]).
    pub fn set_layers(&mut self, layers: u32) {
        self.layers = layers;
    }

    /// Whether the transform mirrors (its linear part has a negative determinant): the
    /// mesh's counter-clockwise sides then face away in the world.
    pub fn is_mirrored(&self) -> bool {
        self.mirrored
    }

    /// Triangle `index` of the mesh in world space: each corner carried by the transform
    /// (in `f32`, as every point and volume query computes it), or `None` past the last
    /// triangle.
    #[inline]
    pub fn world_triangle(&self, index: usize) -> Option<Triangle> {
        let tri_mesh = self.mesh.tri_mesh();
        let corners = *tri_mesh.indices().get(index)?;
        let local = Triangle::from_indexed(tri_mesh.positions(), corners)?;
        Some(self.carry(&local))
    }

    /// A triangle of the mesh carried to the world.
    #[inline]
    pub(crate) fn carry(&self, local: &Triangle) -> Triangle {
        carried_triangle(&self.transform, local)
    }

    /// A world box around `local` (a box in the mesh's space) that holds every corner that
    /// [`Instance::world_triangle`] computes inside it.
    #[inline]
    pub(crate) fn world_box(&self, local: &Aabb) -> Aabb {
        carried_box(&self.transform, local)
    }

    /// The mesh.
    pub fn mesh(&self) -> &Arc<Mesh> {
        &self.mesh
    }

    /// The transform from mesh space (the mesh's [`TriMesh`](crate::TriMesh) positions) to
    /// world space: the instance's transform after the mesh's origin ([`Mesh::origin`]),
    /// rounded to `f32`; the transform given for a mesh whose origin is zero.
    pub fn transform(&self) -> Affine3A {
        self.transform
    }

    /// The transform given to [`Instance::new`] (in `f64`), from the mesh's
    /// world coordinates (its origin included) to the scene's world, in `f64`.
    pub fn placement(&self) -> DAffine3 {
        self.placement
    }

    /// The transform from mesh space (the mesh's [`TriMesh`](crate::TriMesh) positions) to
    /// world space in `f64`: [`Instance::placement`] after the mesh's origin, unrounded
    /// ([`Instance::transform`] is its `f32` rounding).
    pub fn exact_transform(&self) -> DAffine3 {
        self.placement * DAffine3::from_translation(self.mesh.origin())
    }

    /// The inverse of [`Instance::exact_transform`] in `f64`: world to mesh space.
    #[inline]
    pub(crate) fn to_local_f64(&self) -> &DAffine3 {
        &self.to_local
    }

    /// The box in world space around the instance (the transformed corners of the mesh's box,
    /// padded by a few float steps so that rounding never culls a hit).
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// Moves the instance by a transform in `f32` or `f64`, as [`Instance::new`] places it
    /// (within a [`crate::Scene`], use [`crate::Scene::set_transform`] so the scene's
    /// hierarchy follows).
    ///
    /// # Errors
    /// As [`Instance::new`]; the instance is unchanged on error.
    pub fn set_transform(&mut self, transform: impl Placement) -> Result<()> {
        *self = Self::new(Arc::clone(&self.mesh), transform)?.with_layers(self.layers);
        Ok(())
    }

    /// The world ray carried into mesh space: origin and direction by the inverse transform
    /// (computed in `f64` and rounded once), the same range. The direction is not
    /// renormalised, so `t` means the same point on both rays.
    #[inline]
    pub fn to_local(&self, ray: &Ray) -> Ray {
        let origin = self.to_local.transform_point3(ray.origin.as_dvec3());
        let dir = self.to_local.transform_vector3(ray.dir.as_dvec3());
        Ray {
            origin: origin.as_vec3(),
            dir: dir.as_vec3(),
            ..*ray
        }
    }

    /// The world rays of `packet` carried into the mesh's space, lane by lane as
    /// [`Instance::to_local`] carries one ray (the same `f64` products and sums in the same
    /// order, rounded once, so bit for bit), without leaving the packet's layout: a packet
    /// that reaches an instance is carried as a packet, one axis of eight lanes at a time.
    #[inline]
    pub(crate) fn packet_to_local(&self, packet: &RayPacket) -> RayPacket {
        let m = &self.to_local;
        let columns = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis];
        // Row `row` of the linear part times each lane's vector, summed as glam's
        // `transform_vector3` sums (x, then y, then z), in `f64`.
        let linear = |from: &[[f32; PACKET_WIDTH]; 3], row: usize, lane: usize| {
            columns[0][row] * f64::from(from[0][lane])
                + columns[1][row] * f64::from(from[1][lane])
                + columns[2][row] * f64::from(from[2][lane])
        };
        RayPacket {
            origin: core::array::from_fn(|row| {
                core::array::from_fn(|lane| {
                    (linear(&packet.origin, row, lane) + m.translation[row]) as f32
                })
            }),
            dir: core::array::from_fn(|row| {
                core::array::from_fn(|lane| linear(&packet.dir, row, lane) as f32)
            }),
            ..*packet
        }
    }

    /// Which side of its triangle a hit of a world ray `ray` on this instance is on; `None`
    /// when the mesh has no triangle `hit.triangle`.
    pub fn facing(&self, ray: &Ray, hit: &Hit) -> Option<Facing> {
        let local = self.mesh.tri_mesh().triangle(hit.triangle as usize)?;
        Some(Facing::of(
            local.normal(),
            self.to_local(ray).dir,
            self.mirrored,
        ))
    }

    /// The unit geometric normal of triangle `index` in world space, as
    /// [`Instance::surface`] gives it (the mesh's normal by the inverse transpose, turned
    /// over under a mirroring transform) without the rest of the surface: computed from the
    /// mesh's own corners, so that an instance far from the origin gets it at full precision
    /// where its [`Instance::world_triangle`]'s `f32` corners would be rounded. `None` past
    /// the last triangle; zero for a degenerate one.
    pub fn world_normal(&self, index: usize) -> Option<Vec3> {
        let local = self.mesh.tri_mesh().triangle(index)?.normal();
        let normal = (self.normal_matrix * local).normalize_or_zero();
        Some(if self.mirrored { -normal } else { normal })
    }

    /// The surface at a hit of this instance, in world space: the point carried by the
    /// transform, the normals by its inverse transpose (renormalised), texture coordinates
    /// and group name as in the mesh. Under a mirroring transform the geometric normal is
    /// also turned over, so that it still faces the side from which the world triangle's
    /// corners run counter-clockwise. The shading normal is not: it describes the surface
    /// rather than the winding, and keeps facing the side it faced in the mesh (the outside
    /// of a closed mesh stays the outside).
    ///
    /// `None` when the mesh has no triangle `hit.triangle` (see [`Mesh::surface`]).
    pub fn surface(&self, hit: &Hit) -> Option<SurfacePoint<'_>> {
        let surface = self
            .mesh
            .surface(hit)?
            .transformed(&self.transform, &self.normal_matrix);
        Some(if self.mirrored {
            SurfacePoint {
                geometric_normal: -surface.geometric_normal,
                ..surface
            }
        } else {
            surface
        })
    }
}

/// The `f64` inverse of `forward` and the inverse transpose of its linear part; an error naming
/// `placed`, its `f32` rounding, when either is not finite or `forward` not invertible.
fn invert(forward: DAffine3, placed: Affine3A) -> Result<(DAffine3, Mat3A)> {
    let invalid = || Error::InvalidTransform { transform: placed };
    if !forward.is_finite() || !placed.is_finite() {
        return Err(invalid());
    }
    let determinant = forward.matrix3.determinant();
    if determinant == 0.0 || !determinant.is_finite() {
        return Err(invalid());
    }
    let inverse = forward.inverse();
    let normal_matrix = Mat3A::from(inverse.matrix3.transpose().as_mat3());
    if !inverse.is_finite() || !normal_matrix.is_finite() {
        return Err(invalid());
    }
    Ok((inverse, normal_matrix))
}

/// The world box of `local` under `forward`, padded so that a world ray which reaches a
/// triangle through its (rounded) local ray is never culled by the box.
///
/// The pad covers the rounding of the carried ray near the box: a local point rounded by half
/// a float step moves by up to the transform's condition number times that in the world. Far
/// from the box, the slab test's own widening, relative to `t`, covers the rest.
fn world_bounds(local: Aabb, forward: &DAffine3, to_local: &DAffine3) -> Aabb {
    if local.is_empty() || !local.is_finite() {
        return Aabb::EMPTY;
    }
    let (min, max) = (local.min.as_dvec3(), local.max.as_dvec3());
    let mut low = DVec3::INFINITY;
    let mut high = DVec3::NEG_INFINITY;
    for corner in 0..8 {
        let pick = |axis: usize| {
            if corner >> axis & 1 == 0 {
                min[axis]
            } else {
                max[axis]
            }
        };
        let p = forward.transform_point3(DVec3::new(pick(0), pick(1), pick(2)));
        low = low.min(p);
        high = high.max(p);
    }
    let frobenius = |m: glam::DMat3| {
        (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt()
    };
    let condition = frobenius(forward.matrix3) * frobenius(to_local.matrix3);
    let scale = low.abs().max(high.abs()).max_element() + (high - low).max_element();
    let pad = scale * condition * 4.0 * f64::from(f32::EPSILON);
    let bounds = Aabb::new((low - pad).as_vec3(), (high + pad).as_vec3());
    if bounds.is_finite() {
        bounds
    } else {
        Aabb::EMPTY
    }
}

/// `local` with each corner carried by `transform`, in `f32`.
#[inline]
pub(crate) fn carried_triangle(transform: &Affine3A, local: &Triangle) -> Triangle {
    Triangle::new(
        transform.transform_point3(local.v0),
        transform.transform_point3(local.v1),
        transform.transform_point3(local.v2),
    )
}

/// Arvo's box transform (*Transforming Axis-Aligned Bounding Boxes*, Graphics Gems, 1990):
/// the centre by the transform and the half-size by the absolute linear part, padded by a
/// bound on the rounding of `transform_point3` for any point of `local`: it holds every
/// corner [`carried_triangle`] carries from inside `local`.
pub(crate) fn carried_box(transform: &Affine3A, local: &Aabb) -> Aabb {
    if local.is_empty() {
        return Aabb::EMPTY;
    }
    let (min, max) = (Vec3A::from(local.min), Vec3A::from(local.max));
    let centre = (min + max) * 0.5;
    let half = (max - min) * 0.5;
    let linear = transform.matrix3;
    let absolute = Mat3A::from_cols(
        linear.x_axis.abs(),
        linear.y_axis.abs(),
        linear.z_axis.abs(),
    );
    let world_centre = linear * centre + transform.translation;
    let world_half = absolute * half;
    // Each coordinate of a carried point is a sum of three products and a translation: its
    // rounding error is a few units in the last place of the sum of their magnitudes.
    let magnitude = absolute * (centre.abs() + half) + transform.translation.abs();
    let pad = magnitude * (16.0 * f32::EPSILON) + Vec3A::splat(f32::MIN_POSITIVE);
    let bounds = Aabb::new(
        Vec3::from(world_centre - world_half - pad),
        Vec3::from(world_centre + world_half + pad),
    );
    if bounds.is_finite() {
        bounds
    } else {
        // Beyond f32: a box that culls nothing.
        Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY)
    }
}

/// An instance's placement in either precision: [`Affine3A`] in `f32`, taken exactly in
/// `f64`, or [`DAffine3`] ([`Instance::new`], [`Instance::set_transform`]). Sealed.
pub trait Placement: Copy + sealed::Sealed {
    /// The transform in `f64`.
    fn in_f64(self) -> DAffine3;
}

impl Placement for Affine3A {
    #[inline]
    fn in_f64(self) -> DAffine3 {
        self.as_daffine3()
    }
}

impl Placement for DAffine3 {
    #[inline]
    fn in_f64(self) -> DAffine3 {
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for glam::Affine3A {}
    impl Sealed for glam::DAffine3 {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RayQueries;
    use glam::{Quat, Vec3};

    fn unit_square() -> Arc<Mesh> {
        Arc::new(
            Mesh::from_triangles(
                &[
                    [0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0],
                    [1.0, 1.0, 0.0],
                    [0.0, 1.0, 0.0],
                ],
                &[[0, 1, 2], [0, 2, 3]],
            )
            .expect("valid square"),
        )
    }

    #[test]
    fn singular_and_non_finite_transforms_are_rejected() {
        let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
        let nan = Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
        let tiny = Affine3A::from_scale(Vec3::splat(1e-39));
        for transform in [flat, nan, tiny] {
            let err = Instance::new(unit_square(), transform).unwrap_err();
            assert!(matches!(err, Error::InvalidTransform { .. }), "{err}");
        }
        let mut ok = Instance::new(unit_square(), Affine3A::IDENTITY).expect("identity");
        assert!(ok.set_transform(flat).is_err());
        assert_eq!(ok.transform(), Affine3A::IDENTITY);
    }

    #[test]
    fn t_is_the_world_parameter_and_normals_use_the_inverse_transpose() {
        // Stretch x by 4 and rotate about z by 45 degrees: the plane z = 0 stays, but a
        // sheared-looking normal would tilt if carried by the transform itself.
        let transform = Affine3A::from_scale_rotation_translation(
            Vec3::new(4.0, 1.0, 0.5),
            Quat::from_rotation_y(0.3),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let instance = Instance::new(unit_square(), transform).expect("valid");
        let target = transform.transform_point3(Vec3::new(0.7, 0.2, 0.0));
        let origin = target + Vec3::new(0.3, 2.0, 5.0);
        let ray = Ray::new(origin, (target - origin) * 0.5);
        let hit = instance.cast(&ray).expect("hits");
        assert!((hit.t - 2.0).abs() < 1e-5, "{hit:?}");
        let surface = instance.surface(&hit).expect("a triangle of the mesh");
        assert!(surface.point.distance(target) < 1e-5);
        // The world normal is perpendicular to both world edges of the square.
        let (ex, ey) = (
            transform.transform_vector3(Vec3::X),
            transform.transform_vector3(Vec3::Y),
        );
        assert!(surface.geometric_normal.dot(ex).abs() < 1e-6);
        assert!(surface.geometric_normal.dot(ey).abs() < 1e-6);
        assert!((surface.geometric_normal.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_packet_is_carried_as_each_of_its_rays_is() {
        // Every sign of zero, subnormal, huge, infinite and NaN components among ordinary
        // ones, through a mirroring, shearing, far transform and the identity.
        let parts = [
            0.0,
            -0.0,
            1.0e-40,
            -3.5,
            0.1,
            7.0e30,
            -2.0e38,
            f32::INFINITY,
            f32::NAN,
            1234.5678,
        ];
        let at = |i: usize| parts[i % parts.len()];
        let sheared = DAffine3::from_cols_array(&[
            -1.5,
            0.25,
            0.0,
            0.3,
            2.0,
            -0.1,
            0.0,
            0.7,
            0.9,
            500_123.37,
            -5_000_456.71,
            100.0,
        ]);
        let turned = DAffine3::from_rotation_y(0.3) * DAffine3::from_scale(DVec3::splat(1e-3));
        for transform in [sheared, turned, DAffine3::IDENTITY] {
            let instance = Instance::new(unit_square(), transform).expect("invertible");
            for start in 0..40 {
                let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|lane| {
                    let k = start + 7 * lane;
                    Ray {
                        origin: Vec3::new(at(k), at(k + 1), at(k + 3)),
                        dir: Vec3::new(at(k + 4), at(k + 2), at(k + 5)),
                        t_min: lane as f32,
                        t_max: at(k + 6),
                    }
                });
                let carried = instance.packet_to_local(&RayPacket::new(&rays));
                for (lane, ray) in rays.iter().enumerate() {
                    let (one, lanes) = (instance.to_local(ray), carried.ray(lane));
                    let bits = |ray: Ray| {
                        let [o, d] = [ray.origin, ray.dir].map(|v| v.to_array().map(f32::to_bits));
                        (o, d, ray.t_min.to_bits(), ray.t_max.to_bits())
                    };
                    assert_eq!(bits(lanes), bits(one), "lane {lane} of packet {start}");
                }
            }
        }
    }

    #[test]
    fn batch_rays_that_overflow_in_the_mesh_space_miss() {
        use crate::RayQueries;
        // Shrunk 1e-30 times: a long direction overflows when carried into the mesh's space.
        let instance = Instance::new(unit_square(), Affine3A::from_scale(Vec3::splat(1e-30)))
            .expect("invertible");
        let target = Vec3::new(0.5e-30, 0.5e-30, 0.0);
        let rays: Vec<Ray> = (0..16)
            .map(|i| {
                let length = if i % 3 == 1 { 1e9 } else { 1e-30 };
                let origin = target + Vec3::new(0.0, 0.0, 1e-30 * (1.0 + i as f32));
                Ray::new(origin, Vec3::new(0.0, 0.0, -length))
            })
            .collect();
        assert!(rays.iter().all(Ray::is_valid));
        let single: Vec<_> = rays.iter().map(|ray| instance.cast(ray)).collect();
        for (i, hit) in single.iter().enumerate() {
            assert_eq!(hit.is_some(), i % 3 != 1, "ray {i}");
        }
        // Answers start wrong, so that one left unwritten shows.
        let mut batch = vec![Some(Hit::new(-1.0, 0.0, 0.0)); rays.len()];
        instance.cast_batch_serial(&rays, &mut batch);
        assert_eq!(batch, single);
        let mut occluded = vec![true; rays.len()];
        instance.occluded_batch_serial(&rays, &mut occluded);
        let expected: Vec<bool> = rays.iter().map(|ray| instance.occluded(ray)).collect();
        assert_eq!(occluded, expected);
    }

    #[test]
    fn world_bounds_contain_every_transformed_vertex() {
        let transform = Affine3A::from_scale_rotation_translation(
            Vec3::new(0.2, 5.0, -3.0),
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 1.0),
            Vec3::new(1e4, -2.0, 7.0),
        );
        let instance = Instance::new(unit_square(), transform).expect("valid");
        for p in instance.mesh().tri_mesh().positions() {
            assert!(instance.bounds().contains(transform.transform_point3(*p)));
        }
    }
}
