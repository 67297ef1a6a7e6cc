"""Shared fixtures: the repository's assets and the Rust command line, the reference the
package's answers are held to bit for bit."""

import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import meshcast

REPO = Path(__file__).resolve().parents[3]
ASSETS = REPO / "assets"


def asset(name: str) -> Path:
    """A mesh bundled with the repository."""
    return ASSETS / name


@lru_cache(maxsize=None)
def trimesh_asset(name: str):
    """The asset `name`.obj as a trimesh mesh with the file's vertices and faces, unprocessed
    (for the tests of the trimesh drop-ins, which skip without trimesh)."""
    import trimesh

    native = meshcast.Mesh.load(asset(f"{name}.obj"))
    return trimesh.Trimesh(native.vertices, native.faces, process=False)


@pytest.fixture(scope="session")
def bunny() -> meshcast.Mesh:
    return meshcast.Mesh.load(asset("stanford-bunny.obj"))


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `meshcast` command built from this repository (built here when missing)."""
    for profile in ("release", "debug"):
        binary = REPO / "target" / profile / "meshcast"
        if binary.exists():
            return binary
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("cargo is needed to build the meshcast command the tests compare with")
    subprocess.run([cargo, "build", "-q", "-p", "meshcast-cli"], cwd=REPO, check=True)
    return REPO / "target" / "debug" / "meshcast"


def random_rays(mesh: meshcast.Geometry, n: int, seed: int) -> np.ndarray:
    """Rays from around and inside the mesh's box in random directions, float32 (n, 6)."""
    rng = np.random.default_rng(seed)
    low, high = mesh.bounds.astype(np.float64)
    size = high - low
    origins = rng.uniform(low - 0.5 * size, high + 0.5 * size, (n, 3))
    directions = rng.normal(size=(n, 3))
    return np.concatenate([origins, directions], axis=1).astype(np.float32)


def adversarial_rays(mesh: meshcast.Mesh, n: int, seed: int) -> np.ndarray:
    """Rays aimed exactly at vertices and edge midpoints, some along the axes (with +0 and
    -0 direction components), from near and far away: where a leaky engine slips through or
    counts twice."""
    rng = np.random.default_rng(seed)
    vertices = mesh.vertices.astype(np.float64)
    faces = mesh.faces
    picked = faces[rng.integers(0, len(faces), n)]
    corner = vertices[picked[:, 0]]
    midpoint = 0.5 * (vertices[picked[:, 0]] + vertices[picked[:, 1]])
    targets = np.where(rng.random((n, 1)) < 0.5, corner, midpoint)
    low, high = mesh.bounds.astype(np.float64)
    scale = np.where(rng.random((n, 1)) < 0.2, 1e4, 1.0) * np.linalg.norm(high - low)
    axis_aligned = rng.random(n) < 0.3
    directions = rng.normal(size=(n, 3))
    axes = np.eye(3)[rng.integers(0, 3, n)] * rng.choice([-1.0, 1.0], (n, 1))
    directions[axis_aligned] = axes[axis_aligned]
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    origins = targets - directions * scale
    rays = np.concatenate([origins, directions], axis=1).astype(np.float32)
    # -0 in the direction components that are zero, for a few rays.
    negative_zero = (rays[:, 3:] == 0) & (rng.random((n, 3)) < 0.5)
    rays[:, 3:][negative_zero] = -0.0
    return rays


def write_lines(path: Path, rows: np.ndarray) -> None:
    """Rows of float32 as the command line reads them: each number exactly (the shortest
    decimal of the float32, which parses back to it)."""
    with open(path, "w") as out:
        for row in rows.astype(np.float32):
            out.write(" ".join(repr(float(x)) for x in row) + "\n")
