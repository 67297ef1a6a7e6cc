"""The pieces of ``meshcast.trimesh.CollisionManager``: its objects (a meshcast mesh, its
placement and its box in world space, and the exact queries of a pair), trimesh's
``ContactData`` and ``DistanceData``, and the box tests of its prefilter."""

import math
from typing import Any, Hashable, List, Optional, Tuple

import numpy as np

from ._native import Mesh, _triangle_distances
from ._prepared import kept

#: At most this many contacts for one pair of objects (trimesh's cap).
COLLISION_PER_PAIR_CAP = 100000

#: The name of the object a ``*_single`` query is asked about, in its data (trimesh's).
EXTERNAL = "__external"

#: How far the boxes in world space are grown, relative to their coordinates, so that the
#: rounding of a transform to single precision never culls a pair that meets.
BOX_SLACK = 1e-6

#: How near to orthonormal (``R^T R`` to the identity) a transform that keeps lengths is.
RIGID_TOLERANCE = 1e-6


class ContactData:
    """A contact between two objects: trimesh's ``ContactData`` (``names``, ``point``,
    ``normal``, ``depth``, ``index(name)``); how its values differ from FCL's is in
    ``meshcast._collision``'s docstring."""

    def __init__(
        self,
        names: Tuple[Hashable, Hashable],
        point: np.ndarray,
        normal: np.ndarray,
        triangles: Tuple[int, int],
    ) -> None:
        self.names = set(names)
        self._inds = {names[0]: triangles[0], names[1]: triangles[1]}
        self._point = point
        self._normal = normal
        self._depth = math.nan

    @property
    def normal(self) -> np.ndarray:
        """The unit normal (3,) of the first object's triangle, in world space."""
        return self._normal

    @property
    def point(self) -> np.ndarray:
        """A point (3,) where the two triangles meet, in world space."""
        return self._point

    @property
    def depth(self) -> float:
        """NaN: the penetration depth is not computed."""
        return self._depth

    def index(self, name: Hashable) -> int:
        """The index of the triangle in contact of the object named ``name``."""
        return self._inds[name]


class DistanceData:
    """The nearest points of two objects: trimesh's ``DistanceData`` (``names``,
    ``distance``, ``index(name)``, ``point(name)``)."""

    def __init__(
        self,
        names: Tuple[Hashable, Hashable],
        distance: float,
        points: np.ndarray,
        triangles: Tuple[int, int],
    ) -> None:
        self.names = set(names)
        self._inds = {names[0]: triangles[0], names[1]: triangles[1]}
        self._points = {names[0]: points[0], names[1]: points[1]}
        self._distance = distance

    @property
    def distance(self) -> float:
        """The distance between the two objects."""
        return self._distance

    def index(self, name: Hashable) -> int:
        """The index of the nearest triangle of the object named ``name``."""
        return self._inds[name]

    def point(self, name: Hashable) -> np.ndarray:
        """The nearest point (3,) of the object named ``name``, in world space."""
        return self._points[name]


def _matrix(transform: Any, name: str = "transform") -> np.ndarray:
    """``transform`` as a 4x4 float64 affine matrix (the identity for None)."""
    if transform is None:
        return np.eye(4)
    matrix = np.asarray(transform, dtype=np.float64)
    if matrix.shape == (3, 4):
        matrix = np.vstack([matrix, [0.0, 0.0, 0.0, 1.0]])
    if matrix.shape != (4, 4):
        raise ValueError(f"{name} must have shape (4, 4) or (3, 4), not {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError(f"{name} must be finite, not\n{matrix}")
    if not (matrix[3] == [0.0, 0.0, 0.0, 1.0]).all():
        raise ValueError(f"{name} must be affine (last row 0 0 0 1), not {matrix[3]}")
    return matrix


def _inverse(matrix: np.ndarray) -> Optional[np.ndarray]:
    """The inverse of an affine 4x4 matrix, or None where it has none: exact for pure
    translations (its linear part inverted alone, the translation carried by it)."""
    linear = matrix[:3, :3]
    try:
        inverse_linear = np.linalg.inv(linear)
    except np.linalg.LinAlgError:
        return None
    if not np.isfinite(inverse_linear).all():
        return None
    inverse = np.eye(4)
    inverse[:3, :3] = inverse_linear
    inverse[:3, 3] = -inverse_linear @ matrix[:3, 3]
    return inverse


def _native(mesh: Any) -> Tuple[Mesh, np.ndarray]:
    """The meshcast mesh of ``mesh`` and where its origin lies in ``mesh``'s space: a
    meshcast ``Mesh`` as it is, a trimesh mesh moved to its box's centre (kept per object)."""
    if isinstance(mesh, Mesh):
        return mesh, np.zeros(3)
    if hasattr(mesh, "vertices") and hasattr(mesh, "faces"):
        prepared = kept(mesh)
        return prepared.native, prepared.center
    raise TypeError(
        f"a collision object must be a meshcast Mesh or have vertices and faces, not {type(mesh)}"
    )


class CollisionObject:
    """An object of a ``CollisionManager``: its ``name``, meshcast ``mesh`` and
    ``transform`` (4x4, mesh to world), with what the queries need: the placement of the
    meshcast mesh, its inverse, and its box in world space."""

    def __init__(self, name: Hashable, mesh: Any, transform: Any, invertible: bool) -> None:
        self.name = name
        self.mesh, self._center = _native(mesh)
        self.set_transform(transform, invertible)

    def set_transform(self, transform: Any, invertible: bool) -> None:
        """Places the object by ``transform``; one that is not ``invertible`` raises."""
        matrix = _matrix(transform)
        inverse = _inverse(matrix)
        if invertible and inverse is None:
            raise ValueError(f"transform must be invertible, not\n{matrix}")
        self.transform = matrix
        centre = np.eye(4)
        centre[:3, 3] = self._center
        self.placement = matrix @ centre
        uncentre = np.eye(4)
        uncentre[:3, 3] = -self._center
        self.inverse = None if inverse is None else uncentre @ inverse
        linear = matrix[:3, :3]
        self.rigid = bool(np.abs(linear.T @ linear - np.eye(3)).max() <= RIGID_TOLERANCE)
        self.bounds = self._world_bounds()

    def _world_bounds(self) -> np.ndarray:
        """The (2, 3) box in world space around the placed mesh, grown by ``BOX_SLACK``;
        an empty box (min inf, max -inf) for a mesh with no triangle."""
        if self.mesh.triangle_count == 0:
            return np.array([[np.inf] * 3, [-np.inf] * 3])
        low, high = self.mesh.bounds.astype(np.float64)
        # The box around the placed box: its centre carried, its half-sizes by |M| (Arvo 1990).
        linear, shift = self.placement[:3, :3], self.placement[:3, 3]
        centre = linear @ ((low + high) / 2) + shift
        half = np.abs(linear) @ ((high - low) / 2)
        magnitude = np.abs(linear) @ np.maximum(np.abs(low), np.abs(high)) + np.abs(shift)
        reach = half + BOX_SLACK * magnitude.max() + 1e-30
        return np.array([centre - reach, centre + reach])

    def relative(self, other: "CollisionObject") -> np.ndarray:
        """The map from ``other``'s mesh into this object's mesh."""
        assert self.inverse is not None
        return self.inverse @ other.placement

    def meets(self, other: "CollisionObject") -> bool:
        """Whether the two surfaces share a point (``Mesh.intersects``)."""
        return self.mesh.intersects(other.mesh, self.relative(other))

    def contacts(self, other: "CollisionObject", names: Tuple[Hashable, Hashable]) -> List[ContactData]:
        """A contact for each pair of triangles that meet, at most
        ``COLLISION_PER_PAIR_CAP``, this object's first."""
        relative = self.relative(other)
        pairs = self.mesh.intersecting_pairs(other.mesh, relative)[:COLLISION_PER_PAIR_CAP]
        if len(pairs) == 0:
            return []
        local = _triangle_distances(self.mesh, other.mesh, pairs, relative)["points_on_mesh"]
        points = local @ self.placement[:3, :3].T + self.placement[:3, 3]
        vertices = self.mesh.vertices.astype(np.float64)
        corners = vertices[self.mesh.faces[pairs[:, 0]]]
        normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        assert self.inverse is not None
        normals = normals @ self.inverse[:3, :3]
        length = np.linalg.norm(normals, axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            normals = np.where(length > 0, normals / length, 0.0)
        return [
            ContactData(names, points[k], normals[k], (int(pairs[k, 0]), int(pairs[k, 1])))
            for k in range(len(pairs))
        ]

    def gap(
        self, other: "CollisionObject", limit: float
    ) -> Optional[Tuple[float, np.ndarray, Tuple[int, int]]]:
        """The distance to ``other`` if it is at most ``limit``: the distance, the nearest
        points (2, 3) in world space (this object's first) and their triangles."""
        if self.rigid and self.inverse is not None:
            frame, moved, flipped = self, other, False
        elif other.rigid and other.inverse is not None:
            frame, moved, flipped = other, self, True
        else:
            raise ValueError(
                "distances are measured in the space of one object of the pair: give one of "
                f"{self.name!r} and {other.name!r} a transform of rotations and translations only"
            )
        found = frame.mesh.distance_to_mesh(
            moved.mesh, frame.relative(moved), None if math.isinf(limit) else limit
        )
        if found is None:
            return None
        local = found["points"].astype(np.float64)
        points = local @ frame.placement[:3, :3].T + frame.placement[:3, 3]
        ids = (int(found["primitive_ids"][0]), int(found["primitive_ids"][1]))
        if flipped:
            return found["distance"], points[::-1].copy(), (ids[1], ids[0])
        return found["distance"], points, ids


def _overlapping(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether box ``a[i]`` overlaps box ``b[j]``, (n, m), for boxes (n, 2, 3), (m, 2, 3)."""
    low = np.maximum(a[:, None, 0], b[None, :, 0])
    high = np.minimum(a[:, None, 1], b[None, :, 1])
    return (low <= high).all(axis=2)


def _box_gaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance between box ``a[i]`` and box ``b[j]``, (n, m): no pair of points of the
    two is nearer (infinite for an empty box)."""
    with np.errstate(invalid="ignore"):
        apart = np.maximum(a[:, None, 0] - b[None, :, 1], b[None, :, 0] - a[:, None, 1])
        gaps = np.sqrt((np.maximum(apart, 0.0) ** 2).sum(axis=2))
    return np.where(np.isnan(gaps), np.inf, gaps)


def _answer(result: Any, names: Any, data: Any, return_names: bool, return_data: bool) -> Any:
    """trimesh's return convention: ``result``, then ``names`` and ``data`` as asked."""
    if return_names and return_data:
        return result, names, data
    if return_names:
        return result, names
    if return_data:
        return result, data
    return result
