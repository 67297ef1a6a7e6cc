"""A process forked after meshcast has run (multiprocessing's default on Linux) does not
hang: it makes thread pools of its own."""

import multiprocessing
import sys

import numpy as np
import pytest

import meshcast

from conftest import random_rays

MESH = None


def hits_in_child(rays):
    return int(np.isfinite(MESH.cast_rays(rays)["t_hit"]).sum())


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_a_forked_process_casts_after_the_parent_did(bunny):
    global MESH
    MESH = bunny
    rays = random_rays(bunny, 5000, 12)
    # The parent's pools exist, with threads, before the fork.
    expected = int(np.isfinite(bunny.cast_rays(rays, threads=2)["t_hit"]).sum())
    bunny.cast_rays(rays)
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        answers = pool.map_async(hits_in_child, [rays, rays, rays]).get(timeout=120)
    assert answers == [expected] * 3
