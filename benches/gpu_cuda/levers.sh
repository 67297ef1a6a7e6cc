#!/usr/bin/env bash
# The traversal's own options, measured on the nvcc path (trace.cu) on the GPU machine: trees
# with smaller leaves (MESHCAST_GPU_LEAF), the stack in shared memory, a shorter stack, other
# block sizes and a register cap. Every run holds every answer to the CPU's. Prepared as
# run.sh is (.diag/kernel_inputs.xz carried); run as: bash benches/gpu_cuda/levers.sh [ROUNDS]
set -u
rounds=${1:-2}
out=${OUT:-/tmp/levers}
mkdir -p "$out"
args=${DIAG_ARGS:-}
meshes="assets/stanford-bunny.obj assets/ogre.obj assets/stanford-bunny.obj:2"
names="stanford-bunny-x1 ogre-x1 stanford-bunny-x16"
xz -dc .diag/kernel_inputs.xz > /tmp/kernel_inputs && chmod +x /tmp/kernel_inputs
declare -A flags=(
    [default]=""
    [shared-stack]="-DSHARED_STACK"
    [stack-16]="-DSTACK_SIZE=16"
    [block-64]="-DWORKGROUP=64"
    [block-256]="-DWORKGROUP=256"
    [registers-64]="-maxrregcount=64"
)
for variant in "${!flags[@]}"; do
    nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v ${flags[$variant]} -o "/tmp/trace_$variant" \
        benches/gpu_cuda/trace.cu > "$out/nvcc-$variant.txt" 2>&1 &
done
for leaf in 0 1 2 4; do
    MESHCAST_GPU_LEAF=$leaf /tmp/kernel_inputs $args --write "/tmp/data-leaf$leaf" $meshes > /dev/null 2>&1 &
done
wait
for variant in "${!flags[@]}"; do
    echo "$variant: $(grep -E "registers|stack frame" "$out/nvcc-$variant.txt" | tr -s ' ' | tr '\n' ' ')"
done
cuda() {
    for name in $names; do "$1" "$2/$name" "$name" 7; done 2>&1 | sed "s/^/[$3] /"
}
for round in $(seq "$rounds"); do
    echo "== round $round"
    for variant in "${!flags[@]}"; do
        cuda "/tmp/trace_$variant" /tmp/data-leaf0 "$variant"
    done
    for leaf in 1 2 4; do
        cuda /tmp/trace_default "/tmp/data-leaf$leaf" "leaves of $leaf"
    done
done
