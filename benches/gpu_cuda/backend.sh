#!/usr/bin/env bash
# The CUDA back end on the GPU machine, in one call (BENCHMARKS.md, "The CUDA back end"): its
# tests on the device, then closest and any-hit batches through wgpu and through CUDA (the
# embedded machine code, `MESHCAST_CUDA_KERNEL=sass`, beside the embedded PTX compiled by the
# driver, `ptx`; the back end's tree, leaves of 2, beside the mesh's own, `MESHCAST_GPU_LEAF=0`),
# kernel alone and end to end, from Rust and from numpy, processes interleaved.
#
# Prepared here (the machine has no network and no Rust):
#   cargo test -p meshcast-gpu --test gpu --no-run            (the GPU tests, CUDA's among them)
#   cargo build --release -p meshcast-gpu --features cuda --example kernel_inputs
#   (cd bindings/python && maturin build --release)           (the wheel, with the CUDA back end)
#   mkdir -p .diag && for each: strip, then xz -T0 into .diag/{gpu_tests,kernel_inputs}.xz,
#   the wheel into .diag/; the Vulkan loader's .deb files in .gl/ (../shared/DEVICE.md)
# Then, on the machine: bash benches/gpu_cuda/backend.sh [ROUNDS], with .gl and .diag carried.
set -u
rounds=${1:-2}
out=${OUT:-/tmp/backend}
mkdir -p "$out"
. benches/gpu_cuda/setup.sh
# The CUDA back end where it opens (the default); `wgpu` below where wgpu is measured.
export MESHCAST_GPU_BACKEND=auto
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
# The test binary finds the assets where it was built.
built=$(strings /tmp/gpu_tests | grep -o -m1 '/[^ ]*/crates/testkit' | head -1)
root=$(dirname "$(dirname "$built")")
if [ -n "$built" ] && [ ! -e "$root" ]; then
    mkdir -p "$(dirname "$root")"
    ln -sfn "$PWD" "$root"
fi
# Registers and local memory of the embedded PTX, as the machine's ptxas builds it for this GPU
# (the embedded sm_90 code: 72 registers and 20 bytes of spills for closest hits, 64 for any hit,
# build_kernels.py --verbose).
ptxas -arch=sm_90 -v -o /dev/null crates/gpu/generated/compute_90.ptx 2>&1 \
    | grep -E "Compiling|registers|stack|spill"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .diag/*.whl

echo "== tests: the CUDA back end on the device and the host, every GPU test with CUDA answering"
timeout 200 /tmp/gpu_tests --test-threads 8 2>&1 | grep -E "^test |test result|panicked|CUDA|GPU tests run|open|differ" \
    | tee "$out/tests.txt"

meshes="assets/stanford-bunny.obj assets/ogre.obj assets/stanford-bunny.obj:2"
echo "== the CUDA kernel alone, one launch of every set (CUDA events)"
for kernel in sass ptx; do
    for leaf in 2 0; do
        MESHCAST_CUDA_KERNEL=$kernel MESHCAST_GPU_LEAF=$leaf MESHCAST_GPU_PROFILE=1 MESHCAST_GPU_CHUNK=4194304 \
            /tmp/kernel_inputs --repeat 3 $meshes 2>&1 \
            | grep -E "^e2e cuda|CUDA kernel, 4194304" | sed "s/^/[$kernel, leaf $leaf] /"
    done
done
for round in $(seq "$rounds"); do
    echo "== round $round: end to end from Rust (wgpu's kernel alone on its lines)"
    /tmp/kernel_inputs --repeat 5 $([ "$round" = 1 ] && echo --check) $meshes 2>&1 | grep -E "^(wgpu|e2e|check)"
    MESHCAST_CUDA_KERNEL=ptx /tmp/kernel_inputs --repeat 5 $meshes 2>&1 | grep "^e2e cuda" \
        | sed "s/^/[ptx] /"
    echo "== round $round: from numpy"
    (cd bindings/python/benchmarks && PYTHONPATH=/tmp/site python3 gpu_vs_cpu.py --repeat 3)
    (cd bindings/python/benchmarks && MESHCAST_GPU_BACKEND=wgpu PYTHONPATH=/tmp/site python3 gpu_vs_cpu.py --repeat 3)
done
# Warp beside both back ends' kernels, bytes per triangle of both (Warp carried as DEVICE.md says).
if PYTHONPATH=/tmp/site python3 -c "import warp" 2>/dev/null; then
    for leaf in 2 0; do
        (cd bindings/python/benchmarks && PYTHONPATH=/tmp/site python3 gpu_vs_warp.py --repeat 3 --leaf $leaf)
    done
fi
