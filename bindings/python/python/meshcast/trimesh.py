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
  is at the origin before its coordinates are rounded (and the rays are moved with it), so
  a mesh far from the origin keeps its precision. Locations are computed in float64 from
  the mesh's own vertices: where the ray meets the plane of the triangle hit, as trimesh
  computes them, or for a ray grazing the plane so closely that this point is off the
  triangle, the point meshcast found on the triangle (within rounding of the ray).

The meshcast mesh is built on the first query and rebuilt when ``hash(mesh)`` changes, as
trimesh's own intersectors cache their acceleration structures: a trimesh mesh's hash
follows its vertices and faces. The assignment above affects that mesh object only:
``mesh.copy()`` and the results of trimesh operations get trimesh's default intersector.
"""

from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from ._native import INVALID_ID, Mesh

__all__ = ["RayMeshIntersector"]


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
        # Built lazily by `_prepared` and rebuilt when `hash(mesh)` changes.
        self._built_for: Optional[int] = None
        self._native: Optional[Mesh] = None
        self._center = np.zeros(3)
        self._size = 0.0
        self._vertices = np.zeros((0, 3))
        self._faces = np.zeros((0, 3), dtype=np.int64)

    def _prepared(self) -> Mesh:
        """The meshcast mesh of ``self.mesh``'s current vertices and faces."""
        key = hash(self.mesh)
        if self._native is None or key != self._built_for:
            vertices = np.asarray(self.mesh.vertices, dtype=np.float64).reshape((-1, 3))
            faces = np.asarray(self.mesh.faces, dtype=np.int64).reshape((-1, 3))
            if len(vertices) > 0:
                low, high = vertices.min(axis=0), vertices.max(axis=0)
            else:
                low = high = np.zeros(3)
            center = (low + high) / 2.0
            self._native = Mesh(vertices - center, faces)
            self._center = center
            self._size = float(np.linalg.norm(high - low))
            self._vertices = vertices
            self._faces = faces
            self._built_for = key
        return self._native

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

    def _locations(
        self,
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
        corners = self._vertices[self._faces[index_tri]]
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
        on_triangle = (inside_edges >= -1e-6 * self._size).all(axis=1)

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
        native = self._prepared()
        origins, directions = self._rays(ray_origins, ray_directions)
        if multiple_hits:
            listed = native.list_intersections(
                origins=origins - self._center, directions=directions, threads=self.threads
            )
            index_tri = listed["primitive_ids"].astype(np.int64)
            index_ray = listed["ray_ids"].astype(np.int64)
            uvs = listed["primitive_uvs"]
            if max_hits is not None:
                first_of_ray = listed["ray_splits"].astype(np.int64)[index_ray]
                keep = np.arange(len(index_ray)) - first_of_ray < max_hits
                index_tri, index_ray, uvs = index_tri[keep], index_ray[keep], uvs[keep]
        else:
            nearest = native.cast_rays(
                origins=origins - self._center, directions=directions, threads=self.threads
            )
            hit = nearest["primitive_ids"] != INVALID_ID
            if max_hits is not None and max_hits < 1:
                hit[:] = False
            index_tri = nearest["primitive_ids"][hit].astype(np.int64)
            index_ray = np.flatnonzero(hit).astype(np.int64)
            uvs = nearest["primitive_uvs"][hit]
        if return_locations:
            locations = self._locations(index_tri, index_ray, uvs, origins, directions)
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
        native = self._prepared()
        origins, directions = self._rays(ray_origins, ray_directions)
        primitive_ids = native.cast_rays(
            origins=origins - self._center, directions=directions, threads=self.threads
        )["primitive_ids"]
        first = primitive_ids.astype(np.int64)
        first[primitive_ids == INVALID_ID] = -1
        return first

    def intersects_any(self, ray_origins: Any, ray_directions: Any) -> np.ndarray:
        """Whether each ray hits the mesh anywhere in front of its origin (bool)."""
        native = self._prepared()
        origins, directions = self._rays(ray_origins, ray_directions)
        return native.test_occlusions(
            origins=origins - self._center, directions=directions, threads=self.threads
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
        native = self._prepared()
        return native.contains(points - self._center, threads=self.threads)

    def __getstate__(self) -> Dict[str, Any]:
        """Pickle the mesh and settings, not the meshcast mesh (rebuilt when next needed)."""
        return {"mesh": self.mesh, "scale_to_box": self.scale_to_box, "threads": self.threads}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(
            state["mesh"],
            state.get("scale_to_box", True),
            threads=state["threads"],
        )
