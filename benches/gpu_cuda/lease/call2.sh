#!/usr/bin/env bash
# Call 2 (.dev2): the wheel; the Python GPU tests, device arrays (torch, CuPy) among them; rays
# that stay on the GPU against numpy's round trip; from numpy, the GPU against every core.
set -u
. "$(dirname "$0")/env.sh"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .dev2/*.whl
export PYTHONPATH=/tmp/site
echo "== Python GPU tests"
(cd bindings/python/tests && timeout 150 python3 -m pytest -q -x -p no:cacheprovider test_device_arrays.py test_gpu.py) \
    > "$OUT/pytest.txt" 2>&1
echo "rc $?" >> "$OUT/pytest.txt"
tail -5 "$OUT/pytest.txt"
cd bindings/python/benchmarks
echo "== device arrays"
timeout 120 python3 device_arrays.py --repeat 3 2>&1 | tee "$OUT/device_arrays.txt"
echo "== from numpy, CUDA"
MESHCAST_GPU_BACKEND=auto timeout 120 python3 gpu_vs_cpu.py --repeat 3 2>&1 | tee "$OUT/gpu_vs_cpu.txt"
