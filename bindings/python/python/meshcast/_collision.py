"""trimesh's ``CollisionManager`` answered by meshcast: no python-fcl needed.

``meshcast.trimesh.CollisionManager`` has the methods, arguments and return values of
``trimesh.collision.CollisionManager``; objects are trimesh meshes (anything with
``vertices`` and ``faces``) or meshcast ``Mesh``es, placed by 4x4 transforms. A manager
holds a meshcast ``Scene``, an instance per object, and each query is one of the scene's
(``Scene.colliding_pairs``, ``intersecting_instances``, ``intersecting_pairs``,
``distance_to_mesh``, ``nearest_instances``): the instances' world boxes pick the
candidates, then the exact mesh-against-mesh walks decide, in world space.

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
  there is no pair to measure (FCL answers its largest float). Distances are measured in
  world space, so any affine transforms are measured right, scaling and shear included
  (FCL takes rotations and translations only). Points are in world space, float64.
* Transforms are checked: ``(4, 4)`` or ``(3, 4)``, finite, affine, and invertible for
  the manager's objects and for the mesh whose contacts ``in_collision_single`` returns
  (``ValueError``); trimesh does not check them.
* A mesh is read when it is added (a trimesh mesh is moved to its box's centre and rounded
  to single precision, the move folded into its transform), and kept for each mesh object
  while its hash holds, so adding or testing the same mesh again builds nothing.
* Placements (the transform, after that move) are rounded to single precision, as a
  ``Scene``'s are: an object 1e4 from the origin is placed to within about 1e-3. FCL keeps
  its transforms in double precision.
"""

import math
from typing import Any, Dict, Hashable, List, Optional, Set, Tuple

from ._collision_objects import (
    EXTERNAL,
    CollisionObject,
    ContactData,
    DistanceData,
    _answer,
    contacts,
    distance_data,
)
from ._native import Scene

__all__ = ["CollisionManager", "CollisionObject", "ContactData", "DistanceData"]


class CollisionManager:
    """trimesh's mesh-against-mesh collision manager, answered by meshcast (no python-fcl).

    The same methods, arguments and return values as ``trimesh.collision.CollisionManager``;
    the differences are in the docstring of ``meshcast.trimesh``'s collision module
    (``meshcast._collision``). Objects are trimesh meshes (anything with ``vertices`` and
    ``faces``) or meshcast ``Mesh``es.
    """

    def __init__(self) -> None:
        self._objs: Dict[Hashable, CollisionObject] = {}
        self._by_id: Dict[int, CollisionObject] = {}
        self._scene = Scene()

    # --- objects ----------------------------------------------------------------------

    def add_object(self, name: Hashable, mesh: Any, transform: Any = None) -> CollisionObject:
        """Adds ``mesh`` placed by ``transform`` (4x4, mesh to world; the identity by
        default) under ``name``, replacing an object of that name; returns it."""
        obj = CollisionObject(name, mesh, transform)
        obj.id = self._scene.add(obj.mesh, obj.placement)
        if name in self._objs:
            self.remove_object(name)
        self._objs[name] = obj
        self._by_id[obj.id] = obj
        return obj

    def remove_object(self, name: Hashable) -> None:
        """Removes the object named ``name`` (``ValueError`` if there is none)."""
        obj = self._object(name)
        self._scene.remove(obj.id)
        del self._objs[name]
        del self._by_id[obj.id]

    def set_transform(self, name: Hashable, transform: Any) -> None:
        """Places the object named ``name`` by ``transform`` instead."""
        obj = self._object(name)
        matrix, placement = obj.placed(transform)
        self._scene.set_transform(obj.id, placement)
        obj.transform, obj.placement = matrix, placement

    def _object(self, name: Hashable) -> CollisionObject:
        """The object named ``name`` (``ValueError`` if there is none)."""
        if name not in self._objs:
            raise ValueError(f"{name} not in collision manager!")
        return self._objs[name]

    # --- collisions -------------------------------------------------------------------

    def in_collision_single(
        self, mesh: Any, transform: Any = None, return_names: bool = False, return_data: bool = False
    ) -> Any:
        """Whether ``mesh``, placed by ``transform``, collides with any object of the
        manager; with ``return_names``, also the set of their names; with ``return_data``,
        also a list of ``ContactData`` (names ``(name, "__external")``)."""
        external = CollisionObject(EXTERNAL, mesh, transform)
        if return_data and not external.invertible():
            raise ValueError(f"transform must be invertible for contacts, not\n{external.transform}")
        ids = self._scene.intersecting_instances(external.mesh, external.placement)
        names: Set[Any] = set()
        data: List[ContactData] = []
        for i in ids:
            obj = self._by_id[int(i)]
            names.add(obj.name)
            if return_data:
                pairs = self._scene.intersecting_pairs(obj.id, external.mesh, external.placement)
                data.extend(contacts(obj, external, pairs, (obj.name, EXTERNAL)))
        return _answer(len(ids) > 0, names, data, return_names, return_data)

    def in_collision_internal(self, return_names: bool = False, return_data: bool = False) -> Any:
        """Whether any two objects of the manager collide; with ``return_names``, also the
        set of the pairs of names that do (each pair sorted); with ``return_data``, also a
        list of ``ContactData``."""
        colliding = self._scene.colliding_pairs()
        if not (return_names or return_data):
            return len(colliding) > 0
        names: Set[Any] = set()
        data: List[ContactData] = []
        for i, j in colliding:
            a, b = self._by_id[int(i)], self._by_id[int(j)]
            if _sorts_after(a.name, b.name):
                a, b = b, a
            names.add((a.name, b.name))
            if return_data:
                pairs = self._scene.intersecting_pairs(a.id, b.id)
                data.extend(contacts(a, b, pairs, (a.name, b.name)))
        return _answer(len(colliding) > 0, names, data, return_names, return_data)

    def in_collision_other(
        self, other_manager: "CollisionManager", return_names: bool = False, return_data: bool = False
    ) -> Any:
        """Whether an object of this manager collides with one of ``other_manager``; with
        ``return_names``, also the set of the pairs of names (this manager's first); with
        ``return_data``, also a list of ``ContactData``."""
        result = False
        names: Set[Any] = set()
        data: List[ContactData] = []
        for theirs in other_manager._objs.values():
            for i in self._scene.intersecting_instances(theirs.mesh, theirs.placement):
                mine = self._by_id[int(i)]
                result = True
                names.add((mine.name, theirs.name))
                if return_data:
                    pairs = self._scene.intersecting_pairs(mine.id, theirs.mesh, theirs.placement)
                    data.extend(contacts(mine, theirs, pairs, (mine.name, theirs.name)))
            if result and not (return_names or return_data):
                break
        return _answer(result, names, data, return_names, return_data)

    # --- distances --------------------------------------------------------------------

    def min_distance_single(
        self, mesh: Any, transform: Any = None, return_name: bool = False, return_data: bool = False
    ) -> Any:
        """The distance from ``mesh``, placed by ``transform``, to the nearest object of the
        manager; with ``return_name``, also that object's name; with ``return_data``, also
        a ``DistanceData`` (names ``(name, "__external")``)."""
        external = CollisionObject(EXTERNAL, mesh, transform)
        found = self._scene.distance_to_mesh(external.mesh, external.placement)
        if found is None:
            return _answer(math.inf, None, None, return_name, return_data)
        name = self._by_id[int(found["geometry_id"])].name
        distance, data = distance_data(found, (name, EXTERNAL))
        return _answer(distance, name, data, return_name, return_data)

    def min_distance_internal(
        self, name: Optional[Hashable] = None, return_names: bool = False, return_data: bool = False
    ) -> Any:
        """The smallest distance between two objects of the manager (or, with ``name``,
        between that object and any other); with ``return_names``, also their names
        (sorted); with ``return_data``, also a ``DistanceData``."""
        of = None if name is None else self._object(name).id
        found = self._scene.nearest_instances(of)
        if found is None:
            return _answer(math.inf, None, None, return_names, return_data)
        a, b = (self._by_id[int(i)].name for i in found["geometry_ids"])
        distance, data = distance_data(found, (a, b))
        answered = (b, a) if _sorts_after(a, b) else (a, b)
        return _answer(distance, answered, data, return_names, return_data)

    def min_distance_other(
        self, other_manager: "CollisionManager", return_names: bool = False, return_data: bool = False
    ) -> Any:
        """The smallest distance between an object of this manager and one of
        ``other_manager``; with ``return_names``, also their names (this manager's first);
        with ``return_data``, also a ``DistanceData``."""
        best: Optional[Tuple[dict, CollisionObject]] = None
        for theirs in other_manager._objs.values():
            limit = None if best is None else best[0]["distance"]
            found = self._scene.distance_to_mesh(theirs.mesh, theirs.placement, limit)
            if found is not None and (best is None or found["distance"] < best[0]["distance"]):
                best = (found, theirs)
                if found["distance"] == 0.0:
                    break
        if best is None:
            return _answer(math.inf, None, None, return_names, return_data)
        found, theirs = best
        names = (self._by_id[int(found["geometry_id"])].name, theirs.name)
        distance, data = distance_data(found, names)
        return _answer(distance, names, data, return_names, return_data)


def _sorts_after(a: Hashable, b: Hashable) -> bool:
    """Whether name ``a`` sorts after ``b`` (names that do not compare keep their order)."""
    try:
        return bool(b < a)  # type: ignore[operator]
    except TypeError:
        return False
