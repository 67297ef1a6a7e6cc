// The slab test of a compressed node's eight children, made conservative.

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
