"""Rays on a CUDA device: a ``GpuMesh``'s ``cast_rays`` and ``test_occlusions`` read torch,
CuPy and Warp arrays (``__cuda_array_interface__``) where they are and answer in arrays on
the device (``meshcast.DeviceArray``, or the caller's framework's), each answer the CPU's.

Everywhere: the arrays' interface is checked (fake producers pointing at host memory,
which is never read), and ``DeviceArray``'s exports (DLPack, the interface) are held to
numpy through a host-memory ``DeviceArray``. Where an NVIDIA GPU, the CUDA back end and
torch (or CuPy, or Warp) are present: tensors in, tensors out, equal to the answers of the
same rays from numpy, in place on the device.
"""

import gc

import numpy as np
import pytest

import meshcast

from conftest import adversarial_rays, asset, random_rays

MISSING = object()


class Fake:
    """A producer of ``__cuda_array_interface__`` over `array`'s host memory, with the
    entries `changes` sets (``MISSING`` removes one). meshcast must refuse it before reading
    (no CUDA back end here, or a bad interface)."""

    def __init__(self, array, **changes):
        self.array = np.ascontiguousarray(array, dtype=np.float32)
        self.interface = {
            "shape": self.array.shape,
            "typestr": "<f4",
            "data": (self.array.ctypes.data, False),
            "strides": None,
            "version": 3,
            "stream": None,
        }
        for key, value in changes.items():
            if value is MISSING:
                del self.interface[key]
            else:
                self.interface[key] = value

    @property
    def __cuda_array_interface__(self):
        return self.interface


@pytest.fixture(scope="module")
def mesh():
    return meshcast.Mesh.load(asset("suzanne.obj"))


@pytest.fixture(scope="module")
def rays(mesh):
    return random_rays(mesh, 64, seed=3)


def rows(n=8, width=6):
    return np.ones((n, width), np.float32)


@pytest.mark.parametrize(
    "changes, error, match",
    [
        ({"typestr": "<f8"}, TypeError, "float32"),
        ({"typestr": "<i4"}, TypeError, "float32"),
        ({"version": 1}, ValueError, "version 1"),
        ({"version": MISSING}, TypeError, "version"),
        ({"data": MISSING}, TypeError, "data"),
        ({"shape": MISSING}, TypeError, "shape"),
        ({"data": 5}, TypeError, "tuple"),
        ({"mask": object()}, TypeError, "masked"),
        ({"stream": 0}, ValueError, "stream 0"),
        ({"stream": "now"}, TypeError, "stream"),
        ({"shape": (8, 5)}, ValueError, "length 6"),
        ({"strides": (24,)}, ValueError, "strides"),
        # (2, 4, 6) with its two blocks of rows 1000 bytes apart: not one axis of rows.
        ({"shape": (2, 4, 6), "strides": (1000, 24, 4)}, ValueError, "contiguous"),
    ],
)
def test_a_bad_interface_is_a_typed_error(mesh, changes, error, match):
    with pytest.raises(error, match=match):
        mesh.cast_rays(Fake(rows(), **changes))


def test_origins_and_directions_must_be_on_one_side_and_broadcast(mesh):
    on_host = np.ones((8, 3), np.float32)
    with pytest.raises(TypeError, match="both on a CUDA device or both on the host"):
        mesh.cast_rays(origins=Fake(on_host), directions=on_host)
    with pytest.raises(TypeError, match="both on a CUDA device or both on the host"):
        mesh.test_occlusions(origins=on_host, directions=Fake(on_host))
    with pytest.raises(ValueError, match="one shape"):
        mesh.cast_rays(origins=Fake(rows(5, 3)), directions=Fake(rows(4, 3)))
    with pytest.raises(ValueError, match="length 3"):
        mesh.cast_rays(origins=Fake(rows(4, 6)), directions=Fake(rows(4, 3)))


def test_a_mesh_on_the_cpu_refuses_rays_on_a_device(mesh):
    with pytest.raises(TypeError, match="GpuMesh"):
        mesh.cast_rays(Fake(rows()))
    with pytest.raises(TypeError, match="GpuMesh"):
        mesh.test_occlusions(origins=Fake(rows(1, 3)), directions=Fake(rows(4, 3)))
    for query in (mesh.count_intersections, mesh.list_intersections):
        with pytest.raises(TypeError, match="on the host"):
            query(Fake(rows()))


@pytest.fixture(scope="module")
def on_gpu(mesh):
    if not meshcast.gpu_adapters():
        pytest.skip("no GPU adapter")
    return mesh.to_gpu()


def test_misaligned_rays_are_refused(on_gpu):
    fake = Fake(rows())
    pointer, read_only = fake.interface["data"]
    fake.interface["data"] = (pointer + 2, read_only)
    with pytest.raises(meshcast.MeshcastError, match="aligned"):
        on_gpu.cast_rays(fake)


def test_rays_on_a_device_need_the_cuda_back_end(on_gpu):
    if on_gpu.cuda_device is not None:
        pytest.skip(f"the CUDA back end is open ({on_gpu.cuda_device})")
    for query in (on_gpu.cast_rays, on_gpu.test_occlusions):
        with pytest.raises(meshcast.MeshcastError, match="CUDA back end"):
            query(Fake(rows()))
    # The other ray queries take rays on the host only, whatever the back end.
    with pytest.raises(TypeError, match="on the host"):
        on_gpu.count_intersections(Fake(rows()))


# DeviceArray's exports, over host memory.


@pytest.mark.parametrize(
    "array",
    [
        np.arange(5, dtype=np.float32),
        np.arange(12, dtype=np.float32).reshape(6, 2) * 0.5,
        np.arange(24, dtype=np.float32).reshape(2, 4, 3) - 7.0,
        np.array([0, 1, 7, 2**32 - 1], dtype=np.uint32),
        np.array([True, False, True]),
        np.zeros((0, 3), np.float32),
    ],
)
def test_a_device_array_exports_its_memory_through_dlpack(array):
    exported = meshcast._native._host_array(array)
    assert exported.shape == array.shape
    assert exported.dtype == array.dtype.name
    assert exported.device == "cpu"
    assert exported.nbytes == array.nbytes
    assert exported.__dlpack_device__() == (1, 0)
    assert not hasattr(exported, "__cuda_array_interface__")
    np.testing.assert_array_equal(exported.numpy(), array)
    viewed = np.from_dlpack(exported)
    assert viewed.dtype == array.dtype and viewed.shape == array.shape
    np.testing.assert_array_equal(viewed, array)
    if array.size:
        # A view, not a copy: the DLPack tensor points at the DeviceArray's memory.
        assert viewed.ctypes.data == exported.ptr
    # The view keeps the memory alive after the DeviceArray is gone.
    del exported
    gc.collect()
    np.testing.assert_array_equal(viewed, array)


def test_a_dlpack_capsule_no_one_takes_is_freed_and_refusals_are_buffer_errors():
    exported = meshcast._native._host_array(np.arange(4, dtype=np.float32))
    for _ in range(3):
        capsule = exported.__dlpack__()
        assert type(capsule).__name__ == "PyCapsule"
        del capsule
    assert exported.__dlpack__(stream=None, max_version=(1, 0), dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="copy"):
        exported.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="device"):
        exported.__dlpack__(dl_device=(2, 0))
    assert "float32" in repr(exported) and len(exported) == 4


# On an NVIDIA GPU with the CUDA back end: the frameworks' arrays in and out.


@pytest.fixture(scope="module")
def cuda_mesh(mesh):
    if not meshcast.gpu_adapters():
        pytest.skip("no GPU adapter")
    on_gpu = mesh.to_gpu()
    if on_gpu.cuda_device is None:
        pytest.skip("no CUDA back end (no NVIDIA driver or GPU)")
    return on_gpu


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch


def ray_set(mesh):
    """The rays these tests cast: random and adversarial (through vertices and edges)."""
    return np.concatenate([random_rays(mesh, 4000, seed=11), adversarial_rays(mesh, 4000, seed=12)])


def same_as_from_numpy(cuda_mesh, host_rays, answers, to_numpy, **keywords):
    """Device answers equal the answers of the same rays from numpy (the same kernel, so bit
    for bit) and the CPU mesh's triangles."""
    want = cuda_mesh.cast_rays(host_rays, **keywords)
    for key, value in want.items():
        got = to_numpy(answers[key])
        assert got.dtype == value.dtype and got.shape == value.shape, key
        np.testing.assert_array_equal(got, value, err_msg=key)
    cpu = cuda_mesh.to_cpu().cast_rays(host_rays, **keywords)
    np.testing.assert_array_equal(to_numpy(answers["primitive_ids"]), cpu["primitive_ids"])


def test_torch_tensors_in_torch_tensors_out(cuda_mesh, torch, mesh):
    host = ray_set(mesh).astype(np.float32)
    rays = torch.from_numpy(host).cuda()
    answers = cuda_mesh.cast_rays(rays)
    for value in answers.values():
        assert isinstance(value, torch.Tensor) and value.is_cuda
    same_as_from_numpy(cuda_mesh, host, answers, lambda t: t.cpu().numpy())
    occluded = cuda_mesh.test_occlusions(rays)
    assert isinstance(occluded, torch.Tensor) and occluded.dtype == torch.bool and occluded.is_cuda
    np.testing.assert_array_equal(occluded.cpu().numpy(), cuda_mesh.test_occlusions(host))
    # With a range and without contacts.
    keywords = {"tnear": 0.25, "tfar": 3.0, "contacts": False}
    answers = cuda_mesh.cast_rays(rays, **keywords)
    same_as_from_numpy(cuda_mesh, host, answers, lambda t: t.cpu().numpy(), **keywords)


def test_strided_and_broadcast_tensors_are_read_in_place(cuda_mesh, torch, mesh):
    host = ray_set(mesh).astype(np.float32)
    rays = torch.from_numpy(host).cuda()
    to_numpy = lambda t: t.cpu().numpy()  # noqa: E731
    # Origins and directions as slices of one tensor (rows 24 bytes apart).
    answers = cuda_mesh.cast_rays(origins=rays[:, :3], directions=rays[:, 3:])
    same_as_from_numpy(cuda_mesh, host, answers, to_numpy)
    # Transposed (column-major) storage, every other row, and rows reversed.
    transposed = rays.T.contiguous().T
    same_as_from_numpy(cuda_mesh, host, cuda_mesh.cast_rays(transposed), to_numpy)
    same_as_from_numpy(cuda_mesh, host[::2], cuda_mesh.cast_rays(rays[::2]), to_numpy)
    same_as_from_numpy(cuda_mesh, host[::-1].copy(), cuda_mesh.cast_rays(rays.flip(0)), to_numpy)
    # A leading shape of two axes, and one origin for every direction.
    grid = rays[:4000].reshape(40, 100, 6)
    answers = cuda_mesh.cast_rays(grid)
    assert answers["primitive_normals"].shape == (40, 100, 3)
    same_as_from_numpy(cuda_mesh, host[:4000].reshape(40, 100, 6), answers, to_numpy)
    origin = rays[:1, :3]
    answers = cuda_mesh.cast_rays(origins=origin, directions=rays[:, 3:])
    want = np.concatenate([np.broadcast_to(host[:1, :3], host[:, 3:].shape), host[:, 3:]], axis=1)
    same_as_from_numpy(cuda_mesh, want, answers, to_numpy)


def test_answers_live_on_the_device_with_no_copy(cuda_mesh, torch, mesh):
    host = ray_set(mesh).astype(np.float32)
    tensor = torch.from_numpy(host).cuda()

    class Producer:
        """Another framework's array: answered with meshcast.DeviceArray."""

        __cuda_array_interface__ = tensor.__cuda_array_interface__

    answers = cuda_mesh.cast_rays(Producer())
    t_hit = answers["t_hit"]
    assert isinstance(t_hit, meshcast.DeviceArray) and t_hit.device == f"cuda:{tensor.device.index}"
    interface = t_hit.__cuda_array_interface__
    assert interface["data"][0] == t_hit.ptr and interface["shape"] == (len(host),)
    assert interface["typestr"] == "<f4" and interface["version"] == 3
    # torch reads it where it is: the same pointer, through DLPack and through the interface.
    from_dlpack = torch.from_dlpack(t_hit)
    assert from_dlpack.is_cuda and from_dlpack.data_ptr() == t_hit.ptr
    assert torch.as_tensor(t_hit, device="cuda").data_ptr() == t_hit.ptr
    np.testing.assert_array_equal(from_dlpack.cpu().numpy(), cuda_mesh.cast_rays(host)["t_hit"])
    # The tensor keeps the memory after the DeviceArray and the dict are gone.
    del answers, t_hit
    gc.collect()
    np.testing.assert_array_equal(from_dlpack.cpu().numpy(), cuda_mesh.cast_rays(host)["t_hit"])


def test_the_rays_stream_is_waited_for(cuda_mesh, torch, mesh):
    # torch's interface (version 2) names no stream: meshcast waits for torch's current
    # stream, where the rays are still being written when the query is asked (the stream
    # sleeps first), so answers made without waiting would be of zero rays.
    host = ray_set(mesh).astype(np.float32)
    source = torch.from_numpy(host).cuda()
    rays = torch.zeros_like(source)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)
        rays.copy_(source)
        answers = cuda_mesh.cast_rays(rays)
        occluded = cuda_mesh.test_occlusions(rays)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(answers["t_hit"].cpu().numpy(), cuda_mesh.cast_rays(host)["t_hit"])
    np.testing.assert_array_equal(occluded.cpu().numpy(), cuda_mesh.test_occlusions(host))


def test_bad_tensors_are_typed_errors(cuda_mesh, torch, mesh):
    rays = torch.from_numpy(random_rays(mesh, 16, seed=4)).cuda()
    with pytest.raises(TypeError, match="float32"):
        cuda_mesh.cast_rays(rays.double())
    bad = rays.clone()
    bad[5, 4] = float("nan")
    with pytest.raises(ValueError, match=r"rays\[5\] on the device is not finite"):
        cuda_mesh.cast_rays(bad)
    with pytest.raises(TypeError, match="both"):
        cuda_mesh.cast_rays(origins=rays[:, :3], directions=rays[:, 3:].cpu().numpy())
    # Host memory dressed as device memory.
    with pytest.raises(meshcast.MeshcastError, match="not memory the CUDA driver knows"):
        cuda_mesh.cast_rays(Fake(rows()))
    if torch.cuda.device_count() > 1:
        with pytest.raises(meshcast.MeshcastError, match="device"):
            cuda_mesh.cast_rays(rays.to("cuda:1"))


def test_cupy_arrays_in_cupy_arrays_out(cuda_mesh, mesh):
    cupy = pytest.importorskip("cupy")
    host = ray_set(mesh).astype(np.float32)
    answers = cuda_mesh.cast_rays(cupy.asarray(host))
    assert all(isinstance(value, cupy.ndarray) for value in answers.values())
    same_as_from_numpy(cuda_mesh, host, answers, cupy.asnumpy)
    occluded = cuda_mesh.test_occlusions(cupy.asarray(host))
    np.testing.assert_array_equal(cupy.asnumpy(occluded), cuda_mesh.test_occlusions(host))


def test_warp_arrays_in_warp_arrays_out(cuda_mesh, mesh):
    wp = pytest.importorskip("warp")
    host = ray_set(mesh).astype(np.float32)
    answers = cuda_mesh.cast_rays(wp.array(host, dtype=wp.float32, device="cuda"))
    assert all(isinstance(value, wp.array) for value in answers.values())
    same_as_from_numpy(cuda_mesh, host, answers, lambda a: a.numpy())
