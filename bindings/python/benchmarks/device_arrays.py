"""Rays that stay on the GPU: a torch tensor of rays in, torch tensors out, against the same
rays handed over as numpy arrays, on meshcast's CUDA back end.

For each mesh and ray set (the rays of `gpu_vs_warp.py`), best of --repeat, this prints:

* Mrays/s of `GpuMesh.cast_rays(tensor)` (answers left on the device, the call synchronized)
  beside `GpuMesh.cast_rays(array)` from numpy to numpy, and the same for `test_occlusions`;
* whether the answers are torch tensors on the rays' device, and equal to numpy's;
* the copies CUDA made from the device to the host during one call on the tensor, read from
  torch's profiler (CUPTI sees every copy in the process, meshcast's own too): their number
  and time, against the answers' bytes that a round trip from numpy copies back.

Needs an NVIDIA GPU, torch with CUDA and a wheel with the CUDA back end; otherwise it says so
and exits 0.

    python benchmarks/device_arrays.py [--rays N] [--image W] [--repeat K] [--meshes a.obj ...]
"""

import argparse
import sys
import time

import numpy as np

import meshcast
from gpu_vs_warp import add_arguments, camera_rays, load, random_rays


def best(fn, sync, repeat):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return min(times)


def device_to_host_copies(torch, fn):
    """The number of CUDA's device-to-host copies while `fn` runs, and their time in microseconds."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    count, micros = 0, 0.0
    for event in prof.events():
        if "memcpy" in event.name.lower() and "dtoh" in event.name.lower():
            count += 1
            micros += getattr(event, "device_time_total", None) or getattr(event, "cuda_time_total", 0.0)
    return count, micros


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("device_arrays: torch is not installed: nothing to measure")
        return 0
    if not torch.cuda.is_available() or not meshcast.gpu_adapters():
        print("device_arrays: no CUDA GPU: nothing to measure")
        return 0
    sync = torch.cuda.synchronize
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}; best of {args.repeat}")
    for spec in args.meshes:
        cpu, _, _ = load(spec)
        gpu = cpu.to_gpu()
        if gpu.cuda_device is None:
            print("device_arrays: the wheel or the driver gives no CUDA back end: nothing to measure")
            return 0
        low, high = cpu.bounds.astype(np.float64)
        sets = {"random": random_rays(low, high, args.rays), "camera": camera_rays(low, high, args.image)}
        for set_name, host in sets.items():
            n = len(host)
            rays = torch.from_numpy(host).cuda()
            sync()
            answers = gpu.cast_rays(rays)
            on_device = all(isinstance(v, torch.Tensor) and v.device == rays.device for v in answers.values())
            want = gpu.cast_rays(host)
            equal = all(np.array_equal(answers[k].cpu().numpy(), want[k]) for k in want)
            occluded_equal = np.array_equal(gpu.test_occlusions(rays).cpu().numpy(), gpu.test_occlusions(host))
            rates = {
                "cast tensor": n / best(lambda: gpu.cast_rays(rays), sync, args.repeat) / 1e6,
                "cast numpy": n / best(lambda: gpu.cast_rays(host), sync, args.repeat) / 1e6,
                "occlusion tensor": n / best(lambda: gpu.test_occlusions(rays), sync, args.repeat) / 1e6,
                "occlusion numpy": n / best(lambda: gpu.test_occlusions(host), sync, args.repeat) / 1e6,
            }
            copies, micros = device_to_host_copies(torch, lambda: gpu.cast_rays(rays))
            answer_bytes = sum(v.nbytes for v in want.values())
            print(
                f"{spec} {set_name}, {n} rays (Mrays/s): "
                + ", ".join(f"{k} {r:.1f}" for k, r in rates.items())
                + f"; tensor {rates['cast tensor'] / rates['cast numpy']:.2f}x numpy; answers on the device: "
                f"{on_device}, equal to numpy's: {equal and occluded_equal}; device-to-host copies in one call: "
                f"{copies} ({micros:.0f} us) where numpy's answers are {answer_bytes} bytes"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
