"""xpose.dist: in-place transposition of a matrix spread over GPUs, for PyTorch distributed code.

An M x N matrix is held by the P ranks of a ``torch.distributed`` process group by blocks of
rows: rank r holds rows ``[row_first(r), row_first(r) + row_count(r))`` as a C-contiguous CUDA
tensor of shape ``(row_count(r), N)`` on its own GPU. ``transpose_(tensor, group)`` turns it,
in the same memory, into rank r's block of the N x M transpose: rows ``[col_first(r), ...)``
of it, the tensor re-pointed at its storage with shape ``(col_count(r), M)``. Under the hood it
is ``xpose::dist`` (the C++ library's distributed transposition, ``docs/distributed.md``): a local
in-place transposition, an exchange of blocks by pairwise ``ncclSend``/``ncclRecv`` through a
scratch of a few chunks (at most 64 MiB + 1 % of the block per GPU), and a local in-place
permutation; never a second copy of the block.

Splits: by default the rows are split as ``even_split(M, P)`` gives (the first ``M % P`` ranks
hold one more) and so are the columns; pass ``row_split`` / ``col_split`` for others. With
uneven splits the block after may be larger than the block before: the storage must hold
``capacity_elements`` of them, which :func:`empty` allocates.

The call is collective: every rank of the group calls it with its own block and the same
options. It agrees on the shapes and options with one all-gather of a few values over the group,
and on the plan being made everywhere with a second (each a host synchronization), so a mistake
or a failure on any rank raises on every rank instead of leaving the others waiting, and the data
is left as it was. Then it enqueues the work on the tensor's current CUDA stream and returns.
xpose runs the exchange on an NCCL communicator of its own, made once per process group and
device (from a unique id that rank 0 of the group broadcasts through the group) and kept until
:func:`release`.

Needs a build with NCCL (``has_nccl()``; ``pip install`` builds it where nvcc and NCCL are found)
and PyTorch with ``torch.distributed`` initialized.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import _xpose
from ._errors import UnsupportedError

__all__ = [
    "has_nccl",
    "even_split",
    "layout",
    "empty",
    "transpose_",
    "release",
    "SCHEMES",
]

#: The arrangements of the local stages around the exchange (``docs/distributed.md``).
SCHEMES = ("automatic", "rows_even", "cols_even", "any_split")

# Plans kept per communicator (each holds its scratch, up to 64 MiB + 1 % of the block).
_PLANS_PER_COMMUNICATOR = 4


def has_nccl() -> bool:
    """Whether this build has the distributed transposition (CUDA and NCCL)."""
    return bool(getattr(_xpose, "has_nccl", lambda: False)())


def even_split(n: int, parts: int) -> list[int]:
    """`n` split into `parts` counts as even as possible: the first ``n % parts`` get one more."""
    if parts < 1:
        raise ValueError(f"parts must be positive, got {parts}")
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    return [n // parts + (1 if r < n % parts else 0) for r in range(parts)]


def layout(
    rows: int,
    cols: int,
    ranks: int,
    *,
    row_split: Optional[Sequence[int]] = None,
    col_split: Optional[Sequence[int]] = None,
) -> list[dict[str, int]]:
    """Per rank: ``row_first``, ``row_count`` (its block before), ``col_first``, ``col_count``
    (its block of the transpose after) and ``capacity_elements`` (what its storage must hold).
    Raises ``ValueError`` on a split that does not fit the matrix."""
    row_split = list(row_split) if row_split is not None else []
    col_split = list(col_split) if col_split is not None else []
    _check_split(row_split, rows, ranks, "row_split", "rows")
    _check_split(col_split, cols, ranks, "col_split", "cols")
    row_counts = row_split or even_split(rows, ranks)
    col_counts = col_split or even_split(cols, ranks)
    out = []
    row_first = col_first = 0
    for r in range(ranks):
        out.append(
            {
                "row_first": row_first,
                "row_count": row_counts[r],
                "col_first": col_first,
                "col_count": col_counts[r],
                "capacity_elements": max(row_counts[r] * cols, col_counts[r] * rows),
            }
        )
        row_first += row_counts[r]
        col_first += col_counts[r]
    return out


def _check_split(split: list[int], total: int, ranks: int, name: str, total_name: str) -> None:
    if ranks < 1:
        raise ValueError(f"ranks must be positive, got {ranks}")
    if total <= 0:
        raise ValueError(f"{total_name} must be positive, got {total}")
    if not split:
        return
    if len(split) != ranks:
        raise ValueError(
            f"{name} has {len(split)} counts; it needs one per rank ({ranks}) or none"
        )
    if any(int(c) != c or c < 0 for c in split):
        raise ValueError(f"{name} must hold counts of 0 or more, got {split}")
    if sum(split) != total:
        raise ValueError(f"{name} sums to {sum(split)}, not {total_name} ({total})")


def _torch() -> Any:
    try:
        import torch
        import torch.distributed
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise UnsupportedError("xpose.dist works on PyTorch tensors: install torch") from e
    return torch


def _group_info(group: Any) -> tuple[int, int]:
    torch = _torch()
    dist = torch.distributed
    if not dist.is_available() or not dist.is_initialized():
        raise ValueError(
            "torch.distributed is not initialized: call torch.distributed.init_process_group "
            "(for example under torchrun) before xpose.dist"
        )
    return dist.get_rank(group), dist.get_world_size(group)


def empty(
    rows: int,
    cols: int,
    *,
    dtype: Any,
    group: Any = None,
    device: Any = None,
    row_split: Optional[Sequence[int]] = None,
    col_split: Optional[Sequence[int]] = None,
) -> Any:
    """This rank's ``(row_count, cols)`` block of an M x N matrix, uninitialized, in a storage
    large enough for its block of the transpose too (``capacity_elements``). `device` defaults to
    the current CUDA device."""
    torch = _torch()
    rank, ranks = _group_info(group)
    mine = layout(rows, cols, ranks, row_split=row_split, col_split=col_split)[rank]
    if device is None:
        device = torch.device("cuda", torch.cuda.current_device())
    storage = torch.empty(mine["capacity_elements"], dtype=dtype, device=device)
    return storage[: mine["row_count"] * cols].view(mine["row_count"], cols)


class _Communicator:
    """xpose's NCCL communicator for one process group on one device, and its plans."""

    def __init__(self, group: Any, rank: int, ranks: int, device: int) -> None:
        torch = _torch()
        dist = torch.distributed
        # Rank 0 sends the unique id, or why it has none, so that no rank waits for an id.
        unique: list[Any] = [None]
        if rank == 0:
            try:
                unique[0] = ("id", _xpose.nccl_unique_id())
            except Exception as e:  # noqa: BLE001 - passed on to every rank
                unique[0] = ("error", f"{type(e).__name__}: {e}")
        source = 0 if group is None else dist.get_global_rank(group, 0)
        with torch.cuda.device(device):
            dist.broadcast_object_list(unique, src=source, group=group)
        kind, value = unique[0]
        if kind != "id":
            raise RuntimeError(f"xpose.dist: rank 0 could not make an NCCL unique id: {value}")
        self.group = group  # kept alive, so that its id is not reused while cached
        self.device = device
        self.comm = _xpose.NcclComm(value, ranks, rank, device)
        self.plans: dict[tuple, Any] = {}

    def plan(self, key: tuple, make: Any) -> Any:
        found = self.plans.get(key)
        if found is None:
            if len(self.plans) >= _PLANS_PER_COMMUNICATOR:
                # The plan's scratch may still be in use by work it queued.
                _torch().cuda.synchronize(self.device)
                self.plans.pop(next(iter(self.plans)))
            found = self.plans[key] = make()
        return found

    def destroy(self) -> None:
        self.plans.clear()
        self.comm.destroy()


_communicators: dict[tuple[int, int], _Communicator] = {}


def release(group: Any = None) -> None:
    """Frees the NCCL communicators and plans xpose.dist holds for `group` (every process group
    when `group` is None) on this process. Collective for the group: every rank calls it, after
    its transpositions have completed (synchronize the streams first)."""
    for key in list(_communicators):
        if group is None or _communicators[key].group is group:
            _communicators.pop(key).destroy()


def _local_error(tensor: Any, torch: Any) -> Optional[str]:
    """What is wrong with this rank's tensor, before anything is exchanged; None if nothing."""
    if not isinstance(tensor, torch.Tensor):
        return f"transpose_ takes a torch.Tensor, got {type(tensor).__name__}"
    if tensor.device.type != "cuda":
        return f"the tensor is on {tensor.device}: xpose.dist transposes CUDA tensors"
    if tensor.dim() != 2:
        return f"the tensor has {tensor.dim()} dimensions; this rank's block is 2-D (rows, cols)"
    if tensor.layout != torch.strided or not tensor.is_contiguous():
        return "the tensor is not C-contiguous: pass .contiguous() (a copy) or build it so"
    if tensor.requires_grad:
        return "the tensor requires grad: an in-place transposition is not differentiable"
    if tensor.is_inference() and not torch.is_inference_mode_enabled():
        return "an inference tensor can only be changed inside torch.inference_mode()"
    return None


def transpose_(
    tensor: Any,
    group: Any = None,
    *,
    row_split: Optional[Sequence[int]] = None,
    col_split: Optional[Sequence[int]] = None,
    scheme: str = "automatic",
    chunk_bytes: int = 0,
    peers_at_once: int = 0,
) -> Any:
    """Transposes the matrix whose blocks of rows the ranks of `group` hold, in place.

    `tensor` is this rank's ``(row_count, N)`` block (C-contiguous, on a CUDA device); on return
    it is the same tensor with shape ``(col_count, M)``, its block of the transpose, the work
    enqueued on its current stream. The row counts are the blocks' own (`row_split`, if given,
    must match them); `col_split` is the split of the transpose's rows (default
    ``even_split(N, P)``). `scheme`, `chunk_bytes` and `peers_at_once` (0: every peer at once,
    1: one at a time) are the plan's options (``docs/distributed.md``). Every rank calls it with
    the same options.

    Two small all-gathers over the group (host synchronizations) agree first on the blocks and
    options, then on the plan being made on every rank. Raises on every rank, the data
    untouched: ``ValueError`` when a block's shape, dtype, device or storage, or an option, does
    not fit (or differs between ranks); ``RuntimeError`` when a rank could not plan (say, out of
    device memory); ``UnsupportedError`` without NCCL.
    """
    if not has_nccl():
        raise UnsupportedError(
            "this xpose build has no distributed transposition: it needs CUDA and NCCL at build "
            "time (the CUDA toolkit's NCCL, or NCCL_HOME)"
        )
    torch = _torch()
    rank, ranks = _group_info(group)
    error = _local_error(tensor, torch)
    if error is None and scheme not in SCHEMES:
        error = f"unknown scheme {scheme!r}: one of {', '.join(SCHEMES)}"
    if error is None and (not isinstance(chunk_bytes, int) or chunk_bytes < 0):
        error = f"chunk_bytes must be an int of 0 or more, got {chunk_bytes!r}"
    if error is None and (not isinstance(peers_at_once, int) or peers_at_once < 0):
        error = f"peers_at_once must be an int of 0 or more, got {peers_at_once!r}"
    mine: Any = None
    if error is None:
        # The storage this rank can use from the tensor's start, in elements.
        room = tensor.untyped_storage().nbytes() // tensor.element_size() - tensor.storage_offset()
        mine = (tuple(tensor.shape), str(tensor.dtype), tensor.element_size(), room)
        device = tensor.device.index
    else:
        device = torch.cuda.current_device()
    options: Any = None
    try:
        options = (
            None if row_split is None else [int(c) for c in row_split],
            None if col_split is None else [int(c) for c in col_split],
            scheme,
            chunk_bytes,
            peers_at_once,
        )
    except (TypeError, ValueError) as e:
        error = error or f"row_split and col_split are lists of counts: {e}"
    # Every rank learns every rank's block, options and error: all raise together, or none does.
    everyone: list[Any] = [None] * ranks
    with torch.cuda.device(device):
        torch.distributed.all_gather_object(everyone, (error, mine, options), group=group)
    for r, (their_error, _, _) in enumerate(everyone):
        if their_error is not None:
            raise ValueError(f"xpose.dist.transpose_: rank {r}: {their_error}")
    for r, (_, _, their_options) in enumerate(everyone):
        if their_options != everyone[0][2]:
            raise ValueError(
                "xpose.dist.transpose_: rank 0 passed (row_split, col_split, scheme, chunk_bytes,"
                f" peers_at_once) = {everyone[0][2]}, rank {r} {their_options}: every rank passes"
                " the same"
            )
    blocks = [m for _, m, _ in everyone]
    cols, dtype, elem = blocks[0][0][1], blocks[0][1], blocks[0][2]
    for r, ((_, their_cols), their_dtype, _, _) in enumerate(blocks):
        if their_cols != cols or their_dtype != dtype:
            raise ValueError(
                f"xpose.dist.transpose_: rank 0 holds {dtype} blocks of {cols} columns, rank {r} "
                f"{their_dtype} blocks of {their_cols}: every rank holds rows of the same matrix"
            )
    counts = [b[0][0] for b in blocks]
    rows = sum(counts)
    if options[0] is not None and options[0] != counts:
        raise ValueError(
            f"xpose.dist.transpose_: row_split {options[0]} does not match the blocks' row "
            f"counts {counts}"
        )
    split_cols = options[1] if options[1] is not None else []
    ranks_layout = layout(rows, cols, ranks, row_split=counts, col_split=split_cols)
    for r, block in enumerate(blocks):
        needed = ranks_layout[r]["capacity_elements"]
        if block[3] < needed:
            raise ValueError(
                f"xpose.dist.transpose_: rank {r}'s storage holds {block[3]} elements from the "
                f"tensor's start; its blocks before and after need {needed}: allocate them with "
                "xpose.dist.empty (or a storage of layout(...)[rank]['capacity_elements'])"
            )

    # The communicator (made once per group and device) and the plan (cached on it) are made on
    # every rank; whether each rank has them is agreed before any transfer is queued.
    failure: Optional[str] = None
    plan: Any = None
    try:
        key_group = (id(group) if group is not None else 0, device)
        communicator = _communicators.get(key_group)
        if communicator is None:
            communicator = _communicators[key_group] = _Communicator(group, rank, ranks, device)
        stream = torch.cuda.current_stream(device).cuda_stream
        key = (rows, cols, elem, tuple(counts), tuple(split_cols), stream, scheme, chunk_bytes,
               peers_at_once)
        plan = communicator.plan(
            key,
            lambda: _xpose.DistPlan(
                rows, cols, elem, ranks, rank, counts, split_cols, device, stream, scheme,
                chunk_bytes, peers_at_once,
            ),
        )
    except Exception as e:  # noqa: BLE001 - passed on to every rank
        failure = f"{type(e).__name__}: {e}"
    outcomes: list[Any] = [None] * ranks
    with torch.cuda.device(device):
        torch.distributed.all_gather_object(outcomes, failure, group=group)
    for r, their_failure in enumerate(outcomes):
        if their_failure is not None:
            raise RuntimeError(
                f"xpose.dist.transpose_: rank {r} could not plan the transposition: "
                f"{their_failure}"
            )
    # The block's address from its storage: data_ptr() is 0 for a tensor of no elements (a rank
    # with no rows before), whose storage still receives the block after. A rank with nothing
    # before or after may hold no storage at all; the plan wants an address all the same.
    address = tensor.untyped_storage().data_ptr() + tensor.storage_offset() * elem
    spare = None
    if address == 0:
        spare = torch.empty(1, dtype=tensor.dtype, device=device)
        address = spare.data_ptr()
    plan.execute(address, communicator.comm)
    after = ranks_layout[rank]["col_count"]
    with torch.no_grad():
        tensor.set_(tensor.untyped_storage(), tensor.storage_offset(), (after, rows), (rows, 1))
    return tensor
