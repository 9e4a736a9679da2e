// Turns a failed CUDA runtime call into xpose::error{device_error} naming the call.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "xpose/error.hpp"

namespace xpose::detail::cuda {

inline void check_cuda(cudaError_t result, const char* what) {
  if (result != cudaSuccess)
    throw error(status::device_error, std::string(what) + " failed: " + cudaGetErrorString(result));
}

/// After a launch: reports a bad configuration without synchronizing the stream.
inline void check_launch(const char* kernel) {
  check_cuda(cudaGetLastError(), kernel);
}

}  // namespace xpose::detail::cuda
