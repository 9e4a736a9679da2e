#!/usr/bin/env python3
"""PyTorch peer for the xpose GPU benchmark: x.t().contiguous() for fp32, fp16, int8, fp64 on
256 MiB squares per element size and the odd, rectangular and skinny shapes below, each as a ratio to a device-to-device copy of the same
bytes (torch.empty_like(x).copy_(x)) measured in the same run. CUDA events, median of 7 timed
runs after a warm-up; every result is checked against x.t() once."""
import statistics
import sys

import torch

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "int8": torch.int8, "fp64": torch.float64}
# 256 MiB square per element size, aligned but not multiples of 32, odd, a wide and a tall
# rectangle, skinny shapes.
SIDES = {1: 16384, 2: 11584, 4: 8192, 8: 5792}


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


def random_tensor(rows, cols, dtype):
    if dtype.is_floating_point:
        return torch.rand(rows, cols, device="cuda", dtype=dtype) + 1
    return torch.randint(1, 127, (rows, cols), device="cuda", dtype=dtype)


def main():
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print(f"{'dtype':5} {'rows':>9} x {'cols':<9} {'transpose ms':>12} {'copy ms':>9} "
          f"{'GB/s':>7} {'ratio':>6}")
    failures = 0
    for name, dtype in DTYPES.items():
        elem = torch.tensor([], dtype=dtype).element_size()
        for rows, cols in shapes(elem):
            x = random_tensor(rows, cols, dtype)
            out = x.t().contiguous()
            if not torch.equal(out, x.t()):
                failures += 1
            copy_ms = median_ms(lambda: torch.empty_like(x).copy_(x))
            t_ms = median_ms(lambda: x.t().contiguous())
            gbs = 2 * x.numel() * elem / t_ms / 1e6
            print(f"{name:5} {rows:9d} x {cols:<9d} {t_ms:12.3f} {copy_ms:9.3f} {gbs:7.0f} "
                  f"{copy_ms / t_ms:6.3f}", flush=True)
            del x, out
            torch.cuda.empty_cache()
    print(f"torch_transpose: {failures} wrong results")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
