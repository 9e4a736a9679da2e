// copy_small_batch: out-of-place transposition of dense batches of small matrices (1 to 64 rows
// and columns, elements of 1 to 16 bytes), several whole matrices per block
// (copy/small_batch_kernel.cuh). Sizes and strides in copy_args are in elements of `elem_bytes`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

constexpr std::int64_t small_batch_most_side = 64;
constexpr std::size_t small_batch_most_element_bytes = 16;

/// Whether copy_small_batch takes `a`: two or more matrices of 1 to small_batch_most_side rows
/// and columns, elements of 1 to 16 bytes, a dense batch (lda == cols, ldb == rows, both strides
/// rows * cols). Any alignment of the pointers.
bool small_batch_takes(const copy_args& a, std::size_t elem_bytes);

/// How launch_copy_small_batch splits `a` (which small_batch_takes) for its kernel: groups of
/// `group` matrices (the last one may have fewer), `buffers` source buffers of `buffer_bytes`,
/// for elements of sizes other than 1, 2, 4, 8 and 16 a destination image of `image_bytes` that
/// takes `piece_units` units at a time, `shared_bytes` of shared memory per block in all. One
/// row or one column is a plain copy (`copy`: no kernel). Groups take the policy's bytes
/// (tuning/small_batch.hpp), in a whole number of 16-byte chunks where that stays within twice
/// them; given the blocks `resident` on the device (> 0), fewer matrices (down to the policy's
/// least bytes, still whole chunks) where the groups then make whole rounds of the resident
/// blocks.
struct small_batch_layout {
  bool copy = false;
  std::int64_t group = 0, groups = 0;
  int group_bytes = 0, buffer_bytes = 0, buffers = 0, piece_units = 0, image_bytes = 0;
  int shared_bytes = 0;
};
small_batch_layout small_batch_layout_for(const copy_args& a, std::size_t elem_bytes,
                                          std::int64_t resident = 0);
/// The layout launch_copy_small_batch runs `a` in on the current device.
small_batch_layout small_batch_launch_layout(const copy_args& a, std::size_t elem_bytes);

/// Enqueues the transposition of `a` on `stream` without synchronizing; an internal error for
/// shapes small_batch_takes refuses.
void launch_copy_small_batch(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream);

}  // namespace xpose::detail::cuda
