"""trimesh's ``CollisionManager`` answered by meshcast: no python-fcl needed.

``meshcast.trimesh.CollisionManager`` has the methods, arguments and return values of
``trimesh.collision.CollisionManager``; objects are trimesh meshes (anything with
``vertices`` and ``faces``) or meshcast ``Mesh``es, placed by 4x4 transforms. Each query
first keeps the pairs of objects whose boxes in world space overlap (or, for distances,
takes them nearest box first), then asks meshcast's exact mesh-against-mesh queries of
each pair (``Mesh.intersects``, ``Mesh.intersecting_pairs``, ``Mesh.distance_to_mesh``).

How the answers differ from trimesh's (FCL's):

* Collisions are decided exactly: two objects collide when their surfaces share a point,
  touching included (faces lying on each other, an edge on a face). FCL tests triangles
  with a floating-point tolerance, and trimesh hands it a *convex* mesh as a solid
  (``mesh.is_convex``), so there a mesh wholly inside a convex one collides with it;
  here surfaces are compared, for every mesh, and it does not.
* ``ContactData``: one contact for each pair of triangles that meet (FCL may report up to
  two per pair, and caps them; the same cap, ``COLLISION_PER_PAIR_CAP``, applies here per
  pair of objects). ``point`` is a point where the two triangles meet (the nearest points
  of the pair, which coincide; FCL's are its clipping's deepest points), ``normal`` the
  unit normal, in world space, of the triangle of the first object of the pair (the
  manager's object for ``in_collision_single``, this manager's for
  ``in_collision_other``, the one whose name sorts first for ``in_collision_internal``),
  and ``depth`` is NaN: no penetration depth is computed.
* ``min_distance_*`` answer 0.0 for objects that touch or cross, not FCL's negative
  penetration estimate for convex shapes, and infinity (with names and data None) when
  there is no pair to measure (FCL answers its largest float). The distance is measured
  in the space of one object of the pair, so that object's transform must keep lengths:
  rotations, reflections and translations, as FCL requires; one of the two may scale or
  shear (``ValueError`` when neither is rigid). Points are in world space, float64.
* Transforms are checked: ``(4, 4)`` or ``(3, 4)``, finite, affine, and for the manager's
  objects invertible (``ValueError``); trimesh does not check them.
* A mesh is read when it is added (a trimesh mesh is moved to its box's centre and rounded
  to single precision, the move folded into its transform), and kept for each mesh object
  while its hash holds, so adding or testing the same mesh again builds nothing.
"""

import math
from typing import Any, Dict, Hashable, List, Optional, Set, Tuple

import numpy as np

from ._collision_objects import (
    EXTERNAL,
    CollisionObject,
    ContactData,
    DistanceData,
    _answer,
    _box_gaps,
    _overlapping,
)

__all__ = ["CollisionManager", "CollisionObject", "ContactData", "DistanceData"]

#: A pair of objects, the first the one whose space a query works in.
_Pair = Tuple[CollisionObject, CollisionObject]


class CollisionManager:
    """trimesh's mesh-against-mesh collision manager, answered by meshcast (no python-fcl).

    The same methods, arguments and return values as ``trimesh.collision.CollisionManager``;
    the differences are in the docstring of ``meshcast.trimesh``'s collision module
    (``meshcast._collision``). Objects are trimesh meshes (anything with ``vertices`` and
    ``faces``) or meshcast ``Mesh``es.
    """

    def __init__(self) -> None:
        self._objs: Dict[Hashable, CollisionObject] = {}
        self._boxes: Optional[np.ndarray] = None

    # --- objects ----------------------------------------------------------------------

    def add_object(self, name: Hashable, mesh: Any, transform: Any = None) -> CollisionObject:
        """Adds ``mesh`` placed by ``transform`` (4x4, mesh to world; the identity by
        default) under ``name``, replacing an object of that name; returns it."""
        obj = CollisionObject(name, mesh, transform, invertible=True)
        self._objs.pop(name, None)
        self._objs[name] = obj
        self._boxes = None
        return obj

    def remove_object(self, name: Hashable) -> None:
        """Removes the object named ``name`` (``ValueError`` if there is none)."""
        if name not in self._objs:
            raise ValueError(f"{name} not in collision manager!")
        del self._objs[name]
        self._boxes = None

    def set_transform(self, name: Hashable, transform: Any) -> None:
        """Places the object named ``name`` by ``transform`` instead."""
        if name not in self._objs:
            raise ValueError(f"{name} not in collision manager!")
        self._objs[name].set_transform(transform, invertible=True)
        self._boxes = None

    def _objects(self) -> Tuple[List[CollisionObject], np.ndarray]:
        """The objects, in the order they were added, and their boxes (n, 2, 3)."""
        objects = list(self._objs.values())
        if self._boxes is None or len(self._boxes) != len(objects):
            self._boxes = np.array([o.bounds for o in objects]).reshape((-1, 2, 3))
        return objects, self._boxes

    # --- collisions -------------------------------------------------------------------

    @staticmethod
    def _collide(
        pairs: List[Tuple[_Pair, Tuple[Hashable, Hashable]]],
        return_names: bool,
        return_data: bool,
        named: Any,
    ) -> Any:
        """The answer of a collision query over ``pairs`` of objects whose boxes overlap,
        each with its names (the first object's first); ``named(names)`` is what
        ``return_names`` collects of a colliding pair."""
        result = False
        names: Set[Any] = set()
        contacts: List[ContactData] = []
        for (a, b), pair_names in pairs:
            if return_data:
                found = a.contacts(b, pair_names)
                contacts.extend(found)
                hit = bool(found)
            else:
                hit = a.meets(b)
            if hit:
                result = True
                names.add(named(pair_names))
                if not (return_names or return_data):
                    break
        return _answer(result, names, contacts, return_names, return_data)

    def in_collision_single(
        self, mesh: Any, transform: Any = None, return_names: bool = False, return_data: bool = False
    ) -> Any:
        """Whether ``mesh``, placed by ``transform``, collides with any object of the
        manager; with ``return_names``, also the set of their names; with ``return_data``,
        also a list of ``ContactData`` (names ``(name, "__external")``)."""
        external = CollisionObject(EXTERNAL, mesh, transform, invertible=False)
        objects, boxes = self._objects()
        near = np.flatnonzero(_overlapping(boxes, external.bounds[None])[:, 0])
        pairs = [((objects[i], external), (objects[i].name, EXTERNAL)) for i in near]
        return self._collide(pairs, return_names, return_data, lambda names: names[0])

    def in_collision_internal(self, return_names: bool = False, return_data: bool = False) -> Any:
        """Whether any two objects of the manager collide; with ``return_names``, also the
        set of the pairs of names that do (each pair sorted); with ``return_data``, also a
        list of ``ContactData``."""
        objects, boxes = self._objects()
        overlap = np.triu(_overlapping(boxes, boxes), k=1)
        pairs = []
        for i, j in zip(*np.nonzero(overlap)):
            a, b = objects[i], objects[j]
            if _sorts_after(a.name, b.name):
                a, b = b, a
            pairs.append(((a, b), (a.name, b.name)))
        return self._collide(pairs, return_names, return_data, lambda names: names)

    def in_collision_other(
        self, other_manager: "CollisionManager", return_names: bool = False, return_data: bool = False
    ) -> Any:
        """Whether an object of this manager collides with one of ``other_manager``; with
        ``return_names``, also the set of the pairs of names (this manager's first); with
        ``return_data``, also a list of ``ContactData``."""
        mine, my_boxes = self._objects()
        theirs, their_boxes = other_manager._objects()
        overlap = _overlapping(my_boxes, their_boxes)
        pairs = [
            ((mine[i], theirs[j]), (mine[i].name, theirs[j].name)) for i, j in zip(*np.nonzero(overlap))
        ]
        return self._collide(pairs, return_names, return_data, lambda names: names)

    # --- distances --------------------------------------------------------------------

    @staticmethod
    def _nearest(
        pairs: List[_Pair], box_gaps: np.ndarray
    ) -> Optional[Tuple[float, _Pair, np.ndarray, Tuple[int, int]]]:
        """The nearest of ``pairs`` of objects, nearest box first, each asked only for a
        distance at most the best so far: its distance, the pair, the nearest points and
        triangles; None when no pair has one."""
        best: Optional[Tuple[float, _Pair, np.ndarray, Tuple[int, int]]] = None
        for k in np.argsort(box_gaps, kind="stable"):
            limit = math.inf if best is None else best[0]
            if box_gaps[k] > limit:
                break
            a, b = pairs[k]
            found = a.gap(b, limit)
            if found is not None and (best is None or found[0] < best[0]):
                best = (found[0], pairs[k], found[1], found[2])
                if best[0] == 0.0:
                    break
        return best

    @staticmethod
    def _distance_answer(
        best: Optional[Tuple[float, _Pair, np.ndarray, Tuple[int, int]]],
        names: Any,
        return_names: bool,
        return_data: bool,
    ) -> Any:
        """The answer of a distance query: ``names(pair)`` gives what ``return_names``
        answers and the names of the data, the first object's first."""
        if best is None:
            return _answer(math.inf, None, None, return_names, return_data)
        distance, pair, points, triangles = best
        answered, data_names = names(pair)
        data = DistanceData(data_names, distance, points, triangles)
        return _answer(distance, answered, data, return_names, return_data)

    def min_distance_single(
        self, mesh: Any, transform: Any = None, return_name: bool = False, return_data: bool = False
    ) -> Any:
        """The distance from ``mesh``, placed by ``transform``, to the nearest object of the
        manager; with ``return_name``, also that object's name; with ``return_data``, also
        a ``DistanceData`` (names ``(name, "__external")``)."""
        external = CollisionObject(EXTERNAL, mesh, transform, invertible=False)
        objects, boxes = self._objects()
        gaps = _box_gaps(boxes, external.bounds[None])[:, 0]
        best = self._nearest([(o, external) for o in objects], gaps)
        return self._distance_answer(
            best, lambda pair: (pair[0].name, (pair[0].name, EXTERNAL)), return_name, return_data
        )

    def min_distance_internal(
        self, name: Optional[Hashable] = None, return_names: bool = False, return_data: bool = False
    ) -> Any:
        """The smallest distance between two objects of the manager (or, with ``name``,
        between that object and any other); with ``return_names``, also their names
        (sorted); with ``return_data``, also a ``DistanceData``."""
        objects, boxes = self._objects()
        if name is not None:
            if name not in self._objs:
                raise ValueError(f"{name} not in collision manager!")
            one = self._objs[name]
            others = [k for k, o in enumerate(objects) if o is not one]
            pairs = [(one, objects[k]) for k in others]
            gaps = _box_gaps(one.bounds[None], boxes[others].reshape((-1, 2, 3)))[0]
        else:
            upper = np.triu_indices(len(objects), k=1)
            pairs = [(objects[i], objects[j]) for i, j in zip(*upper)]
            gaps = _box_gaps(boxes, boxes)[upper]

        def names(pair: _Pair) -> Tuple[Any, Any]:
            both = (pair[0].name, pair[1].name)
            return (both[::-1] if _sorts_after(*both) else both), both

        best = self._nearest(pairs, gaps)
        return self._distance_answer(best, names, return_names, return_data)

    def min_distance_other(
        self, other_manager: "CollisionManager", return_names: bool = False, return_data: bool = False
    ) -> Any:
        """The smallest distance between an object of this manager and one of
        ``other_manager``; with ``return_names``, also their names (this manager's first);
        with ``return_data``, also a ``DistanceData``."""
        mine, my_boxes = self._objects()
        theirs, their_boxes = other_manager._objects()
        gaps = _box_gaps(my_boxes, their_boxes)
        pairs = [(a, b) for a in mine for b in theirs]

        def names(pair: _Pair) -> Tuple[Any, Any]:
            both = (pair[0].name, pair[1].name)
            return both, both

        best = self._nearest(pairs, gaps.reshape(-1))
        return self._distance_answer(best, names, return_names, return_data)


def _sorts_after(a: Hashable, b: Hashable) -> bool:
    """Whether name ``a`` sorts after ``b`` (names that do not compare keep their order)."""
    try:
        return bool(b < a)  # type: ignore[operator]
    except TypeError:
        return False
