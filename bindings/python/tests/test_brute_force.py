"""The package against a numpy brute force over every triangle: closest hits, crossing
counts and closest points, on real meshes, wherever the brute force's float64 answer is not
within rounding of an edge or a tie."""

import numpy as np
import pytest

import meshcast

from conftest import asset, random_rays

#: Rays whose hit lies this close to a triangle's edge (in barycentric weight) are left
#: out: there a float64 and a float32 test may rightly disagree on which triangle is hit.
EDGE_MARGIN = 1e-4


def moller_trumbore(vertices, faces, rays):
    """t of every ray against every triangle (inf where it misses), and the smallest
    barycentric weight of each hit, in float64 (Möller and Trumbore 1997)."""
    v0, v1, v2 = (vertices[faces[:, k]].astype(np.float64) for k in range(3))
    origins = rays[:, None, :3].astype(np.float64)
    directions = rays[:, None, 3:].astype(np.float64)
    e1, e2 = v1 - v0, v2 - v0
    p = np.cross(directions, e2)
    det = np.einsum("rtk,tk->rt", p, e1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = origins - v0
        u = np.einsum("rtk,rtk->rt", s, p) * inv
        q = np.cross(s, e1)
        v = np.einsum("rtk,rtk->rt", directions, q) * inv
        t = np.einsum("tk,rtk->rt", e2, q) * inv
    w = 1.0 - u - v
    hit = (det != 0) & (u >= 0) & (v >= 0) & (w >= 0) & (t > 0)
    return np.where(hit, t, np.inf), np.minimum(np.minimum(u, v), w)


def rays_at_triangles(mesh, n, seed):
    """Rays from around the mesh aimed at random points of random triangles: most hit."""
    rng = np.random.default_rng(seed)
    rays = random_rays(mesh, n, seed)
    corners = mesh.vertices[mesh.faces[rng.integers(0, mesh.triangle_count, n)]].astype(np.float64)
    weights = rng.dirichlet([1.0, 1.0, 1.0], n)
    targets = np.einsum("nk,nkd->nd", weights, corners)
    rays[:, 3:] = targets - rays[:, :3]
    return rays


@pytest.mark.parametrize("name", ["suzanne.obj", "spot.obj", "cow.obj"])
def test_closest_hits_and_counts_match_a_brute_force(name):
    mesh = meshcast.Mesh.load(asset(name))
    rays = rays_at_triangles(mesh, 400, 5)
    t, margin = moller_trumbore(mesh.vertices, mesh.faces, rays)
    answer = mesh.cast_rays(rays)
    counts = mesh.count_intersections(rays)
    clear = ~((np.abs(margin) < EDGE_MARGIN) & np.isfinite(t)).any(axis=1)
    assert clear.sum() > 300
    nearest = t.min(axis=1)
    sorted_t = np.sort(t, axis=1)
    with np.errstate(invalid="ignore"):
        gap = sorted_t[:, 1] - sorted_t[:, 0]
    unique = ~np.isfinite(sorted_t[:, 0]) | ~np.isfinite(sorted_t[:, 1]) | (gap > 1e-6 * sorted_t[:, 0])
    checked = clear & unique
    np.testing.assert_allclose(answer["t_hit"][checked], nearest[checked], rtol=1e-5)
    hit = checked & np.isfinite(nearest)
    assert hit.sum() > 250
    assert (answer["primitive_ids"][hit] == t.argmin(axis=1)[hit]).all()
    assert (counts[clear] == np.isfinite(t).sum(axis=1)[clear]).all()
    # The normals are the hit triangles' unit normals.
    v = mesh.vertices.astype(np.float64)
    f = mesh.faces[answer["primitive_ids"][hit]]
    normals = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    np.testing.assert_allclose(answer["primitive_normals"][hit], normals, atol=1e-5)


def test_closest_points_match_a_brute_force():
    trimesh = pytest.importorskip("trimesh")
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    points = random_rays(mesh, 200, 9)[:, :3].astype(np.float64)
    triangles = mesh.vertices[mesh.faces].astype(np.float64)
    best = np.full(len(points), np.inf)
    for i, point in enumerate(points):
        closest = trimesh.triangles.closest_point(triangles, np.repeat(point[None], len(triangles), 0))
        best[i] = np.linalg.norm(closest - point, axis=1).min()
    answer = mesh.compute_closest_points(points, with_distance=True)
    np.testing.assert_allclose(answer["distance"], best, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(answer["points"] - points, axis=1), best, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(mesh.compute_distance(points), answer["distance"])
    signed = mesh.compute_signed_distance(points)
    np.testing.assert_allclose(np.abs(signed), answer["distance"])
    assert ((signed < 0) == mesh.contains(points)).all()
