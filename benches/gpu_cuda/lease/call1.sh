#!/usr/bin/env bash
# Call 1 (.gl, .dev1): the machine; every GPU test with CUDA answering where asked; the CUDA and
# wgpu kernels on gpu_vs_warp.py's rays and end to end from Rust, every answer checked against
# the CPU's; camera images on the Xeon, meshcast's batch against Embree's 16-ray packets.
set -u
. "$(dirname "$0")/env.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  lscpu | grep -E "Model name|^CPU\(s\)|Flags" | sed 's/Flags:.*\(avx512f\).*/AVX-512: \1/'; } | tee "$OUT/machine.txt"
echo "== GPU tests"
MESHCAST_GPU_BACKEND=auto timeout 170 /tmp/gpu_tests --test-threads 16 > "$OUT/tests.txt" 2>&1
echo "tests rc $?" >> "$OUT/tests.txt"
grep -E "test result|FAILED|panicked|rc " "$OUT/tests.txt" | head -20
echo "== kernel_inputs"
meshes="assets/stanford-bunny.obj assets/ogre.obj assets/stanford-bunny.obj:2"
MESHCAST_GPU_BACKEND=auto MESHCAST_GPU_PROFILE=1 MESHCAST_GPU_CHUNK=4194304 timeout 220 \
    /tmp/kernel_inputs --repeat 3 --check $meshes > "$OUT/kernel_inputs.txt" 2>&1
echo "rc $?" >> "$OUT/kernel_inputs.txt"
grep -E "^(wgpu|e2e|check)|CUDA kernel, 4194304|rc " "$OUT/kernel_inputs.txt" | head -80
echo "== camera images on one core, three interleaved processes a library (Mrays/s)"
for round in 1 2 3; do
    for mesh in bunny ogre bunny-x16; do
        for library in meshcast embree; do
            printf '%s %s %s ' "$round" "$mesh" "$library"
            timeout 30 /tmp/meshcast-peers --trace-probe $library $mesh 1048576 packet 2>&1 | tail -1
        done
    done
done | tee "$OUT/packets.txt"
