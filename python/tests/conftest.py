"""Shared helpers of the xpose pytest suite: the expected results (NumPy's own transpose, made
contiguous) and random data of any dtype, compared byte for byte so that NaN payloads, padding
bytes and non-0/1 booleans count as they lie in memory."""

from __future__ import annotations

import numpy as np
import pytest


def expected_transpose(a: np.ndarray) -> np.ndarray:
    """numpy.ascontiguousarray of the transpose of the last two axes."""
    return np.ascontiguousarray(np.swapaxes(a, -1, -2))


def random_array(shape: tuple[int, ...], dtype, seed: int = 0) -> np.ndarray:
    """Random bytes viewed as `dtype`: every byte of every element is random."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=(*shape, dtype.itemsize), dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return (
        a.shape == b.shape
        and a.dtype == b.dtype
        and np.array_equal(
            np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)
        )
    )


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)
