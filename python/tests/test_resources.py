"""Resources: repeated calls do not leak memory (the resident set is watched over thousands of
calls, errors included), and the GIL is released while xpose works, so other Python threads run
meanwhile."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import xpose
from xpose import _xpose


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")
def test_no_leak_over_many_calls():
    a = np.arange(64 * 48, dtype=np.float32).reshape(64, 48)
    out = np.empty((48, 64), np.float32)
    batch = np.zeros((3, 20, 30), np.int16)

    def calls():
        xpose.transpose_(a)  # (64, 48) -> a view of (48, 64): a itself keeps its shape
        xpose.transpose(a, out)
        xpose.transpose(batch)
        p = xpose.plan((20, 30), np.float64)
        p.describe()
        p.execute(np.zeros((20, 30)))
        with pytest.raises(xpose.InvalidArgumentError):
            xpose.transpose_(a, route="no_such_route")
        with pytest.raises(ValueError):
            xpose.transpose(a.T)
        buffer = _xpose.Buffer(256, -1)
        buffer.to_numpy([8, 8], [2, 32, 1])

    for _ in range(300):
        calls()
    before = resident_bytes()
    for _ in range(5000):
        calls()
    growth = resident_bytes() - before
    assert growth < 4 << 20, f"the resident set grew by {growth} bytes over 5000 rounds of calls"


def test_gil_released_while_working():
    # A slow route on one thread: each call takes tens of milliseconds. While a second thread
    # runs such calls, this one must keep running: its longest pause stays well under a call.
    a = np.ones((3000, 4001), np.float32)
    start = time.perf_counter()
    xpose.transpose_(a, route="cycle_following", threads=1)
    one_call = time.perf_counter() - start

    done = threading.Event()

    def work():
        for _ in range(4):
            xpose.transpose_(a, route="cycle_following", threads=1)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    longest_pause, last, rounds = 0.0, time.perf_counter(), 0
    while not done.is_set():
        now = time.perf_counter()
        longest_pause = max(longest_pause, now - last)
        last = now
        rounds += 1
    worker.join()
    assert rounds > 1000
    assert longest_pause < one_call / 2, (
        f"this thread stopped for {longest_pause:.3f} s while a call takes {one_call:.3f} s: "
        "the GIL is held during the call"
    )
