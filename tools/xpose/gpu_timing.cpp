#ifdef XPOSE_HAVE_CUDA

#include "gpu_timing.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <vector>

namespace xpose_cli {

namespace {

/// A pair of CUDA events, destroyed with the object.
class event_pair {
 public:
  event_pair() {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~event_pair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

void check_cuda(cudaError_t result, const char* what) {
  if (result != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(result));
}

device_buffer::device_buffer(std::size_t bytes) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
  data_.reset(static_cast<std::byte*>(p));
}

void evict_device_l2(cudaStream_t stream) {
  static const std::size_t bytes = [] {
    int device = 0, l2_bytes = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device),
               "cudaDeviceGetAttribute");
    return std::max<std::size_t>(std::size_t{64} << 20, 2 * static_cast<std::size_t>(l2_bytes));
  }();
  static const device_buffer scratch(bytes);
  static int round = 0;
  check_cuda(cudaMemsetAsync(scratch.data(), ++round & 0xff, bytes, stream), "cudaMemsetAsync");
}

timed_runs time_device_runs(cudaStream_t stream, const bench_settings& settings,
                            const std::function<void()>& prepare, const std::function<void()>& run,
                            const std::function<std::string()>& check) {
  timed_runs result;
  try {
    const event_pair events;
    for (int r = 0; r <= settings.reps; ++r) {  // r == 0 is the warm-up
      prepare();
      if (settings.evict_caches) evict_device_l2(stream);
      check_cuda(cudaEventRecord(events.start(), stream), "cudaEventRecord");
      run();
      check_cuda(cudaEventRecord(events.stop(), stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(events.stop()), "the timed run");
      check_cuda(cudaGetLastError(), "the timed run");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, events.start(), events.stop()), "cudaEventElapsedTime");
      result.failure = check();
      if (!result.failure.empty()) return result;
      if (r > 0) result.times_ms.push_back(ms);
    }
  } catch (const std::exception& e) {
    result.failure = e.what();
  }
  return result;
}

rate time_device_memcpy(cudaStream_t stream, std::byte* dst, const std::byte* src,
                        std::size_t bytes, const bench_settings& settings) {
  const timed_runs runs = time_device_runs(
      stream, settings, [] {},
      [&] {
        check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync");
      },
      [] { return std::string(); });
  if (!runs.failure.empty()) throw std::runtime_error(runs.failure);
  return rate_from_times(runs.times_ms, bytes);
}

}  // namespace xpose_cli

#endif
