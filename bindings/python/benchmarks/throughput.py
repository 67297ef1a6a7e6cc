"""cast_rays from Python against the Rust library's cast_batch, in one process.

For 1M rays on a mesh, on one thread and on every core, this times `Mesh.cast_rays` (numpy
rays in, the five arrays of answers out) and `Mesh::cast_batch` of the Rust library on the
same rays already made into `Ray`s, alternating the two so that a noisy machine slows both
alike, and prints the best of each and their ratio: what the Python layer costs (making
rays from the array, and laying out the answers with their normals).

    python benchmarks/throughput.py [MESH] [--rays N] [--repeat K]
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np

import meshcast
from meshcast import _native

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def incoherent_rays(mesh: meshcast.Mesh, n: int) -> np.ndarray:
    """Rays from random points of the mesh's box in random directions."""
    rng = np.random.default_rng(1)
    low, high = mesh.bounds.astype(np.float64)
    origins = rng.uniform(low, high, (n, 3))
    directions = rng.normal(size=(n, 3))
    return np.concatenate([origins, directions], axis=1).astype(np.float32)


def camera_rays(mesh: meshcast.Mesh, n: int) -> np.ndarray:
    """A camera image of about n pixels looking at the mesh, shaped (H, W, 6) as
    create_rays_pinhole makes it (cast_rays traces such an image in 4x4 tiles)."""
    low, high = mesh.bounds.astype(np.float64)
    center = 0.5 * (low + high)
    eye = center + [0.0, 0.0, 1.6 * np.linalg.norm(high - low)]
    height = int(np.sqrt(n * 3 / 4))
    width = n // height
    return meshcast.create_rays_pinhole(45.0, center, eye, [0, 1, 0], width, height)


def measure(mesh, rays, threads, repeat):
    """Best seconds of cast_rays and of the Rust cast_batch, alternated."""
    mesh.cast_rays(rays, threads=threads)
    python, rust = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        mesh.cast_rays(rays, threads=threads)
        python.append(time.perf_counter() - start)
        rust.append(_native._rust_cast_batch_seconds(mesh, rays, threads, 1))
    return min(python), min(rust)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mesh", nargs="?", default=str(ASSETS / "stanford-bunny.obj"))
    parser.add_argument("--rays", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    mesh = meshcast.Mesh.load(args.mesh)
    cores = os.cpu_count() or 1
    print(f"{Path(args.mesh).name}: {mesh.triangle_count} triangles, {args.rays} rays, best of {args.repeat}")
    print(f"{'rays':<11} {'threads':>7} {'cast_rays':>12} {'cast_batch':>12} {'Mrays/s':>8} {'ratio':>6}")
    for name, rays in (("incoherent", incoherent_rays(mesh, args.rays)), ("camera", camera_rays(mesh, args.rays))):
        for threads in sorted({1, cores}):
            python, rust = measure(mesh, rays, threads, args.repeat)
            print(
                f"{name:<11} {threads:>7} {python * 1e3:>9.1f} ms {rust * 1e3:>9.1f} ms "
                f"{rays.size // 6 / python / 1e6:>8.2f} {rust / python:>6.3f}"
            )


if __name__ == "__main__":
    main()
