// The watertight test of one triangle with its bounds, and back-face culling.

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
