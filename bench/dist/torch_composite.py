#!/usr/bin/env python3
"""The PyTorch composite peer of xpose's distributed transposition (bench/dist/xpose_dist_bench):
what a PyTorch user writes to transpose an M x N matrix spread by blocks of rows over P GPUs,

    send = x.view(m, P, n).permute(1, 0, 2).contiguous()   # column blocks in order of rank
    dist.all_to_all_single(recv, send)                      # recv: the M x n column block
    out = recv.view(M, n).t().contiguous()                  # n x M, this rank's rows of x^T

with x, send, recv and out all alive (four times the block; xpose's needs one). Run under
torchrun, one process per GPU:

    torchrun --standalone --nproc-per-node 2 bench/dist/torch_composite.py [--shape MxNxE]...
             [--runs N] [--json FILE]

M and N must be multiples of P (the default shapes are). An element of E bytes is E / w words of
the widest of 8, 4, 2, 1 bytes that divides it (the permutes move whole elements). Times are
wall-clock from a barrier to the slowest rank's end, the median of --runs after a warm-up, for
the composite, the all_to_all_single alone and the two permutes alone; every shape is checked
once against columns of the matrix gathered from every rank (all of them for small shapes,
sampled ones for large). Rank 0 prints one JSON object (and writes it to --json)."""
import os

# NVLink multicast stays off (the device machines require it), before torch sets up NCCL.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

DEFAULT_SHAPES = ["65536x65536x4", "100000x20000x8"]
WORDS = [(8, torch.int64), (4, torch.int32), (2, torch.int16), (1, torch.uint8)]


def parse_shape(text):
    rows, cols, elem = (int(v) for v in text.lower().split("x"))
    return rows, cols, elem


def word_of(elem):
    for size, dtype in WORDS:
        if elem % size == 0:
            return size, dtype
    raise ValueError(elem)


def timed(fn, runs):
    """Median wall-clock ms over `runs` after a warm-up, the slowest rank's."""
    times = []
    for run in range(runs + 1):
        torch.cuda.synchronize()
        dist.barrier()
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        elapsed = torch.tensor([(time.perf_counter() - start) * 1e3], device="cuda")
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        if run > 0:
            times.append(elapsed.item())
    return statistics.median(times)


def check(x, out, rows, cols, ranks, rank):
    """out (this rank's n x M block of x^T) against columns of x gathered from every rank: all
    of them when n is small, about 64 of each rank's n otherwise."""
    n = cols // ranks
    picks = list(range(n)) if n <= 256 else list(range(0, n, n // 64)) + [n - 1]
    columns = torch.tensor([s * n + j for s in range(ranks) for j in picks], device="cuda")
    mine = x.index_select(1, columns).contiguous()  # m x (ranks * picks) x k
    gathered = [torch.empty_like(mine) for _ in range(ranks)]
    dist.all_gather(gathered, mine)
    whole = torch.cat(gathered, dim=0)  # M x (ranks * picks) x k
    ok = all(torch.equal(out[j], whole[:, rank * len(picks) + i]) for i, j in enumerate(picks))
    flag = torch.tensor([1 if ok else 0], device="cuda")
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", action="append", help="MxNxE (rows x cols x element bytes)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="write the results here too (rank 0)")
    args = parser.parse_args()

    dist.init_process_group("nccl")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    results = []
    for text in args.shape or DEFAULT_SHAPES:
        rows, cols, elem = parse_shape(text)
        row = {"gpus": ranks, "rows": rows, "cols": cols, "elem_size": elem}
        if rows % ranks or cols % ranks:
            row["skipped"] = f"rows and cols must be multiples of {ranks}"
            results.append(row)
            continue
        m, n = rows // ranks, cols // ranks
        size, dtype = word_of(elem)
        k = elem // size
        block_bytes = m * cols * elem
        free, _ = torch.cuda.mem_get_info()
        # x, the composite's three results, and the buffers the parts are timed in.
        if 7 * block_bytes + (1 << 30) > free:
            row["skipped"] = f"7 x {block_bytes / 2**30:.1f} GiB do not fit in {free / 2**30:.1f} GiB"
            results.append(row)
            continue
        gen = torch.Generator(device="cuda").manual_seed(1000 + rank)
        x = torch.randint(-(1 << 15), 1 << 15, (m, cols, k), device="cuda", dtype=torch.int64,
                          generator=gen).to(dtype)
        send = torch.empty((ranks, m, n, k), device="cuda", dtype=dtype)
        recv = torch.empty_like(send)
        out = torch.empty((n, rows, k), device="cuda", dtype=dtype)

        def first_permute():
            send.copy_(x.view(m, ranks, n, k).permute(1, 0, 2, 3))

        def exchange():
            dist.all_to_all_single(recv, send)

        def second_permute():
            out.copy_(recv.view(rows, n, k).permute(1, 0, 2))

        def composite():
            # What the user writes: each step allocates its result.
            s = x.view(m, ranks, n, k).permute(1, 0, 2, 3).contiguous()
            r = torch.empty_like(s)
            dist.all_to_all_single(r, s)
            return r.view(rows, n, k).permute(1, 0, 2).contiguous()

        result = composite()
        row["correct"] = check(x, result, rows, cols, ranks, rank)
        del result
        row["composite_ms"] = timed(composite, args.runs)
        row["all_to_all_ms"] = timed(exchange, args.runs)
        row["permutes_ms"] = timed(lambda: (first_permute(), second_permute()), args.runs)
        row["local_block_gib"] = block_bytes / 2**30
        row["ratio_to_all_to_all"] = row["composite_ms"] / row["all_to_all_ms"]
        row["gb_per_s_per_gpu"] = block_bytes / (row["composite_ms"] * 1e6)
        row["peak_memory_blocks"] = 4
        results.append(row)
        del x, send, recv, out
        torch.cuda.empty_cache()
    report = {"peer": "torch composite", "torch": torch.__version__,
              "nccl": ".".join(str(v) for v in torch.cuda.nccl.version()),
              "device": torch.cuda.get_device_name(), "gpus": ranks, "results": results}
    if rank == 0:
        print(json.dumps(report, indent=1))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
