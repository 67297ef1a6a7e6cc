"""A drop-in for trimesh's ray interface, answered by meshcast.

Assign it to a mesh and trimesh's own methods use it from then on::

    import trimesh
    import meshcast.trimesh

    mesh = trimesh.load("bunny.obj")
    mesh.ray = meshcast.trimesh.RayMeshIntersector(mesh)
    locations, index_ray, index_tri = mesh.ray.intersects_location(origins, directions)
    inside = mesh.contains(points)        # trimesh calls mesh.ray.contains_points

``RayMeshIntersector`` has the methods, arguments and return conventions of trimesh's two
intersectors (``trimesh.ray.ray_triangle`` and ``trimesh.ray.ray_pyembree``):
``intersects_id``, ``intersects_location``, ``intersects_first``, ``intersects_any`` and
``contains_points``, with int64 indices, float64 locations and bool flags. Only the mesh's
``vertices`` and ``faces`` are read, so this module imports without trimesh installed.

How the answers differ from trimesh's:

* A ray that touches the mesh without crossing into it (down a box's edge, through a
  corner) hits it for ``intersects_first``, ``intersects_any`` and ``intersects_id`` with
  ``multiple_hits=False``, as trimesh's Embree intersector answers, whichever edge it runs
  down. Listing every hit (``multiple_hits=True``) counts crossings instead, each once: a
  ray that only touches the surface is listed there twice or not at all, so that the
  parity of a ray's hits still tells inside from outside.

* Each crossing of the surface is reported exactly once, also where the ray goes through
  an edge or a vertex shared by several triangles, so hit counts are crossing counts and
  parity tests are right. trimesh's Embree backend lets rays slip through edges and
  vertices and re-finds hits as it steps past them (trimesh issue #242, "Inaccuracies in
  mesh.contains", which gathers the reports); its pure-Python backend accepts a hit within
  a tolerance of each triangle, so ``intersects_id`` lists a hit through an edge on both
  triangles and one through a vertex on every triangle around it (issue #2317). trimesh's
  ``intersects_location`` merges the hits of a ray whose locations agree to 8 decimals,
  which removes most of those repeats but also merges distinct crossings closer than
  1e-8; here nothing is merged and nothing needs to be.
* Hits are listed ray by ray, each ray's nearest first, and only strictly in front of the
  origin (``t > 0``). trimesh also keeps hits up to a small tolerance behind the origin, so
  a ray starting on the surface reports that surface there and here does not.
* The length of a direction does not matter (as in trimesh): only where the ray goes.
  A zero direction hits nothing; a NaN or infinite origin or direction raises
  ``ValueError`` (trimesh does not check for them).
* ``contains_points`` is meshcast's exact ``contains``: on a closed mesh the parity of the
  crossings of one ray, counted exactly, so it is right for every point farther from the
  surface than single-precision rounding (trimesh casts two rays per point, in the
  directions it chose, and retries where they disagree). On an open mesh it
  is the generalised winding number at least 0.5 rather than trimesh's ray parity. A NaN
  or infinite point raises ``ValueError``.
* ``max_hits`` defaults to ``None``, every hit. trimesh's Embree backend stops after 100
  (each hit costs it another pass over the rays); pass ``max_hits`` to keep at most that
  many nearest hits of each ray.
* meshcast computes in single precision. The mesh is moved so that the centre of its box
  is at the origin before its coordinates are rounded, and the rays are moved with it and
  given to meshcast in float64, which carries each into the mesh's frame before rounding
  it (a ray starting far away is first moved along itself), so a mesh far from the
  origin, and a ray from far away, keep their precision. Locations are computed in float64 from
  the mesh's own vertices: where the ray meets the plane of the triangle hit, as trimesh
  computes them, or for a ray grazing the plane so closely that this point is off the
  triangle, the point meshcast found on the triangle (within rounding of the ray).

The meshcast mesh is built on the first query and rebuilt when ``hash(mesh)`` changes, as
trimesh's own intersectors cache their acceleration structures: a trimesh mesh's hash
follows its vertices and faces. The assignment above affects that mesh object only:
``mesh.copy()`` and the results of trimesh operations get trimesh's default intersector.

Proximity: ``ProximityQuery`` is trimesh's ``mesh.nearest`` (``on_surface``, ``vertex``,
``signed_distance``), and ``closest_point``, ``signed_distance`` and ``longest_ray`` are
``trimesh.proximity``'s functions, with their arguments, return tuples and dtypes and
trimesh's sign (positive inside)::

    mesh.nearest = meshcast.trimesh.ProximityQuery(mesh)      # thickness, ICP, ... use it
    closest, distance, triangle_id = meshcast.trimesh.closest_point(mesh, points)

How the answers differ from trimesh's:

* meshcast picks each point's triangle in single precision (the mesh moved to the origin
  first, as above) and computes the point on it in double precision, so distances agree
  with trimesh's to single precision's rounding of the mesh's size: of two triangles
  nearly as near, either may be picked. Where several triangles share the nearest point
  (a vertex or an edge) the smaller index is given; trimesh gives the one whose normal
  faces the point best.
* trimesh's closest point on a triangle compares quantities that scale with the fourth
  power of its size with an absolute 1e-13, so on small triangles (the bunny's, about a
  millimetre) it puts points on an edge that project inside: of points near the bunny's
  surface, 15% too far, by up to 4e-4 of its size. meshcast's points there are the true
  ones, nearer.
* ``signed_distance``'s sign is meshcast's exact inside test (``contains_points`` above),
  where trimesh takes the closest triangle's normal when the point projects into it; the
  two disagree on a few points, where trimesh's own ``contains`` agrees with meshcast.
  Points within ``TOL_MERGE`` (1e-8) of the surface are positive, as in trimesh.
* ``longest_ray`` skips hits within ``TOL_PLANAR`` (1e-5) of the point, as trimesh does,
  and measures in double precision along the ray to the plane of the triangle hit.
* ``vertex`` is trimesh's own answer (scipy's ``cKDTree``): meshcast has no point cloud
  query.
* A mesh with no triangles answers NaN points, infinite distances and triangle -1 (trimesh
  raises); NaN or infinite points raise ``ValueError``.

Collisions: ``CollisionManager`` is ``trimesh.collision.CollisionManager`` without
python-fcl, with its methods, arguments and return values (``ContactData``,
``DistanceData``), exact answers and a box prefilter; how its answers differ from FCL's is
in the docstring of ``meshcast._collision``::

    manager = meshcast.trimesh.CollisionManager()
    manager.add_object("bunny", mesh)
    hit, names = manager.in_collision_single(other, transform, return_names=True)
"""

from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from ._collision import CollisionManager, CollisionObject, ContactData, DistanceData
from ._native import INVALID_ID
from ._prepared import _Prepared, _prepared_by_id, kept as _kept

__all__ = [
    "CollisionManager",
    "CollisionObject",
    "ContactData",
    "DistanceData",
    "RayMeshIntersector",
    "ProximityQuery",
    "closest_point",
    "signed_distance",
    "longest_ray",
]


class RayMeshIntersector:
    """Ray queries on a trimesh mesh (or any hashable object with ``vertices`` and ``faces``).

    Parameters
    ----------
    mesh : trimesh.Trimesh
      The mesh to query, kept as the ``mesh`` attribute: hashed on every query, and its
      vertices and faces read again when the hash changes.
    scale_to_box : bool
      Accepted as trimesh's Embree intersector takes it (``ray_pyembree``), and changes
      nothing: that intersector scales the mesh to about a unit cube for its precision,
      while floating point is as precise at every scale. What meshcast needs instead it
      always does: the mesh is moved so that the centre of its box is at the origin before
      it is rounded to single precision.
    threads : int or None
      How many threads meshcast uses; None (the default) or 0 uses every core.
    """

    def __init__(
        self, mesh: Any, scale_to_box: bool = True, *, threads: Optional[int] = None
    ) -> None:
        self.mesh = mesh
        self.scale_to_box = bool(scale_to_box)
        self.threads = threads
        # Built on the first query and rebuilt when `hash(mesh)` changes.
        self._prepared: Optional[_Prepared] = None

    def _current(self) -> _Prepared:
        """The meshcast mesh of ``self.mesh``'s current vertices and faces."""
        self._prepared = _Prepared.of(self.mesh, self._prepared)
        return self._prepared

    def _rays(self, ray_origins: Any, ray_directions: Any) -> Tuple[np.ndarray, np.ndarray]:
        """The rays as float64 (n, 3) arrays, directions scaled to a largest component of 1.

        The length of a direction does not change the hits, and the scaling keeps every
        direction inside single precision's range however long or short it was given (a
        NaN or infinite direction becomes NaN, which meshcast rejects).
        """
        origins = np.asarray(ray_origins, dtype=np.float64)
        directions = np.asarray(ray_directions, dtype=np.float64)
        if origins.ndim != 2 or origins.shape[1] != 3:
            raise ValueError(f"ray_origins must be (n, 3), got shape {origins.shape}")
        if origins.shape != directions.shape:
            raise ValueError(
                f"ray_origins {origins.shape} and ray_directions {directions.shape} "
                "must have the same shape"
            )
        largest = np.abs(directions).max(axis=1, initial=0.0, keepdims=True)
        with np.errstate(invalid="ignore"):
            scaled = np.divide(
                directions, largest, out=np.zeros_like(directions), where=largest != 0
            )
        return origins, scaled

    @staticmethod
    def _locations(
        prepared: _Prepared,
        index_tri: np.ndarray,
        index_ray: np.ndarray,
        uvs: np.ndarray,
        ray_origins: np.ndarray,
        ray_directions: np.ndarray,
    ) -> np.ndarray:
        """Where each ray meets the triangle it hit, in float64 on the mesh's own vertices.

        meshcast finds each hit on the mesh and the ray rounded to single precision. The
        location reported is where the float64 ray meets the plane of the float64 triangle
        (trimesh's own formula, so the point is on the ray) when that point is on the
        triangle to within 1e-6 of the mesh's size. When it is not (a ray grazing the
        plane, where the rounding decided the hit, or parallel to it in float64), the point
        at meshcast's barycentric coordinates is reported instead: on the triangle, and
        within rounding of the ray.
        """
        corners = prepared.vertices[prepared.faces[index_tri]]
        origins = ray_origins[index_ray]
        directions = ray_directions[index_ray]
        normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        edges = np.roll(corners, -1, axis=1) - corners
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.einsum("ij,ij->i", corners[:, 0] - origins, normals) / np.einsum(
                "ij,ij->i", directions, normals
            )
            on_ray = origins + t[:, None] * directions
            # How far inside each edge the point is, in the triangle's plane.
            inside_edges = np.einsum(
                "kij,kj->ki", np.cross(edges, on_ray[:, None] - corners), normals
            ) / (np.linalg.norm(edges, axis=2) * np.linalg.norm(normals, axis=1)[:, None])
        on_triangle = (inside_edges >= -1e-6 * prepared.size).all(axis=1)

        u = uvs[:, :1].astype(np.float64)
        v = uvs[:, 1:].astype(np.float64)
        at_uvs = (1.0 - u - v) * corners[:, 0] + u * corners[:, 1] + v * corners[:, 2]
        return np.where(on_triangle[:, None], on_ray, at_uvs)

    def intersects_id(
        self,
        ray_origins: Any,
        ray_directions: Any,
        multiple_hits: bool = True,
        max_hits: Optional[int] = None,
        return_locations: bool = False,
    ) -> Union[Tuple[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The triangles the rays hit, ray by ray, each ray's nearest hit first.

        Parameters
        ----------
        ray_origins : (n, 3) float
          Origins of the rays.
        ray_directions : (n, 3) float
          Directions of the rays (any nonzero length).
        multiple_hits : bool
          Every hit of each ray if True, only the nearest if False.
        max_hits : int or None
          At most this many nearest hits of each ray; None keeps them all.
        return_locations : bool
          Also return where each hit is.

        Returns
        -------
        index_tri : (h,) int64
          Index in ``mesh.faces`` of the triangle of each hit.
        index_ray : (h,) int64
          Index of the ray of each hit.
        locations : (h, 3) float64
          Only if ``return_locations``: the point of each hit.
        """
        prepared = self._current()
        origins, directions = self._rays(ray_origins, ray_directions)
        if multiple_hits:
            # The cap goes to the walk, which stops looking past each ray's first hits.
            listed = prepared.native.list_intersections(
                origins=origins - prepared.center,
                directions=directions,
                max_hits=None if max_hits is None else max(int(max_hits), 0),
                threads=self.threads,
            )
            index_tri = listed["primitive_ids"].astype(np.int64)
            index_ray = listed["ray_ids"].astype(np.int64)
            uvs = listed["primitive_uvs"]
        else:
            nearest = prepared.native.cast_rays(
                origins=origins - prepared.center, directions=directions, threads=self.threads
            )
            hit = nearest["primitive_ids"] != INVALID_ID
            if max_hits is not None and max_hits < 1:
                hit[:] = False
            index_tri = nearest["primitive_ids"][hit].astype(np.int64)
            index_ray = np.flatnonzero(hit).astype(np.int64)
            uvs = nearest["primitive_uvs"][hit]
        if return_locations:
            locations = self._locations(prepared, index_tri, index_ray, uvs, origins, directions)
            return index_tri, index_ray, locations
        return index_tri, index_ray

    def intersects_location(
        self, ray_origins: Any, ray_directions: Any, multiple_hits: bool = True
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where the rays hit the mesh, ray by ray, each ray's nearest hit first.

        Returns
        -------
        locations : (h, 3) float64
          The point of each hit.
        index_ray : (h,) int64
          Index of the ray of each hit.
        index_tri : (h,) int64
          Index in ``mesh.faces`` of the triangle of each hit.
        """
        index_tri, index_ray, locations = self.intersects_id(
            ray_origins,
            ray_directions,
            multiple_hits=multiple_hits,
            return_locations=True,
        )
        return locations, index_ray, index_tri

    def intersects_first(self, ray_origins: Any, ray_directions: Any) -> np.ndarray:
        """The index of the first triangle each ray hits, -1 where it hits none (int64)."""
        prepared = self._current()
        origins, directions = self._rays(ray_origins, ray_directions)
        primitive_ids = prepared.native.cast_rays(
            origins=origins - prepared.center, directions=directions, threads=self.threads
        )["primitive_ids"]
        first = primitive_ids.astype(np.int64)
        first[primitive_ids == INVALID_ID] = -1
        return first

    def intersects_any(self, ray_origins: Any, ray_directions: Any) -> np.ndarray:
        """Whether each ray hits the mesh anywhere in front of its origin (bool)."""
        prepared = self._current()
        origins, directions = self._rays(ray_origins, ray_directions)
        return prepared.native.test_occlusions(
            origins=origins - prepared.center, directions=directions, threads=self.threads
        )

    def contains_points(self, points: Any) -> np.ndarray:
        """Whether each point is inside the mesh (bool), by meshcast's exact ``contains``.

        On a closed mesh this is exact for every point off the surface (beyond single
        precision's rounding of it); on an open mesh it is the generalised winding number at
        least 0.5.
        """
        points = np.asarray(points, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != 3:
            raise ValueError(f"points must be (n, 3), got shape {points.shape}")
        prepared = self._current()
        return prepared.native.contains(points - prepared.center, threads=self.threads)

    def __getstate__(self) -> Dict[str, Any]:
        """Pickle the mesh and settings, not the meshcast mesh (rebuilt when next needed)."""
        return {"mesh": self.mesh, "scale_to_box": self.scale_to_box, "threads": self.threads}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(
            state["mesh"],
            state.get("scale_to_box", True),
            threads=state["threads"],
        )


# --- trimesh.proximity, answered by meshcast ---------------------------------------------

#: trimesh's ``tol.merge``: ``signed_distance`` counts points this close to the surface as
#: on it, with a positive distance.
TOL_MERGE = 1e-8

#: trimesh's ``tol.planar``: ``longest_ray`` skips hits this close to the ray's origin.
TOL_PLANAR = 1e-5


def _as_rows(values: Any, name: str) -> np.ndarray:
    """``values`` as a float64 (n, 3) array, or ``ValueError``."""
    rows = np.asarray(values, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] != 3:
        raise ValueError(f"{name} must be (n, 3), got shape {rows.shape}")
    return rows


def _closest_on_triangles(corners: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The point of each triangle ``corners[i]`` (k, 3, 3) nearest to ``points[i]`` (k, 3),
    in float64 (Ericson, *Real-Time Collision Detection*, 2005, 5.1.5: the Voronoi region of
    the point, corners first, then edges, then the face)."""
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    ab, ac = b - a, c - a

    def dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", x, y)

    ap, bp, cp = points - a, points - b, points - c
    d1, d2 = dot(ab, ap), dot(ac, ap)
    d3, d4 = dot(ab, bp), dot(ac, bp)
    d5, d6 = dot(ab, cp), dot(ac, cp)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        on_ab = a + (d1 / (d1 - d3))[:, None] * ab
        on_ac = a + (d2 / (d2 - d6))[:, None] * ac
        on_bc = b + ((d4 - d3) / ((d4 - d3) + (d5 - d6)))[:, None] * (c - b)
        total = va + vb + vc
        inside = a + (vb / total)[:, None] * ab + (vc / total)[:, None] * ac
    regions = [
        (d1 <= 0) & (d2 <= 0),
        (d3 >= 0) & (d4 <= d3),
        (vc <= 0) & (d1 >= 0) & (d3 <= 0),
        (d6 >= 0) & (d5 <= d6),
        (vb <= 0) & (d2 >= 0) & (d6 <= 0),
        (va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0),
    ]
    choices = [a, b, on_ab, c, on_ac, on_bc]
    return np.select([r[:, None] for r in regions], choices, default=inside)


def _on_surface(
    prepared: _Prepared, points: Any, threads: Optional[int]
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``closest_point``'s answer (see there)."""
    points = _as_rows(points, "points")
    found = prepared.native.compute_closest_points(points - prepared.center, threads=threads)
    primitive_ids = found["primitive_ids"]
    some = primitive_ids != INVALID_ID
    triangle_id = np.full(len(points), -1, dtype=np.int64)
    triangle_id[some] = primitive_ids[some]
    closest = np.full(points.shape, np.nan)
    distance = np.full(len(points), np.inf)
    corners = prepared.triangles[triangle_id[some]]
    closest[some] = _closest_on_triangles(corners, points[some])
    distance[some] = np.linalg.norm(closest[some] - points[some], axis=1)
    return closest, distance, triangle_id


def _signed_distance(prepared: _Prepared, points: Any, threads: Optional[int]) -> np.ndarray:
    """``signed_distance``'s answer (see there)."""
    points = _as_rows(points, "points")
    _, distance, _ = _on_surface(prepared, points, threads)
    inside = prepared.native.contains(points - prepared.center, threads=threads)
    return np.where(inside | (distance <= TOL_MERGE), distance, -distance)


def _longest_ray(
    prepared: _Prepared, points: Any, directions: Any, threads: Optional[int]
) -> np.ndarray:
    """``longest_ray``'s answer (see there)."""
    points = _as_rows(points, "points")
    directions = _as_rows(directions, "directions")
    if len(points) != len(directions):
        raise ValueError(
            f"{len(points)} points and {len(directions)} directions: one direction per point"
        )
    length = np.linalg.norm(directions, axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        unit = np.divide(directions, length, out=np.zeros_like(directions), where=length > 0)
    # Unit directions make t the distance, and tnear skips trimesh's tolerance.
    found = prepared.native.cast_rays(
        origins=points - prepared.center, directions=unit, tnear=TOL_PLANAR, threads=threads
    )
    distance = found["t_hit"].astype(np.float64)
    hit = found["primitive_ids"] != INVALID_ID
    # The distance to the hit triangle's plane along the float64 ray (trimesh's location),
    # unless it strays from meshcast's beyond single precision (a ray grazing the plane).
    corners = prepared.triangles[found["primitive_ids"][hit].astype(np.int64)]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        planar = np.einsum("ij,ij->i", corners[:, 0] - points[hit], normals) / np.einsum(
            "ij,ij->i", unit[hit], normals
        )
    near = np.abs(planar - distance[hit]) <= 1e-5 * (prepared.size + distance[hit])
    distance[hit] = np.where(near, planar, distance[hit])
    return distance


def _vertex(prepared: _Prepared, points: Any) -> Tuple[np.ndarray, np.ndarray]:
    """``ProximityQuery.vertex``'s answer (see there)."""
    points = _as_rows(points, "points")
    distance, vertex_id = prepared.tree().query(points)
    return np.asarray(distance, dtype=np.float64), np.asarray(vertex_id, dtype=np.int64)


class ProximityQuery:
    """trimesh's ``ProximityQuery`` (a mesh's ``nearest``), answered by meshcast.

    Assign it and trimesh's own code that asks ``mesh.nearest`` uses it (``thickness``,
    ``max_tangent_sphere``, ``registration``'s ICP)::

        mesh.nearest = meshcast.trimesh.ProximityQuery(mesh)
        closest, distance, triangle_id = mesh.nearest.on_surface(points)

    Parameters
    ----------
    mesh : trimesh.Trimesh
      The mesh to query (or any hashable object with ``vertices`` and ``faces``): hashed on
      every query, and read again when the hash changes, as ``RayMeshIntersector`` does.
    threads : int or None
      How many threads meshcast uses; None (the default) or 0 uses every core.
    """

    def __init__(self, mesh: Any, threads: Optional[int] = None) -> None:
        self._mesh = mesh
        self.threads = threads
        self._prepared: Optional[_Prepared] = None

    def _current(self) -> _Prepared:
        self._prepared = _Prepared.of(self._mesh, self._prepared)
        return self._prepared

    def on_surface(self, points: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The closest point of the mesh to each point: ``closest_point(mesh, points)``.

        Returns
        -------
        closest : (m, 3) float64
          The point of the surface nearest to each point.
        distance : (m,) float64
          Its distance.
        triangle_id : (m,) int64
          Index in ``mesh.faces`` of the triangle it is on.
        """
        return _on_surface(self._current(), points, self.threads)

    def vertex(self, points: Any) -> Tuple[np.ndarray, np.ndarray]:
        """The vertex nearest to each point, as trimesh answers it (scipy's ``cKDTree``).

        Returns
        -------
        distance : (n,) float64
          The distance to the vertex.
        vertex_id : (n,) int64
          Index in ``mesh.vertices`` of the vertex.
        """
        return _vertex(self._current(), points)

    def signed_distance(self, points: Any) -> np.ndarray:
        """The distance of each point to the surface, positive inside (trimesh's sign):
        ``signed_distance(mesh, points)``.

        Returns
        -------
        signed_distance : (n,) float64
          Positive inside the mesh and within ``TOL_MERGE`` of its surface, negative outside.
        """
        return _signed_distance(self._current(), points, self.threads)

    def __getstate__(self) -> Dict[str, Any]:
        """Pickle the mesh and settings, not the meshcast mesh (rebuilt when next needed)."""
        return {"mesh": self._mesh, "threads": self.threads}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(state["mesh"], threads=state["threads"])


def _prepared_for(mesh: Any) -> _Prepared:
    """What the module's functions query for ``mesh``: its ``nearest`` when that is a
    ``ProximityQuery`` of it, else one kept while the mesh lives (and its hash holds)."""
    nearest = getattr(mesh, "nearest", None)
    if isinstance(nearest, ProximityQuery) and nearest._mesh is mesh:
        return nearest._current()
    return _kept(mesh)


def closest_point(mesh: Any, points: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """trimesh's ``proximity.closest_point``: the point of the surface nearest to each point.

    Parameters
    ----------
    mesh : trimesh.Trimesh
      The mesh (or any hashable object with ``vertices`` and ``faces``).
    points : (m, 3) float
      Points in space.

    Returns
    -------
    closest : (m, 3) float64
      The point of the surface nearest to each point.
    distance : (m,) float64
      Its distance.
    triangle_id : (m,) int64
      Index in ``mesh.faces`` of the triangle it is on: the smaller index where several
      triangles share the nearest point (trimesh picks the one whose normal faces the point
      best). -1, with NaN points and infinite distances, for a mesh with no triangles.
    """
    return _on_surface(_prepared_for(mesh), points, None)


def signed_distance(mesh: Any, points: Any) -> np.ndarray:
    """trimesh's ``proximity.signed_distance``: the distance of each point to the surface,
    positive inside the mesh and for points within ``TOL_MERGE`` of its surface, negative
    outside.

    Inside is meshcast's exact ``contains`` (the parity of one ray's crossings on a closed
    mesh, the generalised winding number on others), not trimesh's mix of the closest
    triangle's normal and ray tests.

    Returns
    -------
    signed_distance : (n,) float64
    """
    return _signed_distance(_prepared_for(mesh), points, None)


def longest_ray(mesh: Any, points: Any, directions: Any) -> np.ndarray:
    """trimesh's ``proximity.longest_ray``: how far each ray from ``points`` along
    ``directions`` goes before it hits the mesh, hits closer than ``TOL_PLANAR`` to the
    point skipped; inf where it hits nothing (also for a zero direction).

    Returns
    -------
    lengths : (n,) float64
      The distance from each point to its ray's first hit (any direction length).
    """
    return _longest_ray(_prepared_for(mesh), points, directions, None)
