// The GPU side of the layout conversions and of layout_buffer (layout_gpu.cu, built with CUDA
// only): device memory, copies, and the elementary tiled transpositions of src/cuda/inplace run
// as layout steps. No CUDA types here, so the backend-free callers compile without CUDA.
#pragma once

#include <cstddef>
#include <memory>

#include "plan/plan_data.hpp"

namespace xpose::detail::layout_gpu {

/// Device memory of `bytes` bytes (at least 1), freed when the last owner lets go.
std::shared_ptr<void> allocate(std::size_t bytes);

/// A device workspace for stage `s` with its table prepared (synchronously, once); `bytes`
/// receives its size.
std::shared_ptr<void> prepare_tiled(const stage& s, std::size_t& bytes);

/// Enqueues stage `s` on the bytes at `data` (device memory) on `stream` (a cudaStream_t) with a
/// workspace from prepare_tiled; no synchronization.
void launch_tiled(void* data, const stage& s, void* workspace, void* stream);

/// Enqueues a copy of `bytes` bytes on `stream`: host to device when to_device, else device to
/// host.
void copy_async(void* dst, const void* src, std::size_t bytes, bool to_device, void* stream);

}  // namespace xpose::detail::layout_gpu
