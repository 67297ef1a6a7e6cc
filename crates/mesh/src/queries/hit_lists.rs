//! [`HitLists`]: the hits of many rays in one flat array, the answer of a batch of every-hit
//! queries ([`crate::RayQueries::cast_all_batch`]).

use core::ops::Index;

/// The hits of many rays in one flat array: ray `i`'s hits are
/// `hits[offsets[i]..offsets[i + 1]]`, so `offsets` has one more entry than there are rays
/// and starts at 0 (the layout of a compressed sparse row, or Open3D's `ray_splits`).
/// [`RayQueries::cast_all_batch`](crate::RayQueries::cast_all_batch) gives one; index it by
/// ray, iterate it, or take its parts to hand to other code. Lists concatenate
/// ([`HitLists::append`]) without touching the hits themselves.
///
/// Offsets are `u32`: a `HitLists` holds at most `u32::MAX` hits, and adding more panics.
///
/// # Examples
/// ```
/// use meshcast_mesh::HitLists;
///
/// let mut lists: HitLists<char> = [vec!['a', 'b'], vec![], vec!['c']].into_iter().collect();
/// assert_eq!((lists.len(), &lists[0], &lists[1], &lists[2]), (3, &['a', 'b'][..], &[][..], &['c'][..]));
/// lists.append([vec!['d']].into_iter().collect());
/// assert_eq!(lists.offsets(), [0, 2, 2, 3, 4]);
/// assert_eq!(lists.hits(), ['a', 'b', 'c', 'd']);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HitLists<H> {
    offsets: Vec<u32>,
    hits: Vec<H>,
}

impl<H> Default for HitLists<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H> HitLists<H> {
    /// No rays.
    pub fn new() -> Self {
        Self {
            offsets: vec![0],
            hits: Vec::new(),
        }
    }

    /// The number of rays.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no rays.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ray `ray`'s hits, or `None` past the last ray.
    pub fn get(&self, ray: usize) -> Option<&[H]> {
        let start = *self.offsets.get(ray)? as usize;
        let end = *self.offsets.get(ray + 1)? as usize;
        Some(&self.hits[start..end])
    }

    /// Each ray's hits, in the order of the rays.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[H]> + '_ {
        self.offsets
            .windows(2)
            .map(|pair| &self.hits[pair[0] as usize..pair[1] as usize])
    }

    /// Where each ray's hits start in [`HitLists::hits`], and after the last ray, where
    /// they end: one entry more than there are rays.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Every ray's hits, one ray after the other.
    pub fn hits(&self) -> &[H] {
        &self.hits
    }

    /// The offsets and the hits, as [`HitLists::offsets`] and [`HitLists::hits`].
    pub fn into_parts(self) -> (Vec<u32>, Vec<H>) {
        (self.offsets, self.hits)
    }

    /// Adds one more ray with these hits.
    ///
    /// # Panics
    /// If the lists would hold more than `u32::MAX` hits.
    pub fn push(&mut self, hits: impl IntoIterator<Item = H>) {
        self.hits.extend(hits);
        self.offsets.push(offset(self.hits.len()));
    }

    /// Adds the rays of `other` after these.
    ///
    /// # Panics
    /// If the lists would hold more than `u32::MAX` hits.
    pub fn append(&mut self, mut other: Self) {
        let base = offset(self.hits.len());
        assert!(
            offset(other.hits.len()).checked_add(base).is_some(),
            "a HitLists holds at most u32::MAX hits"
        );
        self.hits.append(&mut other.hits);
        self.offsets
            .extend(other.offsets.iter().skip(1).map(|&end| base + end));
    }
}

/// A number of hits as an offset.
fn offset(hits: usize) -> u32 {
    u32::try_from(hits).expect("a HitLists holds at most u32::MAX hits")
}

impl<H> Index<usize> for HitLists<H> {
    type Output = [H];

    /// Ray `ray`'s hits.
    ///
    /// # Panics
    /// If `ray >= self.len()`.
    fn index(&self, ray: usize) -> &[H] {
        self.get(ray).expect("a ray of the lists")
    }
}

impl<H, L: IntoIterator<Item = H>> FromIterator<L> for HitLists<H> {
    /// One ray per item, with that item's hits.
    fn from_iter<I: IntoIterator<Item = L>>(lists: I) -> Self {
        let mut all = Self::new();
        for hits in lists {
            all.push(hits);
        }
        all
    }
}
