// The GPU side of the layout conversions and of layout_buffer (layout_gpu.cu, built with CUDA
// only): device memory, copies, and the elementary tiled transpositions of src/cuda/inplace run
// as layout steps. No CUDA types here, so the backend-free callers compile without CUDA.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "plan/plan_data.hpp"
#include "xpose/layout.hpp"

namespace xpose::detail::layout_gpu {

/// Device memory of `bytes` bytes (at least 1), freed when the last owner lets go.
std::shared_ptr<void> allocate(std::size_t bytes);

/// Why the tiled transposition's path for `variant` cannot run stage `s` ("" when it can):
/// barrier_sync needs an instance within the on-chip path's shared memory, chains and pipt
/// instances of at most chain_max_positions super-elements, through_scratch instances within its
/// scratch.
std::string tiled_refusal(const stage& s, layout_variant variant);

/// The path `variant` runs `s` on, by the tiled transposition's name ("on_chip", "chains",
/// "through_scratch", "pttwac", "cycle_following", "whole_cycles"; automatic: the one it chooses;
/// pttwac: "pttwac" with its flags in shared memory, "cycle_following" with them in global memory;
/// pipt: "whole_cycles").
const char* tiled_path_name(const stage& s, layout_variant variant);

/// A device workspace for stage `s` on `variant`'s path with its table prepared (synchronously,
/// once); `bytes` receives its size.
std::shared_ptr<void> prepare_tiled(const stage& s, layout_variant variant, std::size_t& bytes);

/// Enqueues stage `s` on `variant`'s path on the bytes at `data` (device memory) on `stream` (a
/// cudaStream_t) with a workspace from prepare_tiled for the same variant; no synchronization.
void launch_tiled(void* data, const stage& s, layout_variant variant, void* workspace,
                  void* stream);

/// A remainder step of the skinny route (stage_kind::skinny_remainder_*): the block it holds for
/// the next remainder step, the scratch it overwrites, and the launch with both (device memory:
/// held on 16 bytes, scratch on 16 bytes) on `stream`, no synchronization.
std::size_t remainder_held_bytes(const stage& s);
std::size_t remainder_scratch_bytes(const stage& s);
void launch_remainder(void* data, const stage& s, void* held, void* scratch, void* stream);

/// Enqueues a copy of `bytes` bytes on `stream`: host to device when to_device, else device to
/// host.
void copy_async(void* dst, const void* src, std::size_t bytes, bool to_device, void* stream);

}  // namespace xpose::detail::layout_gpu
