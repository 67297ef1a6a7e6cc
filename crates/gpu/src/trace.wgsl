// meshcast's ray traversal on the GPU: the CPU's eight-wide tree, compressed (Ylitie, Karras,
// Laine 2017), walked by one invocation per ray, each triangle tested with the watertight
// test (Woop, Benthin, Wald 2013) evaluated as the CPU evaluates it.
//
// WGSL promises neither correctly rounded division nor that a product and a sum stay two
// roundings (a driver may fuse them), and may flush subnormals. So the GPU does not trust
// its own signs near zero: every edge function comes with a bound on how far its exact value
// (on the input's coordinates, whose sign the CPU takes) can lie from it, and every distance with a bound on how far the CPU's `t` can lie
// from it (static filters in the manner of Shewchuk 1997). A decision that the bounds leave
// open marks the ray "flagged", and the host answers that ray on the CPU. Every other answer
// names the triangle the CPU names. The bounds are derived in the crate's documentation (`lib.rs`, "Exactness").
//
// Past 600 lines because it is one kernel: WGSL has no includes, and the host specialises this
// one source per query by its constants (`kernel.rs`) before naga compiles it whole.

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
    _pad: u32,
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

const MODE_CLOSEST: u32 = 0u;
const MODE_ANY: u32 = 1u;
const MODE_COUNT: u32 = 2u;
const MODE_ALL: u32 = 3u;
// No query: the rays themselves, for checking the camera's.
const MODE_RAYS: u32 = 4u;

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
var<private> done: bool;
var<private> out_index: u32;

fn is_finite_bits(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

fn is_nan_bits(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_subnormal_bits(x: f32) -> bool {
    let b = bitcast<u32>(x) & 0x7fffffffu;
    return b != 0u && b < 0x00800000u;
}

// Zero, or a magnitude the GPU handles without subnormals or overflow.
fn in_range(x: f32, low: f32, high: f32) -> bool {
    let m = abs(x);
    return (bitcast<u32>(x) & 0x7fffffffu) == 0u || (m >= low && m <= high);
}

// 0: degenerate (the CPU answers a miss), 1: traced here, 2: left to the host.
fn set_up(origin: vec3<f32>, dir: vec3<f32>, t_min: f32, t_max: f32) -> u32 {
    let finite = is_finite_bits(origin.x) && is_finite_bits(origin.y) && is_finite_bits(origin.z)
        && is_finite_bits(dir.x) && is_finite_bits(dir.y) && is_finite_bits(dir.z);
    let moving = ((bitcast<u32>(dir.x) | bitcast<u32>(dir.y) | bitcast<u32>(dir.z)) & 0x7fffffffu) != 0u;
    let range = !is_nan_bits(t_min) && !is_nan_bits(t_max) && t_min <= t_max
        && bitcast<u32>(t_min) != 0x7f800000u && bitcast<u32>(t_max) != 0xff800000u;
    if !(finite && moving && range) {
        return 0u;
    }
    let ad = abs(dir);
    var kz = 0u;
    var m = ad.x;
    if ad.y > m {
        m = ad.y;
        kz = 1u;
    }
    if ad.z > m {
        kz = 2u;
    }
    let dz = dir[kz];
    var traced = abs(dz) >= DIR_LOW && abs(dz) <= DIR_HIGH;
    for (var i = 0u; i < 3u; i++) {
        traced = traced && in_range(origin[i], TINY, COORD_LIMIT) && in_range(dir[i], TINY, DIR_HIGH);
    }
    if !traced {
        return 2u;
    }
    var kx = (kz + 1u) % 3u;
    var ky = (kx + 1u) % 3u;
    if dz < 0.0 {
        let k = kx;
        kx = ky;
        ky = k;
    }
    r_kx = kx;
    r_ky = ky;
    r_kz = kz;
    r_o = origin;
    r_d = dir;
    r_s = vec3<f32>(dir[kx] / dz, dir[ky] / dz, 1.0 / dz);
    r_still = vec3<bool>(abs(dir.x) == 0.0, abs(dir.y) == 0.0, abs(dir.z) == 0.0);
    r_parallel = any(r_still);
    r_inv = select(vec3<f32>(1.0) / select(dir, vec3<f32>(1.0), r_still), vec3<f32>(0.0), r_still);
    let negative = (vec3<u32>(bitcast<u32>(dir.x), bitcast<u32>(dir.y), bitcast<u32>(dir.z)) >> vec3<u32>(31u)) == vec3<u32>(1u);
    near_plane = select(vec3<u32>(0u, 1u, 2u), vec3<u32>(3u, 4u, 5u), negative) * 2u;
    let octant = select(vec3<u32>(0u), vec3<u32>(1u, 2u, 4u), negative);
    r_octant = octant.x | octant.y | octant.z;
    far_plane = select(vec3<u32>(3u, 4u, 5u), vec3<u32>(0u, 1u, 2u), negative) * 2u;
    tmin_in = t_min;
    tmin_out = t_min;
    if is_subnormal_bits(t_min) {
        let negative_min = (bitcast<u32>(t_min) >> 31u) == 1u;
        tmin_in = select(TINY, 0.0, negative_min);
        tmin_out = select(0.0, -TINY, negative_min);
    }
    tmax_in = t_max;
    tmax_out = t_max;
    if is_subnormal_bits(t_max) {
        let negative_max = (bitcast<u32>(t_max) >> 31u) == 1u;
        tmax_in = select(0.0, -TINY, negative_max);
        tmax_out = select(TINY, 0.0, negative_max);
    }
    return 1u;
}

// Moves a distance towards -inf (down) or +inf (up) by the box bound, without inf - inf.
fn widen_down(t: vec4<f32>) -> vec4<f32> {
    return select(t * (1.0 + BOX_BOUND), t * (1.0 - BOX_BOUND), t > vec4<f32>(0.0));
}

fn widen_up(t: vec4<f32>) -> vec4<f32> {
    return select(t * (1.0 - BOX_BOUND), t * (1.0 + BOX_BOUND), t > vec4<f32>(0.0));
}

struct Boxes {
    near: vec4<f32>,
    hit: vec4<bool>,
}

// A node's grid: per axis the origin and the step.
struct Grid {
    origin: vec3<f32>,
    step: vec3<f32>,
}

fn grid_of(node: u32) -> Grid {
    let bytes = vec3<u32>(nodes[node].exponents) >> vec3<u32>(0u, 8u, 16u);
    // 2^e as the f32 of biased exponent b = e + 127 (1 to 254): a normal power of two.
    let step = bitcast<vec3<f32>>((bytes & vec3<u32>(0xffu)) << vec3<u32>(23u));
    let origin = vec3<f32>(nodes[node].origin[0], nodes[node].origin[1], nodes[node].origin[2]);
    return Grid(origin, step);
}

// Plane p of lanes 4h..4h+4, on axis i, given as `twice_p` = 2p (as `near_plane` holds it):
// origin + q * step, an exact product and one rounding (fused or not) of a value the host
// placed outside the exact box.
fn plane(node: u32, grid: Grid, twice_p: u32, h: u32, i: u32) -> vec4<f32> {
    let word = nodes[node].steps[twice_p + h];
    let q = (vec4<u32>(word) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu);
    // q as a float without a conversion instruction (a quarter of the rate of a multiply-add
    // on NVIDIA GPUs): 2^23 + q is exact in an f32's significand, and subtracting 2^23 leaves
    // q exactly.
    let steps = bitcast<vec4<f32>>(q | vec4<u32>(0x4b000000u)) - vec4<f32>(8388608.0);
    return vec4<f32>(grid.origin[i]) + steps * grid.step[i];
}

// One axis's slab distances for lanes 4h..4h+4: where the ray enters and leaves each box's
// slab on axis i.
struct Slab {
    near: vec4<f32>,
    far: vec4<f32>,
}

fn slab(node: u32, grid: Grid, h: u32, i: u32) -> Slab {
    let lo = plane(node, grid, near_plane[i], h, i);
    let hi = plane(node, grid, far_plane[i], h, i);
    if r_parallel && r_still[i] {
        // The ray stays in the slab for every t, or never enters it.
        let inside = (plane(node, grid, 2u * i, h, i) <= vec4<f32>(r_o[i]))
            & (plane(node, grid, 2u * (i + 3u), h, i) >= vec4<f32>(r_o[i]));
        return Slab(select(vec4<f32>(BIG), vec4<f32>(-BIG), inside), select(vec4<f32>(-BIG), vec4<f32>(BIG), inside));
    }
    return Slab((lo - vec4<f32>(r_o[i])) * r_inv[i], (hi - vec4<f32>(r_o[i])) * r_inv[i]);
}

// The slab test of four lanes, made conservative: a box is missed only if no triangle in
// it can have a CPU distance within [tmin_out, limit]. The decoded boxes contain the exact
// ones, and every step below is monotone in the planes, so a box the exact planes would
// keep is kept. The three axes are held in registers, with no array indexed at run time:
// an NVIDIA H200 (Vulkan, driver 580.159.04; 4M rays, Mrays/s, BENCHMARKS.md) ran any hit
// 1.26 to 1.66 times as fast as with the slab distances in a local array read at `r_kz`
// (bunny random 648 -> 840, camera 3495 -> 5785), closest hits within a few percent.
fn test_boxes(node: u32, grid: Grid, h: u32, limit: f32) -> Boxes {
    let x = slab(node, grid, h, 0u);
    let y = slab(node, grid, h, 1u);
    let z = slab(node, grid, h, 2u);
    // Along the dominant axis a slab distance bounds how far a triangle's rounded distance
    // can stray from its exact one.
    let near_k = select(select(z.near, y.near, r_kz == 1u), x.near, r_kz == 0u);
    let far_k = select(select(z.far, y.far, r_kz == 1u), x.far, r_kz == 0u);
    let margin = BOX_BOUND * max(abs(near_k), abs(far_k)) + TINY;
    let near = widen_down(max(max(x.near, y.near), z.near)) - margin;
    let far = widen_up(min(min(x.far, y.far), z.far)) + margin;
    let hit = (near <= far) & (near <= vec4<f32>(limit)) & (far >= vec4<f32>(tmin_out));
    return Boxes(near, hit);
}

// The bound on how far the CPU's exact edge function `px qy - py qx` lies from the GPU's,
// given the shear terms `m` each sheared coordinate was computed with.
fn edge_bound(px: f32, py: f32, qx: f32, qy: f32, mpx: f32, mpy: f32, mqx: f32, mqy: f32) -> f32 {
    let first = mpx * abs(qy) + abs(px) * mqy + mpy * abs(qx) + abs(py) * mqx
        + abs(px * qy) + abs(py * qx);
    let second = (mpx + abs(px)) * (mqy + abs(qy)) + (mpy + abs(py)) * (mqx + abs(qx));
    return EDGE_BOUND * first + EDGE_BOUND_2 * second
        + ABS_EDGE * (1.0 + mpx + mpy + mqx + mqy + abs(px) + abs(py) + abs(qx) + abs(qy));
}

struct Test {
    // 0 miss, 1 a sure hit, 2 undecided.
    kind: u32,
    t: f32,
    err: f32,
    u: f32,
    v: f32,
}

fn corner(triangle: u32, k: u32) -> vec3<f32> {
    let i = 9u * triangle + 3u * k;
    return vec3<f32>(tris[i], tris[i + 1u], tris[i + 2u]);
}

fn test_triangle(triangle: u32) -> Test {
    let a = corner(triangle, 0u) - r_o;
    let b = corner(triangle, 1u) - r_o;
    let c = corner(triangle, 2u) - r_o;
    let kx = r_kx;
    let ky = r_ky;
    let kz = r_kz;
    let sa = r_s.x * a[kz];
    let sb = r_s.x * b[kz];
    let sc = r_s.x * c[kz];
    let ta = r_s.y * a[kz];
    let tb = r_s.y * b[kz];
    let tc = r_s.y * c[kz];
    let ax = a[kx] - sa;
    let ay = a[ky] - ta;
    let bx = b[kx] - sb;
    let by = b[ky] - tb;
    let cx = c[kx] - sc;
    let cy = c[ky] - tc;
    // The sheared terms' magnitudes: a coordinate's rounding, the GPU's and the CPU's, and
    // the GPU's division, move it by at most 8 U of its term plus 2 U of itself.
    let max_ = abs(sa);
    let may_ = abs(ta);
    let mbx = abs(sb);
    let mby = abs(tb);
    let mcx = abs(sc);
    let mcy = abs(tc);

    let e0 = cx * by - cy * bx;
    let e1 = ax * cy - ay * cx;
    let e2 = bx * ay - by * ax;
    // Most triangles a ray is tested against it misses by far: a cheaper bound, no smaller
    // than `edge_bound` (whose first sum is termwise at most its second; the margin covers
    // the two bounds' own roundings), decides them before the exact bounds are made.
    let wax = max_ + abs(ax);
    let way = may_ + abs(ay);
    let wbx = mbx + abs(bx);
    let wby = mby + abs(by);
    let wcx = mcx + abs(cx);
    let wcy = mcy + abs(cy);
    let q0 = CHEAP_MARGIN * (EDGE_SUM * (wcx * wby + wcy * wbx) + ABS_EDGE * (1.0 + wcx + wcy + wbx + wby));
    let q1 = CHEAP_MARGIN * (EDGE_SUM * (wax * wcy + way * wcx) + ABS_EDGE * (1.0 + wax + way + wcx + wcy));
    let q2 = CHEAP_MARGIN * (EDGE_SUM * (wbx * way + wby * wax) + ABS_EDGE * (1.0 + wbx + wby + wax + way));
    if (e0 > q0 || e1 > q1 || e2 > q2) && (e0 < -q0 || e1 < -q1 || e2 < -q2) {
        return Test(0u, 0.0, 0.0, 0.0, 0.0);
    }
    // An edge function's error is then each factor's times the other factor, plus the
    // product's rounding (the derivation is in lib.rs, "Exactness").
    let r0 = edge_bound(cx, cy, bx, by, mcx, mcy, mbx, mby);
    let r1 = edge_bound(ax, ay, cx, cy, max_, may_, mcx, mcy);
    let r2 = edge_bound(bx, by, ax, ay, mbx, mby, max_, may_);
    let plus = e0 > r0 || e1 > r1 || e2 > r2;
    let minus = e0 < -r0 || e1 < -r1 || e2 < -r2;
    if plus && minus {
        return Test(0u, 0.0, 0.0, 0.0, 0.0);
    }
    let sure = abs(e0) > r0 && abs(e1) > r1 && abs(e2) > r2;
    let det = e0 + e1 + e2;
    let za = r_s.z * a[kz];
    let zb = r_s.z * b[kz];
    let zc = r_s.z * c[kz];
    let det_err = r0 + r1 + r2 + T_BOUND * (abs(e0) + abs(e1) + abs(e2));
    if !(abs(det) > 4.0 * det_err) {
        // Seen nearly edge-on: the distance is not known well enough to place it.
        return Test(2u, 0.0, BIG, 0.0, 0.0);
    }
    let t_scaled = e0 * za + e1 * zb + e2 * zc;
    let inv_det = 1.0 / det;
    let t = t_scaled * inv_det;
    // The distance is the average of the corners' z weighted by the edge functions, so an
    // error d_i in edge function i moves it by d_i (z_i - t) / det (and the rest is rounding).
    let weights_err = r0 * abs(za - t) + r1 * abs(zb - t) + r2 * abs(zc - t);
    let rounding = abs(e0 * za) + abs(e1 * zb) + abs(e2 * zc);
    let err = (2.0 * weights_err + T_BOUND * rounding) / abs(det) + T_BOUND * abs(t) + TINY;
    let u = e1 * inv_det;
    let v = e2 * inv_det;
    var decided = sure;
    if MODE == MODE_CLOSEST || MODE == MODE_ALL {
        // The answer reports u and v: each moves from the CPU's by its edge function's error
        // and its share of the determinant's, over the determinant (plus the division's few
        // units in the last place, far below the bound). A grazing hit, whose determinant is
        // barely above its error, cannot promise them and is left open.
        let uv_err = max(r1 + abs(u) * det_err, r2 + abs(v) * det_err);
        decided = decided && uv_err <= UV_BOUND * abs(det) && err <= T_REPORT_BOUND * abs(t);
    }
    return Test(select(2u, 1u, decided), t, err, u, v);
}

fn mark_ambiguous(lo: f32) {
    ambiguous = true;
    amb_lo = min(amb_lo, lo);
}

// How far boxes still matter.
fn cull_limit() -> f32 {
    if MODE == MODE_CLOSEST && best.w != NO_TRIANGLE {
        let reach = best_t + best_err;
        return min(tmax_out, reach + abs(reach) * BOX_BOUND + TINY);
    }
    return tmax_out;
}

fn take(test: Test, triangle: u32) {
    let lo = test.t - test.err;
    let hi = test.t + test.err;
    if hi < tmin_out || lo > tmax_out {
        return;
    }
    if test.kind == 2u || lo < tmin_in || hi > tmax_in {
        if MODE == MODE_CLOSEST {
            mark_ambiguous(lo);
        } else if MODE != MODE_ANY {
            // A count or a list is wrong if one hit is: leave the ray to the host.
            ambiguous = true;
            done = true;
        } else {
            ambiguous = true;
        }
        return;
    }
    let hit = vec4<u32>(bitcast<u32>(test.t), bitcast<u32>(test.u), bitcast<u32>(test.v), triangle);
    switch MODE {
        case 0u: {
            if best.w == NO_TRIANGLE {
                best = hit;
                best_t = test.t;
                best_err = test.err;
                return;
            }
            let blo = best_t - best_err;
            let bhi = best_t + best_err;
            if hi < blo {
                best = hit;
                best_t = test.t;
                best_err = test.err;
            } else if lo <= bhi {
                // Too close to tell which the CPU puts first.
                mark_ambiguous(min(lo, blo));
                if test.t < best_t || (test.t == best_t && triangle < best.w) {
                    best = hit;
                    best_t = test.t;
                    best_err = test.err;
                }
            }
        }
        case 1u: {
            found = 1u;
            done = true;
        }
        case 2u: {
            found += 1u;
        }
        default: {
            if found == params.cap {
                ambiguous = true;
                done = true;
                return;
            }
            for (var i = 0u; i < found; i++) {
                if !(hi < list_t[i] - list_err[i] || lo > list_t[i] + list_err[i]) {
                    ambiguous = true;
                    done = true;
                    return;
                }
            }
            list_t[found] = test.t;
            list_err[found] = test.err;
            hits[out_index * params.cap + found] = hit;
            found += 1u;
        }
    }
}

// The inner-lane mask of a node: bit `lane` set for a lane that holds a node.
fn inner_lanes(node: u32) -> u32 {
    return nodes[node].exponents >> 24u;
}

// The sum of a word's four bytes.
fn byte_sum(word: u32) -> u32 {
    let pairs = (word & 0x00ff00ffu) + ((word >> 8u) & 0x00ff00ffu);
    return (pairs & 0xffffu) + (pairs >> 16u);
}

// A leaf lane's triangle count (0 for the other lanes).
fn lane_count(node: u32, lane: u32) -> u32 {
    return (nodes[node].counts[lane >> 2u] >> (8u * (lane & 3u))) & 0xffu;
}

// The counts of the lanes before `lane`: where its triangles start after triangle_base.
fn counts_before(node: u32, lane: u32) -> u32 {
    let low = nodes[node].counts[0];
    if lane < 4u {
        return byte_sum(low & ((1u << (8u * lane)) - 1u));
    }
    let high = nodes[node].counts[1];
    return byte_sum(low) + byte_sum(high & ((1u << (8u * (lane - 4u))) - 1u));
}

// Out of stack: this walk could miss something, so the host answers.
fn overflow() {
    ambiguous = true;
    amb_lo = -BIG;
    done = true;
}

// Measured on an NVIDIA H100 (closest hit, bunny random / camera, Grays/s): sorting the
// children straight into the stack rather than through two temporary arrays took 0.50 / 3.9
// to 0.62 / 4.8. Keeping the nearest child in registers and going to it without a push and
// a pop, with each stack entry one eight-byte word, measured 0.49 / 3.4 against 0.61 / 4.3 to
// 4.9 over three interleaved rounds, and was dropped.
fn trace() {
    var sp = 0u;
    var node = 0u;
    var visit = true;
    loop {
        if visit {
            let limit = cull_limit();
            let grid = grid_of(node);
            let inner = inner_lanes(node);
            // This node's children go on the stack from `first` on, nearest on top.
            let first = sp;
            // The octant order's lanes entered, and their entry distances.
            var entered = 0u;
            var lane_near: array<f32, 8>;
            for (var h = 0u; h < 2u; h++) {
                let boxes = test_boxes(node, grid, h, limit);
                for (var j = 0u; j < 4u; j++) {
                    let lane = 4u * h + j;
                    let used = ((inner >> lane) & 1u) == 1u || lane_count(node, lane) != 0u;
                    if boxes.hit[j] && used {
                        if ORDER == ORDER_OCTANT {
                            entered |= 1u << lane;
                            lane_near[lane] = boxes.near[j];
                            continue;
                        }
                        if sp == STACK_SIZE {
                            overflow();
                            return;
                        }
                        // Closest hits: insertion by distance, descending, straight into the
                        // stack.
                        var k = sp;
                        if MODE == MODE_CLOSEST {
                            while k > first && stack_near[k - 1u] < boxes.near[j] {
                                stack_entry[k] = stack_entry[k - 1u];
                                stack_near[k] = stack_near[k - 1u];
                                k -= 1u;
                            }
                        }
                        stack_entry[k] = node * 8u + lane;
                        stack_near[k] = boxes.near[j];
                        sp += 1u;
                    }
                }
            }
            if ORDER == ORDER_OCTANT {
                // Lane k ^ octant is visited k-th: pushed from the last to the first, so that
                // the first is on top.
                for (var k = 0u; k < 8u; k++) {
                    let lane = (7u - k) ^ r_octant;
                    if ((entered >> lane) & 1u) == 1u {
                        if sp == STACK_SIZE {
                            overflow();
                            return;
                        }
                        stack_entry[sp] = node * 8u + lane;
                        stack_near[sp] = lane_near[lane];
                        sp += 1u;
                    }
                }
            }
            visit = false;
        }
        if sp == 0u || done {
            return;
        }
        sp -= 1u;
        if stack_near[sp] > cull_limit() {
            continue;
        }
        let entry = stack_entry[sp];
        let parent = entry >> 3u;
        let lane = entry & 7u;
        let inner = inner_lanes(parent);
        if ((inner >> lane) & 1u) == 1u {
            node = nodes[parent].child_base + countOneBits(inner & ((1u << lane) - 1u));
            visit = true;
            continue;
        }
        let first = nodes[parent].triangle_base + counts_before(parent, lane);
        let end = first + lane_count(parent, lane);
        // The kernel reports GPU triangles; the host names the mesh's.
        for (var triangle = first; triangle < end; triangle++) {
            let test = test_triangle(triangle);
            if test.kind != 0u {
                take(test, triangle);
                if done {
                    return;
                }
            }
        }
    }
}

fn camera_ray(pixel: u32) -> RayIn {
    let column = pixel % params.width;
    let row = pixel / params.width;
    let x = f32(column) + 0.5;
    let y = f32(row) + 0.5;
    let ndc_x = 2.0 * x / f32(params.width) - 1.0;
    let ndc_y = 1.0 - 2.0 * y / f32(params.height);
    let dir = params.forward.xyz + params.right.xyz * (ndc_x * params.forward.w)
        + params.up.xyz * (ndc_y * params.right.w);
    let length_squared = dir.x * dir.x + dir.y * dir.y + dir.z * dir.z;
    let unit = dir * (1.0 / sqrt(length_squared));
    // `Ray::new`: t from the smallest positive f32 on.
    return RayIn(vec4<f32>(params.eye.xyz, bitcast<f32>(1u)), vec4<f32>(unit, bitcast<f32>(0x7f800000u)));
}

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.y * params.row + id.x;
    if index >= params.ray_count {
        return;
    }
    out_index = index;
    var ray: RayIn;
    if params.camera == 1u {
        ray = camera_ray(params.first + index);
    } else {
        ray = rays[index];
    }
    if MODE == MODE_RAYS {
        hits[index] = vec4<u32>(bitcast<vec3<u32>>(ray.dir.xyz), FLAGGED);
        return;
    }
    best = vec4<u32>(0u, 0u, 0u, NO_TRIANGLE);
    best_t = BIG;
    best_err = 0.0;
    found = 0u;
    ambiguous = false;
    amb_lo = BIG;
    done = false;
    let kind = set_up(ray.origin.xyz, ray.dir.xyz, ray.origin.w, ray.dir.w);
    if kind == 1u {
        trace();
    }
    let host = kind == 2u;
    switch MODE {
        case 0u: {
            var answer = best;
            if host || ambiguous && amb_lo <= best_t + best_err {
                // Flagged; a camera ray carries its direction back for the host.
                answer = vec4<u32>(bitcast<vec3<u32>>(ray.dir.xyz), FLAGGED);
            }
            hits[index] = answer;
        }
        case 1u: {
            var answer = found;
            if host || found == 0u && ambiguous {
                answer = 2u;
            }
            counts[index] = answer;
        }
        default: {
            var answer = found;
            if host || ambiguous {
                answer = FLAGGED;
            }
            counts[index] = answer;
        }
    }
}
