"""The file command against NumPy: .npy files written by numpy.save (every dtype kind, C and
Fortran order) are transposed by `xpose transpose` in place (blocked, with the journal; in memory
without it), out of place, and by flipping the order flag, and numpy.load must read back a.T.
A file marked as mid-run must be refused by numpy.load. Exit 77 (skipped) without NumPy.

usage: numpy_check.py PATH/TO/xpose WORK_DIR
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("numpy_check: NumPy is not installed; skipped")
    sys.exit(77)

xpose, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(1)


def arrays():
    shape = (37, 53)
    yield rng.integers(0, 255, shape, dtype=np.uint8)
    yield rng.integers(-3000, 3000, shape, dtype=np.int16)
    yield rng.random(shape, dtype=np.float32)
    yield rng.random(shape)
    yield rng.random(shape).astype(np.float16)
    yield (rng.random(shape) + 1j * rng.random(shape)).astype(np.complex64)
    yield rng.random(shape) + 1j * rng.random(shape)
    yield rng.random(shape) > 0.5
    yield np.arange(37 * 53).astype("datetime64[s]").reshape(shape)
    yield np.array([[f"s{i}{j}" for j in range(53)] for i in range(37)], dtype="U5")
    s = np.zeros(shape, dtype=[("x", "<f4"), ("y", "<i2", (3,)), ("z", "u1")])
    s["x"] = rng.random(shape)
    s["y"] = rng.integers(0, 100, shape + (3,))
    yield s
    yield rng.integers(0, 255, (40, 60, 24), dtype=np.uint8).view("V24").reshape(40, 60)


def run(*args):
    result = subprocess.run([xpose, "transpose", *args, "--no-progress"], capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise SystemExit(f"xpose transpose {' '.join(args)} failed:\n{result.stderr}")


failures = 0


def expect(condition, what):
    global failures
    if not condition:
        failures += 1
        print("FAILED:", what)


checked = 0
for a in arrays():
    for order in ("C", "F"):
        a = np.asarray(a, order=order)
        for extra in (["--memory", "64K"], ["--no-journal"], ["--memory", "64K", "--no-journal"]):
            path = os.path.join(work, "a.npy")
            np.save(path, a)
            run(path, "--in-place", *extra)
            b = np.load(path)
            what = f"{a.dtype} {order} in place {' '.join(extra)}"
            expect(b.shape == a.T.shape and np.array_equal(b, a.T), what)
            expect(np.isfortran(b) == (order == "F"), what + ": order flag")
            checked += 1
        src, dst = os.path.join(work, "in.npy"), os.path.join(work, "out.npy")
        np.save(src, a)
        run(src, dst, "--force", "--memory", "32K")
        expect(np.array_equal(np.load(dst), a.T), f"{a.dtype} {order} out of place")
        run(src, "--in-place", "--flip-order")
        b = np.load(src)
        expect(np.array_equal(b, a.T) and np.isfortran(b) != (order == "F"),
               f"{a.dtype} {order} flip order")
        checked += 2

# A file left mid-run does not load.
path = os.path.join(work, "busy.npy")
np.save(path, np.zeros((3, 4), np.float32))
with open(path, "r+b") as f:
    f.write(b"\x93XPOSE")
try:
    np.load(path)
    expect(False, "numpy loaded a file marked as mid-run")
except ValueError:
    pass

print(f"numpy_check: {checked} transpositions checked, {failures} failed")
sys.exit(1 if failures else 0)
