#!/usr/bin/env bash
# Call 3 (.dev3): Warp 1.19 assembled from the three calls' parts; gpu_vs_warp.py (both Warp
# trees, both back ends' kernels, from numpy); then Nsight Compute on the bunny's random rays:
# Warp's closest-hit kernels (SAH, then cuBQL) and meshcast's CUDA one.
set -u
. "$(dirname "$0")/env.sh"
mkdir -p /tmp/wsite && tar -xJf .dev3/rest.tar.xz -C /tmp/wsite \
    && cat /tmp/w/warp.part00 /tmp/w/warp.part01 /tmp/w/warp.part02 | xz -dc > /tmp/wsite/warp/bin/warp.so
ls -la /tmp/wsite/warp/bin/
export PYTHONPATH=/tmp/site:/tmp/wsite
cd bindings/python/benchmarks
MESHCAST_GPU_BACKEND=auto timeout 240 python3 gpu_vs_warp.py --repeat 3 > "$OUT/gpu_vs_warp.txt" 2>&1
echo "rc $?" >> "$OUT/gpu_vs_warp.txt"
cat "$OUT/gpu_vs_warp.txt"
echo "== ncu"
timeout 120 ncu --kernel-name regex:closest --launch-count 5 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section LaunchStats --section InstructionStats --section SchedulerStats \
    python3 gpu_vs_warp.py --repeat 1 --meshes stanford-bunny.obj --image 1024 > "$OUT/ncu.txt" 2>&1
echo "rc $?" >> "$OUT/ncu.txt"
grep -E "closest|Duration|Throughput|Executed Ipc|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Executed Instructions  |Hit Rate|Local|No Eligible|rc |==ERR|==PROF" "$OUT/ncu.txt" | head -90
