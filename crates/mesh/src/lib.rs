//! Meshes and scenes (in progress).
