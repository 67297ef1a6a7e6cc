//! The four-lane leaf test as the walks see it: a ray's set-up for one block layout
//! ([`LaneTest`]) and what it finds per lane ([`LaneHits`]), for the watertight and the
//! transform layouts.

use meshcast_primitives::{
    BlockHits, BlockRay, Contacts, Hit, Ray, Simd, TransformBlock, TransformHits, TransformRay,
    Triangle, TriangleBlock, WatertightRay,
};

use crate::triangles::TriMesh;

/// A four-lane leaf test: a ray's set-up for one block layout and what it finds per lane.
pub(crate) trait LaneTest {
    /// The layout the test reads.
    type Block;
    /// What one block test finds.
    type Hits: LaneHits;

    /// The set-up of `ray` with the rule `contacts`, made once per ray. `ray` is valid
    /// ([`Ray::is_valid`]): the walks hand their leaves valid rays only.
    fn new(ray: &Ray, contacts: Contacts) -> Self;

    /// Tests the four triangles of `block` with `t` in `[t_min, t_max]`.
    fn intersect(&self, block: &Self::Block, t_max: f32) -> Self::Hits;

    /// Tests two blocks, each answer exactly what [`LaneTest::intersect`] answers for its
    /// block: at once in `simd`'s eight lanes where the layout has such a test, else one
    /// block after the other.
    #[inline(always)]
    fn intersect_pair<S: Simd>(
        &self,
        _simd: S,
        blocks: [&Self::Block; 2],
        t_max: f32,
    ) -> [Self::Hits; 2] {
        blocks.map(|block| self.intersect(block, t_max))
    }

    /// The corners of the triangle `index` in `lane` of `block`, for back-face culling.
    fn triangle(block: &Self::Block, lane: usize, index: u32, tri_mesh: &TriMesh) -> Triangle;
}

/// The lanes a four-lane test hit and their hits.
pub(crate) trait LaneHits {
    /// A bit per lane that hit.
    fn lanes(&self) -> u32;
    /// The hit in `lane`, or `None` if that lane missed.
    fn hit(&self, lane: usize) -> Option<Hit>;
}

impl LaneTest for BlockRay {
    type Block = TriangleBlock;
    type Hits = BlockHits;

    #[inline(always)]
    fn new(ray: &Ray, contacts: Contacts) -> Self {
        BlockRay::new(WatertightRay::from_valid(ray).with_contacts(contacts))
    }

    #[inline(always)]
    fn intersect(&self, block: &TriangleBlock, t_max: f32) -> BlockHits {
        BlockRay::intersect(self, block, t_max)
    }

    #[inline(always)]
    fn intersect_pair<S: Simd>(
        &self,
        simd: S,
        blocks: [&TriangleBlock; 2],
        t_max: f32,
    ) -> [BlockHits; 2] {
        BlockRay::intersect_pair(self, simd, blocks, t_max)
    }

    #[inline]
    fn triangle(block: &TriangleBlock, lane: usize, _: u32, _: &TriMesh) -> Triangle {
        block.triangle(lane)
    }
}

impl LaneHits for BlockHits {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        BlockHits::lanes(self)
    }

    #[inline(always)]
    fn hit(&self, lane: usize) -> Option<Hit> {
        BlockHits::hit(self, lane)
    }
}

impl LaneTest for TransformRay {
    type Block = TransformBlock;
    type Hits = TransformHits;

    #[inline(always)]
    /// The transform test holds every triangle closed: `contacts` is always
    /// [`Contacts::Hit`] for it (see [`crate::LeafTest::Transform`]).
    fn new(ray: &Ray, _: Contacts) -> Self {
        TransformRay::new(ray)
    }

    #[inline(always)]
    fn intersect(&self, block: &TransformBlock, t_max: f32) -> TransformHits {
        TransformRay::intersect(self, block, t_max)
    }

    #[inline]
    fn triangle(_: &TransformBlock, _: usize, index: u32, tri_mesh: &TriMesh) -> Triangle {
        tri_mesh.slot_triangle(index)
    }
}

impl LaneHits for TransformHits {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        TransformHits::lanes(self)
    }

    #[inline(always)]
    fn hit(&self, lane: usize) -> Option<Hit> {
        TransformHits::hit(self, lane)
    }
}
