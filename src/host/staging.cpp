#include "host/staging.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "xpose/error.hpp"

namespace xpose::detail::host {

namespace {

constexpr std::size_t min_chunk = std::size_t{64} << 10;
constexpr std::size_t chunk_alignment = std::size_t{4} << 10;

void check_cuda(cudaError_t result, const std::string& what) {
  if (result != cudaSuccess)
    throw error(result == cudaErrorMemoryAllocation ? status::out_of_memory : status::device_error,
                what + " failed: " + cudaGetErrorString(result));
}

}  // namespace

staging_geometry choose_staging(std::uint64_t matrix_bytes, int threads, std::size_t chunk_bytes) {
  staging_geometry g;
  g.threads = std::max(threads, 1);
  const std::uint64_t largest = chunk_bytes > 0 ? chunk_bytes : default_staging_chunk;
  // Two chunks per thread covering the matrix at most, in whole pages.
  const std::uint64_t fits = matrix_bytes / (2 * static_cast<std::uint64_t>(g.threads));
  std::uint64_t chunk = std::clamp<std::uint64_t>(fits, min_chunk, std::max(largest, min_chunk));
  chunk = (chunk + chunk_alignment - 1) / chunk_alignment * chunk_alignment;
  g.chunk_bytes = static_cast<std::size_t>(chunk);
  return g;
}

staging_pipeline::staging_pipeline(const staging_geometry& geometry) : geometry_(geometry) {
  check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
  const std::size_t count = 2 * static_cast<std::size_t>(geometry_.threads);
  slots_.resize(count);
  next_.assign(static_cast<std::size_t>(geometry_.threads), 0);
  try {
    check_cuda(cudaMallocHost(&pinned_, static_cast<std::size_t>(geometry_.pinned_bytes())),
               "cudaMallocHost (" + std::to_string(geometry_.pinned_bytes()) +
                   " bytes of staging chunks)");
    for (std::size_t i = 0; i < count; ++i) {
      slots_[i].pinned = static_cast<char*>(pinned_) + i * geometry_.chunk_bytes;
      // Blocking sync: a thread waiting for its chunk sleeps rather than spin on a core that
      // another thread's memcpy needs.
      check_cuda(
          cudaEventCreateWithFlags(&slots_[i].done, cudaEventDisableTiming | cudaEventBlockingSync),
          "cudaEventCreate (staging)");
    }
  } catch (...) {
    for (slot& s : slots_)
      if (s.done != nullptr) cudaEventDestroy(s.done);
    if (pinned_ != nullptr) cudaFreeHost(pinned_);
    throw;
  }
}

staging_pipeline::~staging_pipeline() {
  for (slot& s : slots_) {
    if (s.busy) cudaEventSynchronize(s.done);
    cudaEventDestroy(s.done);
  }
  cudaFreeHost(pinned_);
}

cudaError_t staging_pipeline::settle(slot& s) {
  if (!s.busy) return cudaSuccess;
  const cudaError_t result = cudaEventSynchronize(s.done);
  s.busy = false;
  if (result == cudaSuccess && s.unpack_to != nullptr)
    std::memcpy(s.unpack_to, s.pinned, s.unpack_bytes);
  s.unpack_to = nullptr;
  return result;
}

staging_pipeline::slot& staging_pipeline::take(int t, cudaError_t& result) {
  int& next = next_[static_cast<std::size_t>(t)];
  slot& s = slots_[static_cast<std::size_t>(2 * t + next)];
  next = 1 - next;
  const cudaError_t settled = settle(s);
  if (result == cudaSuccess) result = settled;
  return s;
}

void staging_pipeline::settle_overlapping(const char* host, std::uint64_t bytes) {
  for (const slot& s : slots_)
    if (s.unpack_to != nullptr && s.unpack_to < host + bytes && host < s.unpack_to + s.unpack_bytes)
      return finish();
}

/// Runs work(t, chunk index, result) for the chunks of a `bytes`-long copy, dealt in turn to the
/// threads of one parallel region; throws the first CUDA error once the region is done.
template <class Work>
void staging_pipeline::on_threads(std::uint64_t bytes, const char* what, Work work) {
  const std::uint64_t chunk = geometry_.chunk_bytes;
  const std::int64_t chunks = static_cast<std::int64_t>((bytes + chunk - 1) / chunk);
  if (chunks == 0) return;
  const int threads = static_cast<int>(std::min<std::int64_t>(geometry_.threads, chunks));
  std::atomic<int> failure{cudaSuccess};
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int team = omp_get_num_threads();
    cudaError_t result = cudaSetDevice(device_);  // the plan's device, on every thread
    for (std::int64_t c = t; c < chunks && result == cudaSuccess; c += team) {
      if (failure.load(std::memory_order_relaxed) != cudaSuccess) break;
      work(t, c, result);
    }
    if (result != cudaSuccess) {
      int expected = cudaSuccess;
      failure.compare_exchange_strong(expected, result);
    }
  }
  check_cuda(static_cast<cudaError_t>(failure.load()), what);
}

void staging_pipeline::to_device(char* dev, const char* host, std::uint64_t bytes,
                                 cudaStream_t stream) {
  settle_overlapping(host, bytes);
  const std::uint64_t chunk = geometry_.chunk_bytes;
  on_threads(bytes, "staged copy to the GPU", [&](int t, std::int64_t c, cudaError_t& result) {
    slot& s = take(t, result);
    if (result != cudaSuccess) return;
    const std::uint64_t at = static_cast<std::uint64_t>(c) * chunk;
    const std::size_t n = static_cast<std::size_t>(std::min(chunk, bytes - at));
    std::memcpy(s.pinned, host + at, n);
    result = cudaMemcpyAsync(dev + at, s.pinned, n, cudaMemcpyHostToDevice, stream);
    if (result == cudaSuccess) result = cudaEventRecord(s.done, stream);
    s.busy = result == cudaSuccess;
  });
}

void staging_pipeline::to_host(char* host, const char* dev, std::uint64_t bytes,
                               cudaStream_t stream) {
  settle_overlapping(host, bytes);
  const std::uint64_t chunk = geometry_.chunk_bytes;
  on_threads(bytes, "staged copy from the GPU", [&](int t, std::int64_t c, cudaError_t& result) {
    slot& s = take(t, result);
    if (result != cudaSuccess) return;
    const std::uint64_t at = static_cast<std::uint64_t>(c) * chunk;
    const std::size_t n = static_cast<std::size_t>(std::min(chunk, bytes - at));
    result = cudaMemcpyAsync(s.pinned, dev + at, n, cudaMemcpyDeviceToHost, stream);
    if (result == cudaSuccess) result = cudaEventRecord(s.done, stream);
    s.busy = result == cudaSuccess;
    if (s.busy) {
      s.unpack_to = host + at;
      s.unpack_bytes = n;
    }
  });
}

void staging_pipeline::finish() {
  const std::int64_t count = static_cast<std::int64_t>(slots_.size());
  std::atomic<int> failure{cudaSuccess};
#pragma omp parallel for num_threads(geometry_.threads) schedule(static, 1)
  for (std::int64_t i = 0; i < count; ++i) {
    cudaError_t result = cudaSetDevice(device_);
    if (result == cudaSuccess) result = settle(slots_[static_cast<std::size_t>(i)]);
    if (result != cudaSuccess) {
      int expected = cudaSuccess;
      failure.compare_exchange_strong(expected, result);
    }
  }
  check_cuda(static_cast<cudaError_t>(failure.load()), "staged copy");
}

}  // namespace xpose::detail::host
