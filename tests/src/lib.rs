//! Shared support for the cross-crate tests (in progress).
