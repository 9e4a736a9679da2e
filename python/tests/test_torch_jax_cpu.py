"""PyTorch CPU tensors and JAX CPU arrays (each skipped when its library is not installed), and
the extension's DLPack reading and export, which the JAX path uses, on NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import expected_transpose, random_array, same_bytes

import xpose
from xpose import _xpose


def test_dlpack_read_and_export_on_numpy():
    a = random_array((6, 11), np.complex64, seed=21)
    address, shape, strides, dtype, device_type, device_id = _xpose.dlpack_info(a)
    assert address == a.__array_interface__["data"][0]
    assert shape == (6, 11) and strides == (11, 1)
    assert dtype == (5, 64, 1)  # DLPack complex, 64 bits
    assert (device_type, device_id) == (1, 0)  # the CPU
    buffer = _xpose.Buffer(a.nbytes, -1)
    handle = _xpose.Plan(False, 1, 6, 11, 8, -1, 0, 0, "automatic")
    handle.execute_copy(address, buffer.address)
    result = buffer.to_numpy([11, 6], list(dtype))
    assert result.dtype == np.complex64
    assert same_bytes(result, expected_transpose(a))
    del buffer  # the array keeps the memory alive
    assert same_bytes(result, expected_transpose(a))


class TestTorchCPU:
    @pytest.fixture(autouse=True)
    def _torch(self):
        self.torch = pytest.importorskip("torch")

    DTYPES = [
        "bool",
        "int8",
        "uint8",
        "int16",
        "float16",
        "bfloat16",
        "int32",
        "float32",
        "int64",
        "float64",
        "complex64",
        "complex128",
    ]

    @pytest.mark.parametrize("dtype", DTYPES)
    @pytest.mark.parametrize("shape", [(37, 53), (64, 64), (3, 500), (4, 19, 31)], ids=str)
    def test_in_place_keeps_the_tensor_and_its_storage(self, dtype, shape):
        torch = self.torch
        t = torch.from_numpy(
            random_array(shape, np.uint8 if dtype == "bool" else np.int8, seed=22).astype(np.int16)
        ).to(getattr(torch, dtype))
        expected = t.transpose(-1, -2).contiguous()
        address, storage = t.data_ptr(), t.untyped_storage().data_ptr()
        result = xpose.transpose_(t)
        assert result is t
        assert t.shape == expected.shape and t.is_contiguous()
        assert t.data_ptr() == address and t.untyped_storage().data_ptr() == storage
        assert torch.equal(t, expected)

    @pytest.mark.parametrize("dtype", DTYPES)
    def test_out_of_place(self, dtype):
        torch = self.torch
        t = (torch.arange(5 * 41 * 23) % 100).reshape(5, 41, 23).to(getattr(torch, dtype))
        result = xpose.transpose(t)
        assert result.dtype == t.dtype and result.device == t.device
        assert torch.equal(result, t.transpose(1, 2).contiguous())
        out = torch.empty((5, 23, 41), dtype=t.dtype)
        assert xpose.transpose(t, out) is out
        assert torch.equal(out, result)

    def test_shared_with_numpy(self):
        torch = self.torch
        a = random_array((30, 17), np.float32, seed=23)
        expected = expected_transpose(a)
        t = torch.from_numpy(a)
        xpose.transpose_(t)
        assert same_bytes(a.reshape(17, 30), expected)  # the NumPy buffer holds the transpose

    def test_refusals_leave_the_tensor(self):
        torch = self.torch
        t = torch.arange(24.0).reshape(4, 6)
        before = t.clone()
        with pytest.raises(ValueError, match=r"not C-contiguous.*\.contiguous\(\)"):
            xpose.transpose_(t.t())
        with pytest.raises(ValueError, match=r"requires grad.*detach"):
            xpose.transpose_(t.clone().requires_grad_())
        with pytest.raises(ValueError, match="resolve_conj"):
            xpose.transpose(torch.complex(t, t).conj())
        with pytest.raises(TypeError, match="strided"):
            xpose.transpose(t.to_sparse())
        with pytest.raises(ValueError, match="2-D arrays"):
            xpose.transpose_(t.reshape(24))
        assert torch.equal(t, before)
        with torch.inference_mode():
            frozen = torch.arange(6.0).reshape(2, 3)
        with pytest.raises(ValueError, match="inference tensor"):
            xpose.transpose_(frozen)
        assert xpose.transpose(frozen).shape == (3, 2)

    def test_plan_with_a_torch_dtype(self):
        torch = self.torch
        p = xpose.plan((10, 30), torch.float16)
        assert p.itemsize == 2
        t = torch.arange(300, dtype=torch.float16).reshape(10, 30)
        expected = t.t().contiguous()
        assert torch.equal(p.execute(t), expected)

    def test_mixed_libraries_refused(self):
        torch = self.torch
        with pytest.raises(TypeError, match="one library"):
            xpose.transpose(torch.zeros(3, 4), out=np.zeros((4, 3), np.float32))


class TestJaxCPU:
    @pytest.fixture(autouse=True)
    def _jax(self):
        self.jax = pytest.importorskip("jax")
        self.jnp = pytest.importorskip("jax.numpy")

    @pytest.mark.parametrize(
        "dtype", ["bool", "int8", "uint16", "float16", "bfloat16", "int32", "float32", "complex64"]
    )
    @pytest.mark.parametrize("shape", [(29, 31), (1, 40), (3, 16, 9)], ids=str)
    def test_copy_semantics(self, dtype, shape):
        jnp = self.jnp
        x = (jnp.arange(int(np.prod(shape))) % 97).reshape(shape).astype(dtype)
        before = np.asarray(x).copy()
        expected = expected_transpose(before)
        for call in (xpose.transpose, xpose.transpose_):
            y = call(x)
            assert isinstance(y, self.jax.Array)
            assert y.shape == expected.shape and y.dtype == x.dtype
            assert same_bytes(np.asarray(y), expected)
            assert same_bytes(np.asarray(x), before)  # the source is never written

    def test_jax_refusals(self):
        jnp = self.jnp
        x = jnp.zeros((3, 4))
        with pytest.raises(ValueError, match="drop out="):
            xpose.transpose(x, out=x)
        with pytest.raises(TypeError, match="xpose.transpose"):
            xpose.plan(x)
        with pytest.raises(ValueError, match="2-D arrays"):
            xpose.transpose(jnp.zeros(5))
