// The constants the WGSL kernel and the CUDA kernel share, written here once: the WGSL
// kernel is assembled with this file (`kernel.rs`), and `cuda/shared.h`, which `cuda/kernel.cu`
// includes, is made from it (`cuda::tests::the_cuda_header_is_made_from_the_shared_constants`;
// `MESHCAST_BLESS=1` rewrites it). One constant a line: `const NAME: u32 = ...u;` or
// `const NAME: f32 = ...;`, or a comment.

// The queries (`MODE`).
const MODE_CLOSEST: u32 = 0u;
const MODE_ANY: u32 = 1u;
const MODE_COUNT: u32 = 2u;
const MODE_ALL: u32 = 3u;
// No query: the rays themselves, for checking the camera's.
const MODE_RAYS: u32 = 4u;

// A hit slot's triangle for no hit, and for a ray left to the host.
const NO_TRIANGLE: u32 = 0xffffffffu;
const FLAGGED: u32 = 0xfffffffeu;

// The unit roundoff of f32, 2^-24.
const U: f32 = 5.9604644775390625e-8;
// Relative bounds: edge functions, distances, box slabs (see exactness.rs).
// 19 U: 12 U for how far the shader's rounding puts an edge function from the CPU's rounded
// one, and 7 U for how far the CPU's rounding puts that from the exact value on the input's
// coordinates, whose sign the CPU takes near zero.
const EDGE_BOUND: f32 = 1.1324882507324219e-6; // 19 U
const EDGE_BOUND_2: f32 = 3.637978807091713e-12; // 1024 U^2
// EDGE_BOUND + EDGE_BOUND_2, rounded up, and the cheap filter's margin for its own rounding.
const EDGE_SUM: f32 = 1.132491888711229e-6;
const CHEAP_MARGIN: f32 = 1.0009765625; // 1 + 2^-10
const T_BOUND: f32 = 3.814697265625e-6; // 64 U
// Back-face culling: how far the CPU's sign of `(v1 - v0) x (v2 - v0) . dir` may lie from the
// shader's, relative to its terms' magnitudes.
const FACING_BOUND: f32 = 9.5367431640625e-7; // 16 U
const BOX_BOUND: f32 = 3.814697265625e-6; // 64 U
// How far a reported u or v may lie from the CPU's (2^-8); a hit that cannot promise it is
// left open.
const UV_BOUND: f32 = 3.90625e-3;
// How far, relative to itself, a reported t may lie from the CPU's (2^-12).
const T_REPORT_BOUND: f32 = 2.44140625e-4;
// Absolute terms for flushed subnormals.
const ABS_EDGE: f32 = 8.077935669463161e-28; // 2^-90
const TINY: f32 = 7.888609052210118e-31; // 2^-100
// The ranges within which the GPU traces a ray; outside them the host does.
const COORD_LIMIT: f32 = 268435456.0; // 2^28
const DIR_LOW: f32 = 9.313225746154785e-10; // 2^-30
const DIR_HIGH: f32 = 1073741824.0; // 2^30
const BIG: f32 = 3.4028234663852886e38;
