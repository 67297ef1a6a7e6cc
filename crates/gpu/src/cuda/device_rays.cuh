// Rays and answers that stay on the device (`device_rays.rs`), included at the end of
// `kernel.cu` and built with it both ways: the caller's float32 origins and directions, strided
// as its framework holds them, packed into the kernel's rays; each answer laid out in arrays as
// the Python package lays out the CPU's (Open3D's `cast_rays` and `test_occlusions`), a flagged
// ray laid out as a miss and listed for the host, which answers it on the CPU and puts the
// answer in place.

// Open3D's id of no geometry and no primitive.
#define INVALID_ID 0xffffffffu

// Element (i, k) of a float32 array of shape (rows, 3): at byte `i * row + k * column` from
// `base` (strides in bytes, of any sign; a broadcast row has stride 0).
struct Strided {
    const char* base;
    long long row;
    long long column;
};

DEV float element(const Strided& a, u32 i, u32 k) {
    return *(const float*)(a.base + (long long)i * a.row + (long long)k * a.column);
}

// Ray `i` as the host lays out `Ray::new(o, d).with_range(t_min, t_max)` (`GpuRay::of`);
// whether its six numbers are finite (the host refuses a batch with a ray that is not).
DEV bool pack_ray(const Strided& o, const Strided& d, float t_min, float t_max, RayIn* rays, u32 i) {
    RayIn r;
    bool finite = true;
#pragma unroll
    for (u32 k = 0u; k < 3u; k++) {
        r.o[k] = element(o, i, k);
        r.d[k] = element(d, i, k);
        finite = finite && is_finite_bits(r.o[k]) && is_finite_bits(r.d[k]);
    }
    r.o[3] = t_min;
    r.d[3] = t_max;
    rays[i] = r;
    return finite;
}

// Where the closest hits are laid out: Open3D's five arrays, one row per ray.
struct Cast {
    float* t;
    u32* geometry;
    u32* primitive;
    float* uv;
    float* normal;
};

// Ray `i`'s closest hit: `triangle` the mesh's (its unit normal at `normals[3 * triangle]`),
// or INVALID_ID for a miss (t infinite, ids INVALID_ID, the rest zero).
DEV void put_hit(const Cast& out, const float* normals, u32 i, float t, float u, float v, u32 triangle) {
    bool hit = triangle != INVALID_ID;
    // Wide indices: three floats a ray for up to 2^32 rays.
    unsigned long long row = i;
    out.t[row] = hit ? t : from_bits(0x7f800000u);
    out.geometry[row] = hit ? 0u : INVALID_ID;
    out.primitive[row] = triangle;
    out.uv[2ull * row] = hit ? u : 0.0f;
    out.uv[2ull * row + 1ull] = hit ? v : 0.0f;
    unsigned long long at = 3ull * (hit ? triangle : 0u);
#pragma unroll
    for (u32 k = 0u; k < 3u; k++) out.normal[3ull * row + k] = hit ? normals[at + k] : 0.0f;
}

// The open rays' list: how many, and each one's index among the batch's rays and its ray.
struct OpenRays {
    u32* count;
    u32* index;
    RayIn* rays;
};

DEV void list_open(const OpenRays& open, u32 ray, const RayIn& r) {
#if defined(ON_DEVICE)
    u32 k = atomicAdd(open.count, 1u);
#else
    u32 k = (*open.count)++;
#endif
    open.index[k] = ray;
    open.rays[k] = r;
}

// Ray `first + i`'s hit slot laid out (the GPU's triangle `triangle_ids` names as the mesh's),
// or listed open.
DEV void lay_out_closest(const Hit4* hits, const u32* triangle_ids, const float* normals, const RayIn* rays,
                         const Cast& out, const OpenRays& open, u32 first, u32 i) {
    Hit4 slot = hits[i];
    u32 ray = first + i;
    if (slot.w == FLAGGED) {
        put_hit(out, normals, ray, 0.0f, 0.0f, 0.0f, INVALID_ID);
        list_open(open, ray, rays[i]);
        return;
    }
    u32 triangle = slot.w == NO_TRIANGLE ? INVALID_ID : triangle_ids[slot.w];
    put_hit(out, normals, ray, from_bits(slot.x), from_bits(slot.y), from_bits(slot.z), triangle);
}

// Ray `first + i`'s any-hit count laid out as a byte (1: hit, 0: miss), or listed open.
DEV void lay_out_any(const u32* counts, const RayIn* rays, unsigned char* occluded, const OpenRays& open, u32 first,
                     u32 i) {
    u32 ray = first + i;
    occluded[ray] = counts[i] == 1u ? 1u : 0u;
    if (counts[i] == 2u) list_open(open, ray, rays[i]);
}

// The host's closest hit for a listed ray, five words: the ray, t, u, v and the mesh's
// triangle (INVALID_ID for a miss).
DEV void put_closest(const u32* answers, const float* normals, const Cast& out, u32 k) {
    const u32* a = answers + 5u * k;
    put_hit(out, normals, a[0], from_bits(a[1]), from_bits(a[2]), from_bits(a[3]), a[4]);
}

// The host's any-hit answer for a listed ray, two words: the ray and 0 or 1.
DEV void put_any(const u32* answers, unsigned char* occluded, u32 k) {
    occluded[answers[2u * k]] = answers[2u * k + 1u] != 0u ? 1u : 0u;
}

#if defined(ON_DEVICE)
DEV Strided strided(const char* base, long long row, long long column) {
    Strided a = {base, row, column};
    return a;
}

// The first ray that is not finite, if any, is left in `not_finite` (which the host sets to
// `count` first).
KERNEL meshcast_pack(const char* origins, long long origin_row, long long origin_column, const char* directions,
                     long long direction_row, long long direction_column, float t_min, float t_max, RayIn* rays,
                     u32* not_finite, u32 count) {
    u32 i = thread_index();
    if (i >= count) return;
    Strided o = strided(origins, origin_row, origin_column);
    Strided d = strided(directions, direction_row, direction_column);
    if (!pack_ray(o, d, t_min, t_max, rays, i)) atomicMin(not_finite, i);
}

DEV Cast cast(float* t, u32* geometry, u32* primitive, float* uv, float* normal) {
    Cast out = {t, geometry, primitive, uv, normal};
    return out;
}

DEV OpenRays open_rays(u32* open_count, u32* open_index, RayIn* open_rays) {
    OpenRays open = {open_count, open_index, open_rays};
    return open;
}

KERNEL meshcast_lay_out_closest(const Hit4* hits, const u32* triangle_ids, const float* normals, const RayIn* rays,
                                float* t, u32* geometry, u32* primitive, float* uv, float* normal, u32* open_count,
                                u32* open_index, RayIn* open, u32 first, u32 count) {
    u32 i = thread_index();
    if (i < count) {
        lay_out_closest(hits, triangle_ids, normals, rays, cast(t, geometry, primitive, uv, normal),
                        open_rays(open_count, open_index, open), first, i);
    }
}

KERNEL meshcast_lay_out_any(const u32* counts, const RayIn* rays, unsigned char* occluded, u32* open_count,
                            u32* open_index, RayIn* open, u32 first, u32 count) {
    u32 i = thread_index();
    if (i < count) lay_out_any(counts, rays, occluded, open_rays(open_count, open_index, open), first, i);
}

KERNEL meshcast_put_closest(const u32* answers, const float* normals, float* t, u32* geometry, u32* primitive,
                            float* uv, float* normal, u32 count) {
    u32 k = thread_index();
    if (k < count) put_closest(answers, normals, cast(t, geometry, primitive, uv, normal), k);
}

KERNEL meshcast_put_any(const u32* answers, unsigned char* occluded, u32 count) {
    u32 k = thread_index();
    if (k < count) put_any(answers, occluded, k);
}
#else
// The device rays' kernels on the host, one call over a chunk's rays on one thread (the open
// list's count is not atomic here).
extern "C" u32 meshcast_pack_host(const char* origins, long long origin_row, long long origin_column,
                                  const char* directions, long long direction_row, long long direction_column,
                                  float t_min, float t_max, RayIn* rays, u32 count) {
    Strided o = {origins, origin_row, origin_column};
    Strided d = {directions, direction_row, direction_column};
    u32 not_finite = count;
    for (u32 i = 0u; i < count; i++) {
        if (!pack_ray(o, d, t_min, t_max, rays, i) && not_finite == count) not_finite = i;
    }
    return not_finite;
}

extern "C" void meshcast_lay_out_closest_host(const Hit4* hits, const u32* triangle_ids, const float* normals,
                                              const RayIn* rays, float* t, u32* geometry, u32* primitive, float* uv,
                                              float* normal, u32* open_count, u32* open_index, RayIn* open, u32 first,
                                              u32 count) {
    Cast out = {t, geometry, primitive, uv, normal};
    OpenRays list = {open_count, open_index, open};
    for (u32 i = 0u; i < count; i++) lay_out_closest(hits, triangle_ids, normals, rays, out, list, first, i);
}

extern "C" void meshcast_lay_out_any_host(const u32* counts, const RayIn* rays, unsigned char* occluded,
                                          u32* open_count, u32* open_index, RayIn* open, u32 first, u32 count) {
    OpenRays list = {open_count, open_index, open};
    for (u32 i = 0u; i < count; i++) lay_out_any(counts, rays, occluded, list, first, i);
}

extern "C" void meshcast_put_closest_host(const u32* answers, const float* normals, float* t, u32* geometry,
                                          u32* primitive, float* uv, float* normal, u32 count) {
    Cast out = {t, geometry, primitive, uv, normal};
    for (u32 k = 0u; k < count; k++) put_closest(answers, normals, out, k);
}

extern "C" void meshcast_put_any_host(const u32* answers, unsigned char* occluded, u32 count) {
    for (u32 k = 0u; k < count; k++) put_any(answers, occluded, k);
}
#endif
