//! Shared workloads for the criterion benchmarks (in progress).
