"""What a Python call costs over the C library's own call, on one matrix (64 MiB by default).

Times, interleaved round by round on the same array, the C API of libxpose.so (through ctypes,
whose call costs about a microsecond) against the Python package: a plan made, executed and
destroyed per call (xpose_plan_inplace + execute + destroy against xpose.transpose_), and a plan
made once (xpose_plan_execute_inplace against Plan.execute). On a GPU (--device cuda, a PyTorch
CUDA tensor) each call is followed by torch.cuda.synchronize(). Prints the medians and the
overhead in percent.

    python python/bench/overhead.py --lib build/libxpose.so [--rows 4096 --cols 4096]
        [--device cpu|cuda] [--reps 30]

Needs the package importable (PYTHONPATH=build/python, or installed) and, for cuda, PyTorch.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time

import numpy as np

import xpose

XPOSE_DEVICE = {"cpu": 0, "cuda": 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", required=True, help="path of libxpose.so")
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=4096)
    parser.add_argument("--elem", type=int, default=4, choices=[1, 2, 4, 8])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()

    lib = ctypes.CDLL(args.lib)
    lib.xpose_plan_inplace.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.c_int64,
        ctypes.c_int64,
        ctypes.c_size_t,
        ctypes.c_int64,
        ctypes.c_int,
    ]
    lib.xpose_plan_execute_inplace.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.xpose_plan_destroy.argtypes = [ctypes.c_void_p]
    lib.xpose_last_error.restype = ctypes.c_char_p

    dtype = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.float64}[args.elem]
    if args.device == "cuda":
        import torch

        torch_dtype = {1: torch.uint8, 2: torch.int16, 4: torch.float32, 8: torch.float64}
        a = torch.zeros((args.rows, args.cols), dtype=torch_dtype[args.elem], device="cuda")

        def address():
            return a.data_ptr()

        sync = torch.cuda.synchronize
    else:
        a = np.zeros((args.rows, args.cols), dtype)

        def address():
            return a.__array_interface__["data"][0]

        def sync():
            pass

    device = XPOSE_DEVICE[args.device]
    shape = (args.rows, args.cols)  # the buffer is read as rows x cols by every call

    def check(status: int) -> None:
        if status != 0:
            raise RuntimeError(lib.xpose_last_error().decode())

    def c_one_call():
        plan = ctypes.c_void_p()
        check(lib.xpose_plan_inplace(ctypes.byref(plan), *shape, args.elem, 1, device))
        check(lib.xpose_plan_execute_inplace(plan, address()))
        check(lib.xpose_plan_destroy(plan))

    def python_one_call():
        xpose.transpose_(a)  # a keeps its shape; the view returned is dropped

    c_plan = ctypes.c_void_p()
    check(lib.xpose_plan_inplace(ctypes.byref(c_plan), *shape, args.elem, 1, device))
    py_plan = xpose.plan(a)

    def c_reused():
        check(lib.xpose_plan_execute_inplace(c_plan, address()))

    def python_reused():
        py_plan.execute(a)

    cases = [
        ("plan per call", c_one_call, python_one_call),
        ("plan reused", c_reused, python_reused),
    ]
    print(
        f"{args.rows} x {args.cols} x {args.elem} bytes "
        f"({args.rows * args.cols * args.elem / 2**20:.0f} MiB), in place, {args.device}"
    )
    for name, c_call, py_call in cases:
        times = {"C": [], "Python": []}
        for _ in range(3):  # warm-up: pages touched, caches filled
            c_call()
            py_call()
            sync()
        for _ in range(args.reps):
            for label, call in (("C", c_call), ("Python", py_call)):
                start = time.perf_counter()
                call()
                sync()
                times[label].append(time.perf_counter() - start)
        c_median = statistics.median(times["C"])
        py_median = statistics.median(times["Python"])
        print(
            f"  {name}: C API {c_median * 1e3:.3f} ms, Python {py_median * 1e3:.3f} ms, "
            f"overhead {100 * (py_median / c_median - 1):+.2f}% "
            f"({(py_median - c_median) * 1e6:+.1f} us)"
        )
    check(lib.xpose_plan_destroy(c_plan))


if __name__ == "__main__":
    main()
