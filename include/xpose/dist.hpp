// Several GPUs: in-place transposition of a matrix spread over GPUs by blocks of rows, through
// NCCL (built when NCCL is found: XPOSE_HAVE_NCCL). An M x N row-major matrix held by P ranks,
// rank r holding a dense block of consecutive rows, becomes its N x M transpose held the same
// way, in the same buffers: a local in-place transposition, an exchange of blocks by grouped
// ncclSend/ncclRecv with every peer at once (or fewer: options.peers_at_once) through a scratch
// of a few chunks per peer, and a final local in-place permutation.
// Any launcher that gives an NCCL communicator works (one process per GPU under MPI or torchrun,
// on one host or several); device_group drives all the GPUs of one process from one thread.
// docs/distributed.md describes the schemes, the exchange and its memory bound.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpose::detail::dist {
struct plan_state;
}

namespace xpose::dist {

/// `n` split into `parts` counts as even as possible: the first n % parts get one more.
std::vector<std::int64_t> even_split(std::int64_t n, int parts);

/// An M x N (rows x cols) row-major matrix of elem_size-byte elements over `ranks` ranks. Before
/// the transposition rank r holds rows [row_first(r), row_first(r) + row_count(r)) of it as a dense
/// row_count(r) x cols block; after, it holds rows [col_first(r), col_first(r) + col_count(r)) of
/// the cols x rows transpose (columns of the matrix) as a dense col_count(r) x rows block, at the
/// same address. Every rank passes the same description.
struct distributed_matrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::size_t elem_size = 0;
  int ranks = 1;
  /// Rows of the matrix per rank, `ranks` counts summing to `rows` (zeros allowed); empty means
  /// even_split(rows, ranks).
  std::vector<std::int64_t> row_split;
  /// Rows of the transpose (columns of the matrix) per rank, summing to `cols`; empty means
  /// even_split(cols, ranks).
  std::vector<std::int64_t> col_split;

  /// Throws xpose::error{invalid_argument} naming the field and its value.
  void validate() const;
  std::int64_t row_count(int rank) const;
  std::int64_t row_first(int rank) const;
  std::int64_t col_count(int rank) const;
  std::int64_t col_first(int rank) const;
  /// What rank's buffer must hold: max(row_count * cols, col_count * rows) elements (the block
  /// before and the block after share it).
  std::int64_t capacity_elements(int rank) const;
  std::size_t capacity_bytes(int rank) const;
  /// The transpose's description (cols x rows, the splits swapped): its plan transposes back.
  distributed_matrix transposed() const;
};

/// How the local stages are arranged around the exchange (docs/distributed.md).
enum class scheme {
  automatic,  ///< both splits even: cols_even where the column block it transposes has one
              ///< side a multiple of the other and the row block rows_even transposes has not
              ///< (square blocks), else rows_even; one split even: rows_even or cols_even by
              ///< it; any_split otherwise
  rows_even,  ///< transpose the local block; exchange; one 010 of super-elements of
              ///< row_count x elem_size bytes. Needs equal row counts
  cols_even,  ///< one 010 of super-elements of col_count x elem_size bytes; exchange; transpose
              ///< the received column block. Needs equal column counts
  any_split,  ///< transpose; exchange; transpose each received block; transpose the column
              ///< block. Any splits, one more local pass
};

/// Bandwidths for the predicted time: copy counts a device-to-device copy as 2 x bytes / time
/// (read and write, as xpose's benchmarks do); link is the bytes one GPU sends per second to a
/// peer while receiving as many from it; link_all_peers the bytes one GPU sends per second in all
/// while it exchanges with every other rank at once (as link with two ranks). Zero means not
/// known.
struct bandwidths {
  double copy = 0;
  double link = 0;
  double link_all_peers = 0;
};

struct options {
  scheme local = scheme::automatic;
  /// Bytes per ncclSend/ncclRecv of the exchange; 0 = chosen from the description (the same on
  /// every rank, which a nonzero value must also be).
  std::size_t chunk_bytes = 0;
  /// Scratch that may hold received bytes whose place is still in use (uneven splits): 0 = the
  /// larger of 16 MiB and 1/256 of the rank's buffer. Planning fails with status::unsupported on
  /// every rank when some rank would need more, provided every rank gives the same value: ranks
  /// planned with different limits can disagree, and those that planned would wait on the others
  /// in the exchange.
  std::size_t park_limit_bytes = 0;
  /// Peers each rank exchanges with at once: the exchange's pairing rounds run this many at a
  /// time, each wave one NCCL group with a chunk to and from each of them. 0 = every peer (as an
  /// all-to-all: on NVLink switches one peer at a time leaves most of the bandwidth idle); 1 =
  /// one peer at a time, the least scratch. The slots take slot_count chunks per peer at once.
  /// The same on every rank.
  int peers_at_once = 0;
  /// For describe() and predicted_seconds(): given, or from measure_bandwidths().
  bandwidths measured;
};

/// The parts of an execution, for profiling one alone (execute_part).
enum class part { local_before, exchange, local_after };

class group_plan;

/// One rank's plan: its local stages (xpose in-place plans and elementary tiled stages on the
/// GPU), the exchange schedule and the scratch, allocated at plan time on the current device.
/// Copies share the plan; executions of one plan run one after another.
class plan {
 public:
  /// Transposes in place: `local` is this rank's buffer (device memory of the plan's device, at
  /// least capacity_bytes(rank) bytes), `comm` a communicator of `ranks` ranks in which this one
  /// is `rank`, on the plan's device. Every rank calls it. Enqueued on the plan's stream; no
  /// host synchronization. Arguments are checked before anything is enqueued.
  void execute(void* local, ncclComm_t comm) const;
  /// One part alone (profiling); the buffer is left between parts.
  void execute_part(part which, void* local, ncclComm_t comm) const;

  /// Local stages, exchange schedule, scratch, device memory against its bound, predicted time.
  std::string describe() const;
  int rank() const noexcept;
  int device() const noexcept;
  const distributed_matrix& matrix() const noexcept;
  scheme chosen_scheme() const noexcept;
  std::size_t chunk_bytes() const noexcept;
  /// Peers this plan's exchange talks to at once (options.peers_at_once resolved; 0 for one
  /// rank). A rank idle in one of the rounds that run together talks to one fewer then.
  int peers_at_once() const noexcept;
  /// All device memory the plan holds: the local plans' workspaces, tables, the scratch.
  std::size_t workspace_bytes() const noexcept;
  /// The exchange's part of the scratch: its slots and its parking arena.
  std::size_t exchange_scratch_bytes() const noexcept;
  /// Bytes parked in all (received before their place was free), and the arena that holds them.
  std::size_t parked_bytes() const noexcept;
  std::size_t arena_bytes() const noexcept;
  /// 64 MiB + 1 % of capacity_bytes(rank): the extra device memory the design allows.
  std::size_t memory_bound_bytes() const noexcept;
  /// Predicted seconds from options.measured (0 when not known): this rank's local stages and
  /// the exchange, each group of rounds that run at once as long as the bytes its busiest rank
  /// sends or receives in it (over link for one round, link_all_peers for several).
  double predicted_seconds() const noexcept;
  /// Predicted passes over this rank's buffer of the local stages before and after.
  double predicted_local_passes() const noexcept;

  explicit plan(std::shared_ptr<xpose::detail::dist::plan_state> state);

 private:
  friend class group_plan;
  std::shared_ptr<xpose::detail::dist::plan_state> state_;
};

/// Plans rank `rank`'s part on the current device, its local stages running on `stream`.
plan plan_inplace(const distributed_matrix& matrix, int rank, cudaStream_t stream = nullptr,
                  const options& opts = {});

/// One call: plans (rank from the communicator), executes and frees the plan. Plan once to
/// transpose many times.
void transpose_inplace(const distributed_matrix& matrix, void* local, ncclComm_t comm,
                       cudaStream_t stream, const options& opts = {});

/// The GPUs of this process, one NCCL communicator each (ncclCommInitAll) and one non-blocking
/// stream each; rank r is devices[r].
class device_group {
 public:
  /// All visible GPUs when `devices` is empty.
  explicit device_group(std::vector<int> devices = {});
  ~device_group();
  device_group(const device_group&) = delete;
  device_group& operator=(const device_group&) = delete;

  int size() const noexcept;
  int device(int rank) const;
  ncclComm_t comm(int rank) const;
  cudaStream_t stream(int rank) const;
  /// Waits for every rank's stream.
  void synchronize() const;

 private:
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

/// A plan per rank of a device_group, executed from one host thread: each exchange step of all
/// ranks in one NCCL group. The device_group must outlive it.
class group_plan {
 public:
  group_plan(const distributed_matrix& matrix, const device_group& group, const options& opts = {});
  /// locals[r] is rank r's buffer on group.device(r).
  void execute(const std::vector<void*>& locals) const;
  void execute_part(part which, const std::vector<void*>& locals) const;
  const plan& rank_plan(int rank) const;
  /// Rank 0's describe(), then each rank's device memory against its bound.
  std::string describe() const;

 private:
  const device_group* group_;
  std::vector<plan> plans_;
};

void transpose_inplace(const distributed_matrix& matrix, const std::vector<void*>& locals,
                       const device_group& group, const options& opts = {});

/// Measures the copy and link bandwidths: a device-to-device copy, a pairwise exchange with the
/// partner of pairing round 1, and an exchange with every other rank at once (probe_bytes over
/// them), `probe_bytes` each, five timed after one warm-up; the largest over the ranks (an
/// all-reduce). Collective: every rank calls it. Synchronizes `stream`.
bandwidths measure_bandwidths(ncclComm_t comm, cudaStream_t stream,
                              std::size_t probe_bytes = std::size_t{64} << 20);
bandwidths measure_bandwidths(const device_group& group,
                              std::size_t probe_bytes = std::size_t{64} << 20);

const char* to_string(scheme s) noexcept;

}  // namespace xpose::dist
