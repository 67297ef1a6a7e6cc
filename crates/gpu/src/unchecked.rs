//! The crate's one `unsafe` call: the traversal kernel compiled without the bounds checks and
//! loop bounds wgpu would inject (1.3 to 1.5 times the kernel's time on an H100).
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
    // - `nodes[node]`: `node` is 0 (a tree with no node is never dispatched: the host answers
    //   an empty mesh itself) or a node lane's child index, which `layout::nodes` copies from
    //   a tree whose child indices are below its node count (`layout::check` asserts it in
    //   debug builds and the tests run it on every uploaded mesh).
    // - `tris[3 * slot + k]`: `slot` runs over a leaf lane's slots, within the slot count by
    //   the same check; the triangle buffer holds three entries per slot.
    // - `rays[index]`, `hits[index]`, `counts[index]`: `index < params.ray_count`, which is at
    //   most the rays in the ray buffer and the answers in the output buffers (`GpuMesh::
    //   dispatch` sizes them from the same count); `hits[out_index * cap + found]` has
    //   `found < cap <= LIST_SIZE`, the hits buffer `cap` slots per ray.
    // - the private arrays: `stack_*[sp]` with `sp < STACK_SIZE` (checked before each push),
    //   `list_*[i]` with `i < found <= cap`, `entries`/`nears` with `n < 8`, `near_t[i]` with
    //   `i < 3`, `nodes[..].planes[p]` with `p < 12`.
    //
    // Every loop ends: the traversal pops one stack entry per iteration and pushes only the
    // children of a node, and a tree has no cycles (children have larger indices than their
    // parents, which the same check asserts), so it visits each node at most once; the other
    // loops count to a bound.
    unsafe {
        device.create_shader_module_trusted(descriptor, wgpu::ShaderRuntimeChecks::unchecked())
    }
}
