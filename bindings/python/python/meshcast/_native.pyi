"""Type stubs of meshcast's native module (checked against it by tests/test_stubs.py)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt
from typing_extensions import Required, Unpack

ArrayLike = npt.ArrayLike
StrPath = Union[str, "PathLike[str]"]

INVALID_ID: int
__version__: str

class MeshcastError(ValueError): ...

class Camera:
    """A pinhole camera for `pick`, `lasso_triangles`, `cast_camera` and the `*_in_view`
    calls: at `eye` looking at `target`, `fov` the horizontal field of view in degrees, an
    image of `width` x `height` pixels, clip planes at `near` and `far` (all but `pick`)."""

    def __new__(
        cls,
        eye: Sequence[float],
        target: Sequence[float],
        *,
        up: Sequence[float] = ...,
        fov: float = 60.0,
        width: int,
        height: int,
        near: float = 0.01,
        far: float = ...,
    ) -> "Camera": ...
    @property
    def eye(self) -> List[float]: ...
    @property
    def target(self) -> List[float]: ...
    @property
    def up(self) -> List[float]: ...
    @property
    def fov(self) -> float: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def near(self) -> float: ...
    @property
    def far(self) -> float: ...

class _CameraKeywords(TypedDict, total=False):
    """A camera given by keywords instead of a `Camera` (`up` by default (0, 1, 0),
    `fov_deg`, the horizontal field of view in degrees, 60): `pick`'s, with no clip
    planes."""

    eye: Required[Sequence[float]]
    center: Required[Sequence[float]]
    up: Sequence[float]
    fov_deg: float
    width_px: Required[int]
    height_px: Required[int]

class _ClippedCameraKeywords(_CameraKeywords, total=False):
    """`_CameraKeywords` and the clip planes (by default `near` 0.01, `far` inf):
    `cast_camera`'s, `lasso_triangles`' and the `*_in_view` calls'."""

    near: float
    far: float

class _Rays(TypedDict, total=False):
    """The rays of a ray query given by keywords instead of `rays` ((..., 6) rows of origin
    and direction): `origins` and `directions` (..., 3), each ray's range `tnear < t <= tfar`
    (by default 0.0 and inf)."""

    origins: ArrayLike
    directions: ArrayLike
    tnear: float
    tfar: float

class _FirstHitKeywords(_Rays, total=False):
    """`cast_rays`' and `test_occlusions`' keywords: the rays, `contacts` (True: hits that
    only touch count) and `threads`."""

    contacts: bool
    threads: Optional[int]

class _CountKeywords(_Rays, total=False):
    """`count_intersections`' keywords: the rays and `threads`."""

    threads: Optional[int]

class _ListKeywords(_Rays, total=False):
    """`list_intersections`' keywords: the rays, `max_hits` (each ray's first hits only) and
    `threads`."""

    max_hits: Optional[int]
    threads: Optional[int]

class Geometry:
    """A `Mesh`, a `Scene` or a `GpuMesh`: the ray queries (traced on the GPU for a
    `GpuMesh`) and the point queries (on the CPU mesh for a `GpuMesh`). A mesh takes float64
    rays and points as world coordinates, carried into its frame (`Mesh.origin`) in double
    precision, and answers `t`, points and distances in float64; a scene far from the origin
    carries float64 rays and points into each instance in double precision (`t`, points and
    distances in float64), and reads float32 ones in single precision."""

    def cast_rays(
        self, rays: Optional[ArrayLike] = None, **keywords: Unpack[_FirstHitKeywords]
    ) -> Dict[str, np.ndarray]: ...
    def cast_camera(
        self,
        camera: Optional[Camera] = None,
        *,
        threads: Optional[int] = None,
        contacts: bool = True,
        **camera_keywords: Unpack[_ClippedCameraKeywords],
    ) -> Dict[str, np.ndarray]: ...
    def test_occlusions(
        self, rays: Optional[ArrayLike] = None, **keywords: Unpack[_FirstHitKeywords]
    ) -> np.ndarray: ...
    def count_intersections(
        self, rays: Optional[ArrayLike] = None, **keywords: Unpack[_CountKeywords]
    ) -> np.ndarray: ...
    def list_intersections(
        self, rays: Optional[ArrayLike] = None, **keywords: Unpack[_ListKeywords]
    ) -> Dict[str, np.ndarray]: ...
    def compute_closest_points(
        self,
        query_points: ArrayLike,
        *,
        max_distance: float = ...,
        with_distance: bool = False,
        threads: Optional[int] = None,
    ) -> Dict[str, np.ndarray]: ...
    def compute_distance(
        self, query_points: ArrayLike, *, max_distance: float = ..., threads: Optional[int] = None
    ) -> np.ndarray: ...
    def compute_signed_distance(self, query_points: ArrayLike, *, threads: Optional[int] = None) -> np.ndarray: ...
    def compute_occupancy(self, query_points: ArrayLike, *, threads: Optional[int] = None) -> np.ndarray: ...
    def contains(self, points: ArrayLike, *, threads: Optional[int] = None) -> np.ndarray: ...
    def winding_number(self, points: ArrayLike, *, threads: Optional[int] = None) -> np.ndarray: ...
    @property
    def bounds(self) -> np.ndarray: ...
    @staticmethod
    def create_rays_pinhole(*args: Any, **kwargs: Any) -> np.ndarray: ...

class Mesh(Geometry):
    def __new__(cls, vertices: ArrayLike, faces: ArrayLike) -> "Mesh": ...
    @staticmethod
    def load(path: StrPath) -> "Mesh": ...
    @staticmethod
    def from_bytes(data: bytes) -> "Mesh": ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: StrPath) -> None: ...
    def set_positions(self, vertices: ArrayLike) -> None: ...
    def to_gpu(self, adapter: Optional[str] = None) -> "GpuMesh": ...
    def intersects(self, other: "Mesh", transform: Optional[ArrayLike] = None) -> bool: ...
    def intersecting_pairs(
        self, other: "Mesh", transform: Optional[ArrayLike] = None, *, threads: Optional[int] = None
    ) -> np.ndarray: ...
    def distance_to_mesh(
        self, other: "Mesh", transform: Optional[ArrayLike] = None, max_distance: Optional[float] = None
    ) -> Optional[Dict[str, Any]]: ...
    def hausdorff_distance(
        self,
        other: "Mesh",
        transform: Optional[ArrayLike] = None,
        relative_error: float = 0.001,
        *,
        threads: Optional[int] = None,
    ) -> Optional[Dict[str, Any]]: ...
    def self_intersections(self, *, threads: Optional[int] = None) -> np.ndarray: ...
    def compute_signed_distance_grid(
        self,
        bounds: ArrayLike,
        shape: Sequence[int],
        max_distance: Optional[float] = None,
        *,
        threads: Optional[int] = None,
    ) -> np.ndarray: ...
    def compute_occupancy_grid(
        self, bounds: ArrayLike, shape: Sequence[int], *, threads: Optional[int] = None
    ) -> np.ndarray: ...
    def compute_winding_number_grid(
        self, bounds: ArrayLike, shape: Sequence[int], *, threads: Optional[int] = None
    ) -> np.ndarray: ...
    def sample_surface(self, n: int, seed: int = 0, *, threads: Optional[int] = None) -> Dict[str, np.ndarray]: ...
    def sample_surface_even(
        self, n: int, radius: Optional[float] = None, seed: int = 0, *, threads: Optional[int] = None
    ) -> Dict[str, np.ndarray]: ...
    def sample_near_surface(
        self, n: int, sigma: float, seed: int = 0, *, threads: Optional[int] = None
    ) -> Dict[str, np.ndarray]: ...
    def visible_vertices(self, eyes: ArrayLike, *, threads: Optional[int] = None) -> np.ndarray: ...
    def visible_triangles(
        self, eyes: ArrayLike, density: float = 0.0, *, threads: Optional[int] = None
    ) -> np.ndarray: ...
    def visible_vertices_in_view(
        self,
        camera: Optional[Camera] = None,
        *,
        threads: Optional[int] = None,
        **camera_keywords: Unpack[_ClippedCameraKeywords],
    ) -> np.ndarray: ...
    def visible_triangles_in_view(
        self,
        camera: Optional[Camera] = None,
        *,
        threads: Optional[int] = None,
        **camera_keywords: Unpack[_ClippedCameraKeywords],
    ) -> np.ndarray: ...
    def lasso_triangles(
        self,
        polygon: ArrayLike,
        camera: Optional[Camera] = None,
        *,
        threads: Optional[int] = None,
        **camera_keywords: Unpack[_ClippedCameraKeywords],
    ) -> np.ndarray: ...
    def ambient_occlusion(
        self, rays_per_vertex: int = 64, max_distance: float = ..., seed: int = 0, *, threads: Optional[int] = None
    ) -> np.ndarray: ...
    def thickness(
        self,
        rays_per_vertex: int = 64,
        half_angle_degrees: float = 60.0,
        seed: int = 0,
        *,
        threads: Optional[int] = None,
    ) -> Dict[str, np.ndarray]: ...
    @property
    def vertices(self) -> np.ndarray: ...
    @property
    def origin(self) -> np.ndarray: ...
    @property
    def faces(self) -> np.ndarray: ...
    @property
    def triangle_count(self) -> int: ...
    @property
    def vertex_count(self) -> int: ...
    @property
    def is_closed(self) -> bool: ...
    @property
    def geometry_hash(self) -> int: ...
    def __reduce__(self) -> Any: ...

class Scene(Geometry):
    def __new__(cls, *, threads: Optional[int] = None) -> "Scene": ...
    @staticmethod
    def load(path: StrPath) -> "Scene": ...
    def add(self, mesh: Mesh, transform: Optional[ArrayLike] = None, layers: Optional[int] = None) -> int: ...
    def add_triangles(
        self,
        vertices: Optional[Any] = None,
        faces: Optional[ArrayLike] = None,
        *,
        vertex_positions: Optional[ArrayLike] = None,
        triangle_indices: Optional[ArrayLike] = None,
        mesh: Optional[Any] = None,
    ) -> int: ...
    def remove(self, id: int) -> None: ...
    def set_transform(self, id: int, transform: ArrayLike) -> None: ...
    def transform(self, id: int) -> np.ndarray: ...
    def mesh(self, id: int) -> Mesh: ...
    @property
    def geometry_ids(self) -> List[int]: ...
    def __len__(self) -> int: ...
    def pick(
        self,
        pixels: ArrayLike,
        camera: Optional[Camera] = None,
        *,
        threads: Optional[int] = None,
        **camera_keywords: Unpack[_CameraKeywords],
    ) -> Dict[str, Any]: ...
    def colliding_pairs(self, *, threads: Optional[int] = None) -> np.ndarray: ...
    def intersecting_instances(
        self,
        mesh: Mesh,
        transform: Optional[ArrayLike] = None,
        *,
        layers: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> np.ndarray: ...
    def intersecting_pairs(
        self,
        geometry_id: int,
        other: Union[int, Mesh],
        transform: Optional[ArrayLike] = None,
        *,
        threads: Optional[int] = None,
    ) -> np.ndarray: ...
    def distance_to_mesh(
        self,
        mesh: Mesh,
        transform: Optional[ArrayLike] = None,
        max_distance: Optional[float] = None,
        *,
        layers: Optional[int] = None,
    ) -> Optional[Dict[str, Any]]: ...
    def nearest_instances(
        self, geometry_id: Optional[int] = None, max_distance: Optional[float] = None
    ) -> Optional[Dict[str, Any]]: ...
    def lasso_triangles(
        self,
        polygon: ArrayLike,
        camera: Optional[Camera] = None,
        *,
        threads: Optional[int] = None,
        **camera_keywords: Unpack[_ClippedCameraKeywords],
    ) -> np.ndarray: ...
    def __reduce__(self) -> Any: ...
    @staticmethod
    def _from_state(state: Any) -> "Scene": ...

class GpuMesh(Geometry):
    def set_positions(self, vertices: ArrayLike) -> None: ...
    def _kernel_seconds(
        self, rays: ArrayLike, query: str = "closest", repeat: int = 7, backend: str = "in use"
    ) -> float: ...
    def to_cpu(self) -> Mesh: ...
    @property
    def adapter(self) -> str: ...
    @property
    def cuda_device(self) -> Optional[str]: ...
    @property
    def gpu_bytes(self) -> int: ...
    @property
    def stats(self) -> Dict[str, int]: ...

class DeviceArray:
    """Answers on a CUDA device (rays on the device in, cast by a GpuMesh): read it through
    ``__cuda_array_interface__`` or DLPack with no copy; ``numpy()`` copies it to the host."""

    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def ptr(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]: ...
    def __len__(self) -> int: ...
    def numpy(self) -> np.ndarray: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def __dlpack__(
        self,
        *,
        stream: Optional[Any] = None,
        max_version: Optional[Tuple[int, int]] = None,
        dl_device: Optional[Tuple[int, int]] = None,
        copy: Optional[bool] = None,
    ) -> Any: ...

def _host_array(array: ArrayLike) -> DeviceArray: ...
def gpu_adapters() -> List[str]: ...
def _rust_cast_batch_seconds(
    mesh: Mesh, rays: ArrayLike, threads: Optional[int] = None, repeat: int = 5
) -> float: ...
def _triangle_distances(
    mesh: Mesh,
    other: Mesh,
    pairs: ArrayLike,
    transform: Optional[ArrayLike] = None,
    mesh_transform: Optional[ArrayLike] = None,
) -> Dict[str, np.ndarray]: ...
