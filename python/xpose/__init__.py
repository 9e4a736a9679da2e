"""xpose: in-place and out-of-place matrix transposition for NumPy, PyTorch, CuPy and JAX.

``transpose_(a)`` transposes a C-contiguous 2-D array, or each matrix of a 3-D batch (the last
two axes), in its own memory, with no second copy of the matrix: xpose's planner keeps its
scratch within 1% of the matrix (at least 256 KiB) whenever a route can. ``transpose(a, out)``
writes the transpose to another array. ``plan(...)`` plans once for many executions and can say
what it will do (``describe()``) and how much scratch it holds (``workspace_bytes``).

Host arrays (NumPy, PyTorch CPU tensors) are transposed on the CPU with OpenMP; device arrays
(PyTorch CUDA tensors, CuPy arrays, objects with ``__cuda_array_interface__``) on their GPU, on
the stream that is current for them (``torch.cuda.current_stream()``, CuPy's current stream, the
interface's ``stream``), asynchronously as their own operations are. JAX arrays cannot be
changed: both functions return a new JAX array for them (copy semantics).

Nothing is copied behind the caller's back: an array that is not C-contiguous, is read-only
where it must be written, or has a dtype xpose cannot move is refused with an exception that
says what to pass instead, and the data is left as it was. The GIL is released while xpose works.
"""

from __future__ import annotations

import os
from typing import Any

from . import _xpose, dist
from ._arrays import HOST, Operand, device_name, empty_transposed, operand, reshaped
from ._errors import (
    DeviceError,
    Error,
    InternalError,
    InvalidArgumentError,
    OutOfMemoryError,
    UnsupportedError,
)

__all__ = [
    "transpose_",
    "transpose",
    "plan",
    "Plan",
    "transpose_file",
    "dist",
    "recover_file",
    "routes",
    "built_with_cuda",
    "Error",
    "InvalidArgumentError",
    "UnsupportedError",
    "OutOfMemoryError",
    "DeviceError",
    "InternalError",
    "__version__",
]

#: The version of the C++ library built into this package.
__version__: str = _xpose.version


def built_with_cuda() -> bool:
    """Whether this build has the CUDA backend (it runs device arrays)."""
    return _xpose.built_with_cuda()


def routes() -> list[str]:
    """The names ``route=`` takes: ``"automatic"`` (the planner's choice) and each route."""
    return list(_xpose.routes())


def transpose_(a: Any, *, route: str = "automatic", threads: int = 0) -> Any:
    """Transposes `a` in place and returns it with the transposed shape.

    `a` is a C-contiguous 2-D array of shape (rows, cols), which becomes (cols, rows), or a 3-D
    batch (batch, rows, cols), each of whose matrices is transposed. Its memory is rewritten in
    place: a NumPy or CuPy array comes back as a view of the same buffer with the new shape (the
    object passed in keeps its old shape over the transposed data); a PyTorch tensor is the same
    tensor, re-pointed at its storage with the new shape (``Tensor.set_``). A JAX array cannot be
    changed: a new JAX array holding the transpose is returned and `a` is left as it was.

    `route` forces a route of :func:`routes` (``"automatic"`` lets the planner choose) and
    `threads` sets the CPU threads (0: OpenMP's default). Device arrays run on their GPU, on their
    current stream, and the call returns once the work is queued.

    Raises ``TypeError`` for an unsupported array type or dtype, ``ValueError`` for a wrong number
    of axes, a non-contiguous or read-only array, and :class:`InvalidArgumentError` (a
    ``ValueError``) or another :class:`Error` for what the library refuses; the data is untouched.
    """
    op = operand(a, "a")
    if op.kind == "jax":
        return _jax_transposed(op, route, threads)
    _check_writable(op, "a", "transpose_ rewrites it")
    _check_reshapable(op)
    batch, rows, cols = op.dims()
    if op.size:
        handle = _handle(True, batch, rows, cols, op.itemsize, op.device, op.stream, route, threads)
        handle.execute_inplace(op.address)
    return reshaped(op, op.transposed_shape)


def transpose(a: Any, out: Any = None, *, route: str = "automatic", threads: int = 0) -> Any:
    """Returns the transpose of `a` in a new array, or written to `out`.

    `a` is a C-contiguous 2-D array (rows, cols) or 3-D batch (batch, rows, cols); the result is
    (cols, rows) or (batch, cols, rows), of the same library, dtype and device. `out`, when
    given, must be such an array, C-contiguous, writable and apart from `a` (to transpose in
    place, call :func:`transpose_`). JAX arrays always get a new array (`out` is refused).

    `route`, `threads`, devices, streams and errors: as for :func:`transpose_`.
    """
    op = operand(a, "a")
    if op.kind == "jax":
        if out is not None:
            raise ValueError(
                "JAX arrays cannot be written: transpose() returns a new one; drop out="
            )
        return _jax_transposed(op, route, threads)
    result, dst = _destination(op, out)
    batch, rows, cols = op.dims()
    if op.size:
        handle = _handle(
            False, batch, rows, cols, op.itemsize, op.device, op.stream, route, threads
        )
        handle.execute_copy(op.address, dst.address)
    return result


class Plan:
    """A transposition planned once and executed many times (made by :func:`plan`).

    It holds its workspace (``workspace_bytes``) for its lifetime, on its device. Executions of
    one plan run one after another; make one plan per thread to transpose several arrays at once.
    """

    __slots__ = ("_handle", "_shape", "_itemsize")

    def __init__(self, handle: Any, shape: tuple[int, ...], itemsize: int) -> None:
        self._handle = handle
        self._shape = shape
        self._itemsize = itemsize

    @property
    def in_place(self) -> bool:
        """Whether the plan transposes in place (``execute(a)``) or to ``out``."""
        return bool(self._handle.in_place)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the arrays the plan takes."""
        return self._shape

    @property
    def out_shape(self) -> tuple[int, ...]:
        """The shape of its results."""
        return self._shape[:-2] + (self._shape[-1], self._shape[-2])

    @property
    def itemsize(self) -> int:
        """The element size in bytes of the arrays the plan takes."""
        return self._itemsize

    @property
    def device(self) -> str:
        """``"cpu"`` or ``"cuda:N"``."""
        return device_name(self._handle.device)

    @property
    def stream(self) -> int:
        """The CUDA stream (a ``cudaStream_t`` as an integer) its kernels go to; 0 on the CPU."""
        return int(self._handle.stream)

    @property
    def route(self) -> str:
        """The route the planner chose (or was given)."""
        return str(self._handle.route)

    @property
    def workspace_bytes(self) -> int:
        """Bytes of scratch the plan holds (flags, row buffers, tiles), allocated when planned."""
        return int(self._handle.workspace_bytes)

    @property
    def predicted_passes(self) -> float:
        """Predicted passes over the matrix (1 = every element read and written once)."""
        return float(self._handle.predicted_passes)

    def describe(self) -> str:
        """The plan in words: route, matrix, each stage with its tiles, workspace, passes and,
        on the GPU, each stage's kernel."""
        return str(self._handle.describe())

    def execute(self, a: Any, out: Any = None) -> Any:
        """Runs the plan on `a`, which must have the plan's shape, element size and device.

        In-place plans transpose `a` and return it with the transposed shape, as
        :func:`transpose_` does (`out` must be None). Out-of-place plans write to `out`, or to a
        new array when it is None, and return it, as :func:`transpose` does. On a GPU, the
        current stream of `a` (PyTorch, CuPy) must be the plan's.
        """
        op = operand(a, "a")
        if op.kind == "jax":
            raise TypeError("JAX arrays cannot be written: call xpose.transpose(a), which copies")
        if op.shape != self._shape or op.itemsize != self._itemsize:
            raise ValueError(
                f"a has shape {op.shape} and {op.itemsize}-byte elements; this plan takes shape "
                f"{self._shape} and {self._itemsize}-byte elements"
            )
        if op.device != self._handle.device:
            raise ValueError(f"a is on {op.device_name}; this plan runs on {self.device}")
        if op.kind in ("torch", "cupy") and op.device != HOST and op.stream != self.stream:
            raise ValueError(
                f"a's current stream is {op.stream:#x} and this plan's is {self.stream:#x}: make "
                "the plan while the stream that runs it is current (or pass stream= to "
                "xpose.plan)"
            )
        if self.in_place:
            if out is not None:
                raise ValueError("this plan transposes in place: call execute(a), without out=")
            _check_writable(op, "a", "an in-place plan rewrites it")
            _check_reshapable(op)
            if op.size:
                self._handle.execute_inplace(op.address)
            return reshaped(op, op.transposed_shape)
        result, dst = _destination(op, out)
        if op.size:
            self._handle.execute_copy(op.address, dst.address)
        return result

    def __repr__(self) -> str:
        kind = "in place" if self.in_place else "out of place"
        return (
            f"<xpose.Plan {kind}, shape {self._shape}, {self._itemsize}-byte elements, "
            f"{self.device}, route {self.route}, workspace {self.workspace_bytes} bytes>"
        )


def plan(
    a: Any,
    dtype: Any = None,
    *,
    in_place: bool = True,
    device: Any = None,
    stream: Any = None,
    route: str = "automatic",
    threads: int = 0,
) -> Plan:
    """Plans the transposition of arrays like `a`, for executing many times.

    `a` is either an array (its shape, element size, device and current stream are taken), or a
    shape, (rows, cols) or (batch, rows, cols), with `dtype` (anything ``numpy.dtype`` takes, a
    PyTorch dtype, or an element size in bytes) and `device` (``"cpu"``, the default, ``"cuda"``
    for the current CUDA device, ``"cuda:N"``, ``N`` or a ``torch.device``). `stream` (an
    integer ``cudaStream_t``, a ``torch.cuda.Stream`` or a ``cupy.cuda.Stream``) sets the CUDA
    stream the plan's kernels go to: by default the array's current stream, or the default
    stream for a shape. `in_place` picks ``transpose_``'s kind of plan or ``transpose``'s.

    ``plan(...).describe()`` says what the plan does and ``.workspace_bytes`` what it holds.
    """
    if isinstance(a, (tuple, list)):
        shape = tuple(int(extent) for extent in a)
        if dtype is None:
            raise TypeError("plan(shape, dtype): a plan made from a shape needs its dtype")
        itemsize = _itemsize_of(dtype)
        target = _device_number(device if device is not None else "cpu")
        cuda_stream = _stream_handle(stream) if target != HOST else 0
    else:
        if dtype is not None or device is not None:
            raise TypeError(
                "plan(a): an array carries its dtype and device; give them only with a shape"
            )
        op = operand(a, "a")
        if op.kind == "jax":
            raise TypeError("JAX arrays cannot be written: call xpose.transpose(a), which copies")
        shape, itemsize, target = op.shape, op.itemsize, op.device
        cuda_stream = op.stream if stream is None else _stream_handle(stream)
    if len(shape) not in (2, 3):
        raise ValueError(
            f"shape {shape}: xpose plans 2-D arrays and 3-D batches of them "
            "((rows, cols) or (batch, rows, cols))"
        )
    batch, rows, cols = (1, *shape) if len(shape) == 2 else shape
    handle = _handle(in_place, batch, rows, cols, itemsize, target, cuda_stream, route, threads)
    return Plan(handle, shape, itemsize)


def transpose_file(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    shape: tuple[int, int] | None = None,
    dtype: Any = None,
    itemsize: int | None = None,
    journal: bool = True,
    memory: int = 0,
    flip_order: bool = False,
    threads: int = 0,
) -> dict[str, Any]:
    """Transposes the matrix in a file: in place (``out`` None) or into the file ``out``.

    A NumPy ``.npy`` file holding a 2-D array (any dtype but objects, C or Fortran order) comes out
    holding its transpose, with the header's shape rewritten: ``numpy.load`` gives ``a.T``. Any
    other file is raw: a dense row-major matrix of ``shape`` (rows, cols) whose elements are
    ``dtype`` (anything ``numpy.dtype`` takes) or ``itemsize`` bytes. Memory stays within
    ``memory`` bytes (0: a quarter of physical memory, at most 4 GiB) whatever the file's size.

    In place, ``journal`` (the default) keeps a journal beside the file so that an interrupted run
    is completed by the next call on the file (or :func:`recover_file`); without it an
    interrupted run leaves the file unreadable and its data lost. ``flip_order`` (``.npy`` only)
    swaps the shape and flips ``fortran_order`` instead, moving no data. Out of place, the result
    is written under a temporary name and renamed when complete.

    Returns the report: ``before`` and ``after`` (each ``format``, ``shape``, ``itemsize``,
    ``fortran_order``, ``dtype``), ``method``, ``details``, ``resumed`` and ``memory_budget``.
    Raises :class:`InvalidArgumentError` (a ``ValueError``) for a bad file or argument, leaving
    the file as it was, and another :class:`Error` for what else fails.
    """
    rows, cols = (0, 0) if shape is None else (int(shape[0]), int(shape[1]))
    size = 0
    if dtype is not None:
        size = _itemsize_of(dtype)
    if itemsize is not None:
        if dtype is not None and int(itemsize) != size:
            raise ValueError(f"itemsize {itemsize} disagrees with dtype {dtype!r} ({size} bytes)")
        size = int(itemsize)
    return dict(
        _xpose.transpose_file(
            os.fspath(path),
            "" if out is None else os.fspath(out),
            "automatic",
            rows,
            cols,
            size,
            bool(journal),
            int(memory),
            bool(flip_order),
            int(threads),
        )
    )


def recover_file(path: str | os.PathLike[str]) -> bool:
    """Completes an interrupted in-place :func:`transpose_file` of `path` from its journal.

    Returns False, doing nothing, when `path` has no journal.
    """
    return bool(_xpose.recover_file(os.fspath(path)))


def _handle(
    in_place: bool,
    batch: int,
    rows: int,
    cols: int,
    itemsize: int,
    device: int,
    stream: int,
    route: str,
    threads: int,
) -> Any:
    if not isinstance(route, str):
        raise TypeError(f"route must be a route's name (a str), got {type(route).__name__}")
    return _xpose.Plan(in_place, batch, rows, cols, itemsize, device, stream, threads, route)


def _check_writable(op: Operand, name: str, why: str) -> None:
    if not op.writable:
        raise ValueError(f"{name} is {op.read_only_as} and {why}")


def _check_reshapable(op: Operand) -> None:
    if op.kind == "cuda_array_interface" and not hasattr(op.array, "reshape"):
        raise TypeError(
            f"a ({type(op.array).__qualname__}) has no reshape() to give it its transposed shape: "
            "transpose it out of place with xpose.transpose(a, out)"
        )


def _destination(op: Operand, out: Any) -> tuple[Any, Operand]:
    """The array that receives the transpose of `op`, and its reading: `out` after checks, or
    a new array."""
    if out is None:
        result = empty_transposed(op)
        return result, operand(result, "out")
    dst = operand(out, "out")
    if dst.kind != op.kind:
        raise TypeError(
            f"out is a {dst.kind} array and a a {op.kind} one: they must be of one library"
        )
    if dst.dtype != op.dtype:
        raise TypeError(f"out has dtype {dst.dtype} and a {op.dtype}: they must be the same")
    if dst.shape != op.transposed_shape:
        raise ValueError(f"out has shape {dst.shape}; the transpose of a has {op.transposed_shape}")
    if dst.device != op.device:
        raise ValueError(f"out is on {dst.device_name} and a on {op.device_name}")
    _check_writable(dst, "out", "receives the transpose")
    if op.size and dst.address < op.address + op.nbytes and op.address < dst.address + dst.nbytes:
        raise ValueError(
            "out overlaps a: an out-of-place transpose needs separate memory; "
            "xpose.transpose_(a) transposes in place"
        )
    return out, dst


def _jax_transposed(op: Operand, route: str, threads: int) -> Any:
    """A new JAX array holding the transpose of `op`: filled in memory of the extension's, on
    the array's device, then handed to JAX through DLPack."""
    batch, rows, cols = op.dims()
    buffer = _xpose.Buffer(op.nbytes, op.device)
    if op.size:
        handle = _handle(False, batch, rows, cols, op.itemsize, op.device, 0, route, threads)
        handle.execute_copy(op.address, buffer.address)
        _xpose.synchronize(op.device, 0)
    return buffer.to_jax(list(op.transposed_shape), list(op.dtype))


def _itemsize_of(dtype: Any) -> int:
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return dtype
    itemsize = getattr(dtype, "itemsize", None)
    if isinstance(itemsize, int):
        return itemsize
    import numpy

    try:
        return numpy.dtype(dtype).itemsize
    except TypeError as e:
        raise TypeError(f"dtype {dtype!r} is not a dtype xpose can size: {e}") from None


def _device_number(device: Any) -> int:
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(getattr(device, "id", None), int):  # cupy.cuda.Device
        return int(device.id)
    name = str(device)
    if name == "cpu":
        return HOST
    if name == "cuda":
        return int(_xpose.current_device())
    if name.startswith("cuda:") and name[5:].isdigit():
        return int(name[5:])
    raise ValueError(f"device {device!r}: xpose runs on 'cpu', 'cuda' and 'cuda:N'")


def _stream_handle(stream: Any) -> int:
    if stream is None:
        return 0
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(
        f"stream {stream!r}: give a cudaStream_t as an integer, a torch.cuda.Stream or a "
        "cupy.cuda.Stream"
    )
