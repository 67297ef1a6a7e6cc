// What a tested triangle does to the answer: the closest hit, any hit, the count or the list,
// each left to the host where the bounds leave it open.

fn mark_ambiguous(lo: f32) {
    ambiguous = true;
    amb_lo = min(amb_lo, lo);
}

// Back-face culling of a hit `test` on `triangle`: the CPU skips a hit where its rounded
// `(v1 - v0) x (v2 - v0) . dir` is positive. The edges are exact differences on both sides;
// the CPU's products and sums and the shader's (fused or not) each lie within 5 U of the
// products' magnitudes (and flushed subnormals) of the exact value, so a sign beyond 16 U of
// them is the CPU's. A hit on a surely back face is a miss; one whose side is not sure (a face
// seen nearly edge-on) is undecided.
fn cull(triangle: u32, test: Test) -> Test {
    let v0 = corner(triangle, 0u);
    let a = corner(triangle, 1u) - v0;
    let b = corner(triangle, 2u) - v0;
    let left = a.yzx * b.zxy;
    let right = a.zxy * b.yzx;
    let normal = left - right;
    let along = normal.x * r_d.x + normal.y * r_d.y + normal.z * r_d.z;
    let magnitudes = (abs(left) + abs(right)) * abs(r_d);
    let dir_sum = abs(r_d.x) + abs(r_d.y) + abs(r_d.z);
    let bound = FACING_BOUND * (magnitudes.x + magnitudes.y + magnitudes.z)
        + ABS_EDGE * (1.0 + dir_sum);
    if along > bound {
        return Test(0u, 0.0, 0.0, 0.0, 0.0);
    }
    if along < -bound {
        return test;
    }
    return Test(2u, test.t, test.err, test.u, test.v);
}

// How far boxes still matter.
fn cull_limit() -> f32 {
    if MODE == MODE_CLOSEST && best.w != NO_TRIANGLE {
        let reach = best_t + best_err;
        return min(tmax_out, reach + abs(reach) * BOX_BOUND + TINY);
    }
    if MODE == MODE_ALL && list_reach != BIG {
        return min(tmax_out, list_reach + abs(list_reach) * BOX_BOUND + TINY);
    }
    return tmax_out;
}

// The slot of the list's last hit (the hits' intervals are apart, so the largest `t` is last).
fn list_last() -> u32 {
    var last = 0u;
    for (var i = 1u; i < found; i++) {
        if list_t[i] > list_t[last] {
            last = i;
        }
    }
    return last;
}

// Every hit keeping the first `params.keep` with the list full: a hit surely before its last
// takes the last one's slot (the last is then surely beyond the first `keep`, as is every hit
// dropped before); a hit that could come before or after it leaves the ray to the host.
fn replace_last(hit: vec4<u32>, t: f32, err: f32) {
    let lo = t - err;
    let hi = t + err;
    let last = list_last();
    for (var i = 0u; i < found; i++) {
        let before = hi < list_t[i] - list_err[i];
        if !before && (i == last || lo <= list_t[i] + list_err[i]) {
            ambiguous = true;
            done = true;
            return;
        }
    }
    list_t[last] = t;
    list_err[last] = err;
    hits[out_index * params.cap + last] = hit;
    let reach = list_last();
    list_reach = list_t[reach] + list_err[reach];
}

fn take(test: Test, triangle: u32) {
    let lo = test.t - test.err;
    let hi = test.t + test.err;
    if hi < tmin_out || lo > tmax_out || (MODE == MODE_ALL && lo > list_reach) {
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
            if params.keep != 0u && found == params.keep {
                replace_last(hit, test.t, test.err);
                return;
            }
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
            if found == params.keep {
                let last = list_last();
                list_reach = list_t[last] + list_err[last];
            }
        }
    }
}
