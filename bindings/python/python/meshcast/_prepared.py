"""What meshcast's trimesh drop-ins query for a mesh: a meshcast ``Mesh`` of its vertices
and faces as they were when it was made, and a cache of them per mesh object, kept while the
object lives and its hash holds."""

import threading
import weakref
from functools import cached_property
from typing import Any, Dict, Optional, Tuple

import numpy as np

from ._native import Mesh


class _Prepared:
    """The meshcast mesh of a mesh's vertices and faces as they were when it was made.

    The vertices are moved so that the centre of their box is at the origin before they are
    rounded to single precision (queries move their points with them), so that a mesh far
    from the origin keeps its precision; the float64 triangles are kept to compute answers in
    float64. No reference to the mesh object is kept, so a module-level cache of these does
    not keep meshes alive.
    """

    def __init__(self, mesh: Any, key: int) -> None:
        vertices = np.asarray(mesh.vertices, dtype=np.float64).reshape((-1, 3))
        faces = np.asarray(mesh.faces, dtype=np.int64).reshape((-1, 3))
        if len(vertices) > 0:
            low, high = vertices.min(axis=0), vertices.max(axis=0)
        else:
            low = high = np.zeros(3)
        self.key = key
        self.center = (low + high) / 2.0
        self.size = float(np.linalg.norm(high - low))
        self.vertices = vertices
        self.faces = faces
        self.native = Mesh(vertices - self.center, faces)
        self._tree: Any = None
        self._lock = threading.Lock()

    @staticmethod
    def of(mesh: Any, cached: "Optional[_Prepared]") -> "_Prepared":
        """``cached`` while ``hash(mesh)`` is what it was made for, else a new one."""
        key = hash(mesh)
        if cached is not None and cached.key == key:
            return cached
        return _Prepared(mesh, key)

    @cached_property
    def triangles(self) -> np.ndarray:
        """Each triangle's float64 corners (f, 3, 3), gathered on first use, once: one
        gather per query instead of two."""
        return self.vertices[self.faces]

    def tree(self) -> Any:
        """A scipy ``cKDTree`` of the vertices, made on first use (as trimesh's ``kdtree``)."""
        with self._lock:
            if self._tree is None:
                from scipy.spatial import cKDTree

                self._tree = cKDTree(self.vertices)
            return self._tree


#: The meshes the module's functions were last given: ``id(mesh)`` to a weak reference to
#: the mesh and what was prepared for it (which holds no reference to the mesh).
_prepared_by_id: Dict[int, Tuple[Any, _Prepared]] = {}
_prepared_lock = threading.Lock()


def kept(mesh: Any) -> _Prepared:
    """The ``_Prepared`` of ``mesh``, kept while the mesh lives (and its hash holds), so
    that the next call with the same object builds nothing."""
    key = id(mesh)
    with _prepared_lock:
        entry = _prepared_by_id.get(key)
        cached = entry[1] if entry is not None and entry[0]() is mesh else None
    prepared = _Prepared.of(mesh, cached)
    if prepared is cached:
        return prepared
    try:
        alive = weakref.ref(mesh, lambda _, key=key: _prepared_by_id.pop(key, None))
    except TypeError:  # not weakly referenceable: nothing is kept
        return prepared
    with _prepared_lock:
        _prepared_by_id[key] = (alive, prepared)
    return prepared
