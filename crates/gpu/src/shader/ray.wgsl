// The ray an invocation traces: its checks and its set-up (the shear of the watertight test,
// the slab test's reciprocals, the range as intervals).

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
