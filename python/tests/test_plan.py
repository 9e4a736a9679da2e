"""xpose.plan: what a plan says about itself (describe, workspace, route, passes) and executing
one plan many times, in place and out of place."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import expected_transpose, random_array, same_bytes

import xpose


def test_describe_and_workspace():
    p = xpose.plan((7200, 1800), np.float32)
    text = p.describe()
    assert "in-place transposition on the CPU" in text
    assert "7200 x 1800" in text and "4-byte elements" in text
    assert f"route: {p.route}" in text
    assert "workspace:" in text and "predicted:" in text
    assert p.route in xpose.routes()
    matrix_bytes = 7200 * 1800 * 4
    # The planner keeps its scratch within 1% of the matrix, or 256 KiB, where a route can.
    assert 0 <= p.workspace_bytes <= max(matrix_bytes // 100, 256 * 1024)
    assert p.predicted_passes >= 1.0
    assert p.in_place and p.device == "cpu" and p.stream == 0
    assert p.shape == (7200, 1800) and p.out_shape == (1800, 7200) and p.itemsize == 4
    assert "xpose.Plan in place" in repr(p)


def test_out_of_place_plan_describes_itself():
    p = xpose.plan((3, 500, 300), "complex128", in_place=False)
    text = p.describe()
    assert "out-of-place transposition on the CPU" in text
    assert "batch 3" in text and "16-byte elements" in text
    assert not p.in_place
    assert p.out_shape == (3, 300, 500)


def test_square_plan_needs_no_workspace():
    p = xpose.plan((512, 512), np.float64)
    assert p.route == "square_tile_swap"
    assert p.workspace_bytes == 0


@pytest.mark.parametrize("dtype", [np.float32, "f4", np.dtype("<f4"), 4], ids=repr)
def test_dtype_spellings(dtype):
    assert xpose.plan((10, 20), dtype).itemsize == 4


def test_plan_from_an_array_executes_many_times():
    a = random_array((45, 70), np.int64, seed=11)
    p = xpose.plan(a)
    assert p.shape == (45, 70) and p.itemsize == 8
    for seed in range(5):
        b = random_array((45, 70), np.int64, seed=seed)
        expected = expected_transpose(b)
        result = p.execute(b)
        assert result.shape == (70, 45)
        assert same_bytes(result, expected)


def test_out_of_place_plan_with_and_without_out():
    a = random_array((4, 33, 21), np.uint16, seed=12)
    p = xpose.plan(a, in_place=False)
    out = np.empty((4, 21, 33), np.uint16)
    assert p.execute(a, out) is out
    assert same_bytes(out, expected_transpose(a))
    assert same_bytes(p.execute(a), expected_transpose(a))


def test_forced_route_is_reported():
    p = xpose.plan((40, 60), np.float32, route="four_stage")
    assert p.route == "four_stage"
    a = random_array((40, 60), np.float32, seed=13)
    assert same_bytes(p.execute(a.copy()), expected_transpose(a))


def test_execute_checks_the_array():
    p = xpose.plan((8, 12), np.float32)
    a = random_array((12, 8), np.float32)
    with pytest.raises(ValueError, match="this plan takes shape"):
        p.execute(a)
    with pytest.raises(ValueError, match="this plan takes shape"):
        p.execute(random_array((8, 12), np.float64))
    with pytest.raises(ValueError, match="without out="):
        p.execute(random_array((8, 12), np.float32), np.empty((12, 8), np.float32))
    frozen = random_array((8, 12), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        p.execute(frozen)


def test_plan_arguments():
    with pytest.raises(TypeError, match="needs its dtype"):
        xpose.plan((8, 12))
    with pytest.raises(TypeError, match="only with a shape"):
        xpose.plan(np.zeros((8, 12)), np.float32)
    with pytest.raises(ValueError, match="2-D arrays and 3-D batches"):
        xpose.plan((8,), np.float32)
    with pytest.raises(ValueError, match="'cpu', 'cuda'"):
        xpose.plan((8, 12), np.float32, device="tpu")
    with pytest.raises(ValueError, match="rows must be positive"):
        xpose.plan((0, 12), np.float32)
    with pytest.raises(xpose.InvalidArgumentError, match="not a route"):
        xpose.plan((8, 12), np.float32, route="sideways")


def test_routes_and_version():
    names = xpose.routes()
    assert names[0] == "automatic"
    assert {"square_tile_swap", "three_stage", "copy_blocked", "copy_tuned"} <= set(names)
    assert xpose.__version__.count(".") == 2
    assert isinstance(xpose.built_with_cuda(), bool)
