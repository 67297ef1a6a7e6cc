"""The GPU kernel's speed under each of its run-time options, on one machine, in one run.

Each option setting (`MESHCAST_GPU_STACK`, `MESHCAST_GPU_WORKGROUP`, `MESHCAST_GPU_CHECKS`,
`MESHCAST_GPU_CHUNK`, ...) runs in a process of its own, as the options are read when the GPU
is opened; every process times the same rays as gpu_vs_warp.py (random rays from a sphere
around the mesh towards its box, and a square pinhole image), closest and any hit, with the
rays on the GPU (Grays/s), and the numpy round trip of `GpuMesh.cast_rays` (Mrays/s). The
settings are run twice, interleaved, and the best of each kept. Without a GPU adapter it says
so and exits 0.

    python benchmarks/gpu_options.py [--rays N] [--image W] [--repeat K] [--meshes ...]
        [--settings "MESHCAST_GPU_STACK=24" "MESHCAST_GPU_WORKGROUP=64,MESHCAST_GPU_STACK=48" ...]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

import meshcast
from gpu_vs_warp import add_arguments, camera_rays, load, random_rays

DEFAULT_SETTINGS = [
    "",
    "MESHCAST_GPU_CHECKS=1",
    "MESHCAST_GPU_ROBUST=0",
    "MESHCAST_GPU_STACK=96",
    "MESHCAST_GPU_STACK=24",
    "MESHCAST_GPU_STACK=48",
    "MESHCAST_GPU_WORKGROUP=64",
    "MESHCAST_GPU_WORKGROUP=256",
    "MESHCAST_GPU_CHUNK=262144",
    "MESHCAST_GPU_CHUNK=4194304",
]


def measure(args) -> dict:
    """This process's figures, per mesh and ray set."""
    out = {}
    for spec in args.meshes:
        cpu, _, _ = load(spec)
        gpu = cpu.to_gpu()
        low, high = cpu.bounds.astype(np.float64)
        for set_name, rays in (("random", random_rays(low, high, args.rays)), ("camera", camera_rays(low, high, args.image))):
            n = len(rays)
            key = f"{spec} {set_name}"
            for query in ("closest", "any"):
                out[f"{key} {query} Grays/s"] = n / gpu._kernel_seconds(rays, query, args.repeat) / 1e9
            gpu.cast_rays(rays)
            times_ = []
            for _ in range(max(3, args.repeat // 2)):
                start = time.perf_counter()
                gpu.cast_rays(rays)
                times_.append(time.perf_counter() - start)
            out[f"{key} numpy Mrays/s"] = n / min(times_) / 1e6
        out[f"{spec} bytes/triangle"] = gpu.gpu_bytes / cpu.triangle_count
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.add_argument("--settings", nargs="*", default=DEFAULT_SETTINGS)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not meshcast.gpu_adapters():
        print("gpu_options: no GPU adapter: nothing to measure")
        return 0
    if args.child:
        print(json.dumps(measure(args)))
        return 0
    print(f"adapter {meshcast.gpu_adapters()[0]}; best of {args.repeat} launches, {args.rounds} interleaved rounds")
    best = {}
    for _ in range(args.rounds):
        for setting in args.settings:
            env = dict(os.environ)
            for pair in filter(None, setting.split(",")):
                name, _, value = pair.partition("=")
                env[name] = value
            command = [sys.executable, __file__, "--child", "--rays", str(args.rays), "--image", str(args.image),
                       "--repeat", str(args.repeat), "--meshes", *args.meshes]
            result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                print(f"{setting or 'defaults'}: failed: {result.stderr.strip().splitlines()[-1:]}")
                continue
            figures = json.loads(result.stdout.strip().splitlines()[-1])
            mine = best.setdefault(setting, {})
            for key, value in figures.items():
                mine[key] = value if "bytes" in key else max(mine.get(key, 0.0), value)
    keys = sorted({k for figures in best.values() for k in figures})
    for key in keys:
        print(key)
        for setting, figures in best.items():
            if key in figures:
                print(f"    {setting or 'defaults':<45} {figures[key]:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
