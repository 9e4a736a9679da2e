// Turns a failed CUDA runtime call into xpose::error{device_error} naming the call.
#pragma once

#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <utility>

#include "xpose/error.hpp"

namespace xpose::detail::cuda {

inline void check_cuda(cudaError_t result, const char* what) {
  if (result != cudaSuccess)
    throw error(status::device_error, std::string(what) + " failed: " + cudaGetErrorString(result));
}

/// Lets `kernel` take `bytes` of dynamic shared memory per block: above the default 48 KiB it
/// opts in, or throws if the device allows less. The kernel's limit only ever rises (under a
/// lock), so a launch on another host thread that needs less never lowers it under this one.
template <class Kernel>
void allow_dynamic_shared(Kernel kernel, int bytes, const char* launch_name) {
  if (bytes <= 48 * 1024) return;
  int device = 0, allowed = 0;
  check_cuda(cudaGetDevice(&device), launch_name);
  check_cuda(cudaDeviceGetAttribute(&allowed, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
             launch_name);
  if (bytes > allowed)
    throw error(status::device_error,
                std::string(launch_name) + ": a block needs " + std::to_string(bytes) +
                    " bytes of shared memory, the device allows " + std::to_string(allowed) +
                    " (the policies are tuned for sm_90)");
  static std::mutex raising;
  const std::lock_guard<std::mutex> lock(raising);
  cudaFuncAttributes now{};
  check_cuda(cudaFuncGetAttributes(&now, kernel), launch_name);
  if (now.maxDynamicSharedSizeBytes < bytes)
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
               launch_name);
}

/// After a launch: reports a bad configuration without synchronizing the stream.
inline void check_launch(const char* kernel) {
  check_cuda(cudaGetLastError(), kernel);
}

/// Launches `kernel` on `grid` with `threads` per block and `shared` bytes of dynamic shared
/// memory on `stream`: allow_dynamic_shared first, check_launch after (host-side calls, no
/// synchronization); `name` names the launch in errors.
template <class... Params, class... Args>
void launch_with_shared(void (*kernel)(Params...), dim3 grid, int threads, int shared,
                        cudaStream_t stream, const char* name, Args&&... args) {
  allow_dynamic_shared(kernel, shared, name);
  kernel<<<grid, threads, shared, stream>>>(std::forward<Args>(args)...);
  check_launch(name);
}

}  // namespace xpose::detail::cuda
