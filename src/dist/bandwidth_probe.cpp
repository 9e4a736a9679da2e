// measure_bandwidths: a device-to-device copy, a pairwise exchange and an exchange with every peer
// at once, timed with CUDA events, for the predicted times of distributed plans.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dist/plan_state.hpp"
#include "xpose/dist.hpp"
#include "xpose/error.hpp"

namespace xpose::dist {

using namespace xpose::detail::dist;

namespace {

constexpr int timed_runs = 5;

/// One rank's probe: two buffers, a pair of events, on its device.
class probe {
 public:
  probe(int device, cudaStream_t stream, std::size_t bytes)
      : device_(device), stream_(stream), bytes_(bytes) {
    const device_scope on(device_);
    check_cuda(cudaMalloc(&a_, bytes_), "cudaMalloc (bandwidth probe)");
    check_cuda(cudaMalloc(&b_, bytes_), "cudaMalloc (bandwidth probe)");
    check_cuda(cudaMemsetAsync(a_, 1, bytes_, stream_), "cudaMemsetAsync (bandwidth probe)");
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~probe() {
    const device_scope on(device_);
    static_cast<void>(cudaStreamSynchronize(stream_));
    static_cast<void>(cudaFree(a_));
    static_cast<void>(cudaFree(b_));
    static_cast<void>(cudaEventDestroy(start_));
    static_cast<void>(cudaEventDestroy(stop_));
  }
  probe(const probe&) = delete;
  probe& operator=(const probe&) = delete;

  void copy() const {
    check_cuda(cudaMemcpyAsync(b_, a_, bytes_, cudaMemcpyDeviceToDevice, stream_),
               "cudaMemcpyAsync (bandwidth probe)");
  }
  /// ncclSend/ncclRecv with `peer` (the caller groups them).
  void exchange(int peer, ncclComm_t comm) const {
    check_nccl(ncclSend(a_, bytes_, ncclUint8, peer, comm, stream_), "ncclSend (probe)", comm);
    check_nccl(ncclRecv(b_, bytes_, ncclUint8, peer, comm, stream_), "ncclRecv (probe)", comm);
  }
  /// ncclSend/ncclRecv of an equal share of the buffer with every other rank (the caller groups
  /// them); the shares tile the buffer.
  void exchange_all(int rank, int ranks, ncclComm_t comm) const {
    const std::size_t share = bytes_ / static_cast<std::size_t>(ranks - 1);
    std::size_t at = 0;
    for (int peer = 0; peer < ranks; ++peer) {
      if (peer == rank) continue;
      const auto* from = static_cast<const unsigned char*>(a_) + at;
      auto* to = static_cast<unsigned char*>(b_) + at;
      check_nccl(ncclSend(from, share, ncclUint8, peer, comm, stream_), "ncclSend (probe)", comm);
      check_nccl(ncclRecv(to, share, ncclUint8, peer, comm, stream_), "ncclRecv (probe)", comm);
      at += share;
    }
  }
  /// Bytes exchange_all sends in all.
  std::size_t all_peers_bytes(int ranks) const {
    return bytes_ / static_cast<std::size_t>(ranks - 1) * static_cast<std::size_t>(ranks - 1);
  }
  void start() const { check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord"); }
  void stop() const { check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord"); }
  /// Seconds between start() and stop(), once the stream reached stop().
  double seconds() const {
    const device_scope on(device_);
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) / 1e3;
  }
  int device() const { return device_; }
  std::size_t bytes() const { return bytes_; }

 private:
  int device_;
  cudaStream_t stream_;
  std::size_t bytes_;
  void* a_ = nullptr;
  void* b_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

void check_probe_bytes(std::size_t bytes) {
  if (bytes == 0) throw error(status::invalid_argument, "probe_bytes must be positive, got 0");
}

}  // namespace

bandwidths measure_bandwidths(ncclComm_t comm, cudaStream_t stream, std::size_t probe_bytes) {
  check_probe_bytes(probe_bytes);
  if (comm == nullptr) throw error(status::invalid_argument, "comm is null");
  int ranks = 0, rank = 0, device = 0;
  check_nccl(ncclCommCount(comm, &ranks), "ncclCommCount", comm);
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm);
  check_nccl(ncclCommCuDevice(comm, &device), "ncclCommCuDevice", comm);
  const device_scope on(device);
  const probe p(device, stream, probe_bytes);
  double measured[3] = {0, 0, 0};  // copy, link, link_all_peers

  p.copy();
  p.start();
  for (int i = 0; i < timed_runs; ++i) p.copy();
  p.stop();
  measured[0] = 2.0 * timed_runs * static_cast<double>(probe_bytes) / p.seconds();

  const int peer = round_partner(rank, 1, ranks);
  for (int run = 0; run <= timed_runs && peer != rank; ++run) {
    if (run == 1) p.start();
    nccl_group exchange(comm);
    p.exchange(peer, comm);
    exchange.end({comm});
  }
  if (peer != rank) {
    p.stop();
    measured[1] = timed_runs * static_cast<double>(probe_bytes) / p.seconds();
  }
  for (int run = 0; run <= timed_runs && ranks > 1; ++run) {
    if (run == 1) p.start();
    nccl_group exchange(comm);
    p.exchange_all(rank, ranks, comm);
    exchange.end({comm});
  }
  if (ranks > 1) {
    p.stop();
    measured[2] = timed_runs * static_cast<double>(p.all_peers_bytes(ranks)) / p.seconds();
  }

  // The largest over the ranks (an idle rank of an odd count measured no link).
  double* on_device = nullptr;
  check_cuda(cudaMalloc(&on_device, sizeof measured), "cudaMalloc (bandwidth probe)");
  const std::unique_ptr<double, void (*)(double*)> owned(on_device, [](double* q) { cudaFree(q); });
  check_cuda(cudaMemcpyAsync(on_device, measured, sizeof measured, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (bandwidth probe)");
  check_nccl(ncclAllReduce(on_device, on_device, 3, ncclFloat64, ncclMax, comm, stream),
             "ncclAllReduce (bandwidth probe)", comm);
  check_cuda(cudaMemcpyAsync(measured, on_device, sizeof measured, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync (bandwidth probe)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return {measured[0], measured[1], measured[2]};
}

bandwidths measure_bandwidths(const device_group& group, std::size_t probe_bytes) {
  check_probe_bytes(probe_bytes);
  const int ranks = group.size();
  std::vector<std::unique_ptr<probe>> probes;
  for (int r = 0; r < ranks; ++r)
    probes.push_back(std::make_unique<probe>(group.device(r), group.stream(r), probe_bytes));
  bandwidths result;

  for (int r = 0; r < ranks; ++r) {
    const device_scope on(group.device(r));
    probes[r]->copy();
    probes[r]->start();
    for (int i = 0; i < timed_runs; ++i) probes[r]->copy();
    probes[r]->stop();
  }
  for (int r = 0; r < ranks; ++r)
    result.copy = std::max(
        result.copy, 2.0 * timed_runs * static_cast<double>(probe_bytes) / probes[r]->seconds());

  if (ranks > 1) {
    // timed_runs exchanges after a warm-up, bracketed by every rank's events; `enqueue(r)`
    // queues rank r's part of one and says whether it has one.
    const auto time_exchanges = [&](const auto& enqueue) {
      for (int run = 0; run <= timed_runs; ++run) {
        if (run == 1)
          for (int r = 0; r < ranks; ++r) {
            const device_scope on(group.device(r));
            probes[r]->start();
          }
        std::vector<ncclComm_t> comms;
        nccl_group exchange;
        for (int r = 0; r < ranks; ++r)
          if (enqueue(r)) comms.push_back(group.comm(r));
        exchange.end(comms);
      }
      for (int r = 0; r < ranks; ++r) {
        const device_scope on(group.device(r));
        probes[r]->stop();
      }
    };
    time_exchanges([&](int r) {
      const int peer = round_partner(r, 1, ranks);
      if (peer != r) probes[r]->exchange(peer, group.comm(r));
      return peer != r;
    });
    for (int r = 0; r < ranks; ++r)
      if (round_partner(r, 1, ranks) != r)
        result.link = std::max(
            result.link, timed_runs * static_cast<double>(probe_bytes) / probes[r]->seconds());
    time_exchanges([&](int r) {
      probes[r]->exchange_all(r, ranks, group.comm(r));
      return true;
    });
    for (int r = 0; r < ranks; ++r)
      result.link_all_peers =
          std::max(result.link_all_peers,
                   timed_runs * static_cast<double>(probes[r]->all_peers_bytes(ranks)) /
                       probes[r]->seconds());
  }
  return result;
}

}  // namespace xpose::dist
