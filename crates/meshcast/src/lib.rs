//! meshcast (in progress).
