// What a distributed plan holds (dist_plan.cpp) and the pieces of its execution, shared with the
// single-process driver of several GPUs (device_group.cpp), which interleaves the steps of all
// ranks.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dist/exchange_schedule.hpp"
#include "dist/local_stages.hpp"
#include "plan/plan_data.hpp"
#include "xpose/dist.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail::dist {

/// Throws xpose::error{device_error} naming `what` when an NCCL call failed.
void check_nccl(ncclResult_t result, const char* what, ncclComm_t comm = nullptr);
/// Throws xpose::error{device_error} naming `what` when a CUDA call failed.
void check_cuda(cudaError_t result, const char* what);

/// An NCCL group (ncclGroupStart) for its lifetime. end() closes it; where a non-blocking
/// communicator answers ncclInProgress, end() waits until each of `comms` has its operations on
/// their streams (ncclCommGetAsyncError), so that work enqueued after it comes after them. A
/// group left open by an exception is closed by the destructor, so that the thread's later NCCL
/// calls are not taken into it.
class nccl_group {
 public:
  explicit nccl_group(ncclComm_t comm = nullptr);
  ~nccl_group();
  nccl_group(const nccl_group&) = delete;
  nccl_group& operator=(const nccl_group&) = delete;
  void end(const std::vector<ncclComm_t>& comms);

 private:
  ncclComm_t comm_;
  bool open_ = true;
};

/// Makes `device` current for its lifetime, then restores the one that was.
class device_scope {
 public:
  explicit device_scope(int device);
  ~device_scope();
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = -1;
};

/// A local stage ready to run: an xpose plan, or an elementary tiled stage with its table.
struct local_runner {
  local_op op;
  std::optional<xpose::plan> elements;  ///< !op.super
  stage tiled;                          ///< op.super
  std::shared_ptr<void> table;          ///< op.super: its chain table (device), if any
  std::size_t table_bytes = 0;
  std::size_t scratch_bytes = 0;  ///< scratch it overwrites (the plan's shared one)
  double passes = 0;              ///< predicted passes over op.bytes()
};

struct plan_state {
  xpose::dist::distributed_matrix matrix;
  split_layout layout;
  int rank = 0;
  int device = 0;
  xpose::dist::options opts;
  cudaStream_t stream = nullptr;  ///< the caller's: local stages and transfers
  xpose::dist::scheme chosen = xpose::dist::scheme::rows_even;
  std::vector<local_runner> before, after;
  exchange_order order;  ///< the same on every rank
  exchange_schedule schedule;
  /// The exchange's slots and arena, also the local stages' scratch (the tiled stages' and the
  /// xpose plans', which never run at the same time as each other or the exchange).
  std::shared_ptr<void> scratch;
  std::size_t scratch_bytes = 0;
  /// Where the local stages' xpose plans find the scratch (plan_inplace_sharing_scratch).
  std::shared_ptr<void*> local_scratch = std::make_shared<void*>(nullptr);
  std::size_t local_plan_bytes = 0;  ///< xpose plans' tables and tiled tables
  /// Copies out of the slots, overlapping the next transfer.
  cudaStream_t copy_stream = nullptr;
  std::array<cudaEvent_t, slot_count> received{}, copied{};
  /// For the predicted time: the exchange's groups of rounds over all ranks, the bytes of the
  /// rank that sends or receives most in each, summed over the groups of one round (one peer at a
  /// time) and over those of several.
  double one_peer_bytes = 0, several_peers_bytes = 0;
  double self_move_bytes = 0;  ///< the largest self move over the ranks
  std::mutex lock;

  plan_state() = default;
  plan_state(const plan_state&) = delete;
  plan_state& operator=(const plan_state&) = delete;
  ~plan_state();

  unsigned char* slot(int k) const {
    return static_cast<unsigned char*>(scratch.get()) + k * schedule.slot_stride;
  }
  unsigned char* arena() const {
    return static_cast<unsigned char*>(scratch.get()) + schedule.arena_offset();
  }
};

/// Checks `local` and `comm` against the plan (before anything is enqueued).
void check_arguments(const plan_state& s, void* local, ncclComm_t comm);
/// Enqueues the local stages on the plan's stream (the plan's device current).
void run_local(const plan_state& s, const std::vector<local_runner>& stages, unsigned char* local);
/// Wave w of the exchange, in three parts: the wait for the copies out of its slots, the
/// transfers (ncclSend/ncclRecv, which the caller wraps in one NCCL group, or the local copy of
/// the self move), then the copies out of the slots on the copy stream.
void enqueue_wait(const plan_state& s, std::size_t w);
void enqueue_transfers(const plan_state& s, std::size_t w, unsigned char* local, ncclComm_t comm);
void enqueue_copies(const plan_state& s, std::size_t w, unsigned char* local);
/// Whether wave w is the self move (a local copy, no NCCL group).
bool is_self_move(const plan_state& s, std::size_t w);
/// The plan's stream waits for the last copies of the exchange.
void enqueue_exchange_end(const plan_state& s);

}  // namespace xpose::detail::dist
