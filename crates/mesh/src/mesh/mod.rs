//! The mesh room: [`Mesh`], a [`TriMesh`] with a [`Bvh`] over its triangles (collapsed to an
//! eight-wide tree), its leaf blocks and its winding expansions (here: building, stored parts,
//! deforming, what it holds), answering the ray queries in its own (local) space, one ray or
//! a packet at a time (`walks.rs`). Its frame's origin ([`Mesh::origin`]) is its
//! [`TriMesh`]'s; the queries in `f64` world coordinates are the `world` room's.
//!
//! May use: `triangles`, `volume`, `queries`, `error`. Used by `scene` and `points`.

mod walks;

use glam::{DVec3, Vec3};
use meshcast_bvh::{
    BuildOptions, Bvh, Kernel, OutOfMemory, Parallel, WideBvh, WideNode, PADDING_SLOT,
};
use meshcast_primitives::{carry_point, Aabb, DFrame, Hit, Triangle, BLOCK_WIDTH};
use rayon::prelude::*;

use crate::error::Result;
use crate::triangles::{LeafBlocks, LeafTest, SurfacePoint, TriMesh};
use crate::volume::{PointBox, WindingCache};

/// A triangle mesh with a bounding volume hierarchy: closest hit, any hit, every hit and
/// batches of rays ([`RayQueries`](crate::RayQueries)), in the mesh's own coordinates.
///
/// Every query uses the mesh's [`LeafTest`], by default the watertight test
/// ([`meshcast_primitives::Triangle::intersect`], Woop, Benthin and Wald 2013), two-sided, and
/// returns exactly what a loop of that test over every triangle returns (for
/// [`LeafTest::Transform`], outside the cases its docs name): the smallest `t`, ties to the
/// smaller triangle index ([`Hit::order`]).
/// `t` is measured in units of the ray's direction; `hit.triangle` is the triangle's index in
/// file (or `indices`) order, and the hit point is `(1 - u - v) * v0 + u * v1 + v * v2`.
/// Degenerate rays (NaN or infinite components, a zero direction, an empty range) miss;
/// degenerate triangles are never hit. A ray starting on the surface does not hit it at
/// `t = 0` with the default range.
///
/// A mesh made from `f64` positions far from the origin ([`Mesh::from_world_triangles`]) keeps
/// them as `f32` coordinates relative to an `f64` origin of its own ([`Mesh::origin`]). Every
/// query takes rays and points in either precision ([`crate::QueryRay`],
/// [`crate::QueryPoint`]): in `f64` ([`meshcast_primitives::DRay`], [`glam::DVec3`]) they are
/// world coordinates, carried into the mesh's frame; in `f32` they speak the mesh's own
/// coordinates, which are world coordinates for a mesh whose origin is zero (every mesh made
/// from `f32` positions).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::{Mesh, RayQueries};
/// use meshcast_primitives::Ray;
///
/// // A unit square in the z = 0 plane, two triangles.
/// let square = Mesh::from_triangles(
///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
///     &[[0, 1, 2], [0, 2, 3]],
/// )?;
/// let hit = square.cast(&Ray::new(Vec3::new(0.25, 0.75, 2.0), Vec3::NEG_Z)).ok_or("miss")?;
/// assert_eq!((hit.triangle, hit.t), (1, 2.0));
/// assert!(!square.occluded(&Ray::new(Vec3::new(2.0, 0.5, 2.0), Vec3::NEG_Z)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Mesh {
    tri_mesh: TriMesh,
    /// The eight-wide hierarchy every query walks.
    wide: WideBvh,
    /// The triangles in `wide`'s leaf order, four to a block, laid out for the leaf test.
    blocks: LeafBlocks,
    /// The far-field expansions of the winding number, made by its first query.
    pub(crate) winding: WindingCache,
    /// The options `wide` was built with ([`Mesh::build_options`]).
    options: BuildOptions,
    /// The frame `f64` rays and points are carried into ([`Mesh::world_frame`]): the origin
    /// and `wide`'s box, made once rather than once per ray.
    pub(crate) frame: DFrame,
}

impl Mesh {
    /// The mesh of these positions and index triples ([`TriMesh::from_triangles`]) with the
    /// default build options.
    ///
    /// # Errors
    /// As [`TriMesh::new`]: an index out of range or a position that is not finite;
    /// [`crate::Error::OutOfMemory`] when the build cannot allocate its buffers.
    pub fn from_triangles(positions: &[[f32; 3]], indices: &[[u32; 3]]) -> Result<Self> {
        Self::try_from_tri_mesh(
            TriMesh::from_triangles(positions, indices)?,
            &BuildOptions::default(),
        )
    }

    /// The mesh of these `f64` positions and index triples ([`TriMesh::from_world_triangles`]:
    /// stored as `f32` coordinates relative to an origin of its own, [`Mesh::origin`], when
    /// they lie far from the world's origin) with the default build options. Query it with
    /// rays and points in `f64` world coordinates ([`meshcast_primitives::DRay`],
    /// [`glam::DVec3`]) through the same methods as `f32` ones.
    ///
    /// # Errors
    /// As [`TriMesh::new`]: an index out of range or a position that is not finite;
    /// [`crate::Error::OutOfMemory`] when the build cannot allocate its buffers.
    ///
    /// # Examples
    /// ```
    /// use glam::DVec3;
    /// use meshcast_mesh::{Mesh, RayQueries};
    /// use meshcast_primitives::DRay;
    ///
    /// // A triangle 500 km east and 5000 km north: f32 would round it to half a metre.
    /// let (x, y) = (500_123.37, 5_000_456.71);
    /// let tri = Mesh::from_world_triangles(&[[x, y, 0.0], [x + 1.0, y, 0.0], [x, y + 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let hit = tri.cast(&DRay::new(DVec3::new(x + 0.25, y + 0.25, 3.0), DVec3::NEG_Z)).ok_or("miss")?;
    /// assert!((hit.t - 3.0).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_world_triangles(positions: &[[f64; 3]], indices: &[[u32; 3]]) -> Result<Self> {
        Self::try_from_tri_mesh(
            TriMesh::from_world_triangles(positions, indices)?,
            &BuildOptions::default(),
        )
    }

    /// Where the origin of the mesh's coordinates lies in the world, in `f64`
    /// ([`TriMesh::origin`]): zero for a mesh made from `f32` positions. A point `p` of the
    /// mesh lies at `origin + p` in the world.
    pub fn origin(&self) -> DVec3 {
        self.tri_mesh.origin()
    }

    /// Builds the hierarchy over `tri_mesh`'s triangles, with the watertight leaf test
    /// ([`Mesh::with_leaf_test`] picks another). Degenerate triangles are left out of it
    /// (their boxes are given as empty), so they are never hit but keep their numbers.
    ///
    /// The hierarchy, and with it every answer, is the same on any number of threads and
    /// with either `options.parallel` (what is promised: [`Bvh::build`]).
    ///
    /// Aborts, as a `Vec` does, when memory runs out; [`Mesh::try_from_tri_mesh`] returns
    /// that as an error.
    pub fn from_tri_mesh(tri_mesh: TriMesh, options: &BuildOptions) -> Self {
        Self::build(tri_mesh, options, LeafTest::default()).unwrap_or_else(|error| error.abort())
    }

    /// [`Mesh::from_tri_mesh`], with the build's large buffers (the build's primitives, the
    /// binary and wide nodes, the leaf blocks) reserved through `try_reserve`, so that a mesh
    /// too large for the memory there is gives an error rather than an abort. The build never
    /// holds the triangles' boxes: it reads them from the triangles as it goes.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory), naming the buffer that did not fit
    /// and the bytes it needed. (`tri_mesh` is dropped.)
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{Mesh, TriMesh};
    ///
    /// let tri = TriMesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let mesh = Mesh::try_from_tri_mesh(tri, &Default::default())?;
    /// assert_eq!(mesh.triangle_count(), 1);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn try_from_tri_mesh(tri_mesh: TriMesh, options: &BuildOptions) -> Result<Self> {
        Ok(Self::build(tri_mesh, options, LeafTest::default())?)
    }

    /// The mesh with its leaves laid out for `leaf_test` (see [`LeafTest`] for the trade);
    /// the hierarchy is kept, only the leaf blocks are made again.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{LeafTest, Mesh};
    ///
    /// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?
    ///     .with_leaf_test(LeafTest::Transform);
    /// assert_eq!(tri.leaf_test(), LeafTest::Transform);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn with_leaf_test(mut self, leaf_test: LeafTest) -> Self {
        if leaf_test != self.leaf_test() {
            self.blocks = LeafBlocks::new(&self.tri_mesh, &self.wide, Parallel::Rayon, leaf_test)
                .unwrap_or_else(|error| error.abort());
        }
        self
    }

    /// The ray–triangle test the queries run at the leaves.
    pub fn leaf_test(&self) -> LeafTest {
        self.blocks.leaf_test()
    }

    /// [`Mesh::from_tri_mesh`] with the leaves laid out for `leaf_test`.
    fn build(
        tri_mesh: TriMesh,
        options: &BuildOptions,
        leaf_test: LeafTest,
    ) -> std::result::Result<Self, OutOfMemory> {
        // Leaves are tested four triangles at a time: let the SAH count whole blocks.
        let options = BuildOptions {
            leaf_block: BLOCK_WIDTH,
            ..*options
        };
        // The binary tree is only a step: the collapse chooses the wide nodes and leaves of
        // least SAH cost among its subtrees.
        // Each triangle's box is made where the build asks for it (a box array would be the
        // build's largest buffer: 32 bytes a triangle), and the binary tree is dropped before
        // the leaf blocks are laid out.
        let count = tri_mesh.triangle_count();
        let binary = Bvh::try_build_with(count, |i| triangle_box(&tri_mesh, i), &options)?;
        let wide = WideBvh::try_from_binary_with(&binary, &options)?;
        drop(binary);
        let blocks = LeafBlocks::new(&tri_mesh, &wide, options.parallel, leaf_test)?;
        Ok(Self::from_parts(tri_mesh, wide, blocks, options))
    }

    /// The mesh of `tri_mesh`, a hierarchy over its triangles built with `options` (here, or
    /// by a cache's writer and checked by [`WideBvh::from_parts_with`]), and the leaf blocks
    /// of its order.
    pub(crate) fn from_parts(
        mut tri_mesh: TriMesh,
        wide: WideBvh,
        blocks: LeafBlocks,
        options: BuildOptions,
    ) -> Self {
        // Every triangle a build keeps is in a slot, and no other: the rest are degenerate.
        let held = wide
            .primitive_order()
            .par_iter()
            .filter(|&&slot| slot != PADDING_SLOT)
            .count();
        tri_mesh.know_degenerate_count(tri_mesh.triangle_count() - held);
        let frame = DFrame::new(tri_mesh.origin(), &wide.bounds());
        Self {
            tri_mesh,
            wide,
            blocks,
            winding: WindingCache::default(),
            options,
            frame,
        }
    }

    /// The mesh of `tri_mesh` (from [`TriMesh::with_closedness`]) with a stored hierarchy,
    /// checked: `nodes` and `order` as [`WideBvh::nodes`] and [`WideBvh::primitive_order`]
    /// give them, built with `options` over these triangles, as [`WideBvh::from_parts_with`]
    /// checks. The seam `meshcast-io`'s cache reader loads a mesh through without a build.
    ///
    /// # Errors
    /// The tree's [`meshcast_bvh::Error`] when it is not one a build makes over these
    /// triangles.
    #[doc(hidden)]
    pub fn from_stored(
        tri_mesh: TriMesh,
        nodes: Vec<WideNode>,
        order: Vec<u32>,
        leaf_test: LeafTest,
        options: BuildOptions,
    ) -> std::result::Result<Self, meshcast_bvh::Error> {
        // The triangles are gathered once, in leaf order, for the leaf test; the hierarchy is
        // checked against them there, so that no check walks the triangles in random order.
        let (blocks, block_bounds) =
            LeafBlocks::with_block_bounds(&tri_mesh, &order, Parallel::Rayon, leaf_test)?;
        let kept = |triangle: u32| {
            tri_mesh
                .triangle(triangle as usize)
                .is_some_and(|t| !t.is_degenerate())
        };
        let wide = WideBvh::from_parts_with(
            nodes,
            order,
            tri_mesh.triangle_count(),
            |group, _| block_bounds.get(group).copied().flatten(),
            kept,
        )?;
        Ok(Self::from_parts(tri_mesh, wide, blocks, options))
    }

    /// The options the hierarchy was built with (a cache remembers them): those given to
    /// [`Mesh::from_tri_mesh`], with [`BuildOptions::leaf_block`] set to the four triangles
    /// a leaf test takes at once.
    pub fn build_options(&self) -> BuildOptions {
        self.options
    }

    /// Moves the vertices to `positions` (one per vertex, in the same order) and refits the
    /// hierarchy to them: the deformation path for skinned, sculpted or simulated meshes.
    /// Triangles, normals, texture coordinates and groups are kept as they are (normals are
    /// not recomputed). Refitting keeps the tree's shape, which suits small motions; when a
    /// triangle becomes degenerate or stops being so, the hierarchy is rebuilt with the
    /// mesh's [`Mesh::build_options`] instead. The [`LeafTest`] is kept.
    ///
    /// A mesh shared by instances sits behind an [`std::sync::Arc`]: deform a copy
    /// ([`std::sync::Arc::make_mut`]) and hand it to the scene with
    /// [`crate::Scene::set_mesh`], so that queries running on the old one are not disturbed.
    ///
    /// # Errors
    /// [`crate::Error::InvalidAttribute`] if `positions` is not one per vertex,
    /// [`crate::Error::NonFiniteVertex`] for a NaN or infinite position; the mesh is then
    /// unchanged.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{Mesh, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// let mut tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// tri.set_positions(&[[0.0, 0.0, 2.0], [1.0, 0.0, 2.0], [0.0, 1.0, 2.0]])?;
    /// let hit = tri.cast(&Ray::new(Vec3::new(0.2, 0.2, 5.0), Vec3::NEG_Z)).ok_or("miss")?;
    /// assert!((hit.t - 3.0).abs() < 1e-5);
    /// assert!(tri.set_positions(&[[0.0; 3]]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_positions(&mut self, positions: &[[f32; 3]]) -> Result<()> {
        let old = &self.tri_mesh;
        if positions.len() != old.vertex_count() {
            return Err(crate::error::Error::InvalidAttribute {
                attribute: "positions",
                problem: format!(
                    "{} positions given for {} vertices",
                    positions.len(),
                    old.vertex_count()
                ),
            });
        }
        let mut tri_mesh = TriMesh::new(
            positions.iter().copied().map(Vec3::from).collect(),
            old.indices().to_vec(),
        )?
        .with_frame_origin(old.origin());
        if let Some(normals) = old.normals() {
            tri_mesh = tri_mesh.with_normals(normals.clone())?;
        }
        if let Some(uvs) = old.uvs() {
            tri_mesh = tri_mesh.with_uvs(uvs.clone())?;
        }
        if !old.group_names().is_empty() {
            let groups = (0..old.triangle_count())
                .map(|t| old.triangle_group(t).unwrap_or(0))
                .collect();
            tri_mesh = tri_mesh.with_groups(old.group_names().to_vec(), groups)?;
        }
        tri_mesh.set_warnings(old.warnings().to_vec());
        let boxes = triangle_boxes(&tri_mesh, Parallel::Rayon);
        let kept = boxes.iter().filter(|b| !b.is_empty()).count();
        let order = self.wide.primitive_order();
        let same_triangles = kept == order.iter().filter(|&&i| i != PADDING_SLOT).count()
            && order
                .iter()
                .all(|&index| index == PADDING_SLOT || !boxes[index as usize].is_empty());
        if !same_triangles {
            let kernel = self.kernel();
            *self = Self::build(tri_mesh, &self.options, self.leaf_test())?;
            return self.set_kernel(kernel);
        }
        self.wide.refit(&boxes)?;
        self.blocks = LeafBlocks::new(&tri_mesh, &self.wide, Parallel::Rayon, self.leaf_test())?;
        self.tri_mesh = tri_mesh;
        self.winding = WindingCache::default();
        self.frame = DFrame::new(self.origin(), &self.bounds());
        Ok(())
    }

    /// [`Mesh::set_positions`] with `f64` world positions, carried into the mesh's frame
    /// ([`Mesh::origin`], which is kept) before rounding.
    ///
    /// # Errors
    /// As [`Mesh::set_positions`].
    pub fn set_world_positions(&mut self, positions: &[[f64; 3]]) -> Result<()> {
        let local: Vec<[f32; 3]> = positions
            .iter()
            .map(|&p| carry_point(DVec3::from(p), self.origin()).to_array())
            .collect();
        self.set_positions(&local)
    }

    /// The triangles and their attributes.
    pub fn tri_mesh(&self) -> &TriMesh {
        &self.tri_mesh
    }

    /// The geometry, without the hierarchy.
    pub fn into_tri_mesh(self) -> TriMesh {
        self.tri_mesh
    }

    /// The eight-wide hierarchy over the triangles (its padded leaf order is that of the
    /// triangles it holds).
    pub fn bvh(&self) -> &WideBvh {
        &self.wide
    }

    /// The box around every triangle a ray can hit (degenerate ones left out).
    pub fn bounds(&self) -> Aabb {
        self.wide.bounds()
    }

    /// Bytes of the acceleration structure: the hierarchy, the triangles laid out for its
    /// leaf test, and once a winding number has been asked, the hierarchy's far-field
    /// expansions (136 bytes per lane of each node; the [`TriMesh`] itself not counted).
    pub fn acceleration_bytes(&self) -> usize {
        self.wide.bytes() + self.blocks.bytes() + self.winding.get().map_or(0, |w| w.bytes())
    }

    /// The number of triangles, degenerate ones included.
    pub fn triangle_count(&self) -> usize {
        self.tri_mesh.triangle_count()
    }

    /// Whether the mesh is closed ([`TriMesh::is_closed`]).
    pub fn is_closed(&self) -> bool {
        self.tri_mesh.is_closed()
    }

    /// The triangle in leaf slot `slot` of the hierarchy and its index.
    #[inline]
    pub(crate) fn leaf_triangle(&self, slot: u32) -> (Triangle, u32) {
        let index = self.wide.primitive_order()[slot as usize];
        (self.leaves().triangle(slot), index)
    }
    /// The node kernel this mesh's ray queries run ([`Kernel::preferred`] unless set).
    pub fn kernel(&self) -> Kernel {
        self.wide.kernel()
    }

    /// Makes this mesh's ray queries run `kernel` (every kernel gives the same answers; for
    /// tests and benchmarks that compare them).
    ///
    /// # Errors
    /// [`crate::Error::Bvh`] holding [`meshcast_bvh::Error::UnsupportedKernel`] if this CPU
    /// cannot run it.
    pub fn set_kernel(&mut self, kernel: Kernel) -> Result<()> {
        Ok(self.wide.set_kernel(kernel)?)
    }

    /// Where a hit of this mesh lies and what the surface is like there: point, normals,
    /// texture coordinates and group name (see [`SurfacePoint`]); `None` when the mesh has no
    /// triangle `hit.triangle` (a hit kept from a mesh since replaced, or from another mesh).
    ///
    /// A hit carries no mark of the mesh it came from: a hit from another mesh whose
    /// triangle index is in range gives the surface of this mesh's triangle of that index.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{Mesh, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Mesh::from_triangles(&[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]], &[[0, 1, 2]])?;
    /// let hit = tri.cast(&Ray::new(Vec3::new(0.5, 0.5, -1.0), Vec3::Z)).ok_or("miss")?;
    /// let surface = tri.surface(&hit).ok_or("not a triangle of this mesh")?;
    /// assert_eq!(surface.point, Vec3::new(0.5, 0.5, 0.0));
    /// assert_eq!(surface.geometric_normal, Vec3::Z);
    /// assert_eq!(surface.shading_normal, Vec3::Z);
    /// assert_eq!((surface.uv, surface.group), (None, None));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn surface(&self, hit: &Hit) -> Option<SurfacePoint<'_>> {
        SurfacePoint::on(&self.tri_mesh, hit)
    }
}

impl Mesh {
    /// The winding number at `q` in the mesh's space: the signed solid angle of its
    /// triangles over 4π, summed with the far-field expansions of its hierarchy.
    pub(crate) fn winding_at(&self, q: glam::DVec3) -> f64 {
        self.winding
            .winding_at(&self.wide, |slot| self.leaf_triangle(slot).0, q)
    }

    /// Whether [`Mesh::winding_at`] is at least ½ at every point of `points` (`Some(true)`)
    /// or below ½ at every one (`Some(false)`), proven by bounds of its terms over the box;
    /// `None` when the bounds do not tell.
    pub(crate) fn winding_side(&self, points: &PointBox) -> Option<bool> {
        self.winding
            .side_over(&self.wide, |slot| self.leaf_triangle(slot).0, points)
    }
}

/// Each triangle's box, or [`Aabb::EMPTY`] for a degenerate one (which the hierarchy then
/// leaves out), with rayon when `parallel` says so.
fn triangle_boxes(tri_mesh: &TriMesh, parallel: Parallel) -> Vec<Aabb> {
    let bounds = |i: usize| triangle_box(tri_mesh, i);
    let count = tri_mesh.triangle_count();
    match parallel {
        Parallel::Rayon => (0..count)
            .into_par_iter()
            .with_min_len(4096)
            .map(bounds)
            .collect(),
        Parallel::Sequential => (0..count).map(bounds).collect(),
    }
}

/// The box of triangle `i`, empty for a degenerate one (the build leaves it out).
fn triangle_box(tri_mesh: &TriMesh, i: usize) -> Aabb {
    tri_mesh
        .triangle(i)
        .filter(|triangle| !triangle.is_degenerate())
        .map_or(Aabb::EMPTY, |triangle| triangle.bounds())
}
