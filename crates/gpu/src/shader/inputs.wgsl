// meshcast's ray traversal on the GPU: the CPU's eight-wide tree, compressed (Ylitie, Karras,
// Laine 2017), walked by one invocation per ray, each triangle tested with the watertight
// test (Woop, Benthin, Wald 2013) evaluated as the CPU evaluates it.
//
// WGSL promises neither correctly rounded division nor that a product and a sum stay two
// roundings (a driver may fuse them), and may flush subnormals. So the GPU does not trust
// its own signs near zero: every edge function comes with a bound on how far its exact value
// (on the input's coordinates, whose sign the CPU takes) can lie from it, and every distance
// with a bound on how far the CPU's `t` can lie from it (static filters in the manner of
// Shewchuk 1997). A decision that the bounds leave open marks the ray "flagged", and the host
// answers that ray on the CPU. Every other answer names the triangle the CPU names. The
// bounds are derived in the crate's documentation (`lib.rs`, "Exactness").
//
// WGSL has no includes: the host joins this folder's files into one source in this order
// (`kernel.rs`'s `SHADER`: inputs, ray, boxes, triangle, hits, walk) and specialises it per
// query by its constants before naga compiles it whole. This file holds the kernel's inputs,
// its constants and each invocation's state.

struct Params {
    // Rays in this dispatch.
    ray_count: u32,
    // Every hit: hit slots per ray.
    cap: u32,
    // Invocations per row of the dispatch grid.
    row: u32,
    // Camera images: width and height, 1 when the rays come from the camera, and the first
    // pixel of this dispatch.
    width: u32,
    height: u32,
    camera: u32,
    first: u32,
    // 1 when hits on back faces are skipped (`Culling::BackFaces`).
    culling: u32,
    // Every hit: 0 to list every hit (a ray with more than `cap` is left to the host), or k
    // (at most `cap`) to list the first k in hit order (`QueryOptions::max_hits`).
    keep: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // Camera: the eye; forward (w: half width); right (w: half height); up.
    eye: vec4<f32>,
    forward: vec4<f32>,
    right: vec4<f32>,
    up: vec4<f32>,
}

// One compressed wide node (`layout.rs`'s `GpuNode`, 80 bytes). A lane's box, axis i, is
// origin[i] + q * 2^e_i for its steps q; the host rounds the steps outwards so that the
// decoded box contains the exact one whatever the rounding (`quantization.rs`).
struct Node {
    origin: array<f32, 3>,
    // Bytes 0 to 2: per axis the biased exponent of the step 2^e_i; byte 3: bit `lane` set
    // for a lane that holds a node.
    exponents: u32,
    // A node lane's child: child_base plus the node lanes before it.
    child_base: u32,
    // A leaf lane's first triangle: triangle_base plus the counts of the lanes before it.
    triangle_base: u32,
    // A byte per lane: a leaf lane's triangle count; 0 for node lanes and empty lanes.
    counts: array<u32, 2>,
    // Plane p (min x, y, z, max x, y, z) of lanes 4h..4h+4 is steps[2p + h], a byte per lane.
    steps: array<u32, 12>,
}

struct RayIn {
    origin: vec4<f32>, // w: t_min
    dir: vec4<f32>,    // w: t_max
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> nodes: array<Node>;
// Nine floats per triangle: its corners.
@group(0) @binding(2) var<storage, read> tris: array<f32>;
@group(0) @binding(3) var<storage, read> rays: array<RayIn>;
@group(0) @binding(4) var<storage, read_write> hits: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> counts: array<u32>;

// The host specialises these five per pipeline (`context.rs`, `Kernel::source`): each query
// kind gets its own pipeline, with a hit list only where it lists hits.
// The query this pipeline answers.
const MODE: u32 = 0u;
// Traversal stack entries per invocation: a ray that needs more is left to the host.
const STACK_SIZE: u32 = 32u;
// Hit slots per invocation (every hit: MAX_CAP; the other queries keep none).
const LIST_SIZE: u32 = 1u;
// Invocations per workgroup.
const WORKGROUP: u32 = 128u;
// The order a node's children are visited in: by entry distance (closest hits; the other
// queries in lane order), or by the ray's octant (`KernelOptions::order`).
const ORDER: u32 = 0u;
const ORDER_DISTANCE: u32 = 0u;
const ORDER_OCTANT: u32 = 1u;

// The ray being traced.
var<private> r_o: vec3<f32>;
var<private> r_d: vec3<f32>;
var<private> r_inv: vec3<f32>;
// 1 for an axis the direction does not move along (a zero component).
var<private> r_still: vec3<bool>;
var<private> r_parallel: bool;
var<private> r_kx: u32;
var<private> r_ky: u32;
var<private> r_kz: u32;
var<private> r_s: vec3<f32>;
// The accepted range, as intervals: a distance surely at least t_min when >= tmin_in,
// surely below it when < tmin_out (they differ only for a subnormal t_min).
var<private> tmin_in: f32;
var<private> tmin_out: f32;
var<private> tmax_in: f32;
var<private> tmax_out: f32;
// The direction's octant: bit i set where component i is negative.
var<private> r_octant: u32;
// Near-plane indices (2p) per axis, by the direction's sign.
var<private> near_plane: vec3<u32>;
var<private> far_plane: vec3<u32>;

// The traversal stack: node * 8 + lane, and the entry distance.
var<private> stack_entry: array<u32, STACK_SIZE>;
var<private> stack_near: array<f32, STACK_SIZE>;

// The answer so far.
var<private> best_t: f32;
var<private> best_err: f32;
var<private> best: vec4<u32>;
var<private> found: u32;
var<private> ambiguous: bool;
var<private> amb_lo: f32;
var<private> list_t: array<f32, LIST_SIZE>;
var<private> list_err: array<f32, LIST_SIZE>;
// Every hit keeping the first `params.keep`: once the list holds that many, the upper bound
// of its last hit's distance (a hit surely beyond it is not among them); BIG before.
var<private> list_reach: f32;
var<private> done: bool;
var<private> out_index: u32;
