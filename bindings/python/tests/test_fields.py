"""Grids and samples: every grid equals the per-point query at its points bit for bit, and
samples keep the Rust library's promises (on their triangles, the same for a seed whatever
the threads, distances the per-point ones)."""

import numpy as np
import pytest

import meshcast
from conftest import asset


def grid_points(bounds, shape) -> np.ndarray:
    """The grid's points as the Rust library's `Grid` makes them, in float32:
    `min * (1 - t) + max * t` with `t = i / (n - 1)`, C order."""
    low, high = np.asarray(bounds, dtype=np.float32)
    axes = []
    for axis, n in enumerate(shape):
        i = np.arange(n, dtype=np.float32)
        t = i / np.float32(max(n - 1, 1))
        if n <= 1:
            axes.append(np.full(n, low[axis], dtype=np.float32))
        else:
            axes.append(low[axis] * (np.float32(1) - t) + high[axis] * t)
    x, y, z = np.meshgrid(*axes, indexing="ij")
    return np.stack([x, y, z], axis=-1)


def bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values).view(np.uint32)


def grids(mesh):
    low, high = mesh.bounds.astype(np.float64)
    size = high - low
    yield np.array([low - 0.1 * size, high + 0.1 * size]), (9, 7, 11)
    yield np.array([low, high]), (1, 5, 2)  # axes of one point
    yield np.array([high, low]), (4, 3, 3)  # reversed corners run backwards
    yield np.array([low + 1e4, high + 1e4]), (3, 3, 3)  # far away
    yield np.array([low, high]), (0, 4, 4)  # empty


@pytest.fixture(scope="module", params=["stanford-bunny", "suzanne"])
def mesh(request):
    return meshcast.Mesh.load(asset(f"{request.param}.obj"))


def test_grids_equal_the_per_point_queries_bit_for_bit(mesh):
    for bounds, shape in grids(mesh):
        points = grid_points(bounds, shape)
        signed = mesh.compute_signed_distance_grid(bounds, shape)
        assert signed.shape == tuple(shape) and signed.dtype == np.float32
        np.testing.assert_array_equal(bits(signed), bits(mesh.compute_signed_distance(points)))
        occupied = mesh.compute_occupancy_grid(bounds, shape)
        assert occupied.shape == tuple(shape) and occupied.dtype == np.bool_
        np.testing.assert_array_equal(occupied, mesh.contains(points))
        winding = mesh.compute_winding_number_grid(bounds, shape)
        assert winding.shape == tuple(shape) and winding.dtype == np.float32
        np.testing.assert_array_equal(bits(winding), bits(mesh.winding_number(points)))


def test_banded_grid_clamps_beyond_the_band(mesh):
    low, high = mesh.bounds.astype(np.float64)
    band = 0.05 * float(np.linalg.norm(high - low))
    bounds = np.array([low - 0.2 * (high - low), high + 0.2 * (high - low)])
    shape = (12, 10, 40)
    points = grid_points(bounds, shape)
    exact = mesh.compute_signed_distance(points)
    banded = mesh.compute_signed_distance_grid(bounds, shape, max_distance=band)
    m = np.float32(band)
    inside = np.abs(exact) <= m
    assert inside.any() and (~inside).any()
    np.testing.assert_array_equal(bits(banded[inside]), bits(exact[inside]))
    expected = np.where(mesh.contains(points), -m, m)
    np.testing.assert_array_equal(banded[~inside], expected[~inside])
    # An infinite band is none.
    unbanded = mesh.compute_signed_distance_grid(bounds, shape, max_distance=np.inf)
    np.testing.assert_array_equal(bits(unbanded), bits(exact))


def test_grid_arguments_are_checked(mesh):
    bounds = mesh.bounds
    with pytest.raises(ValueError, match=r"bounds must have shape \(2, 3\)"):
        mesh.compute_occupancy_grid(bounds[0], (2, 2, 2))
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        mesh.compute_occupancy_grid(np.zeros((2, 2)), (2, 2, 2))
    with pytest.raises(ValueError, match="not finite"):
        mesh.compute_winding_number_grid([[0, 0, np.nan], [1, 1, 1]], (2, 2, 2))
    with pytest.raises(ValueError, match="three counts"):
        mesh.compute_signed_distance_grid(bounds, (2, 2))
    with pytest.raises(ValueError, match="three counts"):
        mesh.compute_signed_distance_grid(bounds, (2, -1, 2))
    with pytest.raises(ValueError, match="three counts"):
        mesh.compute_signed_distance_grid(bounds, "abc")
    with pytest.raises(ValueError, match="too large"):
        mesh.compute_signed_distance_grid(bounds, (2**40, 2**40, 2**40))
    for bad in (-0.5, np.nan):
        with pytest.raises(ValueError, match="max_distance"):
            mesh.compute_signed_distance_grid(bounds, (2, 2, 2), max_distance=bad)
    # numpy counts and a numpy shape tuple are counts too.
    assert mesh.compute_occupancy_grid(bounds, np.array([2, 3, 1])).shape == (2, 3, 1)


def test_an_empty_mesh_has_infinite_distances():
    empty = meshcast.Mesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    grid = empty.compute_signed_distance_grid([[0, 0, 0], [1, 1, 1]], (2, 2, 2))
    assert np.isinf(grid).all() and (grid > 0).all()
    assert not empty.compute_occupancy_grid([[0, 0, 0], [1, 1, 1]], (2, 2, 2)).any()
    assert len(empty.sample_surface(10)["points"]) == 0


def on_their_triangles(mesh, samples) -> None:
    """Each point is its triangle's corners weighted by its barycentrics, as Rust computes
    it in float32 (`p0 + u (p1 - p0) + v (p2 - p0)`), with `u, v >= 0` and `u + v <= 1`."""
    corners = mesh.vertices[mesh.faces[samples["primitive_ids"]]]
    u = samples["primitive_uvs"][:, :1]
    v = samples["primitive_uvs"][:, 1:]
    p0, p1, p2 = corners[:, 0], corners[:, 1], corners[:, 2]
    np.testing.assert_array_equal(samples["points"], p0 + u * (p1 - p0) + v * (p2 - p0))
    assert (u >= 0).all() and (v >= 0).all() and (u + v <= 1).all()


def test_surface_samples_lie_on_their_triangles_and_repeat_for_a_seed(mesh):
    samples = mesh.sample_surface(20000, seed=7)
    assert set(samples) == {"points", "primitive_ids", "primitive_uvs"}
    assert samples["points"].shape == (20000, 3) and samples["points"].dtype == np.float32
    assert samples["primitive_ids"].dtype == np.uint32
    assert samples["primitive_uvs"].shape == (20000, 2) and samples["primitive_uvs"].dtype == np.float32
    on_their_triangles(mesh, samples)
    for threads in (1, 3):
        again = mesh.sample_surface(20000, seed=7, threads=threads)
        for key in samples:
            np.testing.assert_array_equal(again[key], samples[key])
    other = mesh.sample_surface(20000, seed=8)
    assert not np.array_equal(other["points"], samples["points"])
    # Uniform by area: the share of samples on each half of the triangles is its area's.
    corners = mesh.vertices.astype(np.float64)[mesh.faces]
    areas = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), axis=1)
    first_half = samples["primitive_ids"] < mesh.triangle_count // 2
    share = areas[: mesh.triangle_count // 2].sum() / areas.sum()
    assert abs(first_half.mean() - share) < 0.02


def test_even_samples_are_spread_and_are_candidates(mesh):
    low, high = mesh.bounds.astype(np.float64)
    radius = float(np.float32(0.04 * np.linalg.norm(high - low)))  # as float32 takes it
    even = mesh.sample_surface_even(500, radius=radius, seed=3)
    points = even["points"].astype(np.float64)
    assert 0 < len(points) <= 500
    on_their_triangles(mesh, even)
    gaps = np.linalg.norm(points[:, None] - points[None], axis=2)
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() >= radius
    # They are among the candidates, 5 n surface samples of the same seed, in their order.
    candidates = mesh.sample_surface(2500, seed=3)["points"]
    index = {tuple(p): i for i, p in enumerate(candidates.tolist())}
    order = [index[tuple(p)] for p in even["points"].tolist()]
    assert order == sorted(order)
    again = mesh.sample_surface_even(500, radius=radius, seed=3, threads=1)
    np.testing.assert_array_equal(again["points"], even["points"])
    assert len(mesh.sample_surface_even(300)["points"]) == 300
    with pytest.raises(meshcast.MeshcastError, match="radius"):
        mesh.sample_surface_even(10, radius=-1.0)
    with pytest.raises(meshcast.MeshcastError, match="radius"):
        mesh.sample_surface_even(10, radius=np.nan)


def test_near_surface_samples_carry_their_signed_distances(mesh):
    low, high = mesh.bounds.astype(np.float64)
    sigma = 0.01 * float(np.linalg.norm(high - low))
    near = mesh.sample_near_surface(5000, sigma, seed=11)
    assert set(near) == {"points", "signed_distances"}
    assert near["points"].shape == (5000, 3) and near["signed_distances"].shape == (5000,)
    assert near["points"].dtype == np.float32 and near["signed_distances"].dtype == np.float32
    np.testing.assert_array_equal(bits(near["signed_distances"]), bits(mesh.compute_signed_distance(near["points"])))
    # mesh_to_sdf's mix: 47% near (sigma), 47% nearer (sigma / 10), the rest in the box.
    m = (47 * 5000 // 50) // 2
    distances = np.abs(near["signed_distances"])
    assert np.median(distances[m : 2 * m]) < np.median(distances[:m]) / 3
    box = near["points"][2 * m :].astype(np.float64)
    low, high = mesh.bounds.astype(np.float64)
    slack = 1e-6 * np.abs(mesh.bounds).max()
    assert ((box >= low - slack) & (box <= high + slack)).all()
    again = mesh.sample_near_surface(5000, sigma, seed=11, threads=2)
    np.testing.assert_array_equal(again["points"], near["points"])
    with pytest.raises(meshcast.MeshcastError, match="sigma"):
        mesh.sample_near_surface(10, -1.0)


def test_sample_arguments_are_checked(mesh):
    with pytest.raises(ValueError, match="n must be"):
        mesh.sample_surface(-1)
    with pytest.raises(ValueError, match="seed must be"):
        mesh.sample_surface(3, seed=-2)
    with pytest.raises(ValueError, match="seed must be"):
        mesh.sample_surface(3, seed=2**64)
    with pytest.raises(TypeError):
        mesh.sample_surface(2.5)
    with pytest.raises(ValueError, match="too many"):
        mesh.sample_surface(2**62)
    assert len(mesh.sample_surface(3, seed=2**64 - 1)["points"]) == 3
    assert len(mesh.sample_surface(0)["points"]) == 0
