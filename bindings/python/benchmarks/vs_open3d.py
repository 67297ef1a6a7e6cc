"""cast_rays against Open3D's RaycastingScene.cast_rays on the same rays, in one process.

For 1M rays on a mesh (throughput.py's random rays from points of its box in random
directions, and a camera image made by Open3D's create_rays_pinhole, shaped (H, W, 6) as
Open3D's users pass it), on one thread and on every core, this times `Mesh.cast_rays` and Open3D's `cast_rays`
(`nthreads`), alternating the two so that a noisy machine slows both alike, and prints the
best of each, their ratio (above 1: meshcast is faster) and the share of rays both hit or
both miss. Needs `pip install open3d`.

    python benchmarks/vs_open3d.py [MESH] [--rays N] [--repeat K]
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np
import open3d as o3d

import meshcast
from throughput import ASSETS, incoherent_rays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mesh", nargs="?", default=str(ASSETS / "stanford-bunny.obj"))
    parser.add_argument("--rays", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    mesh = meshcast.Mesh.load(args.mesh)
    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(mesh.vertices.astype(np.float32)), o3d.core.Tensor(mesh.faces.astype(np.uint32)))
    incoherent = incoherent_rays(mesh, args.rays)
    low, high = mesh.bounds.astype(np.float64)
    center = 0.5 * (low + high)
    eye = center + [0.0, 0.0, 1.6 * np.linalg.norm(high - low)]
    height = int(np.sqrt(args.rays * 3 / 4))
    width = args.rays // height
    f32 = lambda v: o3d.core.Tensor(np.asarray(v, np.float32))  # noqa: E731
    camera = o3d.t.geometry.RaycastingScene.create_rays_pinhole(45.0, f32(center), f32(eye), f32([0, 1, 0]), width, height).numpy()
    cores = os.cpu_count() or 1
    print(f"{Path(args.mesh).name}: {mesh.triangle_count} triangles, open3d {o3d.__version__}, best of {args.repeat}")
    for name, rays in (("incoherent", incoherent), ("camera", camera)):
        tensor = o3d.core.Tensor(rays)
        n = rays.size // 6
        for threads in sorted({1, cores}):
            ours, theirs = [], []
            for _ in range(args.repeat + 1):
                start = time.perf_counter()
                answer = mesh.cast_rays(rays, threads=threads)
                ours.append(time.perf_counter() - start)
                start = time.perf_counter()
                reference = scene.cast_rays(tensor, nthreads=threads)
                theirs.append(time.perf_counter() - start)
            agree = np.mean(np.isfinite(answer["t_hit"]) == np.isfinite(reference["t_hit"].numpy()))
            best, peer = min(ours[1:]), min(theirs[1:])
            print(
                f"{name:<11} {threads:>2} threads: meshcast {n / best / 1e6:6.2f}, Open3D {n / peer / 1e6:6.2f} "
                f"Mrays/s, ratio {peer / best:.3f}, hits agree on {agree:.4f}"
            )


if __name__ == "__main__":
    main()
