//! Allocations that may not succeed: the large buffers of loading, building and caching are
//! reserved through `try_reserve`, so that a mesh too large for the machine's memory (or for
//! an address-space limit) is an [`OutOfMemory`] error naming what did not fit, never an
//! abort. Small and per-node allocations stay infallible.
//!
//! A room of its own, below every other (no crate type in it), so that the mesh and io
//! crates report their own buffers the same way.

use std::collections::TryReserveError;

/// A buffer that could not be allocated: what it was for and how many bytes it needed.
///
/// # Examples
/// ```
/// use meshcast_bvh::{try_vec, OutOfMemory};
///
/// let err = try_vec::<u64>(usize::MAX / 4, "a test's buffer").unwrap_err();
/// assert_eq!(err.what, "a test's buffer");
/// assert!(err.to_string().starts_with("out of memory: a test's buffer needs"));
/// assert_eq!(try_vec::<u64>(8, "eight").map(|v| v.capacity() >= 8), Ok(true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("out of memory: {what} needs {bytes} bytes")]
pub struct OutOfMemory {
    /// What the buffer was for ("the PLY file's vertices", "the hierarchy's nodes").
    pub what: &'static str,
    /// How many bytes it needed (saturated at `u64::MAX` when the size overflows).
    pub bytes: u64,
}

impl OutOfMemory {
    /// The error for `count` elements of `T`.
    pub fn of<T>(count: usize, what: &'static str) -> Self {
        let bytes = (count as u64).saturating_mul(size_of::<T>() as u64);
        Self { what, bytes }
    }

    /// What an infallible API (one without `try_` in its name) does with an allocation that
    /// failed: the same abort a `Vec` makes, with the size that failed.
    pub fn abort(self) -> ! {
        let bytes = usize::try_from(self.bytes).unwrap_or(usize::MAX);
        match std::alloc::Layout::from_size_align(bytes, 8) {
            Ok(layout) => std::alloc::handle_alloc_error(layout),
            Err(_) => panic!("{self}"),
        }
    }
}

/// An empty vector with room for `count` elements, or [`OutOfMemory`] if they cannot be
/// allocated.
///
/// # Errors
/// [`OutOfMemory`] naming `what` and the bytes `count` elements take.
pub fn try_vec<T>(count: usize, what: &'static str) -> Result<Vec<T>, OutOfMemory> {
    let mut vec = Vec::new();
    try_reserve(&mut vec, count, what)?;
    Ok(vec)
}

/// Makes room in `vec` for `additional` more elements (exactly: a loader knows its counts).
///
/// # Errors
/// [`OutOfMemory`] naming `what` and the bytes the whole vector would take.
pub fn try_reserve<T>(
    vec: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), OutOfMemory> {
    vec.try_reserve_exact(additional)
        .map_err(|_: TryReserveError| {
            OutOfMemory::of::<T>(vec.len().saturating_add(additional), what)
        })?;
    crate::huge_pages::advise(vec.spare_capacity_mut());
    Ok(())
}

/// Makes room for one more element, doubling as `Vec::push` does, for a vector whose final
/// length is not known in advance.
///
/// # Errors
/// As [`try_reserve`].
pub fn try_grow<T>(vec: &mut Vec<T>, what: &'static str) -> Result<(), OutOfMemory> {
    if vec.len() < vec.capacity() {
        return Ok(());
    }
    let additional = vec.len().max(64);
    try_reserve(vec, additional, what)
}

/// `vec` filled with `count` copies of `value`, or [`OutOfMemory`].
///
/// # Errors
/// As [`try_vec`].
pub fn try_filled<T: Clone>(
    count: usize,
    value: T,
    what: &'static str,
) -> Result<Vec<T>, OutOfMemory> {
    let mut vec = try_vec(count, what)?;
    vec.resize(count, value);
    Ok(vec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_reservation_is_an_error_naming_its_bytes() {
        let mut vec: Vec<[f32; 3]> = vec![[0.0; 3]; 2];
        let err = try_reserve(&mut vec, usize::MAX / 8, "positions").unwrap_err();
        assert_eq!(err.what, "positions");
        assert_eq!(err.bytes, ((usize::MAX / 8) as u64 + 2).saturating_mul(12));
        assert_eq!(
            vec.len(),
            2,
            "a failed reservation leaves the vector as it was"
        );
    }

    #[test]
    fn growth_doubles_and_keeps_the_elements() {
        let mut vec: Vec<u32> = Vec::new();
        for i in 0..1000 {
            try_grow(&mut vec, "test").unwrap();
            let capacity = vec.capacity();
            vec.push(i);
            assert_eq!(
                vec.capacity(),
                capacity,
                "push after try_grow never reallocates"
            );
        }
        assert_eq!(vec.iter().sum::<u32>(), 999 * 1000 / 2);
        assert_eq!(try_filled(3, 7u8, "f").unwrap(), vec![7, 7, 7]);
    }
}
