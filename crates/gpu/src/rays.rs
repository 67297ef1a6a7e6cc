//! The rays a GPU query reads, from any array: the lowest floor of the crate, below both back
//! ends and the streams that feed them.

use meshcast_primitives::Ray;

/// Rays the GPU queries read: a slice of [`Ray`]s, or any other array of rays (the Python
/// package's numpy rows, say) without a `Vec<Ray>` made of them first. The GPU queries
/// write each ray straight into the GPU's upload buffer, in parallel.
pub trait RaySource: Sync {
    /// How many rays.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ray `index`, below [`RaySource::len`].
    fn ray(&self, index: usize) -> Ray;
}

impl RaySource for [Ray] {
    fn len(&self) -> usize {
        <[Ray]>::len(self)
    }

    fn ray(&self, index: usize) -> Ray {
        self[index]
    }
}

impl RaySource for Vec<Ray> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn ray(&self, index: usize) -> Ray {
        self[index]
    }
}

impl<const N: usize> RaySource for [Ray; N] {
    fn len(&self) -> usize {
        N
    }

    fn ray(&self, index: usize) -> Ray {
        self[index]
    }
}
