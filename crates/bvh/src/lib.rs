//! A bounding volume hierarchy (in progress).
