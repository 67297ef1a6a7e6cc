//! One of the crate's two `unsafe` modules (the other is `raw_device.rs`), one call: the
//! traversal kernel compiled without the bounds checks and loop bounds wgpu would inject
//! (1.3 to 1.5 times the kernel's time on an H100).
#![allow(unsafe_code)]

/// The kernel of `source` as a shader module, with wgpu's injected checks only when
/// `runtime_checks` is set.
pub(crate) fn module(
    device: &wgpu::Device,
    source: &str,
    runtime_checks: bool,
) -> wgpu::ShaderModule {
    let descriptor = wgpu::ShaderModuleDescriptor {
        label: Some("meshcast trace"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    if runtime_checks {
        return device.create_shader_module(descriptor);
    }
    // SAFETY: wgpu asks two things of a module compiled without its checks.
    //
    // Every index stays inside its array, for every input the host can send:
    // - `nodes[node]`: `node` is 0, and the node buffer always holds a root (`layout::of`
    //   lays out an empty or untraceable mesh as one empty node), or a node lane's child,
    //   `child_base + rank` with `rank` the node lanes before it, which `layout::in_bounds`
    //   checks is below the node count (computed without overflow, so the shader's `u32`
    //   sum does not wrap either) for every lane of every node before any buffer is made.
    // - `tris[9 * triangle + k]`, `k < 9`: `triangle` runs over a leaf lane's triangles,
    //   from `triangle_base` plus the counts of the lanes before it to that plus its count,
    //   which the same check keeps within the triangle count, itself at most `u32::MAX / 9`
    //   so that `9 * triangle + 8` does not wrap; the buffer holds nine floats per triangle.
    // - `rays[index]`, `hits[index]`, `counts[index]`: `index < params.ray_count`, which is at
    //   most the rays in the ray buffer and the answers in the output buffers (`GpuMesh::
    //   stream` sizes them from the same count); `hits[out_index * cap + i]` has
    //   `i = found < cap <= LIST_SIZE`, or, keeping the first `keep` hits, `i < found = keep
    //   <= cap` (the host sends a `keep` of at most `cap`), the hits buffer `cap` slots per ray.
    // - the private arrays and the node's own: `stack_*[k]` with `k <= sp < STACK_SIZE`
    //   (checked before each push; the insertion moves entries within `first..=sp`),
    //   `list_*[i]` with `i < found <= cap`, `lane_near[lane]` with `lane < 8`
    //   (the octant order's `(7 - k) ^ octant`, `k < 8`, `octant < 8`), `near_t[i]` with
    //   `i < 3`, `steps[2p + h]` with `p < 6`, `h < 2`, `counts[lane >> 2]` with `lane < 8`
    //   (a stack entry is `node * 8 + lane`, and the check keeps `node * 8 + 7` within a
    //   `u32`: at most 2^29 nodes), `origin[i]` with `i < 3`.
    //
    // Every loop ends: the traversal pops one stack entry per iteration and pushes only the
    // lanes of a node it moved to, always a child of larger index than its parent (which the
    // same check asserts), so no node leads back to itself and the walk ends; the other
    // loops, a leaf's triangles included, count to a bound.
    unsafe {
        device.create_shader_module_trusted(descriptor, wgpu::ShaderRuntimeChecks::unchecked())
    }
}
