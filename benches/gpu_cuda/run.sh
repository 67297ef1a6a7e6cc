#!/usr/bin/env bash
# The GPU diagnosis in one call on the GPU machine (BENCHMARKS.md, "Where the GPU's time goes"):
# the same traversal through wgpu (WGSL -> naga's SPIR-V -> the Vulkan driver) and through nvcc
# (trace.cu), on the same nodes, triangles and rays, processes interleaved.
#
# Prepared here (the machine has no network and no Rust):
#   cargo build --release -p meshcast-gpu --example kernel_inputs
#   mkdir -p .diag && xz -T0 -c target/release/examples/kernel_inputs > .diag/kernel_inputs.xz
#   (a binary built from a variant of trace.wgsl may join it as .diag/kernel_inputs_NAME.xz)
#   the Vulkan loader's .deb in .gl/ (../shared/DEVICE.md)
# Then, on the machine: bash benches/gpu_cuda/run.sh [ROUNDS], with .gl and .diag carried.
set -u
rounds=${1:-2}
out=${OUT:-/tmp/diagnosis}
mkdir -p "$out"
. benches/gpu_cuda/setup.sh
# Smaller sets for a dry run elsewhere: DIAG_ARGS="--rays 20000 --image 128".
args=${DIAG_ARGS:-}
meshes="assets/stanford-bunny.obj assets/ogre.obj assets/stanford-bunny.obj:2"
names="stanford-bunny-x1 ogre-x1 stanford-bunny-x16"
smi() {
    nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,power.draw,temperature.gpu \
        --format=csv,noheader
}
smi
# Find the environment under which wgpu sees the GPU through Vulkan (machines differ), and say
# why not where none does: the CUDA side runs either way.
probe() {
    /tmp/kernel_inputs --rays 1024 --image 8 --repeat 1 assets/stanford-bunny.obj 2>&1 | grep -q "^wgpu "
}
if ! probe; then
    found=no
    for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
        /etc/vulkan/icd.d/nvidia_icd.json; do
        for libs in "" /usr/local/nvidia/lib64:/usr/local/nvidia/lib; do
            [ -f "$icd" ] || continue
            if VK_DRIVER_FILES=$icd LD_LIBRARY_PATH=$libs probe; then
                export VK_DRIVER_FILES=$icd LD_LIBRARY_PATH=$libs
                found=yes
                break 2
            fi
        done
    done
    echo "vulkan: found an adapter after searching: $found (VK_DRIVER_FILES=$VK_DRIVER_FILES LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-})"
    if [ $found = no ] && [ -n "${DIAG_NEED_WGPU:-}" ]; then
        VK_LOADER_DEBUG=error /tmp/kernel_inputs --rays 64 --image 4 --repeat 1 assets/stanford-bunny.obj 2>&1 | grep ERROR | head -5
        echo "no adapter and DIAG_NEED_WGPU set: stopping"
        exit 3
    fi
    if [ $found = no ]; then
        ls -la /dev/nvidia* /dev/dri 2>&1 | head
        cat /usr/local/nvidia/share/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/*.json 2>&1 | grep library_path
        for lib in /usr/lib/libGLX_nvidia.so.0 /usr/local/nvidia/lib64/libGLX_nvidia.so.0; do
            [ -f "$lib" ] && { echo "$lib"; ldd "$lib" | grep -i "not found"; }
        done
        VK_LOADER_DEBUG=error,warn,driver /tmp/kernel_inputs --rays 64 --image 4 --repeat 1 \
            assets/stanford-bunny.obj 2>&1 | grep -v "^ *[0-9]*:\|^note\|at /" | head -40
    fi
fi
# What the Vulkan device enables (robust buffer access), both ways.
for robust in 1 0; do
    MESHCAST_GPU_PROFILE=1 MESHCAST_GPU_ROBUST=$robust /tmp/kernel_inputs --rays 4096 --image 16 --repeat 1 \
        assets/stanford-bunny.obj 2>&1 | grep -i -E "adapter|robust"
done
# nvcc builds both CUDA variants while the first wgpu process writes the inputs.
(
    nvcc --version | tail -1
    nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o /tmp/trace_cuda benches/gpu_cuda/trace.cu
    nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -DLITERAL -o /tmp/trace_cuda_literal benches/gpu_cuda/trace.cu
) > "$out/nvcc.txt" 2>&1 &
/tmp/kernel_inputs $args --check --write /tmp/data $meshes 2>&1 | sed 's/^/[wgpu] /'
wait
grep -E "registers|stack frame|spill|error|release" "$out/nvcc.txt"
cuda() {
    for name in $names; do "$1" "/tmp/data/$name" "$name" 7; done 2>&1 | sed "s/^/[$2] /"
}
for round in $(seq "$rounds"); do
    echo "== round $round"
    cuda /tmp/trace_cuda cuda
    /tmp/kernel_inputs $args $meshes 2>&1 | sed 's/^/[wgpu] /'
    MESHCAST_GPU_ROBUST=0 /tmp/kernel_inputs $args $meshes 2>&1 | sed 's/^/[wgpu robust off] /'
    cuda /tmp/trace_cuda_literal "cuda literal"
    for variant in /tmp/kernel_inputs_*; do
        [ -x "$variant" ] || continue
        tag=${variant#/tmp/kernel_inputs_}
        check=$([ "$round" = 1 ] && echo --check)
        "$variant" $args $check $meshes 2>&1 | sed "s/^/[wgpu $tag] /"
        MESHCAST_GPU_ROBUST=0 "$variant" $args $meshes 2>&1 | sed "s/^/[wgpu $tag robust off] /"
    done
    smi
done
