"""Open3D's ``RaycastingScene`` on meshcast: the class under Open3D's name, whose answers
also answer Open3D's ``Tensor.numpy()``, and ``create_rays_pinhole`` in both of Open3D's
forms, made as Open3D makes it (``cpp/open3d/t/geometry/RaycastingScene.cpp``,
``CreateRaysPinhole``).

``meshcast.create_rays_pinhole`` and ``Scene.create_rays_pinhole`` are this function.
"""

import operator
from typing import Any, Dict, Tuple

import numpy as np

from ._native import INVALID_ID, Scene

__all__ = ["RaycastingScene", "Tensor", "create_rays_pinhole"]

_INTRINSIC = ("intrinsic_matrix", "extrinsic_matrix", "width_px", "height_px")
_FOV = ("fov_deg", "center", "eye", "up", "width_px", "height_px")


def _plain(value: Any) -> Any:
    """``value`` as numpy reads it: an Open3D (or PyTorch) tensor by its ``numpy()``."""
    if not isinstance(value, np.ndarray) and hasattr(value, "numpy"):
        return value.numpy()
    return value


def _bind(names: Tuple[str, ...], args: Tuple[Any, ...], kwargs: Dict[str, Any], form: str) -> Dict[str, Any]:
    """The arguments of one form by name, as Python binds a call to ``form``."""
    if len(args) > len(names):
        raise TypeError(f"create_rays_pinhole{form} takes {len(names)} arguments, not {len(args)}")
    bound = dict(zip(names, args))
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"create_rays_pinhole{form} has no argument {name!r}")
        if name in bound:
            raise TypeError(f"create_rays_pinhole got multiple values for {name!r}")
        bound[name] = value
    missing = [name for name in names if name not in bound]
    if missing:
        raise TypeError(f"create_rays_pinhole{form} is missing {', '.join(map(repr, missing))}")
    return bound


def _matrix(value: Any, name: str, shape: Tuple[int, int]) -> np.ndarray:
    matrix = np.asarray(_plain(value), dtype=np.float64)
    if matrix.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, not {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError(f"{name} must be finite")
    return matrix


def _vector(value: Any, name: str) -> np.ndarray:
    vector = np.asarray(_plain(value), dtype=np.float64)
    if vector.shape != (3,):
        raise ValueError(f"{name} must have shape (3,), not {vector.shape}")
    if not np.isfinite(vector).all():
        raise ValueError(f"{name} must be finite")
    return vector


def _pixels(value: Any, name: str) -> int:
    try:
        count = operator.index(_plain(value))
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {value!r}") from None
    if count < 0:
        raise ValueError(f"{name} must be at least 0, not {count}")
    return count


def _inverse3(m: np.ndarray) -> np.ndarray:
    """The inverse of a 3x3 float64 matrix by cofactors, in Eigen's order of operations (the
    one Open3D's ``K.inverse()`` runs), so that the float32 rays come out as Open3D's."""

    def cofactor(i: int, j: int) -> float:
        i1, i2, j1, j2 = (i + 1) % 3, (i + 2) % 3, (j + 1) % 3, (j + 2) % 3
        return m[i1, j1] * m[i2, j2] - m[i1, j2] * m[i2, j1]

    det = (cofactor(0, 0) * m[0, 0] + cofactor(1, 0) * m[1, 0]) + cofactor(2, 0) * m[2, 0]
    if det == 0.0 or not np.isfinite(det):
        raise ValueError("intrinsic_matrix must be invertible")
    invdet = 1.0 / det
    return np.array([[cofactor(j, i) * invdet for j in range(3)] for i in range(3)])


def _product3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 3x3 (or 3x1) matrices, each entry summed left to right as Eigen does."""
    return (a[:, 0:1] * b[0:1, :] + a[:, 1:2] * b[1:2, :]) + a[:, 2:3] * b[2:3, :]


def _norm(v: np.ndarray) -> float:
    return float(np.sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]))


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _rays(intrinsic: np.ndarray, extrinsic: np.ndarray, width: int, height: int) -> np.ndarray:
    """Open3D's rays of the camera of ``intrinsic`` K and ``extrinsic`` [R | t] (world to
    camera): from the centre ``C = -R^T t`` through pixel centres, direction
    ``R^T K^-1 (x + 0.5, y + 0.5, 1)`` (not normalised: its depth along the view is 1),
    ``R^T K^-1`` made in float64 and rounded to float32, the product in float32 (bit for bit
    Open3D's rays, checked against Open3D 0.20)."""
    rays = np.empty((height, width, 6), dtype=np.float32)
    if width == 0 or height == 0:
        return rays
    rotation_t = extrinsic[:3, :3].T
    translation = extrinsic[:3, 3:4]
    centre = -_product3(rotation_t, translation)[:, 0]
    m = _product3(rotation_t, _inverse3(intrinsic)).astype(np.float32)
    xs = np.arange(width, dtype=np.float32) + np.float32(0.5)
    ys = np.arange(height, dtype=np.float32) + np.float32(0.5)
    rays[..., :3] = centre.astype(np.float32)
    for axis in range(3):
        # Summed as Open3D's Eigen product sums: x's term last.
        rays[..., 3 + axis] = m[axis, 0] * xs[None, :] + (m[axis, 1] * ys[:, None] + m[axis, 2])
    return rays


def create_rays_pinhole(*args: Any, **kwargs: Any) -> np.ndarray:
    """The rays of a pinhole camera through the centre of every pixel, shape
    ``(height_px, width_px, 6)`` float32, row by row from the top, exactly as Open3D's
    ``RaycastingScene.create_rays_pinhole`` makes them, in either of its forms:

    - ``create_rays_pinhole(intrinsic_matrix, extrinsic_matrix, width_px, height_px)``: a 3x3
      intrinsic matrix K (pixels) and a 4x4 extrinsic matrix [R | t], world to camera
      (OpenCV's convention: x right, y down, z forward). Ray ``[y, x]`` starts at the
      camera's centre ``-R^T t`` with the direction ``R^T K^-1 (x + 0.5, y + 0.5, 1)``.
    - ``create_rays_pinhole(fov_deg, center, eye, up, width_px, height_px)``: the camera at
      ``eye`` looking at ``center``, ``fov_deg`` the horizontal field of view, the principal
      point the image's centre, made into K and [R | t] as Open3D does: its camera's x axis
      is ``up x forward`` and its y axis ``up``, so the image comes out turned half a turn
      from the usual view (the top-left pixel looks down and to the right), as Open3D's does.

    Directions are not normalised, as in Open3D: each has a depth of 1 along the camera's
    view, so ``cast_rays``' ``t_hit`` is the depth of the hit (its z in camera space), not
    its distance. Matrices and vectors may be lists, numpy arrays or Open3D tensors.
    """
    first = _plain(args[0]) if args else None
    intrinsic_form = (
        "intrinsic_matrix" in kwargs
        or "extrinsic_matrix" in kwargs
        or (first is not None and np.ndim(first) == 2)
    )
    if intrinsic_form:
        bound = _bind(_INTRINSIC, args, kwargs, "(intrinsic_matrix, extrinsic_matrix, width_px, height_px)")
        width = _pixels(bound["width_px"], "width_px")
        height = _pixels(bound["height_px"], "height_px")
        intrinsic = _matrix(bound["intrinsic_matrix"], "intrinsic_matrix", (3, 3))
        extrinsic = _matrix(bound["extrinsic_matrix"], "extrinsic_matrix", (4, 4))
        return _rays(intrinsic, extrinsic, width, height)

    bound = _bind(_FOV, args, kwargs, "(fov_deg, center, eye, up, width_px, height_px)")
    fov_deg = float(_plain(bound["fov_deg"]))
    if not 0.0 < fov_deg < 180.0:
        raise ValueError(f"fov_deg must be between 0 and 180 degrees, not {fov_deg}")
    center = _vector(bound["center"], "center")
    eye = _vector(bound["eye"], "eye")
    up = _vector(bound["up"], "up")
    width = _pixels(bound["width_px"], "width_px")
    height = _pixels(bound["height_px"], "height_px")
    if width == 0 or height == 0:
        return np.empty((height, width, 6), dtype=np.float32)
    return _rays(*_fov_camera(fov_deg, center, eye, up, width, height), width, height)


def _fov_camera(
    fov_deg: float, center: np.ndarray, eye: np.ndarray, up: np.ndarray, width: int, height: int
) -> Tuple[np.ndarray, np.ndarray]:
    """Open3D's K and [R | t] of the camera at ``eye`` looking at ``center``."""
    focal = 0.5 * width / np.tan(0.5 * (np.pi / 180) * fov_deg)
    intrinsic = np.array([[focal, 0.0, 0.5 * width], [0.0, focal, 0.5 * height], [0.0, 0.0, 1.0]])
    forward = center - eye
    if _norm(forward) == 0.0 or _norm(up) == 0.0:
        raise ValueError("eye must differ from center, and up must not be zero")
    rotation = np.empty((3, 3))
    rotation[1] = up / _norm(up)
    rotation[2] = forward / _norm(forward)
    rotation[0] = _cross(rotation[1], rotation[2])
    if _norm(rotation[0]) == 0.0:
        raise ValueError("up must not be parallel to the view direction (center - eye)")
    rotation[0] /= _norm(rotation[0])
    rotation[1] = _cross(rotation[2], rotation[0])
    extrinsic = np.eye(4)
    extrinsic[:3, :3] = rotation
    extrinsic[:3, 3] = -_product3(rotation, eye[:, None])[:, 0]
    return intrinsic, extrinsic


class Tensor(np.ndarray):
    """A numpy array that also answers Open3D's ``Tensor.numpy()`` (with itself as a plain
    array), so that Open3D code such as ``scene.cast_rays(rays)["t_hit"].numpy()`` runs
    unchanged. Everything else is numpy's."""

    def numpy(self) -> np.ndarray:
        """The same values as a plain numpy array (a view, no copy)."""
        return self.view(np.ndarray)


def _tensors(answer: Any) -> Any:
    """An answer's arrays as :class:`Tensor`s: each value of a dict, or the array."""
    if isinstance(answer, dict):
        return {key: np.asarray(value).view(Tensor) for key, value in answer.items()}
    return np.asarray(answer).view(Tensor)


def _threads(nthreads: Any, keywords: Dict[str, Any]) -> Any:
    """The ``threads=`` of a native call given Open3D's ``nthreads`` (0: every core) and the
    call's keywords, from which meshcast's own ``threads`` is taken."""
    threads = keywords.pop("threads", None)
    if threads is None:
        return nthreads
    if nthreads not in (0, threads):
        raise TypeError(
            f"threads={threads} and nthreads={nthreads} disagree: give one of them (nthreads is Open3D's name)"
        )
    return threads


def _nsamples(nsamples: Any) -> None:
    """Checks Open3D's ``nsamples`` (the rays that vote on inside or outside): odd and at
    least 1, as Open3D requires. meshcast's inside test is exact with one ray, so it is not
    used."""
    if isinstance(nsamples, bool) or not isinstance(nsamples, int):
        raise TypeError(f"nsamples must be an integer, not {nsamples!r}")
    if nsamples < 1 or nsamples % 2 == 0:
        raise ValueError(f"nsamples must be odd and at least 1 (as in Open3D), not {nsamples}")


def _cpu(device: Any) -> None:
    """Checks that ``device`` (a string or an Open3D ``Device``) names the CPU, the only
    device a ``RaycastingScene`` runs on: ``"CPU:0"`` (or ``"CPU"``, in any case)."""
    name = str(device)
    if name.strip().upper() not in ("CPU", "CPU:0"):
        raise ValueError(
            f'meshcast runs on the CPU only: device must be "CPU:0" (or Open3D\'s Device("CPU:0")), not {name!r}'
        )


class RaycastingScene:
    """Open3D's ``open3d.t.geometry.RaycastingScene`` on meshcast: a ``meshcast.Scene`` (its
    ``scene``) with Open3D's constructor, ``add_triangles`` and queries, whose answers are
    :class:`Tensor`s, numpy arrays that also have Open3D's ``.numpy()``. Code written for
    Open3D changes one line, the import. Open3D's spellings live here and only here:
    ``nthreads`` (by position or keyword; 0 for every core; meshcast's ``threads=`` is taken
    too, and must agree), ``tnear`` and ``tfar`` by position in ``test_occlusions``, and
    ``nsamples`` (odd, at least 1, and not needed: one exact test decides inside). Everything
    a ``Scene`` has is here too (``pick``, ``cast_camera``, ``set_transform``, ``len``);
    meshcast's own ``Scene`` answers plain numpy arrays and takes ``threads=`` only.
    """

    #: The id of no geometry or triangle (Open3D's ``RaycastingScene.INVALID_ID``).
    INVALID_ID = INVALID_ID

    def __init__(self, nthreads: int = 0, device: Any = None) -> None:
        """An empty scene: ``nthreads`` builds what ``add_triangles`` adds (0: every core);
        ``device`` must be the CPU, ``"CPU:0"`` or Open3D's ``Device("CPU:0")``."""
        if device is not None:
            _cpu(device)
        self.scene = Scene(threads=nthreads)

    def __len__(self) -> int:
        return len(self.scene)

    def __repr__(self) -> str:
        return f"RaycastingScene({self.scene!r})"

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the class lacks: the rest of the Scene's methods. The
        # guard keeps unpickling (which looks up attributes before `scene` is set) finite.
        if name == "scene":
            raise AttributeError(name)
        return getattr(self.scene, name)

    @staticmethod
    def create_rays_pinhole(*args: Any, **kwargs: Any) -> Tensor:
        """:func:`create_rays_pinhole`, as a :class:`Tensor`."""
        return create_rays_pinhole(*args, **kwargs).view(Tensor)

    def cast_rays(self, rays: Any = None, nthreads: int = 0, **keywords: Any) -> Dict[str, Tensor]:
        """``Scene.cast_rays``: the closest hit of each ray."""
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.cast_rays(rays, threads=threads, **keywords))

    def test_occlusions(
        self, rays: Any = None, tnear: float = 0.0, tfar: float = float("inf"), nthreads: int = 0, **keywords: Any
    ) -> Tensor:
        """``Scene.test_occlusions``: whether each ray hits anything with ``tnear < t <= tfar``."""
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.test_occlusions(rays, tnear=tnear, tfar=tfar, threads=threads, **keywords))

    def count_intersections(self, rays: Any = None, nthreads: int = 0, **keywords: Any) -> Tensor:
        """``Scene.count_intersections``: the surface crossings of each ray."""
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.count_intersections(rays, threads=threads, **keywords))

    def list_intersections(self, rays: Any = None, nthreads: int = 0, **keywords: Any) -> Dict[str, Tensor]:
        """``Scene.list_intersections``: every hit of every ray, in flat arrays."""
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.list_intersections(rays, threads=threads, **keywords))

    def compute_closest_points(self, query_points: Any, nthreads: int = 0, **keywords: Any) -> Dict[str, Tensor]:
        """``Scene.compute_closest_points``: the nearest surface point to each point."""
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.compute_closest_points(query_points, threads=threads, **keywords))

    def compute_distance(self, query_points: Any, nthreads: int = 0, **keywords: Any) -> Tensor:
        """``Scene.compute_distance``: the distance from each point to the surface."""
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.compute_distance(query_points, threads=threads, **keywords))

    def compute_signed_distance(
        self, query_points: Any, nthreads: int = 0, nsamples: int = 1, **keywords: Any
    ) -> Tensor:
        """``Scene.compute_signed_distance``: negative inside."""
        _nsamples(nsamples)
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.compute_signed_distance(query_points, threads=threads, **keywords))

    def compute_occupancy(self, query_points: Any, nthreads: int = 0, nsamples: int = 1, **keywords: Any) -> Tensor:
        """``Scene.compute_occupancy``: 1.0 inside, 0.0 outside."""
        _nsamples(nsamples)
        threads = _threads(nthreads, keywords)
        return _tensors(self.scene.compute_occupancy(query_points, threads=threads, **keywords))
