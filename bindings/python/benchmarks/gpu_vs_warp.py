"""meshcast's GPU against NVIDIA Warp's mesh ray queries, on the same numpy rays, in one process.

For each mesh (the bunny, the ogre, the bunny subdivided twice: 16x its triangles) and each ray
set (random rays from a sphere around the mesh towards points of its box; a square pinhole
image), this prints, closest hit unless said, best of --repeat:

* the kernel with rays already on the GPU (Grays/s): Warp with its default SAH tree, Warp with
  the tree its docs suggest for ray queries (cuBQL, one triangle per leaf), meshcast's kernel
  of the back end in use (`GpuMesh._kernel_seconds`: CUDA's, timed by CUDA events, where the
  wheel has it and a driver is found) and wgpu's beside it, closest and any hit;
* from numpy to numpy (Mrays/s): Warp returning t and the triangle, Warp returning t, the
  triangle, u, v and the normal (what `cast_rays` returns), meshcast's `GpuMesh.cast_rays`,
  and meshcast's CPU `Mesh.cast_rays` on every core;
* how many rays meshcast's GPU and Warp name different triangles on.

The back end follows `MESHCAST_GPU_BACKEND` (`auto`, the default, takes the CUDA back end
where the wheel has it and a driver is found) and meshcast's tree `--leaf` (at most N triangles
per leaf; by default the back end's choice, `MESHCAST_GPU_LEAF`). Each mesh's line gives the
GPU memory of both libraries per triangle: meshcast's one copy of nodes and triangles
(`GpuMesh.gpu_bytes` at upload), Warp's points, indices and tree (its memory pool's bytes in
use, or the device's free memory where the pool does not say). Interleaves the peers and
repeats, as GPU clocks move between runs. Needs a CUDA GPU with `pip install warp-lang`;
without Warp or a GPU it says so and exits 0.

    python benchmarks/gpu_vs_warp.py [--rays N] [--image W] [--repeat K] [--leaf N] [--meshes a.obj ...]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

import meshcast

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def subdivided(vertices: np.ndarray, faces: np.ndarray, times: int):
    """Each triangle cut into four at its edge midpoints, `times` times (corners repeated)."""
    for _ in range(times):
        a, b, c = (vertices[faces[:, i]] for i in range(3))
        ab, bc, ca = (a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5
        tris = np.stack(
            [np.stack(t, axis=1) for t in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))], axis=1
        ).reshape(-1, 3, 3)
        vertices = tris.reshape(-1, 3).astype(np.float32)
        faces = np.arange(len(vertices), dtype=np.uint32).reshape(-1, 3)
    return vertices, faces


def add_arguments(parser):
    """The rays and meshes both GPU benchmarks take."""
    parser.add_argument("--rays", type=int, default=1 << 22)
    parser.add_argument("--image", type=int, default=2048)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--meshes", nargs="*", default=["stanford-bunny.obj", "ogre.obj", "stanford-bunny.obj:2"])


def load(spec):
    """The CPU mesh of `name` or `name:k` (subdivided k times), its vertices and faces."""
    name, _, times = spec.partition(":")
    cpu = meshcast.Mesh.load(str(ASSETS / name))
    vertices, faces = cpu.vertices.astype(np.float32), cpu.faces.astype(np.uint32)
    if times:
        vertices, faces = subdivided(vertices, faces, int(times))
        cpu = meshcast.Mesh(vertices, faces)
    return cpu, vertices, faces


def random_rays(low, high, n, seed=7):
    rng = np.random.default_rng(seed)
    center, radius = 0.5 * (low + high), 0.75 * np.linalg.norm(high - low)
    on_sphere = rng.normal(size=(n, 3))
    on_sphere /= np.linalg.norm(on_sphere, axis=1, keepdims=True)
    origins = center + radius * on_sphere
    targets = low + (high - low) * rng.random((n, 3))
    dirs = targets - origins
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    return np.concatenate([origins, dirs], axis=1).astype(np.float32)


def camera_rays(low, high, side):
    center = 0.5 * (low + high)
    eye = center + np.array([0.0, 0.0, 1.6 * np.linalg.norm(high - low)])
    half = np.tan(np.radians(45.0) / 2)
    y, x = np.mgrid[0:side, 0:side]
    px = (2 * (x + 0.5) / side - 1) * half
    py = (1 - 2 * (y + 0.5) / side) * half
    dirs = np.stack([px, py, -np.ones_like(px)], axis=-1).reshape(-1, 3)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    origins = np.broadcast_to(eye, dirs.shape)
    return np.concatenate([origins, dirs], axis=1).astype(np.float32)


def best(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def warp_bytes_in_use(wp):
    """Bytes of GPU memory Warp holds now: its memory pool's, else the device's in use."""
    device = wp.get_device()
    wp.synchronize()
    if hasattr(wp, "get_mempool_used_mem_current") and wp.is_mempool_enabled(device):
        return wp.get_mempool_used_mem_current(device)
    return device.total_memory - device.free_memory


class WarpPeer:
    """Warp's mesh queries as its users write them: a kernel per query, one ray per thread."""

    def __init__(self, wp, vertices, faces, constructor, leaf_size):
        self.wp = wp
        before = warp_bytes_in_use(wp)
        points = wp.array(vertices, dtype=wp.vec3)
        indices = wp.array(faces.astype(np.int32).reshape(-1), dtype=wp.int32)
        start = time.perf_counter()
        self.mesh = wp.Mesh(points=points, indices=indices, bvh_constructor=constructor, bvh_leaf_size=leaf_size)
        wp.synchronize()
        self.build = time.perf_counter() - start
        # The mesh's points, indices and tree, the build's temporaries freed.
        self.bytes = warp_bytes_in_use(wp) - before

    def resident(self, rays):
        wp = self.wp
        n = len(rays)
        self.origins = wp.array(np.ascontiguousarray(rays[:, :3]), dtype=wp.vec3)
        self.dirs = wp.array(np.ascontiguousarray(rays[:, 3:]), dtype=wp.vec3)
        self.t = wp.zeros(n, dtype=wp.float32)
        self.face = wp.zeros(n, dtype=wp.int32)
        self.u = wp.zeros(n, dtype=wp.float32)
        self.v = wp.zeros(n, dtype=wp.float32)
        self.normal = wp.zeros(n, dtype=wp.vec3)
        self.hit = wp.zeros(n, dtype=wp.int32)
        self.n = n

    def closest(self):
        self.wp.launch(
            KERNELS["closest"], dim=self.n, inputs=[self.mesh.id, self.origins, self.dirs, self.t, self.face]
        )
        self.wp.synchronize()

    def any(self):
        self.wp.launch(KERNELS["any"], dim=self.n, inputs=[self.mesh.id, self.origins, self.dirs, self.hit])
        self.wp.synchronize()

    def from_numpy(self, rays, full):
        wp = self.wp
        n = len(rays)
        origins = wp.array(np.ascontiguousarray(rays[:, :3]), dtype=wp.vec3)
        dirs = wp.array(np.ascontiguousarray(rays[:, 3:]), dtype=wp.vec3)
        t = wp.empty(n, dtype=wp.float32)
        face = wp.empty(n, dtype=wp.int32)
        if full:
            u, v = wp.empty(n, dtype=wp.float32), wp.empty(n, dtype=wp.float32)
            normal = wp.empty(n, dtype=wp.vec3)
            wp.launch(KERNELS["full"], dim=n, inputs=[self.mesh.id, origins, dirs, t, face, u, v, normal])
            return t.numpy(), face.numpy(), u.numpy(), v.numpy(), normal.numpy()
        wp.launch(KERNELS["closest"], dim=n, inputs=[self.mesh.id, origins, dirs, t, face])
        return t.numpy(), face.numpy()


KERNELS = {}


def define_kernels(wp):
    @wp.kernel
    def closest(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
                t: wp.array(dtype=wp.float32), face: wp.array(dtype=wp.int32)):
        i = wp.tid()
        q = wp.mesh_query_ray(mesh, origins[i], dirs[i], 1.0e30)
        if q.result:
            t[i] = q.t
            face[i] = q.face
        else:
            t[i] = wp.inf
            face[i] = -1

    @wp.kernel
    def full(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
             t: wp.array(dtype=wp.float32), face: wp.array(dtype=wp.int32), u: wp.array(dtype=wp.float32),
             v: wp.array(dtype=wp.float32), normal: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        q = wp.mesh_query_ray(mesh, origins[i], dirs[i], 1.0e30)
        if q.result:
            t[i] = q.t
            face[i] = q.face
            u[i] = q.u
            v[i] = q.v
            normal[i] = q.normal
        else:
            t[i] = wp.inf
            face[i] = -1

    @wp.kernel
    def any_hit(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
                hit: wp.array(dtype=wp.int32)):
        i = wp.tid()
        hit[i] = wp.where(wp.mesh_query_ray_anyhit(mesh, origins[i], dirs[i], 1.0e30), 1, 0)

    KERNELS.update(closest=closest, full=full, any=any_hit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.add_argument("--leaf", type=int, help="meshcast's GPU tree: at most N triangles per leaf (0: the mesh's)")
    args = parser.parse_args()
    if args.leaf is not None:
        # Read when meshcast opens its GPU, before the first upload below.
        os.environ["MESHCAST_GPU_LEAF"] = str(args.leaf)
    try:
        import warp as wp
    except ImportError:
        print("gpu_vs_warp: Warp is not installed (pip install warp-lang): nothing to compare")
        return 0
    wp.config.quiet = True
    wp.init()
    if not wp.is_cuda_available():
        print("gpu_vs_warp: no CUDA GPU for Warp: nothing to compare")
        return 0
    if not meshcast.gpu_adapters():
        print("gpu_vs_warp: no GPU adapter for meshcast: nothing to compare")
        return 0
    define_kernels(wp)
    print(f"warp {wp.__version__} on {wp.get_device().name}; best of {args.repeat}")
    for spec in args.meshes:
        name, _, times = spec.partition(":")
        cpu, vertices, faces = load(spec)
        start = time.perf_counter()
        gpu = cpu.to_gpu()
        upload = time.perf_counter() - start
        n_tris = len(faces)
        peers = {
            "warp sah": WarpPeer(wp, vertices, faces, "sah", None),
            "warp cubql leaf 1": WarpPeer(wp, vertices, faces, "cubql", 1),
        }
        # One copy's bytes, before timing wgpu's kernel makes wgpu's copy beside CUDA's.
        ours_bytes = gpu.gpu_bytes
        print(
            f"\n{name}{' x' + str(4 ** int(times)) if times else ''}: {n_tris} triangles on {gpu.adapter} "
            f"(CUDA: {gpu.cuda_device}); "
            f"meshcast {ours_bytes / n_tris:.1f} bytes/triangle, upload {upload * 1e3:.0f} ms; "
            + ", ".join(f"{k} {p.bytes / n_tris:.1f} bytes/triangle, build {p.build * 1e3:.0f} ms" for k, p in peers.items())
        )
        ours_kernels = {"meshcast": "in use"}
        if gpu.cuda_device is not None:
            ours_kernels["meshcast wgpu"] = "wgpu"
        low, high = cpu.bounds.astype(np.float64)
        sets = {"random": random_rays(low, high, args.rays), "camera": camera_rays(low, high, args.image)}
        for set_name, rays in sets.items():
            n = len(rays)
            for peer in peers.values():
                peer.resident(rays)
            kernel = {}
            for _ in range(2):  # interleaved rounds: keep the best of each
                for key, peer in peers.items():
                    kernel[f"{key} closest"] = min(kernel.get(f"{key} closest", 1e9), best(peer.closest, args.repeat))
                    kernel[f"{key} any"] = min(kernel.get(f"{key} any", 1e9), best(peer.any, args.repeat))
                for key, backend in ours_kernels.items():
                    for query in ("closest", "any"):
                        seconds = gpu._kernel_seconds(rays, query, args.repeat, backend)
                        kernel[f"{key} {query}"] = min(kernel.get(f"{key} {query}", 1e9), seconds)
            print(f"  {set_name}, {n} rays, kernel with rays on the GPU (Grays/s):")
            for query in ("closest", "any"):
                line = ", ".join(f"{k} {n / kernel[f'{k} {query}'] / 1e9:.3f}" for k in peers)
                best_peer = max(n / kernel[f"{k} {query}"] / 1e9 for k in peers)
                ours = ", ".join(
                    f"{k} {n / kernel[f'{k} {query}'] / 1e9:.3f} ({n / kernel[f'{k} {query}'] / 1e9 / best_peer:.2f}x)"
                    for k in ours_kernels
                )
                print(f"    {query:<8} {line}, {ours} (x the best Warp)")
            sah = peers["warp sah"]
            numpy_times = {"warp t, triangle": [], "warp full": [], "meshcast gpu": [], "meshcast cpu": []}
            for _ in range(args.repeat):
                for key, fn in (
                    ("warp t, triangle", lambda: sah.from_numpy(rays, False)),
                    ("warp full", lambda: sah.from_numpy(rays, True)),
                    ("meshcast gpu", lambda: gpu.cast_rays(rays)),
                    ("meshcast cpu", lambda: cpu.cast_rays(rays)),
                ):
                    start = time.perf_counter()
                    fn()
                    numpy_times[key].append(time.perf_counter() - start)
            rates = {k: n / min(v) / 1e6 for k, v in numpy_times.items()}
            print(
                "  from numpy (Mrays/s): "
                + ", ".join(f"{k} {r:.1f}" for k, r in rates.items())
                + f"; meshcast gpu {rates['meshcast gpu'] / rates['warp full']:.2f}x warp full, "
                f"{rates['meshcast gpu'] / rates['meshcast cpu']:.2f}x meshcast cpu"
            )
            ours = gpu.cast_rays(rays)["primitive_ids"].astype(np.int64)
            _, theirs = sah.from_numpy(rays, False)
            theirs = theirs.astype(np.int64)
            theirs[theirs < 0] = meshcast.INVALID_ID
            print(f"  triangles differ from warp sah on {int(np.sum(ours != theirs))} of {n} rays; "
                  f"meshcast's CPU finished {gpu.stats['finished_on_cpu']} of {gpu.stats['rays']} rays so far")
    return 0


if __name__ == "__main__":
    sys.exit(main())
