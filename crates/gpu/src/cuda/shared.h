// Made from shader/shared.wgsl (MESHCAST_BLESS=1 cargo test -p meshcast-gpu cuda::tests): edit that
// file, not this one.
// The constants the WGSL kernel and the CUDA kernel share, written here once: the WGSL
// kernel is assembled with this file (`kernel.rs`), and `cuda/shared.h`, which `cuda/kernel.cu`
// includes, is made from it (`cuda::tests::the_cuda_header_is_made_from_the_shared_constants`;
// `MESHCAST_BLESS=1` rewrites it). One constant a line: `const NAME: u32 = ...u;` or
// `const NAME: f32 = ...;`, or a comment.

// The queries (`MODE`).
#define MODE_CLOSEST 0u
#define MODE_ANY 1u
#define MODE_COUNT 2u
#define MODE_ALL 3u
// No query: the rays themselves, for checking the camera's.
#define MODE_RAYS 4u

// A hit slot's triangle for no hit, and for a ray left to the host.
#define NO_TRIANGLE 0xffffffffu
#define FLAGGED 0xfffffffeu

// The unit roundoff of f32, 2^-24.
#define U 5.9604644775390625e-8f
// Relative bounds: edge functions, distances, box slabs (see exactness.rs).
// 19 U: 12 U for how far the shader's rounding puts an edge function from the CPU's rounded
// one, and 7 U for how far the CPU's rounding puts that from the exact value on the input's
// coordinates, whose sign the CPU takes near zero.
#define EDGE_BOUND 1.1324882507324219e-6f // 19 U
#define EDGE_BOUND_2 3.637978807091713e-12f // 1024 U^2
// EDGE_BOUND + EDGE_BOUND_2, rounded up, and the cheap filter's margin for its own rounding.
#define EDGE_SUM 1.132491888711229e-6f
#define CHEAP_MARGIN 1.0009765625f // 1 + 2^-10
#define T_BOUND 3.814697265625e-6f // 64 U
// Back-face culling: how far the CPU's sign of `(v1 - v0) x (v2 - v0) . dir` may lie from the
// shader's, relative to its terms' magnitudes.
#define FACING_BOUND 9.5367431640625e-7f // 16 U
#define BOX_BOUND 3.814697265625e-6f // 64 U
// How far a reported u or v may lie from the CPU's (2^-8); a hit that cannot promise it is
// left open.
#define UV_BOUND 3.90625e-3f
// How far, relative to itself, a reported t may lie from the CPU's (2^-12).
#define T_REPORT_BOUND 2.44140625e-4f
// Absolute terms for flushed subnormals.
#define ABS_EDGE 8.077935669463161e-28f // 2^-90
#define TINY 7.888609052210118e-31f // 2^-100
// The ranges within which the GPU traces a ray; outside them the host does.
#define COORD_LIMIT 268435456.0f // 2^28
#define DIR_LOW 9.313225746154785e-10f // 2^-30
#define DIR_HIGH 1073741824.0f // 2^30
#define BIG 3.4028234663852886e38f
