// meshcast's GPU traversal (crates/gpu/src/trace.wgsl) written line for line in CUDA C++, for
// one question: is the GPU kernel's distance from Warp in our algorithm or in the path WGSL
// takes to the GPU (naga's SPIR-V, wgpu's Vulkan device, the driver's compiler)? The same
// nodes, triangles and rays as the wgpu kernel reads (`kernel_inputs` example, `--write`),
// the same loop, stack, slab test and watertight test with the same bounds, compiled by nvcc
// and timed with CUDA events; every answer checked against the CPU's (a ray not flagged must
// name the CPU's triangle, t within the kernel's bound). Only the closest and any-hit kernels,
// in the default distance order.
//
// `-DLITERAL` builds it closer to what the WGSL asks of its compiler: the private variables
// zeroed at the start of every invocation (WGSL's rule) and the slab distances of the
// dominant axis read from a local array by a run-time index.
//
// `-DSHARED_STACK` keeps the traversal stack in shared memory instead of local memory, and
// `-DSTACK_SIZE=N`, `-DWORKGROUP=N` change those choices, to measure the algorithm's options on
// the nvcc path.
//
// Not part of the build: `run.sh` compiles it on the GPU machine (nvcc), and it compiles as
// plain C++ too (`g++ -O2 -x c++ trace.cu`), which runs the same code on the CPU to check the
// port here.
//
//     trace_cuda DIR NAME REPEAT    (DIR holds nodes.bin, triangles.bin, ids.bin, SET.*)
//
// Past 600 lines because it is trace.wgsl's kernel whole, line for line (so that the two read
// side by side), with the harness that checks it: one file that nvcc builds with one command
// on a machine with no build system.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <string>
#include <vector>
#include <chrono>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define DEV __device__ __forceinline__
#define RESTRICT __restrict__
#else
#define DEV inline
#define RESTRICT __restrict
#endif

typedef uint32_t u32;

// `trace.wgsl`'s `Node` (80 bytes) and `RayIn` (32).
struct Node {
    float origin[3];
    u32 exponents;
    u32 child_base;
    u32 triangle_base;
    u32 counts[2];
    u32 steps[12];
};
static_assert(sizeof(Node) == 80, "the GPU node");

struct RayIn {
    float o[4];
    float d[4];
};

struct Hit4 {
    u32 x, y, z, w;
};

const u32 MODE_CLOSEST = 0u;
const u32 MODE_ANY = 1u;
#ifndef STACK_SIZE
#define STACK_SIZE 32u
#endif
#ifndef WORKGROUP
#define WORKGROUP 128
#endif

const u32 NO_TRIANGLE = 0xffffffffu;
const u32 FLAGGED = 0xfffffffeu;

#define EDGE_BOUND 1.1324882507324219e-6f
#define EDGE_BOUND_2 3.637978807091713e-12f
#define EDGE_SUM 1.132491888711229e-6f
#define CHEAP_MARGIN 1.0009765625f
#define T_BOUND 3.814697265625e-6f
#define BOX_BOUND 3.814697265625e-6f
#define UV_BOUND 3.90625e-3f
#define T_REPORT_BOUND 2.44140625e-4f
#define ABS_EDGE 8.077935669463161e-28f
#define TINY 7.888609052210118e-31f
#define COORD_LIMIT 268435456.0f
#define DIR_LOW 9.313225746154785e-10f
#define DIR_HIGH 1073741824.0f
#define BIG 3.4028234663852886e38f

DEV u32 bits(float x) {
#ifdef __CUDACC__
    return __float_as_uint(x);
#else
    u32 b;
    memcpy(&b, &x, 4);
    return b;
#endif
}

DEV float from_bits(u32 b) {
#ifdef __CUDACC__
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, 4);
    return x;
#endif
}

DEV u32 popcount(u32 x) {
#ifdef __CUDACC__
    return __popc(x);
#else
    return (u32)__builtin_popcount(x);
#endif
}

// A vec3's component by a run-time index, as selects (a local array would go to memory).
DEV float pick(const float v[3], u32 k) {
    return k == 0u ? v[0] : (k == 1u ? v[1] : v[2]);
}

struct Buffers {
    const Node* RESTRICT nodes;
    const float* RESTRICT tris;
    const RayIn* RESTRICT rays;
    Hit4* RESTRICT hits;
    u32* RESTRICT counts;
    u32 ray_count;
};

// `trace.wgsl`'s private variables.
struct State {
    float o[3], d[3], inv[3], s[3];
    bool still[3];
    bool parallel;
    u32 kx, ky, kz;
    float tmin_in, tmin_out, tmax_in, tmax_out;
    u32 near_plane[3], far_plane[3];
    float best_t, best_err;
    Hit4 best;
    u32 found;
    bool ambiguous;
    float amb_lo;
    bool done;
};

DEV bool is_finite_bits(float x) { return (bits(x) & 0x7f800000u) != 0x7f800000u; }
DEV bool is_nan_bits(float x) { return (bits(x) & 0x7fffffffu) > 0x7f800000u; }
DEV bool is_subnormal_bits(float x) {
    u32 b = bits(x) & 0x7fffffffu;
    return b != 0u && b < 0x00800000u;
}
DEV bool in_range(float x, float low, float high) {
    float m = fabsf(x);
    return (bits(x) & 0x7fffffffu) == 0u || (m >= low && m <= high);
}

// 0: degenerate, 1: traced here, 2: left to the host.
DEV u32 set_up(State& r, const float origin[3], const float dir[3], float t_min, float t_max) {
    bool finite = is_finite_bits(origin[0]) && is_finite_bits(origin[1]) && is_finite_bits(origin[2])
        && is_finite_bits(dir[0]) && is_finite_bits(dir[1]) && is_finite_bits(dir[2]);
    bool moving = ((bits(dir[0]) | bits(dir[1]) | bits(dir[2])) & 0x7fffffffu) != 0u;
    bool range = !is_nan_bits(t_min) && !is_nan_bits(t_max) && t_min <= t_max
        && bits(t_min) != 0x7f800000u && bits(t_max) != 0xff800000u;
    if (!(finite && moving && range)) return 0u;
    float ad[3] = {fabsf(dir[0]), fabsf(dir[1]), fabsf(dir[2])};
    u32 kz = 0u;
    float m = ad[0];
    if (ad[1] > m) { m = ad[1]; kz = 1u; }
    if (ad[2] > m) { kz = 2u; }
    float dz = pick(dir, kz);
    bool traced = fabsf(dz) >= DIR_LOW && fabsf(dz) <= DIR_HIGH;
#pragma unroll
    for (u32 i = 0u; i < 3u; i++) {
        traced = traced && in_range(origin[i], TINY, COORD_LIMIT) && in_range(dir[i], TINY, DIR_HIGH);
    }
    if (!traced) return 2u;
    u32 kx = (kz + 1u) % 3u;
    u32 ky = (kx + 1u) % 3u;
    if (dz < 0.0f) { u32 k = kx; kx = ky; ky = k; }
    r.kx = kx;
    r.ky = ky;
    r.kz = kz;
#pragma unroll
    for (u32 i = 0u; i < 3u; i++) {
        r.o[i] = origin[i];
        r.d[i] = dir[i];
        r.still[i] = fabsf(dir[i]) == 0.0f;
        r.inv[i] = r.still[i] ? 0.0f : 1.0f / dir[i];
        bool negative = (bits(dir[i]) >> 31u) == 1u;
        r.near_plane[i] = (negative ? i + 3u : i) * 2u;
        r.far_plane[i] = (negative ? i : i + 3u) * 2u;
    }
    r.s[0] = pick(dir, kx) / dz;
    r.s[1] = pick(dir, ky) / dz;
    r.s[2] = 1.0f / dz;
    r.parallel = r.still[0] || r.still[1] || r.still[2];
    r.tmin_in = t_min;
    r.tmin_out = t_min;
    if (is_subnormal_bits(t_min)) {
        bool negative_min = (bits(t_min) >> 31u) == 1u;
        r.tmin_in = negative_min ? 0.0f : TINY;
        r.tmin_out = negative_min ? -TINY : 0.0f;
    }
    r.tmax_in = t_max;
    r.tmax_out = t_max;
    if (is_subnormal_bits(t_max)) {
        bool negative_max = (bits(t_max) >> 31u) == 1u;
        r.tmax_in = negative_max ? -TINY : 0.0f;
        r.tmax_out = negative_max ? 0.0f : TINY;
    }
    return 1u;
}

DEV float widen_down(float t) { return t > 0.0f ? t * (1.0f - BOX_BOUND) : t * (1.0f + BOX_BOUND); }
DEV float widen_up(float t) { return t > 0.0f ? t * (1.0f + BOX_BOUND) : t * (1.0f - BOX_BOUND); }

struct Grid {
    float origin[3];
    float step[3];
};

DEV Grid grid_of(const Buffers& b, u32 node) {
    Grid g;
    u32 e = b.nodes[node].exponents;
#pragma unroll
    for (u32 i = 0u; i < 3u; i++) {
        g.step[i] = from_bits(((e >> (8u * i)) & 0xffu) << 23u);
        g.origin[i] = b.nodes[node].origin[i];
    }
    return g;
}

// Plane `twice_p / 2` of lanes 4h..4h+4 on axis i.
DEV void plane(const Buffers& b, u32 node, const Grid& g, u32 twice_p, u32 h, u32 i, float out[4]) {
    u32 word = b.nodes[node].steps[twice_p + h];
#pragma unroll
    for (u32 j = 0u; j < 4u; j++) {
        u32 q = (word >> (8u * j)) & 0xffu;
        float steps = from_bits(q | 0x4b000000u) - 8388608.0f;
        out[j] = g.origin[i] + steps * g.step[i];
    }
}

struct Boxes {
    float near[4];
    bool hit[4];
};

DEV Boxes test_boxes(const Buffers& b, const State& r, u32 node, const Grid& g, u32 h, float limit) {
    float near_t[3][4];
    float far_t[3][4];
#pragma unroll
    for (u32 i = 0u; i < 3u; i++) {
        float lo[4], hi[4];
        plane(b, node, g, r.near_plane[i], h, i, lo);
        plane(b, node, g, r.far_plane[i], h, i, hi);
#pragma unroll
        for (u32 j = 0u; j < 4u; j++) {
            near_t[i][j] = (lo[j] - r.o[i]) * r.inv[i];
            far_t[i][j] = (hi[j] - r.o[i]) * r.inv[i];
        }
        if (r.parallel && r.still[i]) {
            float min_p[4], max_p[4];
            plane(b, node, g, 2u * i, h, i, min_p);
            plane(b, node, g, 2u * (i + 3u), h, i, max_p);
#pragma unroll
            for (u32 j = 0u; j < 4u; j++) {
                bool inside = min_p[j] <= r.o[i] && max_p[j] >= r.o[i];
                near_t[i][j] = inside ? -BIG : BIG;
                far_t[i][j] = inside ? BIG : -BIG;
            }
        }
    }
    Boxes out;
#pragma unroll
    for (u32 j = 0u; j < 4u; j++) {
#ifdef LITERAL
        // As the WGSL reads it: the private array indexed at run time.
        float nz = near_t[r.kz][j];
        float fz = far_t[r.kz][j];
#else
        float nz = r.kz == 0u ? near_t[0][j] : (r.kz == 1u ? near_t[1][j] : near_t[2][j]);
        float fz = r.kz == 0u ? far_t[0][j] : (r.kz == 1u ? far_t[1][j] : far_t[2][j]);
#endif
        float margin = BOX_BOUND * fmaxf(fabsf(nz), fabsf(fz)) + TINY;
        float near = widen_down(fmaxf(fmaxf(near_t[0][j], near_t[1][j]), near_t[2][j])) - margin;
        float far = widen_up(fminf(fminf(far_t[0][j], far_t[1][j]), far_t[2][j])) + margin;
        out.near[j] = near;
        out.hit[j] = near <= far && near <= limit && far >= r.tmin_out;
    }
    return out;
}

DEV float edge_bound(float px, float py, float qx, float qy, float mpx, float mpy, float mqx, float mqy) {
    float first = mpx * fabsf(qy) + fabsf(px) * mqy + mpy * fabsf(qx) + fabsf(py) * mqx
        + fabsf(px * qy) + fabsf(py * qx);
    float second = (mpx + fabsf(px)) * (mqy + fabsf(qy)) + (mpy + fabsf(py)) * (mqx + fabsf(qx));
    return EDGE_BOUND * first + EDGE_BOUND_2 * second
        + ABS_EDGE * (1.0f + mpx + mpy + mqx + mqy + fabsf(px) + fabsf(py) + fabsf(qx) + fabsf(qy));
}

struct Test {
    u32 kind;
    float t, err, u, v;
};

DEV Test miss() {
    Test t = {0u, 0.0f, 0.0f, 0.0f, 0.0f};
    return t;
}

template <u32 MODE>
DEV Test test_triangle(const Buffers& b, const State& r, u32 triangle) {
    float a[3], bb[3], c[3];
#pragma unroll
    for (u32 i = 0u; i < 3u; i++) {
        a[i] = b.tris[9u * triangle + i] - r.o[i];
        bb[i] = b.tris[9u * triangle + 3u + i] - r.o[i];
        c[i] = b.tris[9u * triangle + 6u + i] - r.o[i];
    }
    u32 kx = r.kx, ky = r.ky, kz = r.kz;
    float az = pick(a, kz), bz = pick(bb, kz), cz = pick(c, kz);
    float sa = r.s[0] * az, sb = r.s[0] * bz, sc = r.s[0] * cz;
    float ta = r.s[1] * az, tb = r.s[1] * bz, tc = r.s[1] * cz;
    float ax = pick(a, kx) - sa, ay = pick(a, ky) - ta;
    float bx = pick(bb, kx) - sb, by = pick(bb, ky) - tb;
    float cx = pick(c, kx) - sc, cy = pick(c, ky) - tc;
    float max_ = fabsf(sa), may_ = fabsf(ta), mbx = fabsf(sb), mby = fabsf(tb), mcx = fabsf(sc),
          mcy = fabsf(tc);
    float e0 = cx * by - cy * bx;
    float e1 = ax * cy - ay * cx;
    float e2 = bx * ay - by * ax;
    float wax = max_ + fabsf(ax), way = may_ + fabsf(ay), wbx = mbx + fabsf(bx), wby = mby + fabsf(by),
          wcx = mcx + fabsf(cx), wcy = mcy + fabsf(cy);
    float q0 = CHEAP_MARGIN * (EDGE_SUM * (wcx * wby + wcy * wbx) + ABS_EDGE * (1.0f + wcx + wcy + wbx + wby));
    float q1 = CHEAP_MARGIN * (EDGE_SUM * (wax * wcy + way * wcx) + ABS_EDGE * (1.0f + wax + way + wcx + wcy));
    float q2 = CHEAP_MARGIN * (EDGE_SUM * (wbx * way + wby * wax) + ABS_EDGE * (1.0f + wbx + wby + wax + way));
    if ((e0 > q0 || e1 > q1 || e2 > q2) && (e0 < -q0 || e1 < -q1 || e2 < -q2)) return miss();
    float r0 = edge_bound(cx, cy, bx, by, mcx, mcy, mbx, mby);
    float r1 = edge_bound(ax, ay, cx, cy, max_, may_, mcx, mcy);
    float r2 = edge_bound(bx, by, ax, ay, mbx, mby, max_, may_);
    bool plus = e0 > r0 || e1 > r1 || e2 > r2;
    bool minus = e0 < -r0 || e1 < -r1 || e2 < -r2;
    if (plus && minus) return miss();
    bool sure = fabsf(e0) > r0 && fabsf(e1) > r1 && fabsf(e2) > r2;
    float det = e0 + e1 + e2;
    float za = r.s[2] * az, zb = r.s[2] * bz, zc = r.s[2] * cz;
    float det_err = r0 + r1 + r2 + T_BOUND * (fabsf(e0) + fabsf(e1) + fabsf(e2));
    if (!(fabsf(det) > 4.0f * det_err)) {
        Test open = {2u, 0.0f, BIG, 0.0f, 0.0f};
        return open;
    }
    float t_scaled = e0 * za + e1 * zb + e2 * zc;
    float inv_det = 1.0f / det;
    float t = t_scaled * inv_det;
    float weights_err = r0 * fabsf(za - t) + r1 * fabsf(zb - t) + r2 * fabsf(zc - t);
    float rounding = fabsf(e0 * za) + fabsf(e1 * zb) + fabsf(e2 * zc);
    float err = (2.0f * weights_err + T_BOUND * rounding) / fabsf(det) + T_BOUND * fabsf(t) + TINY;
    float u = e1 * inv_det;
    float v = e2 * inv_det;
    bool decided = sure;
    if (MODE == MODE_CLOSEST) {
        float uv_err = fmaxf(r1 + fabsf(u) * det_err, r2 + fabsf(v) * det_err);
        decided = decided && uv_err <= UV_BOUND * fabsf(det) && err <= T_REPORT_BOUND * fabsf(t);
    }
    Test out = {decided ? 1u : 2u, t, err, u, v};
    return out;
}

DEV void mark_ambiguous(State& r, float lo) {
    r.ambiguous = true;
    r.amb_lo = fminf(r.amb_lo, lo);
}

template <u32 MODE>
DEV float cull_limit(const State& r) {
    if (MODE == MODE_CLOSEST && r.best.w != NO_TRIANGLE) {
        float reach = r.best_t + r.best_err;
        return fminf(r.tmax_out, reach + fabsf(reach) * BOX_BOUND + TINY);
    }
    return r.tmax_out;
}

template <u32 MODE>
DEV void take(State& r, const Test& test, u32 triangle) {
    float lo = test.t - test.err;
    float hi = test.t + test.err;
    if (hi < r.tmin_out || lo > r.tmax_out) return;
    if (test.kind == 2u || lo < r.tmin_in || hi > r.tmax_in) {
        if (MODE == MODE_CLOSEST) {
            mark_ambiguous(r, lo);
        } else {
            r.ambiguous = true;
        }
        return;
    }
    Hit4 hit = {bits(test.t), bits(test.u), bits(test.v), triangle};
    if (MODE == MODE_CLOSEST) {
        if (r.best.w == NO_TRIANGLE) {
            r.best = hit;
            r.best_t = test.t;
            r.best_err = test.err;
            return;
        }
        float blo = r.best_t - r.best_err;
        float bhi = r.best_t + r.best_err;
        if (hi < blo) {
            r.best = hit;
            r.best_t = test.t;
            r.best_err = test.err;
        } else if (lo <= bhi) {
            mark_ambiguous(r, fminf(lo, blo));
            if (test.t < r.best_t || (test.t == r.best_t && triangle < r.best.w)) {
                r.best = hit;
                r.best_t = test.t;
                r.best_err = test.err;
            }
        }
    } else {
        r.found = 1u;
        r.done = true;
    }
}

DEV u32 inner_lanes(const Buffers& b, u32 node) { return b.nodes[node].exponents >> 24u; }

DEV u32 byte_sum(u32 word) {
    u32 pairs = (word & 0x00ff00ffu) + ((word >> 8u) & 0x00ff00ffu);
    return (pairs & 0xffffu) + (pairs >> 16u);
}

DEV u32 lane_count(const Buffers& b, u32 node, u32 lane) {
    return (b.nodes[node].counts[lane >> 2u] >> (8u * (lane & 3u))) & 0xffu;
}

DEV u32 counts_before(const Buffers& b, u32 node, u32 lane) {
    u32 low = b.nodes[node].counts[0];
    if (lane < 4u) return byte_sum(low & ((1u << (8u * lane)) - 1u));
    u32 high = b.nodes[node].counts[1];
    return byte_sum(low) + byte_sum(high & ((1u << (8u * (lane - 4u))) - 1u));
}

DEV void overflow(State& r) {
    r.ambiguous = true;
    r.amb_lo = -BIG;
    r.done = true;
}

template <u32 MODE>
DEV void trace(const Buffers& b, State& r) {
#if defined(SHARED_STACK) && defined(__CUDACC__)
    // The stack in shared memory, entry k of every thread in a row (no bank conflicts).
    __shared__ u32 shared_entry[STACK_SIZE][WORKGROUP];
    __shared__ float shared_near[STACK_SIZE][WORKGROUP];
#define STACK_ENTRY(k) shared_entry[k][threadIdx.x]
#define STACK_NEAR(k) shared_near[k][threadIdx.x]
#else
    // The traversal stack, apart from the other state so that only it lives in local memory.
    struct {
        u32 stack_entry[STACK_SIZE];
        float stack_near[STACK_SIZE];
    } stack;
#define STACK_ENTRY(k) stack.stack_entry[k]
#define STACK_NEAR(k) stack.stack_near[k]
#endif
#if defined(LITERAL) && !defined(SHARED_STACK)
    // WGSL zero-initialises private variables, the stack's 64 words among them.
    memset(&stack, 0, sizeof(stack));
#endif
    u32 sp = 0u;
    u32 node = 0u;
    bool visit = true;
    for (;;) {
        if (visit) {
            float limit = cull_limit<MODE>(r);
            Grid g = grid_of(b, node);
            u32 inner = inner_lanes(b, node);
            u32 first = sp;
            for (u32 h = 0u; h < 2u; h++) {
                Boxes boxes = test_boxes(b, r, node, g, h, limit);
#pragma unroll
                for (u32 j = 0u; j < 4u; j++) {
                    u32 lane = 4u * h + j;
                    bool used = ((inner >> lane) & 1u) == 1u || lane_count(b, node, lane) != 0u;
                    if (boxes.hit[j] && used) {
                        if (sp == STACK_SIZE) {
                            overflow(r);
                            return;
                        }
                        u32 k = sp;
                        if (MODE == MODE_CLOSEST) {
                            while (k > first && STACK_NEAR(k - 1u) < boxes.near[j]) {
                                STACK_ENTRY(k) = STACK_ENTRY(k - 1u);
                                STACK_NEAR(k) = STACK_NEAR(k - 1u);
                                k -= 1u;
                            }
                        }
                        STACK_ENTRY(k) = node * 8u + lane;
                        STACK_NEAR(k) = boxes.near[j];
                        sp += 1u;
                    }
                }
            }
            visit = false;
        }
        if (sp == 0u || r.done) return;
        sp -= 1u;
        if (STACK_NEAR(sp) > cull_limit<MODE>(r)) continue;
        u32 entry = STACK_ENTRY(sp);
        u32 parent = entry >> 3u;
        u32 lane = entry & 7u;
        u32 inner = inner_lanes(b, parent);
        if (((inner >> lane) & 1u) == 1u) {
            node = b.nodes[parent].child_base + popcount(inner & ((1u << lane) - 1u));
            visit = true;
            continue;
        }
        u32 start = b.nodes[parent].triangle_base + counts_before(b, parent, lane);
        u32 end = start + lane_count(b, parent, lane);
        for (u32 triangle = start; triangle < end; triangle++) {
            Test test = test_triangle<MODE>(b, r, triangle);
            if (test.kind != 0u) {
                take<MODE>(r, test, triangle);
                if (r.done) return;
            }
        }
    }
}

template <u32 MODE>
DEV void trace_ray(const Buffers& b, u32 index) {
    RayIn ray = b.rays[index];
    State r;
    r.best.x = r.best.y = r.best.z = 0u;
    r.best.w = NO_TRIANGLE;
    r.best_t = BIG;
    r.best_err = 0.0f;
    r.found = 0u;
    r.ambiguous = false;
    r.amb_lo = BIG;
    r.done = false;
    float origin[3] = {ray.o[0], ray.o[1], ray.o[2]};
    float dir[3] = {ray.d[0], ray.d[1], ray.d[2]};
    u32 kind = set_up(r, origin, dir, ray.o[3], ray.d[3]);
    if (kind == 1u) trace<MODE>(b, r);
    bool host = kind == 2u;
    if (MODE == MODE_CLOSEST) {
        Hit4 answer = r.best;
        if (host || (r.ambiguous && r.amb_lo <= r.best_t + r.best_err)) {
            answer.x = bits(ray.d[0]);
            answer.y = bits(ray.d[1]);
            answer.z = bits(ray.d[2]);
            answer.w = FLAGGED;
        }
        b.hits[index] = answer;
    } else {
        u32 answer = r.found;
        if (host || (r.found == 0u && r.ambiguous)) answer = 2u;
        b.counts[index] = answer;
    }
}

#ifdef __CUDACC__
template <u32 MODE>
__global__ void __launch_bounds__(WORKGROUP) trace_kernel(Buffers b) {
    u32 index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= b.ray_count) return;
    trace_ray<MODE>(b, index);
}

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)
#endif

static std::vector<char> read_file(const std::string& path) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path.c_str());
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    std::vector<char> data(size > 0 ? size : 1);
    if (size > 0 && fread(data.data(), 1, size, f) != (size_t)size) exit(1);
    fclose(f);
    data.resize(size);
    return data;
}

struct Times {
    // CUDA events around the kernel alone.
    double kernel;
    // Launch to synchronisation on the host's clock, as the wgpu side is timed (submission
    // to completion).
    double wall;
};

// Runs `MODE` over the rays `repeat` times; the best of each time, in seconds.
template <u32 MODE>
static Times run(const Buffers& b, int repeat) {
    Times best = {1e30, 1e30};
#ifdef __CUDACC__
    u32 blocks = (b.ray_count + WORKGROUP - 1) / WORKGROUP;
    trace_kernel<MODE><<<blocks, WORKGROUP>>>(b);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < repeat; i++) {
        auto wall_start = std::chrono::steady_clock::now();
        CHECK(cudaEventRecord(start));
        trace_kernel<MODE><<<blocks, WORKGROUP>>>(b);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (ms * 1e-3 < best.kernel) best.kernel = ms * 1e-3;
        if (wall < best.wall) best.wall = wall;
    }
#else
    for (int i = 0; i < repeat; i++) {
        auto start = std::chrono::steady_clock::now();
        for (u32 index = 0; index < b.ray_count; index++) trace_ray<MODE>(b, index);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (s < best.kernel) best.kernel = best.wall = s;
    }
#endif
    return best;
}

template <typename T>
static T* to_device(const std::vector<char>& bytes) {
#ifdef __CUDACC__
    void* p = nullptr;
    CHECK(cudaMalloc(&p, bytes.size() > 0 ? bytes.size() : 16));
    CHECK(cudaMemcpy(p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    return (T*)p;
#else
    char* p = (char*)malloc(bytes.size() > 0 ? bytes.size() : 16);
    memcpy(p, bytes.data(), bytes.size());
    return (T*)p;
#endif
}

template <typename T>
static T* output(size_t count) {
#ifdef __CUDACC__
    void* p = nullptr;
    CHECK(cudaMalloc(&p, count * sizeof(T)));
    return (T*)p;
#else
    return (T*)malloc(count * sizeof(T));
#endif
}

template <typename T>
static std::vector<T> to_host(const T* p, size_t count) {
    std::vector<T> out(count);
#ifdef __CUDACC__
    CHECK(cudaMemcpy(out.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
#else
    memcpy(out.data(), p, count * sizeof(T));
#endif
    return out;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: trace_cuda DIR NAME REPEAT\n");
        return 2;
    }
    std::string dir = argv[1];
    std::string name = argv[2];
    int repeat = atoi(argv[3]);
    std::vector<char> ids_bytes = read_file(dir + "/ids.bin");
    std::vector<u32> ids(ids_bytes.size() / 4);
    memcpy(ids.data(), ids_bytes.data(), ids_bytes.size());
    Buffers b;
    b.nodes = to_device<Node>(read_file(dir + "/nodes.bin"));
    b.tris = to_device<float>(read_file(dir + "/triangles.bin"));
    const char* sets[2] = {"random", "camera"};
    int failures = 0;
    for (const char* set : sets) {
        std::string base = dir + "/" + set;
        std::vector<char> rays = read_file(base + ".rays");
        u32 count = (u32)(rays.size() / sizeof(RayIn));
        b.ray_count = count;
        b.rays = to_device<RayIn>(rays);
        b.hits = output<Hit4>(count);
        b.counts = output<u32>(count);
        std::vector<char> closest = read_file(base + ".closest");
        std::vector<char> any = read_file(base + ".any");

        Times times = run<MODE_CLOSEST>(b, repeat);
        std::vector<Hit4> hits = to_host(b.hits, count);
        u32 flagged = 0, wrong = 0, found = 0;
        for (u32 i = 0; i < count; i++) {
            u32 cpu_triangle;
            float cpu_t;
            memcpy(&cpu_triangle, &closest[8 * (size_t)i], 4);
            memcpy(&cpu_t, &closest[8 * (size_t)i + 4], 4);
            const Hit4& h = hits[i];
            if (h.w == FLAGGED) {
                flagged++;
            } else if (h.w == NO_TRIANGLE) {
                wrong += cpu_triangle != NO_TRIANGLE;
            } else {
                float t;
                memcpy(&t, &h.x, 4);
                bool same = h.w < ids.size() && ids[h.w] == cpu_triangle
                    && fabsf(t - cpu_t) <= T_REPORT_BOUND * fabsf(cpu_t);
                wrong += !same;
                found++;
            }
        }
        printf("cuda %s %s closest %.1f wall %.1f hits %u flagged %u wrong %u of %u\n", name.c_str(), set,
               count / times.kernel / 1e6, count / times.wall / 1e6, found, flagged, wrong, count);
        failures += wrong != 0;

        times = run<MODE_ANY>(b, repeat);
        std::vector<u32> counts = to_host(b.counts, count);
        flagged = 0;
        wrong = 0;
        found = 0;
        for (u32 i = 0; i < count; i++) {
            if (counts[i] == 2u) {
                flagged++;
            } else {
                wrong += counts[i] != (u32)any[i];
                found += counts[i];
            }
        }
        printf("cuda %s %s any %.1f wall %.1f hits %u flagged %u wrong %u of %u\n", name.c_str(), set,
               count / times.kernel / 1e6, count / times.wall / 1e6, found, flagged, wrong, count);
        failures += wrong != 0;
        fflush(stdout);
#ifdef __CUDACC__
        CHECK(cudaFree((void*)b.rays));
        CHECK(cudaFree(b.hits));
        CHECK(cudaFree(b.counts));
#endif
    }
    return failures == 0 ? 0 : 1;
}
