"""Matrices in files through the package: .npy files of several dtypes in C and Fortran order
transposed in place and out of place, the order flag flipped alone, raw files, a journal left by
an interrupted run, and bad inputs (an error, the file unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

import xpose


def random_array(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(1, 250, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("journal", [True, False])
def test_npy_in_place(tmp_path, dtype, order, journal):
    a = np.asarray(random_array((37, 53), dtype, 1), order=order)
    path = tmp_path / "a.npy"
    np.save(path, a)
    report = xpose.transpose_file(path, journal=journal)
    assert report["before"]["shape"] == (37, 53)
    assert report["after"]["shape"] == (53, 37)
    assert report["after"]["fortran_order"] == (order == "F")
    b = np.load(path)
    assert b.shape == (53, 37)
    np.testing.assert_array_equal(b, a.T)
    assert not (tmp_path / "a.npy.xpose-journal").exists()


def test_npy_out_of_place_and_memory_budget(tmp_path):
    a = random_array((301, 257), np.float32, 2)
    src, dst = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(src, a)
    report = xpose.transpose_file(src, dst, memory=1 << 20)
    np.testing.assert_array_equal(np.load(dst), a.T)
    np.testing.assert_array_equal(np.load(src), a)
    assert report["memory_budget"] <= 1 << 20


def test_structured_dtype(tmp_path):
    dtype = np.dtype([("x", "<f8"), ("n", "<i4")])
    a = np.zeros((11, 7), dtype=dtype)
    a["x"] = np.arange(77).reshape(11, 7) * 0.5
    a["n"] = np.arange(77).reshape(11, 7)
    path = tmp_path / "s.npy"
    np.save(path, a)
    xpose.transpose_file(path)
    np.testing.assert_array_equal(np.load(path), a.T)


def test_flip_order_moves_no_data(tmp_path):
    a = random_array((20, 30), np.float32, 3)
    path = tmp_path / "a.npy"
    np.save(path, a)
    data_before = path.read_bytes()[-a.nbytes :]
    report = xpose.transpose_file(path, flip_order=True)
    assert report["after"]["fortran_order"]
    assert path.read_bytes()[-a.nbytes :] == data_before
    np.testing.assert_array_equal(np.load(path), a.T)


@pytest.mark.parametrize("by", ["dtype", "itemsize"])
def test_raw_file(tmp_path, by):
    a = random_array((23, 41), np.int32, 4)
    path = tmp_path / "a.bin"
    a.tofile(path)
    kind = {"dtype": np.int32} if by == "dtype" else {"itemsize": 4}
    xpose.transpose_file(path, shape=(23, 41), **kind)
    np.testing.assert_array_equal(np.fromfile(path, dtype=np.int32).reshape(41, 23), a.T)


def test_recover_without_a_journal_does_nothing(tmp_path):
    a = random_array((5, 9), np.float32, 5)
    path = tmp_path / "a.npy"
    np.save(path, a)
    assert xpose.recover_file(path) is False
    np.testing.assert_array_equal(np.load(path), a)


def test_bad_inputs_leave_the_file_unchanged(tmp_path):
    a = random_array((6, 10), np.float32, 6)
    path = tmp_path / "a.bin"
    a.tofile(path)
    before = path.read_bytes()
    with pytest.raises(xpose.Error):
        xpose.transpose_file(path, shape=(7, 10), dtype=np.float32)  # wrong size
    with pytest.raises(ValueError):
        xpose.transpose_file(path, shape=(6, 10), dtype=np.float32, itemsize=8)
    with pytest.raises(xpose.Error):
        xpose.transpose_file(tmp_path / "missing.npy")
    assert path.read_bytes() == before
