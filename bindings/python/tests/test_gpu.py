"""GpuMesh (``Mesh.to_gpu()``): every ray query answers as the CPU ``Mesh`` does, with the
same keys, dtypes and shapes, the same triangles, counts and hit lists, rays through
vertices and along edges included.

``t`` and the barycentric ``u``, ``v`` are the shader's: bit for bit the CPU's on llvmpipe
(Mesa's software Vulkan, what CI runs), and on a driver that fuses or rounds division
differently usually within a few units in the last place and always within 2^-12 of ``t``
(relative) and 2^-8 of ``u``, ``v`` (see the ``meshcast-gpu`` crate). Everything else is
compared exactly everywhere.

Without a GPU adapter these tests are skipped, or fail when the environment variable ``CI``
is set (CI installs Mesa's lavapipe, ``mesa-vulkan-drivers``, so it always has one).
"""

import os
import subprocess
import sys
import threading
from functools import lru_cache

import numpy as np
import pytest

import meshcast

from conftest import adversarial_rays, asset, random_rays

ADAPTERS = meshcast.gpu_adapters()
MESHES = ["stanford-bunny.obj", "cow.obj", "suzanne.obj", "spot.obj"]
CAST_KEYS = {"t_hit", "geometry_ids", "primitive_ids", "primitive_uvs", "primitive_normals"}
LIST_KEYS = {"ray_splits", "ray_ids", "geometry_ids", "primitive_ids", "primitive_uvs", "t_hit"}
#: Answers of the shader's arithmetic, exact only where the driver rounds as the CPU does.
SHADER_FLOATS = {"t_hit", "primitive_uvs"}
#: How far they may lie from the CPU's elsewhere (relative, absolute): the GPU leaves open
#: any hit that cannot promise them (``meshcast_gpu::T_ERROR_BOUND``, ``UV_ERROR_BOUND``).
SHADER_BOUNDS = {"t_hit": (2.0**-12 * 1.001, 0.0), "primitive_uvs": (0.0, 2.0**-8)}


@pytest.fixture(autouse=True)
def need_a_gpu():
    if ADAPTERS:
        return
    if os.environ.get("CI"):
        pytest.fail(
            "meshcast.gpu_adapters() is empty and CI is set: CI must have a GPU adapter "
            "(Mesa's lavapipe: apt-get install mesa-vulkan-drivers)"
        )
    pytest.skip("no GPU adapter (meshcast.gpu_adapters() is empty); lavapipe: apt-get install mesa-vulkan-drivers")


@lru_cache(maxsize=None)
def loaded(name):
    """The CPU mesh `name` and the same mesh on the GPU."""
    mesh = meshcast.Mesh.load(asset(name))
    return mesh, mesh.to_gpu()


def exact(gpu):
    """Whether the adapter rounds as the CPU does (llvmpipe), so that `t`, `u`, `v` agree
    bit for bit."""
    return "llvmpipe" in gpu.adapter.lower()


def bits(a):
    """Floats by their bits (so that -0.0 differs from 0.0), anything else as it is."""
    a = np.asarray(a)
    if a.dtype == np.float64:
        return a.view(np.uint64)
    return a.view(np.uint32) if a.dtype == np.float32 else a


def assert_same(gpu_answer, cpu_answer, bit_exact):
    """The GPU's answer is the CPU's: the same keys, dtypes and shapes, and the same values
    (where not `bit_exact`, the shader's floats within the bounds the GPU promises: `t`
    within 2^-12 of itself, `u` and `v` within 2^-8)."""
    if not isinstance(cpu_answer, dict):
        gpu_answer, cpu_answer = {"answer": gpu_answer}, {"answer": cpu_answer}
    assert gpu_answer.keys() == cpu_answer.keys()
    for key, expected in cpu_answer.items():
        got = gpu_answer[key]
        assert type(got) is type(expected), key
        assert got.dtype == expected.dtype, key
        assert got.shape == expected.shape, key
        if key in SHADER_FLOATS and not bit_exact:
            rtol, atol = SHADER_BOUNDS[key]
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=key)
        else:
            np.testing.assert_array_equal(bits(got), bits(expected), err_msg=key)


def rays_through_vertices(mesh, n, seed):
    """Rays from random points aimed exactly through vertices, so that each passes through
    a vertex at t = 1, and some along the axes."""
    rng = np.random.default_rng(seed)
    vertices = mesh.vertices.astype(np.float64)
    through = vertices[rng.integers(0, len(vertices), n)]
    low, high = mesh.bounds.astype(np.float64)
    origins = rng.uniform(low - (high - low), high + (high - low), (n, 3))
    axis = rng.random(n) < 0.3
    steps = np.eye(3)[rng.integers(0, 3, n)] * rng.choice([-1.0, 1.0], (n, 1)) * np.linalg.norm(high - low)
    origins[axis] = through[axis] - steps[axis]
    rays = np.concatenate([origins, through - origins], axis=1).astype(np.float32)
    # The directions in float32 from the float32 origins, so the vertex lies on the ray's line
    # as exactly as float32 can put it there.
    rays[:, 3:] = through.astype(np.float32) - rays[:, :3]
    return rays


def every_kind_of_ray(mesh, seed):
    return np.concatenate(
        [
            random_rays(mesh, 1500, seed),
            adversarial_rays(mesh, 1500, seed + 1),
            rays_through_vertices(mesh, 1000, seed + 2),
        ]
    )


@pytest.mark.parametrize("name", MESHES)
def test_every_query_answers_as_the_cpu_does(name):
    mesh, gpu = loaded(name)
    rays = every_kind_of_ray(mesh, 11)
    bit_exact = exact(gpu)
    assert_same(gpu.cast_rays(rays), mesh.cast_rays(rays), bit_exact)
    assert_same(gpu.test_occlusions(rays), mesh.test_occlusions(rays), bit_exact)
    assert_same(gpu.count_intersections(rays), mesh.count_intersections(rays), bit_exact)
    assert_same(gpu.list_intersections(rays), mesh.list_intersections(rays), bit_exact)


def test_rays_through_vertices_and_edges_hit_and_count_once():
    mesh, gpu = loaded("spot.obj")
    rays = np.concatenate([adversarial_rays(mesh, 3000, 5), rays_through_vertices(mesh, 3000, 6)])
    cpu_counts = mesh.count_intersections(rays)
    gpu_counts = gpu.count_intersections(rays)
    np.testing.assert_array_equal(gpu_counts, cpu_counts)
    hits = gpu.cast_rays(rays)
    np.testing.assert_array_equal(hits["primitive_ids"], mesh.cast_rays(rays)["primitive_ids"])
    np.testing.assert_array_equal(gpu.test_occlusions(rays), mesh.test_occlusions(rays))
    # Rays from outside the closed mesh's box cross it an even number of times.
    assert mesh.is_closed
    low, high = mesh.bounds
    outside = (rays[:, :3] < low).any(axis=1) | (rays[:, :3] > high).any(axis=1)
    assert outside.sum() > 3000
    assert (gpu_counts[outside] % 2 == 0).all()


def test_the_ray_interval_and_the_hit_cap_are_the_cpus():
    mesh, gpu = loaded("cow.obj")
    rays = every_kind_of_ray(mesh, 21)
    bit_exact = exact(gpu)
    for tnear, tfar in [(0.0, np.inf), (0.3, 1.5), (-2.0, 0.5), (1.0, 1.0), (2.0, 1.0)]:
        options = dict(tnear=tnear, tfar=tfar)
        assert_same(gpu.cast_rays(rays, **options), mesh.cast_rays(rays, **options), bit_exact)
        assert_same(gpu.count_intersections(rays, **options), mesh.count_intersections(rays, **options), bit_exact)
        assert_same(gpu.list_intersections(rays, **options), mesh.list_intersections(rays, **options), bit_exact)
        assert_same(gpu.test_occlusions(rays, **options), mesh.test_occlusions(rays, **options), bit_exact)
    for cap in (0, 1, 2, 5, 16, 17, 100):
        assert_same(
            gpu.list_intersections(rays, max_hits=cap, tnear=0.1),
            mesh.list_intersections(rays, max_hits=cap, tnear=0.1),
            bit_exact,
        )


@pytest.mark.parametrize("name", ["spot.obj", "suzanne.obj"])
def test_contacts_false_is_the_cpus_tie_rule(name):
    # Rays through vertices and along edges: where the two rules differ.
    mesh, gpu = loaded(name)
    rays = np.concatenate([adversarial_rays(mesh, 2000, 31), rays_through_vertices(mesh, 2000, 32)])
    bit_exact = exact(gpu)
    for contacts in (False, True):
        options = dict(contacts=contacts, tnear=0.05)
        assert_same(gpu.cast_rays(rays, **options), mesh.cast_rays(rays, **options), bit_exact)
        assert_same(gpu.test_occlusions(rays, **options), mesh.test_occlusions(rays, **options), bit_exact)
    tie = mesh.cast_rays(rays, contacts=False)["primitive_ids"]
    touch = mesh.cast_rays(rays, contacts=True)["primitive_ids"]
    assert (tie != touch).any(), "the rays must tell the rules apart"
    camera = dict(eye=[0.3, 0.2, 4.0], center=[0.0, 0.0, 0.0], width_px=64, height_px=48)
    assert_same(
        gpu.cast_camera(contacts=False, **camera)["primitive_ids"],
        mesh.cast_camera(contacts=False, **camera)["primitive_ids"],
        bit_exact,
    )


def test_no_rays_answer_empty_arrays_as_on_the_cpu():
    mesh, gpu = loaded("suzanne.obj")
    for rays in (np.empty((0, 6), dtype=np.float32), np.empty((2, 0, 6), dtype=np.float64)):
        cast = gpu.cast_rays(rays)
        assert_same(cast, mesh.cast_rays(rays), True)
        assert cast.keys() == CAST_KEYS and cast["t_hit"].shape == rays.shape[:-1]
        assert_same(gpu.test_occlusions(rays), mesh.test_occlusions(rays), True)
        assert_same(gpu.count_intersections(rays), mesh.count_intersections(rays), True)
        listed = gpu.list_intersections(rays)
        assert_same(listed, mesh.list_intersections(rays), True)
        assert listed.keys() == LIST_KEYS
        np.testing.assert_array_equal(listed["ray_splits"], [0])


def test_shapes_dtypes_and_ways_of_giving_rays_are_the_cpus():
    mesh, gpu = loaded("spot.obj")
    bit_exact = exact(gpu)
    low, high = mesh.bounds
    camera = meshcast.create_rays_pinhole(60.0, (low + high) / 2, high + (high - low), [0, 1, 0], 32, 24)
    assert camera.shape == (24, 32, 6)
    for rays in (camera, camera.astype(np.float64), random_rays(mesh, 24, 3).reshape(2, 3, 4, 6), camera[5, 7]):
        assert_same(gpu.cast_rays(rays), mesh.cast_rays(rays), bit_exact)
        assert_same(gpu.test_occlusions(rays), mesh.test_occlusions(rays), bit_exact)
        assert_same(gpu.count_intersections(rays), mesh.count_intersections(rays), bit_exact)
        assert_same(gpu.list_intersections(rays), mesh.list_intersections(rays), bit_exact)
    origins, directions = camera[..., :3], camera[0, 0, 3:]
    assert_same(
        gpu.cast_rays(origins=origins, directions=directions),
        mesh.cast_rays(origins=origins, directions=directions),
        bit_exact,
    )
    # A list is read as float64, world coordinates carried into the mesh's frame, as on the CPU.
    assert_same(gpu.cast_rays(camera.tolist()), mesh.cast_rays(camera.tolist()), bit_exact)
    assert_same(gpu.cast_rays(camera, threads=1), mesh.cast_rays(camera), bit_exact)
    assert_same(gpu.count_intersections(camera, threads=2), mesh.count_intersections(camera), bit_exact)


def test_bad_arguments_raise_as_on_the_cpu():
    mesh, gpu = loaded("suzanne.obj")
    rays = random_rays(mesh, 10, 4)
    rays[7, 4] = np.nan
    for query in ("cast_rays", "test_occlusions", "count_intersections", "list_intersections"):
        with pytest.raises(ValueError, match=r"rays\[7\] is not finite"):
            getattr(gpu, query)(rays)
        with pytest.raises(ValueError, match=r"\(\.\.\., 6\)"):
            getattr(gpu, query)(rays[:, :5])
        with pytest.raises(TypeError):
            getattr(gpu, query)()
    with pytest.raises(ValueError, match="max_hits"):
        gpu.list_intersections(rays[:3], max_hits=-1)
    with pytest.raises(ValueError, match="NaN"):
        gpu.cast_rays(rays[:3], tnear=np.nan)


def test_set_positions_moves_the_gpu_mesh_only():
    mesh = meshcast.Mesh.load(asset("stanford-bunny.obj"))
    gpu = mesh.to_gpu()
    before = mesh.vertices
    rng = np.random.default_rng(8)
    moved = (before + 0.01 * rng.normal(size=before.shape)).astype(np.float32)
    gpu.set_positions(moved)
    fresh = meshcast.Mesh(moved, mesh.faces)
    rays = np.concatenate([random_rays(fresh, 1500, 9), adversarial_rays(fresh, 1500, 10)])
    bit_exact = exact(gpu)
    assert_same(gpu.cast_rays(rays), fresh.cast_rays(rays), bit_exact)
    assert_same(gpu.count_intersections(rays), fresh.count_intersections(rays), bit_exact)
    assert_same(gpu.list_intersections(rays), fresh.list_intersections(rays), bit_exact)
    np.testing.assert_array_equal(gpu.to_cpu().vertices, moved)
    # The CPU mesh it came from keeps its positions.
    np.testing.assert_array_equal(mesh.vertices, before)
    # Bad positions raise and leave it as it was.
    with pytest.raises(meshcast.MeshcastError):
        gpu.set_positions(moved[:-1])
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        gpu.set_positions(moved[None])
    assert_same(gpu.count_intersections(rays), fresh.count_intersections(rays), bit_exact)


def test_set_positions_while_queries_run():
    mesh = meshcast.Mesh.load(asset("cow.obj"))
    gpu = mesh.to_gpu()
    rays = random_rays(mesh, 20000, 13)
    shapes = [mesh.vertices * np.float32(scale) for scale in (1.0, 1.5, 2.0)]
    answers = {}
    done = threading.Event()

    def cast():
        while not done.is_set():
            counts = gpu.count_intersections(rays)
            answers.setdefault(counts.tobytes(), counts)

    workers = [threading.Thread(target=cast) for _ in range(2)]
    for worker in workers:
        worker.start()
    try:
        for _ in range(3):
            for vertices in shapes:
                gpu.set_positions(vertices)
    finally:
        done.set()
        for worker in workers:
            worker.join()
    # Each answer was one of the shapes', whole.
    expected = [meshcast.Mesh(v, mesh.faces).count_intersections(rays) for v in shapes]
    for counts in answers.values():
        assert any(np.array_equal(counts, e) for e in expected)
    np.testing.assert_array_equal(gpu.count_intersections(rays), expected[-1])
    assert_same(gpu.cast_rays(rays), meshcast.Mesh(shapes[-1], mesh.faces).cast_rays(rays), exact(gpu))


def test_a_mesh_beyond_the_shaders_range_is_answered_on_the_cpu():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    huge = meshcast.Mesh(mesh.vertices * np.float32(1e10), mesh.faces)
    gpu = huge.to_gpu()
    rays = random_rays(huge, 500, 12)
    assert_same(gpu.cast_rays(rays), huge.cast_rays(rays), True)
    assert_same(gpu.count_intersections(rays), huge.count_intersections(rays), True)
    assert gpu.stats["finished_on_cpu"] == gpu.stats["rays"] == 1000


def test_the_adapter_and_what_the_gpu_mesh_says_about_itself():
    mesh, _ = loaded("suzanne.obj")
    gpu = mesh.to_gpu()
    assert isinstance(gpu, meshcast.GpuMesh)
    assert gpu.adapter in ADAPTERS
    assert gpu.adapter in repr(gpu) and f"{mesh.triangle_count} triangles" in repr(gpu)
    assert gpu.gpu_bytes > 0
    assert gpu.stats == {"rays": 0, "finished_on_cpu": 0}
    gpu.count_intersections(random_rays(mesh, 100, 1))
    # Random rays are answered on the GPU, all but a few (none on llvmpipe).
    assert gpu.stats["rays"] == 100 and gpu.stats["finished_on_cpu"] < 10
    assert gpu.to_cpu().geometry_hash == mesh.geometry_hash
    assert mesh.to_gpu(adapter=ADAPTERS[0]).adapter == ADAPTERS[0]
    assert mesh.to_gpu(adapter=ADAPTERS[0].upper()[:4]).adapter in ADAPTERS
    with pytest.raises(meshcast.MeshcastError, match="no GPU adapter.*no such adapter"):
        mesh.to_gpu(adapter="no such adapter")
    with pytest.raises(TypeError):
        meshcast.GpuMesh()


def test_a_gpu_mesh_is_a_geometry_whose_point_queries_are_its_cpu_meshs():
    mesh, _ = loaded("spot.obj")
    gpu = mesh.to_gpu()
    assert isinstance(gpu, meshcast.Geometry)
    # The ray queries are Geometry's own, answered on the GPU (the other tests check how).
    for query in ("cast_rays", "cast_camera", "test_occlusions", "count_intersections", "list_intersections"):
        assert query not in vars(meshcast.GpuMesh) and getattr(meshcast.GpuMesh, query) is getattr(meshcast.Geometry, query)
    rng = np.random.default_rng(21)
    low, high = mesh.bounds.astype(np.float64)
    points = rng.uniform(low - 0.2 * (high - low), high + 0.2 * (high - low), (2000, 3)).astype(np.float32)

    def assert_point_queries_equal(gpu, mesh):
        closest = {"max_distance": 0.1, "with_distance": True}
        assert_same(gpu.compute_closest_points(points, **closest), mesh.compute_closest_points(points, **closest), True)
        for query in ("compute_distance", "compute_signed_distance", "compute_occupancy", "contains", "winding_number"):
            assert_same(getattr(gpu, query)(points), getattr(mesh, query)(points), True)
        assert_same(gpu.bounds, mesh.bounds, True)

    assert_point_queries_equal(gpu, mesh)
    # The CPU mesh answered them: the GPU traced no ray.
    assert gpu.stats["rays"] == 0
    moved = mesh.vertices * np.float32(1.25) + np.float32(0.125)
    gpu.set_positions(moved)
    assert_point_queries_equal(gpu, meshcast.Mesh(moved, mesh.faces))


def test_threads_query_one_gpu_mesh_at_once():
    mesh, gpu = loaded("stanford-bunny.obj")
    rays = [random_rays(mesh, 2000, seed) for seed in range(4)]
    expected = [mesh.count_intersections(r) for r in rays]
    answers = [None] * len(rays)

    def work(i):
        answers[i] = gpu.count_intersections(rays[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(rays))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for got, want in zip(answers, expected):
        np.testing.assert_array_equal(got, want)


def test_the_kernel_times_itself_on_rays_kept_on_the_gpu():
    mesh, gpu = loaded("suzanne.obj")
    rays = random_rays(mesh, 1000, 3)
    assert gpu._kernel_seconds(rays, "closest", 2) > 0
    assert gpu._kernel_seconds(rays, "any", 1) > 0
    # wgpu's kernel beside the back end in use (the same one where CUDA is absent).
    assert gpu._kernel_seconds(rays, "closest", 1, "wgpu") > 0
    with pytest.raises(ValueError, match="closest.*any"):
        gpu._kernel_seconds(rays, "every", 1)
    with pytest.raises(ValueError, match="in use.*wgpu"):
        gpu._kernel_seconds(rays, "closest", 1, "vulkan")


KERNEL_OPTIONS_CHILD = """
import sys
import numpy as np
import meshcast
from conftest import adversarial_rays, asset, random_rays
mesh = meshcast.Mesh.load(asset("stanford-bunny.obj"))
gpu = mesh.to_gpu()
rays = np.concatenate([random_rays(mesh, 12000, 5), adversarial_rays(mesh, 3000, 6)])
ours, cpu = gpu.cast_rays(rays), mesh.cast_rays(rays)
assert np.array_equal(ours["primitive_ids"], cpu["primitive_ids"])
assert np.array_equal(gpu.count_intersections(rays), mesh.count_intersections(rays))
assert np.array_equal(gpu.test_occlusions(rays), mesh.test_occlusions(rays))
print("same", gpu.stats["finished_on_cpu"])
"""


def test_kernel_options_from_the_environment_keep_every_answer():
    # Small chunks (many streamed), a stack small enough to overflow, Ylitie's octant order
    # and a tree of the GPU's own with leaves of at most 2, on a Vulkan device without robust
    # buffer access: the options are read when the process first opens the GPU, so each
    # setting runs in a process of its own.
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, MESHCAST_GPU_CHUNK="4096", MESHCAST_GPU_STACK="8",
               MESHCAST_GPU_ORDER="octant", MESHCAST_GPU_LEAF="2", MESHCAST_GPU_CHECKS="1",
               MESHCAST_GPU_ROBUST="0")
    done = subprocess.run([sys.executable, "-c", KERNEL_OPTIONS_CHILD], cwd=here, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    same, finished_on_cpu = done.stdout.split()
    assert same == "same" and int(finished_on_cpu) > 0  # the stack of 8 overflows
    env = dict(os.environ, MESHCAST_GPU_STACK="3")
    bad = subprocess.run([sys.executable, "-c", KERNEL_OPTIONS_CHILD], cwd=here, env=env,
                         capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "MESHCAST_GPU_STACK" in bad.stderr


CUDA_CHILD = """
import numpy as np
import meshcast
from conftest import asset, random_rays
mesh = meshcast.Mesh.load(asset("suzanne.obj"))
gpu = mesh.to_gpu()
rays = random_rays(mesh, 2000, 7)
assert np.array_equal(gpu.cast_rays(rays)["primitive_ids"], mesh.cast_rays(rays)["primitive_ids"])
assert np.array_equal(gpu.test_occlusions(rays), mesh.test_occlusions(rays))
print(gpu.cuda_device)
"""


def test_the_cuda_back_end_answers_only_where_asked_and_found():
    # By default (MESHCAST_GPU_BACKEND=auto) CUDA answers where an NVIDIA driver and device
    # are found, `wgpu` never, and `cuda` insists on it, failing with one clear error
    # elsewhere.
    here = os.path.dirname(os.path.abspath(__file__))

    def child(backend):
        env = dict(os.environ, MESHCAST_GPU_BACKEND=backend)
        return subprocess.run([sys.executable, "-c", CUDA_CHILD], cwd=here, env=env,
                              capture_output=True, text=True, check=False)

    auto = child("auto")
    assert auto.returncode == 0, auto.stderr
    found = auto.stdout.strip()
    default = child("")
    assert default.returncode == 0 and default.stdout.strip() == found, default.stderr
    alone = child("wgpu")
    assert alone.returncode == 0 and alone.stdout.strip() == "None", alone.stderr
    insisted = child("cuda")
    if found == "None":
        assert insisted.returncode != 0 and "no CUDA device" in insisted.stderr
    else:
        assert insisted.returncode == 0 and insisted.stdout.strip() == found
    bad = child("metal-please")
    assert bad.returncode != 0 and "MESHCAST_GPU_BACKEND" in bad.stderr


QUIET_CHILD = """
import meshcast
from conftest import asset
adapters = meshcast.gpu_adapters()
meshcast.Mesh.load(asset("suzanne.obj")).to_gpu()
print("\\n".join(adapters))
"""


def test_the_gpu_stack_prints_nothing_without_a_runtime_directory():
    # Containers and servers leave XDG_RUNTIME_DIR unset, where libwayland would complain if
    # the GPU stack asked it for a display; nothing but the answers reaches stderr, and each
    # device is listed once.
    loaded("suzanne.obj")
    here = os.path.dirname(os.path.abspath(__file__))
    for runtime in (None, "", here):
        env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
        if runtime is not None:
            env["XDG_RUNTIME_DIR"] = runtime
        child = subprocess.run([sys.executable, "-c", QUIET_CHILD], cwd=here, env=env,
                               capture_output=True, text=True, check=False)
        assert child.returncode == 0, child.stderr
        assert child.stderr == "", f"XDG_RUNTIME_DIR={runtime!r}: {child.stderr}"
        names = [line.split(" (")[0] for line in child.stdout.splitlines()]
        assert names and len(set(names)) == len(names), child.stdout
