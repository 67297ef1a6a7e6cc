"""meshcast's GPU against its own CPU, from numpy to numpy, on the rays of `gpu_vs_warp.py`.

For each mesh and ray set (random rays from a sphere around the mesh towards points of its box;
a square pinhole image), prints Mrays/s, best of --repeat, interleaved: `GpuMesh.cast_rays` and
`GpuMesh.test_occlusions` on the back end the environment chooses (`MESHCAST_GPU_BACKEND`:
`auto`, the CUDA back end where the wheel has it and an NVIDIA driver is found, or `wgpu`),
and `Mesh.cast_rays` and `Mesh.test_occlusions` on every core; and how many rays the two name
different triangles on (0: every answer is the CPU's). Needs no peer: where no GPU adapter is
found it says so and exits 0.

    python benchmarks/gpu_vs_cpu.py [--rays N] [--image W] [--repeat K] [--meshes a.obj ...]
"""

import argparse
import os
import sys

import numpy as np

import meshcast
from gpu_vs_warp import add_arguments, best, camera_rays, load, random_rays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args()
    if not meshcast.gpu_adapters():
        print("gpu_vs_cpu: no GPU adapter for meshcast: nothing to compare")
        return 0
    backend = os.environ.get("MESHCAST_GPU_BACKEND", "auto")
    print(f"MESHCAST_GPU_BACKEND={backend}; best of {args.repeat}; {os.cpu_count()} CPU threads")
    for spec in args.meshes:
        cpu, _, faces = load(spec)
        gpu = cpu.to_gpu()
        print(f"\n{spec}: {len(faces)} triangles on {gpu.adapter}; CUDA {gpu.cuda_device}")
        low, high = cpu.bounds.astype(np.float64)
        sets = {"random": random_rays(low, high, args.rays), "camera": camera_rays(low, high, args.image)}
        for set_name, rays in sets.items():
            n = len(rays)
            calls = {
                "gpu closest": lambda: gpu.cast_rays(rays),
                "cpu closest": lambda: cpu.cast_rays(rays),
                "gpu any": lambda: gpu.test_occlusions(rays),
                "cpu any": lambda: cpu.test_occlusions(rays),
            }
            seconds = {key: 1e9 for key in calls}
            for _ in range(2):  # interleaved rounds: keep the best of each
                for key, fn in calls.items():
                    seconds[key] = min(seconds[key], best(fn, args.repeat))
            rates = {key: n / s / 1e6 for key, s in seconds.items()}
            ours = gpu.cast_rays(rays)["primitive_ids"]
            theirs = cpu.cast_rays(rays)["primitive_ids"]
            print(
                f"  {set_name}, {n} rays (Mrays/s): "
                + ", ".join(f"{k} {r:.1f}" for k, r in rates.items())
                + f"; gpu / cpu {rates['gpu closest'] / rates['cpu closest']:.2f}x closest, "
                f"{rates['gpu any'] / rates['cpu any']:.2f}x any; "
                f"triangles differ on {int(np.sum(ours != theirs))}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
