// meshcast's GPU traversal for CUDA: `shader/walk.wgsl`, `boxes.wgsl`, `triangle.wgsl` and
// `hits.wgsl` written line for line in CUDA C++ for the closest-hit and any-hit queries, over
// the same nodes (80 bytes), triangles (36) and rays (32) as the WGSL kernel reads
// (`layout.rs`), with the same loop, stack, slab test and watertight test and the same bounds
// (the crate's documentation, "Exactness"). The CUDA back end (`cuda/mod.rs`) loads it as PTX
// through the driver; the diagnosis in `benches/gpu_cuda` includes it in its nvcc harness.
//
// One source, two builds:
// - NVIDIA's compiler makes the kernels the crate embeds (`kernels/`, by `build_kernels.py`:
//   NVRTC, nvcc's front end and NVVM as a library, from NVIDIA's Python wheel) and builds it
//   in the diagnosis harness (`benches/gpu_cuda/trace.cu`, nvcc);
// - a host C++ compiler builds it as plain C++ (`host_kernel.cpp`, feature `host-kernel`),
//   so that the tests hold this very source to the CPU's answers on machines with no GPU.
//
// `-DLITERAL` builds it closer to what the WGSL asks of its compiler: the private variables
// zeroed at the start of every invocation (WGSL's rule) and the slab distances of the
// dominant axis read from a local array by a run-time index. `-DSHARED_STACK` keeps the
// traversal stack in shared memory; `-DSTACK_SIZE=N` and `-DWORKGROUP=N` change those choices.
// The three are the diagnosis's measurements (BENCHMARKS.md, "Where the GPU's time goes").
//
// Past 600 lines because it is the WGSL kernel's traversal whole, so that the two read side
// by side.

// nvcc defines `__NVCC__`, NVRTC `__CUDACC_RTC__`: either way the device's code.
#if defined(__NVCC__) || defined(__CUDACC_RTC__)
#define ON_DEVICE 1
#define DEV __device__ __forceinline__
#define KERNEL extern "C" __global__ void __launch_bounds__(WORKGROUP)
#define RESTRICT __restrict__
#define f_abs fabsf
#define f_min fminf
#define f_max fmaxf
#else
// Plain C++ on the host.
#define DEV static inline
#define RESTRICT __restrict
#define f_abs __builtin_fabsf
#define f_min __builtin_fminf
#define f_max __builtin_fmaxf
#endif

typedef unsigned int u32;


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

// The constants the WGSL kernel shares (`shader/shared.wgsl`, made into this header).
#include "shared.h"
#ifndef STACK_SIZE
#define STACK_SIZE 32u
#endif
#ifndef WORKGROUP
#define WORKGROUP 128
#endif

DEV u32 bits(float x) {
#if defined(ON_DEVICE)
    return __float_as_uint(x);
#else
    return __builtin_bit_cast(u32, x);
#endif
}

DEV float from_bits(u32 b) {
#if defined(ON_DEVICE)
    return __uint_as_float(b);
#else
    return __builtin_bit_cast(float, b);
#endif
}

DEV u32 popcount(u32 x) {
#if defined(ON_DEVICE)
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
    float m = f_abs(x);
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
    float ad[3] = {f_abs(dir[0]), f_abs(dir[1]), f_abs(dir[2])};
    u32 kz = 0u;
    float m = ad[0];
    if (ad[1] > m) { m = ad[1]; kz = 1u; }
    if (ad[2] > m) { kz = 2u; }
    float dz = pick(dir, kz);
    bool traced = f_abs(dz) >= DIR_LOW && f_abs(dz) <= DIR_HIGH;
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
        r.still[i] = f_abs(dir[i]) == 0.0f;
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
        float margin = BOX_BOUND * f_max(f_abs(nz), f_abs(fz)) + TINY;
        float near = widen_down(f_max(f_max(near_t[0][j], near_t[1][j]), near_t[2][j])) - margin;
        float far = widen_up(f_min(f_min(far_t[0][j], far_t[1][j]), far_t[2][j])) + margin;
        out.near[j] = near;
        out.hit[j] = near <= far && near <= limit && far >= r.tmin_out;
    }
    return out;
}

DEV float edge_bound(float px, float py, float qx, float qy, float mpx, float mpy, float mqx, float mqy) {
    float first = mpx * f_abs(qy) + f_abs(px) * mqy + mpy * f_abs(qx) + f_abs(py) * mqx
        + f_abs(px * qy) + f_abs(py * qx);
    float second = (mpx + f_abs(px)) * (mqy + f_abs(qy)) + (mpy + f_abs(py)) * (mqx + f_abs(qx));
    return EDGE_BOUND * first + EDGE_BOUND_2 * second
        + ABS_EDGE * (1.0f + mpx + mpy + mqx + mqy + f_abs(px) + f_abs(py) + f_abs(qx) + f_abs(qy));
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
    float max_ = f_abs(sa), may_ = f_abs(ta), mbx = f_abs(sb), mby = f_abs(tb), mcx = f_abs(sc),
          mcy = f_abs(tc);
    float e0 = cx * by - cy * bx;
    float e1 = ax * cy - ay * cx;
    float e2 = bx * ay - by * ax;
    float wax = max_ + f_abs(ax), way = may_ + f_abs(ay), wbx = mbx + f_abs(bx), wby = mby + f_abs(by),
          wcx = mcx + f_abs(cx), wcy = mcy + f_abs(cy);
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
    bool sure = f_abs(e0) > r0 && f_abs(e1) > r1 && f_abs(e2) > r2;
    float det = e0 + e1 + e2;
    float za = r.s[2] * az, zb = r.s[2] * bz, zc = r.s[2] * cz;
    float det_err = r0 + r1 + r2 + T_BOUND * (f_abs(e0) + f_abs(e1) + f_abs(e2));
    if (!(f_abs(det) > 4.0f * det_err)) {
        Test open = {2u, 0.0f, BIG, 0.0f, 0.0f};
        return open;
    }
    float t_scaled = e0 * za + e1 * zb + e2 * zc;
    float inv_det = 1.0f / det;
    float t = t_scaled * inv_det;
    float weights_err = r0 * f_abs(za - t) + r1 * f_abs(zb - t) + r2 * f_abs(zc - t);
    float rounding = f_abs(e0 * za) + f_abs(e1 * zb) + f_abs(e2 * zc);
    float err = (2.0f * weights_err + T_BOUND * rounding) / f_abs(det) + T_BOUND * f_abs(t) + TINY;
    float u = e1 * inv_det;
    float v = e2 * inv_det;
    bool decided = sure;
    if (MODE == MODE_CLOSEST) {
        float uv_err = f_max(r1 + f_abs(u) * det_err, r2 + f_abs(v) * det_err);
        decided = decided && uv_err <= UV_BOUND * f_abs(det) && err <= T_REPORT_BOUND * f_abs(t);
    }
    Test out = {decided ? 1u : 2u, t, err, u, v};
    return out;
}

DEV void mark_ambiguous(State& r, float lo) {
    r.ambiguous = true;
    r.amb_lo = f_min(r.amb_lo, lo);
}

template <u32 MODE>
DEV float cull_limit(const State& r) {
    if (MODE == MODE_CLOSEST && r.best.w != NO_TRIANGLE) {
        float reach = r.best_t + r.best_err;
        return f_min(r.tmax_out, reach + f_abs(reach) * BOX_BOUND + TINY);
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
            mark_ambiguous(r, f_min(lo, blo));
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
#if defined(SHARED_STACK) && defined(ON_DEVICE)
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

// The back end's entry points: one ray per thread, `count` rays.
#if defined(ON_DEVICE)
DEV u32 thread_index() {
    return blockIdx.x * blockDim.x + threadIdx.x;
}

DEV Buffers buffers(const Node* nodes, const float* tris, const RayIn* rays, Hit4* hits, u32* counts, u32 count) {
    Buffers b = {nodes, tris, rays, hits, counts, count};
    return b;
}

KERNEL meshcast_closest(const Node* nodes, const float* tris, const RayIn* rays, Hit4* hits, u32 count) {
    u32 index = thread_index();
    if (index < count) trace_ray<MODE_CLOSEST>(buffers(nodes, tris, rays, hits, 0, count), index);
}

KERNEL meshcast_any(const Node* nodes, const float* tris, const RayIn* rays, u32* counts, u32 count) {
    u32 index = thread_index();
    if (index < count) trace_ray<MODE_ANY>(buffers(nodes, tris, rays, 0, counts, count), index);
}
#else
// The same kernels as plain functions of the host, rays `first..end` (`host_kernel.cpp`).
extern "C" void meshcast_closest_host(const Node* nodes, const float* tris, const RayIn* rays, Hit4* hits,
                                      u32 first, u32 end) {
    Buffers b = {nodes, tris, rays, hits, 0, end};
    for (u32 index = first; index < end; index++) trace_ray<MODE_CLOSEST>(b, index);
}

extern "C" void meshcast_any_host(const Node* nodes, const float* tris, const RayIn* rays, u32* counts, u32 first,
                                  u32 end) {
    Buffers b = {nodes, tris, rays, 0, counts, end};
    for (u32 index = first; index < end; index++) trace_ray<MODE_ANY>(b, index);
}
#endif

// Rays and answers that stay on the device, their kernels on both sides.
#include "device_rays.cuh"
