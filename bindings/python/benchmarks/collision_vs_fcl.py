"""Two bunnies in a collision manager: meshcast.trimesh.CollisionManager against trimesh's
(python-fcl).

The same mesh is added twice, the second copy turned and moved by a seeded rigid transform
per pose: first so that the copies cross (`in_collision_internal`), then moved apart along x
(`min_distance_internal`). Each manager is built once (its build timed apart), then each
query runs on every pose, best of `--repeat` runs; the script prints the times, their ratio
(above 1: meshcast is faster) and whether the two agree on every pose (collisions the same,
distances within 1e-4 relative).

    python benchmarks/collision_vs_fcl.py [MESH] [--poses N] [--repeat K]
"""

import argparse
import time
from pathlib import Path

import numpy as np
import trimesh

import meshcast
from meshcast.trimesh import CollisionManager

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def poses(count: int, centre: np.ndarray, size: float, apart: float, seed: int = 0) -> list:
    """Rigid transforms: a random rotation about the mesh's centre, a translation within a
    fifth of the mesh's size (the copies cross), moved by `apart` along x."""
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(count):
        q, r = np.linalg.qr(rng.normal(size=(3, 3)))
        q = q * np.sign(np.diag(r))
        if np.linalg.det(q) < 0:
            q[:, 0] = -q[:, 0]
        matrix = np.eye(4)
        matrix[:3, :3] = q
        matrix[:3, 3] = centre - q @ centre + rng.uniform(-0.2, 0.2, 3) * size + [apart, 0.0, 0.0]
        found.append(matrix)
    return found


def timed(repeat: int, run) -> tuple:
    """The best time of `repeat` runs, and the last run's answer."""
    best, answer = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        answer = run()
        best = min(best, time.perf_counter() - start)
    return best, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mesh", nargs="?", default=str(ASSETS / "stanford-bunny.obj"))
    parser.add_argument("--poses", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    native = meshcast.Mesh.load(args.mesh)
    mesh = trimesh.Trimesh(native.vertices.astype(np.float64), native.faces, process=False)
    size = float(np.linalg.norm(mesh.extents))
    centre = mesh.bounds.mean(axis=0)
    print(f"{Path(args.mesh).name}: {len(mesh.faces)} triangles, two copies, {args.poses} poses")

    managers = {}
    for label, kind in (("fcl", trimesh.collision.CollisionManager), ("meshcast", CollisionManager)):
        start = time.perf_counter()
        manager = kind()
        manager.add_object("fixed", mesh)
        manager.add_object("moved", mesh)
        managers[label] = manager
        print(f"  {label:9} build {time.perf_counter() - start:8.3f} s")

    for query, apart in (("in_collision_internal", 0.0), ("min_distance_internal", 1.5 * size)):
        placed = poses(args.poses, centre, size, apart)
        times, answers = {}, {}
        for label, manager in managers.items():

            def run(manager=manager):
                found = []
                for pose in placed:
                    manager.set_transform("moved", pose)
                    found.append(getattr(manager, query)())
                return found

            times[label], answers[label] = timed(args.repeat, run)
        if query == "in_collision_internal":
            agree = answers["fcl"] == answers["meshcast"]
            detail = f"{sum(answers['meshcast'])} of {len(placed)} colliding"
        else:
            fcl, ours = np.array(answers["fcl"]), np.array(answers["meshcast"])
            agree = bool((np.abs(fcl - ours) <= 1e-4 * fcl).all())
            detail = f"distances {ours.min():.4g} to {ours.max():.4g}"
        print(
            f"  {query}: fcl {times['fcl']:.4f} s, meshcast {times['meshcast']:.4f} s, "
            f"{times['fcl'] / times['meshcast']:.3g}x; {detail}; answers agree: {agree}"
        )


if __name__ == "__main__":
    main()
