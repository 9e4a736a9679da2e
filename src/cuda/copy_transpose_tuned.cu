// copy_tuned: out-of-place transposition tuned for Hopper (seed slides 001, "more work per
// thread", with 16-byte loads and stores and a swizzled shared-memory tile; see
// shared_tile_transpose.cuh and copy_transpose_tuned_kernel.cuh). The launcher picks the
// policy of the element size (copy_transpose_policy.hpp) at run time. Assumes element-aligned
// pointers; rows not 16-byte aligned take the element-access path of the tile pieces.
#include <cstdint>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_tuned_kernel.cuh"
#include "cuda/cuda_check.hpp"

namespace xpose::detail::cuda {

bool rows_aligned_16(const void* base, std::int64_t ld, std::int64_t stride, std::int64_t batch,
                     int e) {
  return (reinterpret_cast<std::uintptr_t>(base) & 15) == 0 && (ld * e) % 16 == 0 &&
         (batch == 1 || (stride * e) % 16 == 0);
}

void launch_copy_tuned(const copy_args& a, int word_bytes, cudaStream_t stream) {
  switch (word_bytes) {
    case 1:
      return launch_tuned_with<1, copy_tuned_policy<1>>(a, stream);
    case 2:
      return launch_tuned_with<2, copy_tuned_policy<2>>(a, stream);
    case 4:
      return launch_tuned_with<4, copy_tuned_policy<4>>(a, stream);
    case 8:
      return launch_tuned_with<8, copy_tuned_policy<8>>(a, stream);
    case 16:
      return launch_tuned_with<16, copy_tuned_policy<16>>(a, stream);
    default:
      throw error(status::internal_error, "copy_tuned: word size " + std::to_string(word_bytes) +
                                              " is not 1, 2, 4, 8 or 16");
  }
}

}  // namespace xpose::detail::cuda
