// The walk of the tree, the camera's rays and the entry point.

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
            var test = test_triangle(triangle);
            if test.kind != 0u && params.culling == 1u {
                test = cull(triangle, test);
            }
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
    list_reach = BIG;
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
