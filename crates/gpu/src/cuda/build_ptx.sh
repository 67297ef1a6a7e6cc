#!/usr/bin/env bash
# Remakes kernel.ptx, the PTX the CUDA back end embeds, from kernel.cu, with clang's CUDA
# device mode: no CUDA toolkit is needed, and PTX 6.3 for sm_75 (Turing) loads on every driver
# since CUDA 10 and is compiled by the driver for the GPU at hand. Its second line names the
# source's SHA-256, which a test compares with kernel.cu's (`cuda::tests`).
#
#     bash crates/gpu/src/cuda/build_ptx.sh            (clang++ on the PATH, or CLANG=...)
#
# To measure another compiler's PTX without rebuilding, point MESHCAST_CUDA_PTX at its file,
# e.g. `nvcc -ptx -O3 -arch=compute_75 -o /tmp/kernel.ptx kernel.cu`.
set -euo pipefail
cd "$(dirname "$0")"
clang=${CLANG:-clang++}
digest=$(sha256sum kernel.cu | cut -d' ' -f1)
ptx=$("$clang" -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 -nocudainc -nocudalib -O3 -S -o - kernel.cu)
{
    echo "// Made from kernel.cu by build_ptx.sh with $("$clang" --version | head -1)."
    echo "// kernel.cu sha256 $digest"
    echo "$ptx"
} > kernel.ptx
