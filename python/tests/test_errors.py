"""Refusals: each bad input raises the exception its kind calls for, with a message that says
what to do, and leaves the data as it was (nothing is copied behind the caller's back)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_array, same_bytes

import xpose


def untouched_after(call, *arrays):
    """Runs `call` (which must raise) and checks that `arrays` keep their bytes."""
    before = [a.copy() for a in arrays]
    try:
        call()
    finally:
        for a, b in zip(arrays, before):
            assert same_bytes(a, b)


def test_non_contiguous_refused_with_the_remedy():
    base = random_array((30, 40), np.float32)
    for view in (base.T, base[:, ::2], base[::2], base[:, 1:]):
        for call in (xpose.transpose_, xpose.transpose):
            with pytest.raises(ValueError, match=r"not C-contiguous.*numpy\.ascontiguousarray"):
                untouched_after(lambda: call(view), base)


def test_wrong_number_of_axes():
    for shape in [(5,), (2, 3, 4, 5), ()]:
        a = np.zeros(shape, np.float32)
        with pytest.raises(ValueError, match="2-D arrays and 3-D batches"):
            xpose.transpose_(a)
        with pytest.raises(ValueError, match="reshape it"):
            xpose.transpose(a)


def test_unsupported_dtypes():
    objects = np.empty((3, 4), dtype=object)
    with pytest.raises(TypeError, match="Python objects"):
        xpose.transpose_(objects)
    too_large = np.zeros((2, 3), dtype="V1025")
    with pytest.raises(TypeError, match="1 to 1024 bytes"):
        untouched_after(lambda: xpose.transpose_(too_large), too_large)
    with pytest.raises(TypeError, match="1 to 1024 bytes"):
        xpose.transpose(np.zeros((2, 3), dtype="V0"))


def test_not_an_array():
    with pytest.raises(TypeError, match="numpy.asarray"):
        xpose.transpose([[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="NumPy arrays"):
        xpose.transpose_("text")


def test_read_only_array_in_place():
    a = random_array((8, 9), np.int16)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        untouched_after(lambda: xpose.transpose_(a), a)
    # Reading it is fine.
    assert xpose.transpose(a).shape == (9, 8)


def test_bad_out():
    a = random_array((6, 10), np.float32)
    cases = [
        (np.empty((6, 10), np.float32), ValueError, "shape"),
        (np.empty((10, 6), np.float64), TypeError, "dtype"),
        (np.empty((6, 10), np.float32).T, ValueError, "not C-contiguous"),
        ([[0.0] * 6] * 10, TypeError, "NumPy arrays"),
    ]
    for out, error, message in cases:
        with pytest.raises(error, match=message):
            untouched_after(lambda: xpose.transpose(a, out=out), a)
    frozen = np.zeros((10, 6), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        untouched_after(lambda: xpose.transpose(a, out=frozen), a, frozen)


def test_out_overlapping_the_source():
    square = random_array((16, 16), np.float32)
    with pytest.raises(ValueError, match="transpose_"):
        untouched_after(lambda: xpose.transpose(square, out=square), square)
    buffer = random_array((2, 12, 12), np.float64)
    with pytest.raises(ValueError, match="overlaps"):
        untouched_after(lambda: xpose.transpose(buffer[0], out=buffer[0]), buffer)


def test_library_errors_carry_the_message():
    a = random_array((12, 20), np.float32)
    # A route that cannot serve the shape: the library's refusal, data untouched.
    with pytest.raises(xpose.Error, match="square"):
        untouched_after(lambda: xpose.transpose_(a, route="square_tile_swap"), a)
    with pytest.raises(xpose.InvalidArgumentError, match="not a route of xpose.*automatic"):
        untouched_after(lambda: xpose.transpose_(a, route="fastest"), a)
    with pytest.raises(ValueError, match="threads"):
        untouched_after(lambda: xpose.transpose_(a, threads=-3), a)
    with pytest.raises(TypeError, match="route"):
        xpose.transpose_(a, route=3)


def test_exception_classes():
    assert issubclass(xpose.InvalidArgumentError, ValueError)
    assert issubclass(xpose.UnsupportedError, NotImplementedError)
    assert issubclass(xpose.OutOfMemoryError, MemoryError)
    assert issubclass(xpose.DeviceError, RuntimeError)
    assert issubclass(xpose.InternalError, RuntimeError)
    for cls in (
        xpose.InvalidArgumentError,
        xpose.UnsupportedError,
        xpose.OutOfMemoryError,
        xpose.DeviceError,
        xpose.InternalError,
    ):
        assert issubclass(cls, xpose.Error)
    try:
        xpose.plan((4, 5), np.float32, route="nope")
    except xpose.Error as e:
        assert e.status == "invalid_argument"
        assert "nope" in str(e)


def test_out_of_memory_is_a_memory_error():
    # A plan whose workspace no machine can hold: 2^60 elements forced onto cycle_following,
    # whose flags alone pass the 2^47-byte address space of x86-64 and AArch64 processes.
    with pytest.raises(MemoryError, match="cannot allocate"):
        xpose.plan((1 << 20, 1 << 40), np.float32, route="cycle_following")


@pytest.mark.skipif(xpose.built_with_cuda(), reason="this build has the CUDA backend")
def test_gpu_request_without_cuda():
    with pytest.raises(NotImplementedError, match="without CUDA"):
        xpose.plan((64, 64), np.float32, device="cuda:0")


def test_jax_like_and_cuda_interface_without_cuda():
    class DeviceArray:
        __cuda_array_interface__ = {
            "shape": (4, 5),
            "typestr": "<f4",
            "data": (0x1000, False),
            "version": 3,
        }

    if xpose.built_with_cuda():
        pytest.skip("this build has the CUDA backend")
    with pytest.raises(NotImplementedError, match="without CUDA"):
        xpose.transpose_(DeviceArray())
