"""Type stubs of xpose: in-place and out-of-place matrix transposition for NumPy, PyTorch, CuPy
and JAX arrays. The docstrings are in xpose/__init__.py."""

import os
from typing import Any, TypeVar

from . import dist as dist
from ._errors import DeviceError as DeviceError
from ._errors import Error as Error
from ._errors import InternalError as InternalError
from ._errors import InvalidArgumentError as InvalidArgumentError
from ._errors import OutOfMemoryError as OutOfMemoryError
from ._errors import UnsupportedError as UnsupportedError

__version__: str

_Array = TypeVar("_Array")

def built_with_cuda() -> bool: ...
def routes() -> list[str]: ...
def transpose_(a: _Array, *, route: str = "automatic", threads: int = 0) -> _Array: ...
def transpose(
    a: _Array, out: _Array | None = None, *, route: str = "automatic", threads: int = 0
) -> _Array: ...

class Plan:
    @property
    def in_place(self) -> bool: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def out_shape(self) -> tuple[int, ...]: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def device(self) -> str: ...
    @property
    def stream(self) -> int: ...
    @property
    def route(self) -> str: ...
    @property
    def workspace_bytes(self) -> int: ...
    @property
    def predicted_passes(self) -> float: ...
    def describe(self) -> str: ...
    def execute(self, a: _Array, out: _Array | None = None) -> _Array: ...

def plan(
    a: Any,
    dtype: Any = None,
    *,
    in_place: bool = True,
    device: str | int | Any | None = None,
    stream: int | Any | None = None,
    route: str = "automatic",
    threads: int = 0,
) -> Plan: ...

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
) -> dict[str, Any]: ...
def recover_file(path: str | os.PathLike[str]) -> bool: ...
