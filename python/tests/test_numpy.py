"""xpose on NumPy arrays: in place and out of place, against numpy.ascontiguousarray(a.T), for
every dtype of 1 to 16 bytes (and odd and large element sizes), shapes with primes, skinny and
square ones, single rows and columns, batches, random shapes, and round trips."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import expected_transpose, random_array, same_bytes

import xpose

# Every NumPy dtype of 1 to 16 bytes, a structured one, and element sizes the planner moves as
# raw bytes (3, 5, 12, 24, 100 and 1024 bytes).
DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.longdouble,
    np.complex64,
    np.complex128,
    np.dtype("datetime64[ns]"),
    np.dtype([("id", "<i4"), ("x", "<f8")]),  # 12 bytes, packed
    np.dtype([("rgb", "u1", 3)]),  # 3 bytes
    np.dtype("S5"),
    np.dtype("U6"),  # 24 bytes
    np.dtype("V100"),
    np.dtype("V1024"),
]
DTYPE_IDS = [
    np.dtype(d).str if np.dtype(d).names is None else f"struct{np.dtype(d).itemsize}"
    for d in DTYPES
]

SHAPES = [
    (1, 1),
    (1, 37),  # one row
    (41, 1),  # one column
    (64, 64),  # square
    (97, 89),  # primes
    (89, 97),
    (3, 1009),  # skinny, prime long side
    (1009, 3),
    (2, 512),
    (640, 48),
    (100, 257),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(97, 89), (3, 1009), (64, 64), (1, 37)], ids=str)
def test_every_dtype_in_place(dtype, shape):
    a = random_array(shape, dtype, seed=1)
    expected = expected_transpose(a)
    buffer_address = a.__array_interface__["data"][0]
    result = xpose.transpose_(a)
    assert result.shape == shape[::-1]
    assert result.__array_interface__["data"][0] == buffer_address  # the same buffer, a view
    assert np.shares_memory(result, a)
    assert same_bytes(result, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(97, 89), (1009, 3), (5, 33, 7)], ids=str)
def test_every_dtype_out_of_place(dtype, shape):
    a = random_array(shape, dtype, seed=2)
    before = a.copy()
    result = xpose.transpose(a)
    assert not np.shares_memory(result, a)
    assert same_bytes(result, expected_transpose(a))
    assert same_bytes(a, before)  # the source is read only


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.complex128], ids=str)
def test_shapes_in_place_and_out_of_place(shape, dtype):
    a = random_array(shape, dtype, seed=3)
    expected = expected_transpose(a)
    assert same_bytes(xpose.transpose(a), expected)
    assert same_bytes(xpose.transpose_(a), expected)


@pytest.mark.parametrize(
    "shape", [(4, 31, 17), (1, 64, 64), (7, 1, 23), (3, 45, 2), (16, 16, 16)], ids=str
)
@pytest.mark.parametrize("dtype", [np.int8, np.float64, np.dtype("V12")], ids=str)
def test_batches(shape, dtype):
    a = random_array(shape, dtype, seed=4)
    expected = expected_transpose(a)
    out = np.empty((shape[0], shape[2], shape[1]), dtype)
    assert xpose.transpose(a, out) is out
    assert same_bytes(out, expected)
    result = xpose.transpose_(a)
    assert result.shape == (shape[0], shape[2], shape[1])
    assert same_bytes(result, expected)


def test_random_shapes(rng):
    for case in range(40):
        batch = int(rng.integers(1, 4))
        rows, cols = (int(n) for n in rng.integers(1, 300, size=2))
        itemsize = int(rng.choice([1, 2, 4, 8, 16, 3, 6, 12]))
        shape = (rows, cols) if case % 2 else (batch, rows, cols)
        a = random_array(shape, np.dtype(f"V{itemsize}"), seed=case)
        expected = expected_transpose(a)
        assert same_bytes(xpose.transpose(a), expected), (shape, itemsize)
        assert same_bytes(xpose.transpose_(a), expected), (shape, itemsize)


@pytest.mark.parametrize("shape", [(97, 89), (2, 30, 50), (1, 5000), (5000, 2)], ids=str)
def test_round_trip(shape):
    a = random_array(shape, np.float32, seed=5)
    original = a.copy()
    back = xpose.transpose_(xpose.transpose_(a))
    assert back.shape == shape
    assert same_bytes(back, original)
    assert same_bytes(xpose.transpose(xpose.transpose(original)), original)


def test_values_not_just_bytes():
    a = np.arange(6 * 10, dtype=np.float64).reshape(6, 10)
    expected = a.T.copy()
    np.testing.assert_array_equal(xpose.transpose(a), expected)
    np.testing.assert_array_equal(xpose.transpose_(a), expected)


def test_out_of_place_into_given_array():
    a = random_array((33, 65), np.int32, seed=6)
    out = np.full((65, 33), -1, np.int32)
    result = xpose.transpose(a, out=out)
    assert result is out
    assert same_bytes(out, expected_transpose(a))


def test_view_into_a_larger_buffer():
    # A C-contiguous slice: only its own bytes are transposed, its neighbours keep theirs.
    base = random_array((10, 12, 9), np.uint16, seed=7)
    before = base.copy()
    view = base[3:5]
    expected = expected_transpose(view)
    result = xpose.transpose_(view)
    assert same_bytes(result, expected)
    assert same_bytes(base[:3], before[:3]) and same_bytes(base[5:], before[5:])


def test_non_native_byte_order():
    a = np.arange(35, dtype=">i4").reshape(5, 7)
    np.testing.assert_array_equal(xpose.transpose(a), a.T)
    np.testing.assert_array_equal(xpose.transpose_(a.copy()), a.T)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 3, 4), (2, 0, 3)], ids=str)
def test_empty_arrays(shape):
    a = np.zeros(shape, np.float32)
    assert xpose.transpose_(a).shape == expected_transpose(a).shape
    assert xpose.transpose(a).shape == expected_transpose(a).shape


@pytest.mark.parametrize("route", ["three_stage", "four_stage", "row_column", "cycle_following"])
def test_forced_in_place_routes(route):
    a = random_array((120, 90), np.float32, seed=8)
    expected = expected_transpose(a)
    assert same_bytes(xpose.transpose_(a, route=route, threads=1), expected)


def test_threads():
    a = random_array((300, 200), np.float64, seed=9)
    expected = expected_transpose(a)
    assert same_bytes(xpose.transpose(a, threads=1), expected)
    assert same_bytes(xpose.transpose_(a, threads=2), expected)
