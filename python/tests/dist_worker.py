"""One rank of the multi-GPU xpose.dist check (test_dist.py runs it under torchrun, one process
per GPU). Every rank builds the same seeded matrix, keeps its block of rows, transposes the
distributed matrix with xpose.dist.transpose_ and compares its block of the transpose with the
rows of the full matrix's transpose that it must hold, byte for byte. Cases: even and uneven
splits, prime dimensions, a rank with no rows, element sizes 1 to 16 bytes, two transpositions in
a row (a round trip), and errors raised on every rank with the data untouched (a rank's bad block,
options that differ between ranks). Prints
"dist_worker ok <rank>" and exits 0 when every case passes."""

import faulthandler
import os
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import xpose  # noqa: E402
import xpose.dist as xdist  # noqa: E402

DTYPES = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}


def full_matrix(rows, cols, elem, seed):
    """The whole matrix on this GPU, random bytes, the same on every rank."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    raw = torch.randint(0, 256, (rows, cols * elem), dtype=torch.uint8, device="cuda",
                        generator=gen)
    return raw.view(DTYPES[elem]) if elem > 1 else raw


def as_bytes(t):
    return t.contiguous().view(-1).view(torch.uint8)


def check_case(rows, cols, elem, row_split=None, col_split=None, round_trip=False, seed=1,
               peers_at_once=0):
    rank, ranks = dist.get_rank(), dist.get_world_size()
    a = full_matrix(rows, cols, elem, seed)
    mine = xdist.layout(rows, cols, ranks, row_split=row_split, col_split=col_split)[rank]
    block = xdist.empty(rows, cols, dtype=a.dtype, row_split=row_split, col_split=col_split)
    block.copy_(a[mine["row_first"]: mine["row_first"] + mine["row_count"]])
    out = xdist.transpose_(block, col_split=col_split, peers_at_once=peers_at_once)
    assert out is block, "transpose_ returns the tensor it was given"
    expected_shape = (mine["col_count"], rows)
    assert tuple(block.shape) == expected_shape, (tuple(block.shape), expected_shape)
    want = a.t()[mine["col_first"]: mine["col_first"] + mine["col_count"]]
    if not torch.equal(as_bytes(block), as_bytes(want)):
        raise AssertionError(f"rank {rank}: {rows}x{cols} elem {elem} splits {row_split} "
                             f"{col_split}: wrong block")
    if round_trip:
        # The transpose's own split of rows is the col split; back to the first matrix.
        xdist.transpose_(block, col_split=row_split, peers_at_once=peers_at_once)
        back = a[mine["row_first"]: mine["row_first"] + mine["row_count"]]
        assert tuple(block.shape) == tuple(back.shape)
        if not torch.equal(as_bytes(block), as_bytes(back)):
            raise AssertionError(f"rank {rank}: round trip of {rows}x{cols} elem {elem} failed")


def expect_error(make_block, message_part, **kwargs):
    block = make_block()
    before = block.clone()
    try:
        xdist.transpose_(block, **kwargs)
    except ValueError as e:
        assert message_part in str(e), (message_part, str(e))
    else:
        raise AssertionError(f"no error; expected one saying {message_part!r}")
    assert torch.equal(block, before), "the data changed after an error"


def main():
    # A rank that waits too long (a peer failed, a collective mismatched) prints every thread's
    # stack and exits, rather than holding the test until its timeout.
    faulthandler.dump_traceback_later(int(os.environ.get("XPOSE_DIST_WORKER_TIMEOUT", "240")),
                                      exit=True)
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    print(f"dist_worker start {rank} of {ranks}", flush=True)
    assert xdist.has_nccl(), "this xpose build has no NCCL"

    for elem in (1, 2, 4, 8, 16):
        check_case(1000, 600, elem, seed=elem)
        print(f"dist_worker {rank}: elem {elem} ok", flush=True)
    check_case(1009, 997, 4)                      # primes, even_split uneven
    check_case(4096, 2048, 4, round_trip=True)    # even splits both ways
    check_case(2003, 1999, 8, round_trip=True)
    uneven = [1] * (ranks - 1) + [701 - (ranks - 1)]
    check_case(701, 523, 2, row_split=uneven)
    nothing_first = [0] + xdist.even_split(333, ranks - 1) if ranks > 1 else [333]
    check_case(333, 257, 4, row_split=nothing_first)  # rank 0 holds no rows
    check_case(517, 389, 4, col_split=list(reversed(xdist.even_split(389, ranks))))
    check_case(8192, 8191, 4)                     # a 256 MiB matrix, 3 chunks per pair or more
    for peers in (1, 2):                          # fewer peers at once than all
        check_case(1009, 997, 8, round_trip=True, peers_at_once=peers)

    # Errors: raised on every rank, the data untouched.
    expect_error(lambda: torch.zeros(10, 7 if rank == 0 else 8, device="cuda"), "columns")
    expect_error(lambda: torch.zeros(6, 9, device="cuda")[:, :8], "C-contiguous")
    expect_error(lambda: torch.zeros(12, 10, device="cuda"), "col_split", col_split=[1, 2, 3])
    expect_error(lambda: torch.zeros(12, 10, device="cuda"), "unknown scheme", scheme="fast")
    # Options that differ between ranks: refused on every rank, before any plan is made.
    expect_error(lambda: torch.zeros(12, 10, device="cuda"), "every rank passes the same",
                 chunk_bytes=4096 * (rank + 1))
    expect_error(lambda: torch.zeros(12, 10, device="cuda"), "peers_at_once", peers_at_once=-1)
    if ranks > 1:
        # Rank 0's block of the transpose (11 x 5 + 6 (P - 1)) does not fit its 5 x 12 storage.
        expect_error(lambda: torch.zeros(5 if rank == 0 else 6, 12, device="cuda"), "storage",
                     col_split=[12 - (ranks - 1)] + [1] * (ranks - 1))
    torch.cuda.synchronize()
    xdist.release()
    print(f"dist_worker ok {rank} ({xpose.__version__}, {ranks} ranks)", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
