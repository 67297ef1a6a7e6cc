"""The pieces of ``meshcast.trimesh.CollisionManager``: its objects (a meshcast mesh and
its placement in the world), trimesh's ``ContactData`` and ``DistanceData``, and the
contacts of a pair of placed meshes."""

import math
from typing import Any, Hashable, List, Optional, Tuple

import numpy as np

from ._native import Mesh, _triangle_distances
from ._prepared import kept

#: At most this many contacts for one pair of objects (trimesh's cap).
COLLISION_PER_PAIR_CAP = 100000

#: The name of the object a ``*_single`` query is asked about, in its data (trimesh's).
EXTERNAL = "__external"


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
    """``transform`` as a 4x4 float64 matrix (the identity for None); its shape is checked
    here, the rest (finite, affine, invertible) where the scene takes it."""
    if transform is None:
        return np.eye(4)
    matrix = np.asarray(transform, dtype=np.float64)
    if matrix.shape == (3, 4):
        return np.vstack([matrix, [0.0, 0.0, 0.0, 1.0]])
    if matrix.shape != (4, 4):
        raise ValueError(f"{name} must have shape (4, 4) or (3, 4), not {matrix.shape}")
    return matrix


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
    ``transform`` (4x4, mesh to world), with the ``placement`` of the meshcast mesh in the
    world (``transform`` after the move of a trimesh mesh to its centre) and, once added to
    a manager, the ``id`` of its instance in the manager's scene."""

    def __init__(self, name: Hashable, mesh: Any, transform: Any) -> None:
        self.name = name
        self.mesh, self._center = _native(mesh)
        self.id: Optional[int] = None
        self.transform, self.placement = self.placed(transform)

    def placed(self, transform: Any) -> Tuple[np.ndarray, np.ndarray]:
        """``transform`` checked as a 4x4 float64 matrix, and the placement of the meshcast
        mesh that it makes."""
        matrix = _matrix(transform)
        if not self._center.any():
            return matrix, matrix
        placement = matrix.copy()
        placement[:3, 3] += matrix[:3, :3] @ self._center
        return matrix, placement

    def invertible(self) -> bool:
        """Whether the placement, rounded to single precision as a scene rounds it, has an
        inverse (a scene's instances must)."""
        determinant = np.linalg.det(self.placement[:3, :3].astype(np.float32).astype(np.float64))
        return bool(np.isfinite(determinant) and determinant != 0.0)


def contacts(
    first: CollisionObject, second: CollisionObject, pairs: np.ndarray, names: Tuple[Hashable, Hashable]
) -> List[ContactData]:
    """A contact for each pair of triangles (``first``'s, ``second``'s) of ``pairs`` (k, 2),
    at most ``COLLISION_PER_PAIR_CAP``: a point where they meet and the unit normal of
    ``first``'s triangle, both in world space."""
    pairs = pairs[:COLLISION_PER_PAIR_CAP]
    if len(pairs) == 0:
        return []
    found = _triangle_distances(
        first.mesh, second.mesh, pairs, second.placement, mesh_transform=first.placement
    )
    points = found["points_on_mesh"]
    linear, shift = first.placement[:3, :3], first.placement[:3, 3]
    corners = first.mesh.vertices.astype(np.float64)[first.mesh.faces[pairs[:, 0]]] @ linear.T + shift
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normals = np.where(length > 0, normals / length, 0.0)
    return [
        ContactData(names, points[k], normals[k], (int(pairs[k, 0]), int(pairs[k, 1]))) for k in range(len(pairs))
    ]


def distance_data(found: dict, names: Tuple[Hashable, Hashable]) -> Tuple[float, DistanceData]:
    """The distance and ``DistanceData`` of a meshcast distance answer (``points`` and
    ``primitive_ids`` in the order of ``names``)."""
    points = found["points"].astype(np.float64)
    ids = (int(found["primitive_ids"][0]), int(found["primitive_ids"][1]))
    distance = float(found["distance"])
    return distance, DistanceData(names, distance, points, ids)


def _answer(result: Any, names: Any, data: Any, return_names: bool, return_data: bool) -> Any:
    """trimesh's return convention: ``result``, then ``names`` and ``data`` as asked."""
    if return_names and return_data:
        return result, names, data
    if return_names:
        return result, names
    if return_data:
        return result, data
    return result
