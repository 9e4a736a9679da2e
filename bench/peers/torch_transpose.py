#!/usr/bin/env python3
"""PyTorch peer for the xpose GPU benchmark, each case as a ratio to a device-to-device copy of
the same bytes (torch.empty_like(x).copy_(x)) measured in the same run. CUDA events, median of 7
timed runs after a warm-up; every result is checked against the transposed view once.

Single matrices: x.t().contiguous() for fp32, fp16, int8, fp64 on 256 MiB squares per element
size and the odd, rectangular and skinny shapes below.
Batches of small matrices (xpose bench's "gpu batched small" group): x.transpose(1, 2)
.contiguous() on a (batch, rows, cols) tensor for int8, fp16, fp32, fp64 and complex128 (the
16-byte element; torch has no 3- or 12-byte dtype), batches of about 64 MiB, and 32x32 fp32 at
8 MiB and 1 GiB too.

--json FILE writes the rows (shape, batch, dtype, elem_size, ms, gb_per_s, ratio_to_copy, ...)
so that results can be committed beside xpose's."""
import argparse
import datetime
import json
import statistics
import sys

import torch

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "int8": torch.int8, "fp64": torch.float64}
BATCH_DTYPES = {"int8": torch.int8, "fp16": torch.float16, "fp32": torch.float32,
                "fp64": torch.float64, "complex128": torch.complex128}
# 256 MiB square per element size, aligned but not multiples of 32, odd, a wide and a tall
# rectangle, skinny shapes.
SIDES = {1: 16384, 2: 11584, 4: 8192, 8: 5792}
# The small matrices of the batches, as in xpose bench's "gpu batched small" group.
SMALL_SHAPES = [(16, 16), (32, 32), (64, 64), (16, 64), (64, 16), (24, 40)]
MIB = 1 << 20


def shapes(elem):
    s = SIDES[elem]
    yield s, s
    yield s + 16, s - 16
    yield s - 1, s + 1
    yield s // 2, 2 * s
    yield 4 * s, s // 4
    for small in (2, 32):
        big = max(1_000_000, (64 << 20) // (small * elem))
        yield small, big
        yield big, small


def batched_cases():
    """(dtype name, batch, rows, cols): about 64 MiB per case; 32x32 fp32 also at 8 MiB, 1 GiB."""
    for name, dtype in BATCH_DTYPES.items():
        elem = torch.tensor([], dtype=dtype).element_size()
        for rows, cols in SMALL_SHAPES:
            yield name, max(1, 64 * MIB // (rows * cols * elem)), rows, cols
    for total in (8 * MIB, 1024 * MIB):
        yield "fp32", total // (32 * 32 * 4), 32, 32


def median_ms(fn, reps=7):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def random_tensor(shape, dtype):
    if dtype.is_floating_point or dtype.is_complex:
        return torch.rand(*shape, device="cuda", dtype=dtype) + 1
    return torch.randint(1, 127, shape, device="cuda", dtype=dtype)


def measure(name, dtype, batch, rows, cols):
    """One case (batch None: a single matrix): the row for the table and the JSON, with whether
    the result was right."""
    elem = torch.tensor([], dtype=dtype).element_size()
    if batch is None:
        x = random_tensor((rows, cols), dtype)
        transpose = lambda: x.t().contiguous()  # noqa: E731
        view = x.t()
    else:
        x = random_tensor((batch, rows, cols), dtype)
        transpose = lambda: x.transpose(1, 2).contiguous()  # noqa: E731
        view = x.transpose(1, 2)
    out = transpose()
    verified = torch.equal(out, view)
    copy_ms = median_ms(lambda: torch.empty_like(x).copy_(x))
    t_ms = median_ms(transpose)
    row = {
        "group": "single" if batch is None else "batched small",
        "shape": f"{rows}x{cols}" if batch is None else f"{batch}x{rows}x{cols}",
        "batch": batch or 1, "rows": rows, "cols": cols, "dtype": name, "elem_size": elem,
        "ms": t_ms, "copy_ms": copy_ms, "gb_per_s": 2 * x.numel() * elem / t_ms / 1e6,
        "ratio_to_copy": copy_ms / t_ms, "verified": verified,
    }
    del x, out, view
    torch.cuda.empty_cache()
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the rows to FILE as JSON")
    parser.add_argument("--cases", choices=("all", "single", "batched"), default="all",
                        help="which cases to run (default: all)")
    args = parser.parse_args()

    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print(f"{'dtype':10} {'shape':>20} {'transpose ms':>12} {'copy ms':>9} {'GB/s':>7} "
          f"{'ratio':>6}")
    cases = []
    if args.cases in ("all", "single"):
        for name, dtype in DTYPES.items():
            elem = torch.tensor([], dtype=dtype).element_size()
            cases += [(name, dtype, None, rows, cols) for rows, cols in shapes(elem)]
    if args.cases in ("all", "batched"):
        cases += [(name, BATCH_DTYPES[name], batch, rows, cols)
                  for name, batch, rows, cols in batched_cases()]
    rows = []
    for case in cases:
        row = measure(*case)
        rows.append(row)
        print(f"{row['dtype']:10} {row['shape']:>20} {row['ms']:12.3f} {row['copy_ms']:9.3f} "
              f"{row['gb_per_s']:7.0f} {row['ratio_to_copy']:6.3f}"
              f"{'' if row['verified'] else '  WRONG'}", flush=True)
    failures = sum(not row["verified"] for row in rows)
    print(f"torch_transpose: {failures} wrong results")
    if args.json:
        report = {
            "torch_version": torch.__version__,
            "device": torch.cuda.get_device_name(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "reps": 7,
            "rows": rows,
            "failures": failures,
        }
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
