// GPU timing for `xpose bench` (built with CUDA only): device buffers, runs timed with CUDA
// events on one stream (each prepared and checked outside the events), and the
// device-to-device cudaMemcpyAsync baseline.
#pragma once

#ifdef XPOSE_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "bench_types.hpp"
#include "cpu_timing.hpp"

namespace xpose_cli {

/// Throws std::runtime_error naming `what` if `result` is not cudaSuccess.
void check_cuda(cudaError_t result, const char* what);

/// Device memory owned by this object (cudaMalloc / cudaFree).
class device_buffer {
 public:
  explicit device_buffer(std::size_t bytes);
  std::byte* data() const noexcept { return data_.get(); }

 private:
  struct cuda_free {
    void operator()(std::byte* p) const noexcept { cudaFree(p); }
  };
  std::unique_ptr<std::byte, cuda_free> data_;
};

/// Evicts the matrices from the GPU's L2: a memset of a buffer twice the L2 size on `stream`.
void evict_device_l2(cudaStream_t stream);

/// One warm-up and settings.reps timed runs of `run` on `stream`, timed with CUDA events
/// recorded around it; `prepare` (enqueued on the stream), the L2 eviction (if
/// settings.evict_caches) and `check` are outside the events.
timed_runs time_device_runs(cudaStream_t stream, const bench_settings& settings,
                            const std::function<void()>& prepare, const std::function<void()>& run,
                            const std::function<std::string()>& check);

/// The GPU baseline: cudaMemcpyAsync device to device of `bytes` from src to dst on `stream`.
rate time_device_memcpy(cudaStream_t stream, std::byte* dst, const std::byte* src,
                        std::size_t bytes, const bench_settings& settings);

}  // namespace xpose_cli

#endif
