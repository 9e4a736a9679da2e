"""The exceptions of xpose.

Errors reported by the C++ library (an ``xpose::error``) arrive as a subclass of
:class:`Error` chosen by the error's status, which also derives from the built-in exception a
Python user would catch for it; the message is the library's. Arguments checked by the package
before any call (the array's type, dtype, number of axes, contiguity) raise the built-in
``TypeError`` or ``ValueError``. In every case the data is left as it was.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "InvalidArgumentError",
    "UnsupportedError",
    "OutOfMemoryError",
    "DeviceError",
    "InternalError",
]


class Error(Exception):
    """An error reported by the xpose library; ``status`` names its ``xpose::status``."""

    status = "error"


class InvalidArgumentError(Error, ValueError):
    """An argument is out of range (a shape, a stride, a route that cannot serve the shape)."""

    status = "invalid_argument"


class UnsupportedError(Error, NotImplementedError):
    """A valid request that this build or backend cannot serve (say, a GPU array in a build
    without CUDA, or a route the GPU does not run)."""

    status = "unsupported"


class OutOfMemoryError(Error, MemoryError):
    """The plan's workspace (or an output array) could not be allocated."""

    status = "out_of_memory"


class DeviceError(Error, RuntimeError):
    """A CUDA runtime call failed."""

    status = "device_error"


class InternalError(Error, RuntimeError):
    """A bug in xpose."""

    status = "internal_error"


# Shown as xpose.<name> in tracebacks, where the package exports them.
for _cls in (
    Error,
    InvalidArgumentError,
    UnsupportedError,
    OutOfMemoryError,
    DeviceError,
    InternalError,
):
    _cls.__module__ = "xpose"
del _cls
