// One process, several GPUs: communicators from ncclCommInitAll, a plan per rank, and one host
// thread that enqueues every rank's work, each exchange step of all ranks in one NCCL group (a
// thread that drives several communicators must group their calls).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "dist/plan_state.hpp"
#include "xpose/dist.hpp"
#include "xpose/error.hpp"

namespace xpose::dist {

using namespace xpose::detail::dist;

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw error(status::invalid_argument, message);
}

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace

device_group::device_group(std::vector<int> devices) : devices_(std::move(devices)) {
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    visible = 0;
  }
  if (visible == 0) throw error(status::unsupported, "device_group: no CUDA device is visible");
  if (devices_.empty())
    for (int d = 0; d < visible; ++d) devices_.push_back(d);
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i] < 0 || devices_[i] >= visible)
      invalid("devices[" + std::to_string(i) + "] is " + std::to_string(devices_[i]) + "; " +
              std::to_string(visible) + " devices are visible");
    if (std::count(devices_.begin(), devices_.end(), devices_[i]) > 1)
      invalid("device " + std::to_string(devices_[i]) + " is listed twice");
  }
  comms_.assign(devices_.size(), nullptr);
  check_nccl(ncclCommInitAll(comms_.data(), static_cast<int>(devices_.size()), devices_.data()),
             "ncclCommInitAll");
  streams_.assign(devices_.size(), nullptr);
  for (std::size_t r = 0; r < devices_.size(); ++r) {
    const device_scope on(devices_[r]);
    check_cuda(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking), "cudaStreamCreate");
  }
}

device_group::~device_group() {
  for (std::size_t r = 0; r < devices_.size(); ++r) {
    if (cudaSetDevice(devices_[r]) != cudaSuccess) continue;
    if (streams_.size() > r && streams_[r] != nullptr) {
      static_cast<void>(cudaStreamSynchronize(streams_[r]));
      static_cast<void>(cudaStreamDestroy(streams_[r]));
    }
  }
  for (ncclComm_t comm : comms_)
    if (comm != nullptr) static_cast<void>(ncclCommDestroy(comm));
}

int device_group::size() const noexcept {
  return static_cast<int>(devices_.size());
}

namespace {

void check_rank(int rank, int size) {
  if (rank < 0 || rank >= size)
    invalid("rank must be in [0, " + std::to_string(size) + "), got " + std::to_string(rank));
}

}  // namespace

int device_group::device(int rank) const {
  check_rank(rank, size());
  return devices_[static_cast<std::size_t>(rank)];
}
ncclComm_t device_group::comm(int rank) const {
  check_rank(rank, size());
  return comms_[static_cast<std::size_t>(rank)];
}
cudaStream_t device_group::stream(int rank) const {
  check_rank(rank, size());
  return streams_[static_cast<std::size_t>(rank)];
}

void device_group::synchronize() const {
  for (int r = 0; r < size(); ++r) {
    const device_scope on(device(r));
    check_cuda(cudaStreamSynchronize(stream(r)), "cudaStreamSynchronize");
  }
}

group_plan::group_plan(const distributed_matrix& matrix, const device_group& group,
                       const options& opts)
    : group_(&group) {
  matrix.validate();
  if (matrix.ranks != group.size())
    invalid("the matrix is spread over " + std::to_string(matrix.ranks) +
            " ranks, the device group has " + std::to_string(group.size()));
  for (int r = 0; r < group.size(); ++r) {
    const device_scope on(group.device(r));
    plans_.push_back(plan_inplace(matrix, r, group.stream(r), opts));
  }
}

const plan& group_plan::rank_plan(int rank) const {
  check_rank(rank, static_cast<int>(plans_.size()));
  return plans_[static_cast<std::size_t>(rank)];
}

void group_plan::execute(const std::vector<void*>& locals) const {
  for (part which : {part::local_before, part::exchange, part::local_after})
    execute_part(which, locals);
}

void group_plan::execute_part(part which, const std::vector<void*>& locals) const {
  const int ranks = static_cast<int>(plans_.size());
  if (static_cast<int>(locals.size()) != ranks)
    invalid("locals has " + std::to_string(locals.size()) + " pointers for " +
            std::to_string(ranks) + " ranks");
  std::vector<const plan_state*> states;
  std::vector<std::unique_lock<std::mutex>> locks;
  for (int r = 0; r < ranks; ++r) {
    const plan_state& s = *plans_[static_cast<std::size_t>(r)].state_;
    check_arguments(s, locals[static_cast<std::size_t>(r)], group_->comm(r));
    states.push_back(&s);
  }
  for (int r = 0; r < ranks; ++r)
    locks.emplace_back(plans_[static_cast<std::size_t>(r)].state_->lock);
  const auto bytes = [&](int r) { return static_cast<unsigned char*>(locals[r]); };

  if (which != part::exchange) {
    for (int r = 0; r < ranks; ++r) {
      const device_scope on(states[r]->device);
      run_local(*states[r], which == part::local_before ? states[r]->before : states[r]->after,
                bytes(r));
    }
    return;
  }
  // The waves of all ranks in order of (round, index): every rank in a wave has the same key.
  std::vector<std::size_t> next(static_cast<std::size_t>(ranks), 0);
  const auto key_of = [&](int r) {
    const exchange_schedule& x = states[r]->schedule;
    const step& first = x.steps[x.waves[next[r]].first];
    return std::pair<int, std::int64_t>{first.round, first.index};
  };
  for (;;) {
    std::pair<int, std::int64_t> key{0, 0};
    bool any = false;
    for (int r = 0; r < ranks; ++r) {
      if (next[r] == states[r]->schedule.waves.size()) continue;
      const std::pair<int, std::int64_t> k = key_of(r);
      if (!any || k < key) key = k;
      any = true;
    }
    if (!any) break;
    std::vector<int> now;
    for (int r = 0; r < ranks; ++r)
      if (next[r] < states[r]->schedule.waves.size() && key_of(r) == key) now.push_back(r);
    for (int r : now) {
      const device_scope on(states[r]->device);
      enqueue_wait(*states[r], next[r]);
      if (is_self_move(*states[r], next[r]))
        enqueue_transfers(*states[r], next[r], bytes(r), group_->comm(r));
    }
    std::vector<ncclComm_t> paired;
    nccl_group exchange;
    for (int r : now)
      if (!is_self_move(*states[r], next[r])) {
        enqueue_transfers(*states[r], next[r], bytes(r), group_->comm(r));
        paired.push_back(group_->comm(r));
      }
    exchange.end(paired);
    for (int r : now) {
      const device_scope on(states[r]->device);
      enqueue_copies(*states[r], next[r], bytes(r));
      ++next[r];
    }
  }
  for (int r = 0; r < ranks; ++r) {
    const device_scope on(states[r]->device);
    enqueue_exchange_end(*states[r]);
  }
}

std::string group_plan::describe() const {
  std::ostringstream out;
  out << plans_.front().describe();
  out << "  device memory per rank (bound 64 MiB + 1 % of the buffer):";
  for (const plan& p : plans_)
    out << " " << p.rank() << ": " << mib(p.workspace_bytes()) << " / "
        << mib(p.memory_bound_bytes());
  out << "\n";
  return out.str();
}

void transpose_inplace(const distributed_matrix& matrix, const std::vector<void*>& locals,
                       const device_group& group, const options& opts) {
  const group_plan p(matrix, group, opts);
  p.execute(locals);
  // The plans' scratch is freed on return: the transfers and copies that use it end first.
  group.synchronize();
}

}  // namespace xpose::dist
