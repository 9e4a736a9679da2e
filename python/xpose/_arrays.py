"""Arrays as xpose sees them: an address, a shape, an element size, a device and a stream.

NumPy arrays, PyTorch tensors and CuPy arrays are read through their own attributes; JAX arrays
through DLPack; other device arrays through ``__cuda_array_interface__``. Nothing here copies an
array: one that xpose cannot use as it lies (strided, read-only where it must be written, of an
unsupported dtype) is refused with a message that says what to pass instead. PyTorch, CuPy and
JAX are never imported here: an array of theirs can exist only once its library is loaded.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy

from . import _xpose
from ._errors import UnsupportedError

#: The device number of host memory (the CPU).
HOST = -1
#: The largest element the C++ library moves, in bytes (xpose::max_elem_size).
MAX_ITEMSIZE = 1024

_DLPACK_CPU = 1
_DLPACK_CUDA = 2
_DLPACK_CUDA_MANAGED = 13


@dataclass
class Operand:
    """One array, read once: what the C++ plan needs, and what the result is built from."""

    array: Any
    #: "numpy", "torch", "cupy", "jax" or "cuda_array_interface".
    kind: str
    address: int
    shape: tuple[int, ...]
    itemsize: int
    #: HOST or a CUDA device number.
    device: int
    #: The cudaStream_t (as an integer) that work on this array goes to; 0 on the host.
    stream: int
    writable: bool
    #: The array's dtype as its library spells it (DLPack (code, bits, lanes) for JAX).
    dtype: Any
    #: What the array is when it is not writable, for messages.
    read_only_as: str = "read-only"

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    def dims(self) -> tuple[int, int, int]:
        """(batch, rows, cols): a 2-D array is a batch of one."""
        if len(self.shape) == 2:
            return 1, self.shape[0], self.shape[1]
        return self.shape[0], self.shape[1], self.shape[2]

    @property
    def transposed_shape(self) -> tuple[int, ...]:
        return self.shape[:-2] + (self.shape[-1], self.shape[-2])

    @property
    def device_name(self) -> str:
        return device_name(self.device)


def device_name(device: int) -> str:
    return "cpu" if device == HOST else f"cuda:{device}"


def operand(a: Any, name: str) -> Operand:
    """Reads `a` (called `name` in messages); refuses what xpose cannot take as it lies."""
    if isinstance(a, numpy.ndarray):
        op = _numpy_operand(a, name)
    elif _is_instance(a, "torch", "Tensor"):
        op = _torch_operand(a, name)
    elif _is_instance(a, "cupy", "ndarray"):
        op = _cupy_operand(a, name)
    elif _is_instance(a, "jax", "Array"):
        op = _jax_operand(a, name)
    elif hasattr(a, "__cuda_array_interface__"):
        op = _cuda_interface_operand(a, name)
    else:
        raise TypeError(
            f"{name} is a {type(a).__module__}.{type(a).__qualname__}: xpose takes NumPy arrays, "
            "PyTorch tensors, CuPy arrays, JAX arrays and objects with __cuda_array_interface__ "
            f"(numpy.asarray({name}) makes a NumPy array of it)"
        )
    if len(op.shape) not in (2, 3):
        axes = "1 axis" if len(op.shape) == 1 else f"{len(op.shape)} axes"
        raise ValueError(
            f"{name} has {axes} (shape {op.shape}): xpose transposes 2-D arrays and "
            "3-D batches of them (the last two axes); reshape it to (rows, cols) or "
            "(batch, rows, cols)"
        )
    return op


def _is_instance(a: Any, module: str, cls: str) -> bool:
    library = sys.modules.get(module)
    return library is not None and isinstance(a, getattr(library, cls))


def _check_itemsize(itemsize: int, dtype: Any, name: str) -> None:
    if not 1 <= itemsize <= MAX_ITEMSIZE:
        raise TypeError(
            f"{name} has dtype {dtype} of {itemsize}-byte elements: xpose moves elements of 1 to "
            f"{MAX_ITEMSIZE} bytes"
        )


def _not_contiguous(name: str, strides: Any, remedy: str) -> ValueError:
    return ValueError(
        f"{name} is not C-contiguous (strides {strides}): xpose works on the memory as it lies "
        f"and does not copy it; pass {remedy} (a contiguous copy) instead"
    )


def c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...], unit: int) -> bool:
    """Whether `strides` (in units of `unit`) lay `shape` out densely in row-major order;
    axes of extent 1 may have any stride."""
    if 0 in shape:
        return True
    expected = unit
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _numpy_operand(a: numpy.ndarray, name: str) -> Operand:
    if a.dtype.hasobject:
        raise TypeError(
            f"{name} has dtype {a.dtype}, which holds Python objects: xpose moves raw bytes and "
            "does not take object arrays"
        )
    _check_itemsize(a.dtype.itemsize, a.dtype, name)
    if not a.flags.c_contiguous:
        raise _not_contiguous(name, a.strides, f"numpy.ascontiguousarray({name})")
    return Operand(
        array=a,
        kind="numpy",
        address=a.__array_interface__["data"][0],
        shape=a.shape,
        itemsize=a.dtype.itemsize,
        device=HOST,
        stream=0,
        writable=bool(a.flags.writeable),
        dtype=a.dtype,
    )


def _torch_operand(a: Any, name: str) -> Operand:
    torch = sys.modules["torch"]
    if a.layout != torch.strided:
        raise TypeError(
            f"{name} has layout {a.layout}: xpose takes dense (torch.strided) tensors; "
            f"{name}.to_dense() makes one"
        )
    if a.requires_grad:
        raise ValueError(
            f"{name} requires grad: xpose does not record autograd; pass {name}.detach()"
        )
    if a.is_conj() or a.is_neg():
        raise ValueError(
            f"{name} is a lazily conjugated or negated view: its memory does not hold its values; "
            f"pass {name}.resolve_conj().resolve_neg()"
        )
    if not a.is_contiguous():
        raise _not_contiguous(name, tuple(a.stride()), f"{name}.contiguous()")
    # An inference tensor cannot be changed (set_ included) outside torch.inference_mode().
    frozen = a.is_inference() and not torch.is_inference_mode_enabled()
    if a.device.type == "cpu":
        device, stream = HOST, 0
    elif a.device.type == "cuda":
        device = a.device.index if a.device.index is not None else torch.cuda.current_device()
        stream = torch.cuda.current_stream(device).cuda_stream
    else:
        raise TypeError(f"{name} is on device {a.device}: xpose runs on the CPU and CUDA GPUs")
    return Operand(
        array=a,
        kind="torch",
        address=a.data_ptr(),
        shape=tuple(a.shape),
        itemsize=a.element_size(),
        device=device,
        stream=stream,
        writable=not frozen,
        dtype=a.dtype,
        read_only_as="an inference tensor outside torch.inference_mode()",
    )


def _cupy_operand(a: Any, name: str) -> Operand:
    cupy = sys.modules["cupy"]
    _check_itemsize(a.itemsize, a.dtype, name)
    if not a.flags.c_contiguous:
        raise _not_contiguous(name, a.strides, f"cupy.ascontiguousarray({name})")
    device = a.device.id
    with cupy.cuda.Device(device):
        stream = cupy.cuda.get_current_stream().ptr
    return Operand(
        array=a,
        kind="cupy",
        address=a.data.ptr,
        shape=tuple(a.shape),
        itemsize=a.itemsize,
        device=device,
        stream=stream,
        writable=True,
        dtype=a.dtype,
    )


def _jax_operand(a: Any, name: str) -> Operand:
    # The array's producer may still be running: xpose runs on a stream of its own.
    a.block_until_ready()
    address, shape, strides, dtype, device_type, device_id = _xpose.dlpack_info(a)
    code, bits, lanes = dtype
    if bits % 8 != 0:
        raise TypeError(
            f"{name} has dtype {a.dtype} of {bits}-bit elements: xpose moves whole bytes"
        )
    itemsize = bits // 8 * lanes
    _check_itemsize(itemsize, a.dtype, name)
    if not c_contiguous(shape, strides, 1):
        raise _not_contiguous(name, strides, f"a row-major copy of {name}")
    if device_type == _DLPACK_CPU:
        device = HOST
    elif device_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        device = device_id
    else:
        raise TypeError(
            f"{name} is on DLPack device type {device_type}: xpose runs on the CPU and CUDA GPUs"
        )
    return Operand(
        array=a,
        kind="jax",
        address=address,
        shape=tuple(shape),
        itemsize=itemsize,
        device=device,
        stream=0,
        writable=False,
        dtype=dtype,
    )


def _cuda_interface_operand(a: Any, name: str) -> Operand:
    interface = a.__cuda_array_interface__
    if interface.get("mask") is not None:
        raise TypeError(f"{name} is a masked array: xpose does not take masks")
    shape = tuple(int(extent) for extent in interface["shape"])
    dtype = numpy.dtype(interface["typestr"])
    _check_itemsize(dtype.itemsize, dtype, name)
    strides = interface.get("strides")
    if strides is not None and not c_contiguous(shape, tuple(strides), dtype.itemsize):
        raise _not_contiguous(name, tuple(strides), f"a C-contiguous copy of {name}")
    address, readonly = interface["data"]
    if not _xpose.built_with_cuda():
        raise UnsupportedError(
            f"{name} is a CUDA array (__cuda_array_interface__) but this xpose was built without "
            "CUDA (no nvcc was found when it was built)"
        )
    device = _xpose.pointer_device(address) if address else _xpose.current_device()
    if device == HOST:
        raise ValueError(
            f"{name}'s __cuda_array_interface__ points to host memory: pass it as a NumPy array"
        )
    # The producer's stream: 1 and 2 are cudaStreamLegacy and cudaStreamPerThread as handles.
    stream = interface.get("stream") or 0
    return Operand(
        array=a,
        kind="cuda_array_interface",
        address=address,
        shape=shape,
        itemsize=dtype.itemsize,
        device=device,
        stream=int(stream),
        writable=not readonly,
        dtype=interface["typestr"],
    )


def reshaped(op: Operand, shape: tuple[int, ...]) -> Any:
    """The array of `op` with `shape` over the same memory: a view for NumPy, CuPy and
    __cuda_array_interface__ objects (through their reshape), the tensor itself re-pointed with
    set_ for PyTorch."""
    a = op.array
    if op.kind == "torch":
        torch = sys.modules["torch"]
        strides = [1] * len(shape)
        for axis in range(len(shape) - 2, -1, -1):
            strides[axis] = strides[axis + 1] * shape[axis + 1]
        with torch.no_grad():
            a.set_(a.untyped_storage(), a.storage_offset(), shape, strides)
        return a
    return a.reshape(shape)


def empty_transposed(op: Operand) -> Any:
    """A new array of op's library, dtype and device, of op's transposed shape."""
    shape = op.transposed_shape
    if op.kind == "numpy":
        return numpy.empty(shape, dtype=op.dtype)
    if op.kind == "torch":
        return sys.modules["torch"].empty(shape, dtype=op.dtype, device=op.array.device)
    if op.kind == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(op.device):
            return cupy.empty(shape, dtype=op.dtype)
    raise TypeError(
        f"xpose cannot allocate an array of {type(op.array).__qualname__}: pass out= (an array "
        f"of shape {shape} and dtype {op.dtype} on {op.device_name})"
    )
