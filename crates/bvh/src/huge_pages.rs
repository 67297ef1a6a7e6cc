//! Transparent huge pages for the large buffers of loading, building and caching.
//!
//! A kernel whose transparent huge pages are set to `madvise` (the default of many
//! distributions) backs a buffer with 4 KiB pages unless told otherwise, so filling a
//! 1 GB buffer takes 262,144 page faults, each zeroing its page and taking the process's
//! memory lock. Asked with `MADV_HUGEPAGE`, it backs the buffer's aligned 2 MiB stretches
//! with huge pages: one fault in 512. On this project's reference machine (2-core AMD
//! EPYC, kernel 6.x) this made opening a 10M-triangle cache 0.64 -> 0.38 s, loading its
//! PLY 174 -> 93 ms and building it 2.65 -> 2.30 s (see BENCHMARKS.md, "Huge pages").
//!
//! The advice changes how the kernel backs the pages, never their contents or mapping.
//! `MESHCAST_HUGE_PAGES=0` turns it off, so that one binary can measure both on the
//! machine that matters. Elsewhere than Linux nothing is asked.

/// The environment variable that turns the advice off when set to `0`.
pub const HUGE_PAGES_ENV: &str = "MESHCAST_HUGE_PAGES";

/// A huge page on x86-64 and most aarch64 kernels: stretches shorter than this gain nothing.
const HUGE_PAGE: usize = 2 << 20;

/// Whether the advice is asked for: unless [`HUGE_PAGES_ENV`] is `0`, read once.
fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var(HUGE_PAGES_ENV).map_or(true, |v| v.trim() != "0"))
}

/// Asks the kernel to back the whole 2 MiB stretches of `spare` (a buffer's room not yet
/// written) with huge pages, before they are first touched.
pub(crate) fn advise<T>(spare: &mut [std::mem::MaybeUninit<T>]) {
    let start = spare.as_mut_ptr() as usize;
    if let Some(pages) = whole_huge_pages(start..start + size_of_val(spare)) {
        if enabled() {
            advise_range(pages.start, pages.len());
        }
    }
}

/// The stretch of `bytes` (addresses) made of whole, aligned huge pages, if any.
fn whole_huge_pages(bytes: core::ops::Range<usize>) -> Option<core::ops::Range<usize>> {
    let first = bytes.start.checked_next_multiple_of(HUGE_PAGE)?;
    let end = bytes.end / HUGE_PAGE * HUGE_PAGE;
    (first < end).then_some(first..end)
}

#[cfg(target_os = "linux")]
fn advise_range(start: usize, bytes: usize) {
    // SAFETY: `start..start + bytes` lies within `spare`, memory this process allocated and
    // holds mapped, and starts on a page boundary as `madvise` requires. `MADV_HUGEPAGE`
    // only tells the kernel how to back these pages: it changes neither their contents nor
    // their mapping, so no reference into them, here or elsewhere, sees a difference. The
    // result is ignored on purpose: a kernel without transparent huge pages refuses the
    // advice and leaves the pages as they were.
    unsafe {
        libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_range(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_aligned_huge_pages_are_advised() {
        const H: usize = HUGE_PAGE;
        assert_eq!(whole_huge_pages(0..H), Some(0..H));
        assert_eq!(whole_huge_pages(16..3 * H + 16), Some(H..3 * H));
        assert_eq!(whole_huge_pages(16..2 * H), Some(H..2 * H));
        assert_eq!(
            whole_huge_pages(16..2 * H - 1),
            None,
            "no whole page inside"
        );
        assert_eq!(whole_huge_pages(H + 1..H + 2), None);
        assert_eq!(whole_huge_pages(usize::MAX - 8..usize::MAX), None);
    }
}
