"""xpose.dist: the split arithmetic and the errors on one process everywhere; on a machine with
two or more GPUs, PyTorch and an NCCL build, the transposition itself under torchrun (one process
per GPU, dist_worker.py: every case checked against the transpose of the gathered matrix)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import xpose
import xpose.dist as xdist
from xpose import _xpose


def test_even_split_gives_the_first_ranks_one_more():
    assert xdist.even_split(10, 3) == [4, 3, 3]
    assert xdist.even_split(2, 4) == [1, 1, 0, 0]
    assert xdist.even_split(0, 2) == [0, 0]
    with pytest.raises(ValueError, match="parts"):
        xdist.even_split(5, 0)


def test_layout_counts_firsts_and_capacity():
    blocks = xdist.layout(7, 5, 2, row_split=[1, 6])
    assert blocks[0] == {
        "row_first": 0, "row_count": 1, "col_first": 0, "col_count": 3,
        "capacity_elements": 21,
    }
    assert blocks[1] == {
        "row_first": 1, "row_count": 6, "col_first": 3, "col_count": 2,
        "capacity_elements": 30,
    }


@pytest.mark.skipif(not xdist.has_nccl(), reason="this build has no NCCL")
@pytest.mark.parametrize("rows,cols,ranks,row_split,col_split", [
    (1009, 997, 4, None, None),
    (7, 5, 2, [1, 6], None),
    (100, 3, 3, [0, 50, 50], [3, 0, 0]),
])
def test_layout_matches_the_library(rows, cols, ranks, row_split, col_split):
    ours = xdist.layout(rows, cols, ranks, row_split=row_split, col_split=col_split)
    theirs = _xpose.dist_layout(rows, cols, 4, ranks, row_split or [], col_split or [])
    for block, (row_first, row_count, col_first, col_count, capacity) in zip(ours, theirs):
        assert (block["row_first"], block["row_count"]) == (row_first, row_count)
        assert (block["col_first"], block["col_count"]) == (col_first, col_count)
        assert block["capacity_elements"] * 4 == capacity


@pytest.mark.parametrize("kwargs,message", [
    ({"row_split": [1, 2]}, "row_split has 2 counts"),
    ({"row_split": [3, 3, -2]}, "counts of 0 or more"),
    ({"col_split": [1, 1, 1]}, "col_split sums to 3"),
])
def test_layout_rejects_splits_that_do_not_fit(kwargs, message):
    with pytest.raises(ValueError, match=message):
        xdist.layout(4, 5, 3, **kwargs)


def test_transpose_without_nccl_or_torch_says_what_is_missing():
    if xdist.has_nccl():
        pytest.importorskip("torch")
        import torch.distributed as dist

        if dist.is_initialized():
            pytest.skip("a process group is initialized")
        with pytest.raises(ValueError, match="init_process_group"):
            xdist.transpose_(object())
    else:
        with pytest.raises(xpose.UnsupportedError, match="NCCL"):
            xdist.transpose_(object())


def _gpus() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


@pytest.mark.skipif(not xdist.has_nccl(), reason="this build has no NCCL")
@pytest.mark.skipif(_gpus() < 2, reason="needs PyTorch and two GPUs")
def test_transpose_on_every_gpu_under_torchrun():
    ranks = min(_gpus(), 4)
    worker = os.path.join(os.path.dirname(__file__), "dist_worker.py")
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
               XPOSE_DIST_WORKER_TIMEOUT="240",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    run = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone",
         f"--nproc-per-node={ranks}", worker],
        env=env, capture_output=True, text=True, timeout=300,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    for rank in range(ranks):
        assert f"dist_worker ok {rank}" in output, output[-6000:]
