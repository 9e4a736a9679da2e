"""Device arrays: PyTorch CUDA tensors, CuPy arrays, JAX GPU arrays and a
__cuda_array_interface__ object, each against the library's own transpose. Every test skips
itself, with the reason, when the library, a GPU or xpose's CUDA backend is missing.

The largest test fills 90% of the free GPU memory with one square matrix and transposes it in
place, where x.t().contiguous() runs out of memory."""

from __future__ import annotations

import math

import numpy as np
import pytest

import xpose

needs_cuda_build = pytest.mark.skipif(
    not xpose.built_with_cuda(), reason="xpose was built without CUDA"
)


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    if not xpose.built_with_cuda():
        pytest.skip("xpose was built without CUDA")
    return torch


def cupy_device():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("CuPy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"CuPy sees no CUDA device ({e})")
    if not xpose.built_with_cuda():
        pytest.skip("xpose was built without CUDA")
    return cupy


TORCH_DTYPES = [
    "bool",
    "int8",
    "int16",
    "float16",
    "bfloat16",
    "float32",
    "int64",
    "float64",
    "complex64",
    "complex128",
]
# Square (tile swap), rectangular (three- and four-stage), a prime side (cycle following),
# skinny, one row, and batches.
SHAPES = [(256, 256), (480, 320), (97, 89), (8, 4096), (1, 333), (6, 64, 48), (3, 31, 37)]


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_torch_in_place(dtype, shape):
    torch = torch_cuda()
    t = (
        (torch.arange(math.prod(shape), device="cuda") % 113)
        .reshape(shape)
        .to(getattr(torch, dtype))
    )
    expected = t.transpose(-1, -2).contiguous()
    address = t.data_ptr()
    assert xpose.transpose_(t) is t
    assert t.data_ptr() == address and t.shape == expected.shape
    assert torch.equal(t, expected)


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_torch_out_of_place(dtype, shape):
    torch = torch_cuda()
    t = (
        (torch.arange(math.prod(shape), device="cuda") % 113)
        .reshape(shape)
        .to(getattr(torch, dtype))
    )
    result = xpose.transpose(t)
    assert result.device == t.device
    assert torch.equal(result, t.transpose(-1, -2).contiguous())


def test_torch_runs_on_the_current_stream():
    torch = torch_cuda()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        t = torch.randn(1000, 700, device="cuda")
        expected = t.t().contiguous()
        p = xpose.plan(t, in_place=False)
        assert p.stream == stream.cuda_stream
        result = p.execute(t)
        xpose.transpose_(t)
    stream.synchronize()
    assert torch.equal(result, expected) and torch.equal(t, expected)
    # A plan made under one stream refuses to run while another is current.
    with pytest.raises(ValueError, match="current stream"):
        p.execute(torch.randn(1000, 700, device="cuda"))


def test_torch_refusals_on_the_gpu():
    torch = torch_cuda()
    t = torch.randn(64, 48, device="cuda")
    before = t.clone()
    with pytest.raises(ValueError, match=r"\.contiguous\(\)"):
        xpose.transpose_(t.t())
    with pytest.raises(ValueError, match="cuda"):
        xpose.transpose(t, out=torch.empty(48, 64))  # out on the CPU
    assert torch.equal(t, before)


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_cupy(dtype, shape):
    cupy = cupy_device()
    a = (cupy.arange(math.prod(shape)) % 113).astype(dtype).reshape(shape)
    expected = cupy.ascontiguousarray(cupy.swapaxes(a, -1, -2))
    result = xpose.transpose(a)
    assert isinstance(result, cupy.ndarray)
    assert bool((result == expected).all())
    view = xpose.transpose_(a)
    assert view.data.ptr == a.data.ptr and view.shape == expected.shape
    assert bool((view == expected).all())


def test_cupy_runs_on_the_current_stream():
    cupy = cupy_device()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        a = cupy.random.random((900, 500))
        expected = cupy.ascontiguousarray(a.T)
        result = xpose.transpose_(a)
        assert xpose.plan(a).stream == stream.ptr
    stream.synchronize()
    assert bool((result == expected).all())


def test_jax_on_the_gpu():
    jax = pytest.importorskip("jax")
    if not xpose.built_with_cuda():
        pytest.skip("xpose was built without CUDA")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX sees no GPU")
    x = jax.device_put(jax.numpy.arange(300 * 211, dtype=jax.numpy.float32).reshape(300, 211), gpu)
    y = xpose.transpose(x)
    assert y.devices() == {gpu}
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x).T)
    z = xpose.transpose_(x)  # copy semantics: x is unchanged
    np.testing.assert_array_equal(np.asarray(z), np.asarray(x).T)


def test_cuda_array_interface_object():
    torch = torch_cuda()

    class Wrapped:
        """A device array known only by its __cuda_array_interface__."""

        def __init__(self, tensor):
            self.tensor = tensor

        @property
        def __cuda_array_interface__(self):
            return self.tensor.__cuda_array_interface__

        def reshape(self, shape):
            return Wrapped(self.tensor.view(shape))

    t = torch.randn(3, 70, 50, device="cuda")
    expected = t.transpose(1, 2).contiguous()
    out = Wrapped(torch.empty(3, 50, 70, device="cuda"))
    xpose.transpose(Wrapped(t), out)
    torch.cuda.synchronize()
    assert torch.equal(out.tensor, expected)
    result = xpose.transpose_(Wrapped(t))
    torch.cuda.synchronize()
    assert torch.equal(result.tensor, expected)


def test_torch_in_place_on_90_percent_of_free_memory():
    """One square float32 matrix over 90% of the free memory: x.t().contiguous() needs a second
    copy and runs out of memory; xpose.transpose_ transposes it in place."""
    torch = torch_cuda()
    torch.cuda.empty_cache()
    free, _ = torch.cuda.mem_get_info()
    n = math.isqrt(int(free * 0.9) // 4)
    x = torch.empty((n, n), dtype=torch.float32, device="cuda")
    x.copy_(torch.arange(n, dtype=torch.float32, device="cuda").expand(n, n))  # x[i, j] = j
    with pytest.raises(torch.cuda.OutOfMemoryError):
        x.t().contiguous()
    torch.cuda.empty_cache()
    p = xpose.plan(x)
    assert p.workspace_bytes <= n * n * 4 // 100
    xpose.transpose_(x)  # x[i, j] = i
    torch.cuda.synchronize()
    column = torch.arange(n, dtype=torch.float32, device="cuda")
    for k in (0, 1, n // 2, n - 1):
        assert bool((x[k] == k).all())
        assert torch.equal(x[:, k], column)
    del x
    torch.cuda.empty_cache()
