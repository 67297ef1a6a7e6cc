"""meshcast: exact BVH ray casting on triangle meshes, on numpy arrays.

Every query of a ``Mesh`` or a ``Scene`` takes numpy arrays of any real dtype and answers
numpy arrays, with the names and shapes of Open3D's ``RaycastingScene``::

    import numpy as np
    import meshcast

    mesh = meshcast.Mesh.load("bunny.obj")
    rays = np.array([[0.0, 0.1, 1.0, 0.0, 0.0, -1.0]], dtype=np.float32)
    hits = mesh.cast_rays(rays)          # t_hit, primitive_ids, primitive_normals, ...
    print(hits["t_hit"], mesh.count_intersections(rays))

Answers are exact: a ray through an edge or a vertex shared by several triangles never slips
through, and every crossing of a closed surface is counted exactly once. Work runs with the
GIL released on every core (``threads=`` chooses). ``meshcast.trimesh`` is a drop-in for
trimesh's ray interface; ``meshcast.dask`` casts Dask arrays of rays across a cluster.
``Mesh.to_gpu()`` puts a mesh on a GPU (``meshcast.gpu_adapters()`` lists them): a
``GpuMesh``, a ``Geometry`` too, whose ray queries give the same answers there and whose
point queries its CPU mesh answers; with an NVIDIA GPU, its ``cast_rays`` and
``test_occlusions`` also take torch, CuPy and Warp arrays on the device and answer there, in
the same framework's arrays (``meshcast.DeviceArray`` otherwise). ``meshcast.RaycastingScene`` is a ``Scene``
under Open3D's name: it takes Open3D's arguments, tensors and meshes, and answers with
Open3D's keys, dtypes and shapes, in arrays that also answer Open3D's ``.numpy()``
(``meshcast.Tensor``).
"""

from ._native import (
    INVALID_ID,
    Camera,
    DeviceArray,
    Geometry,
    GpuMesh,
    Mesh,
    MeshcastError,
    Scene,
    __version__,
    gpu_adapters,
)
from ._open3d import RaycastingScene, Tensor, create_rays_pinhole

__all__ = [
    "INVALID_ID",
    "Camera",
    "DeviceArray",
    "Geometry",
    "GpuMesh",
    "Mesh",
    "MeshcastError",
    "RaycastingScene",
    "Scene",
    "Tensor",
    "__version__",
    "create_rays_pinhole",
    "gpu_adapters",
]
