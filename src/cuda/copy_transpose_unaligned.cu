// copy_unaligned: out-of-place transposition of 1-, 2-, 4- and 8-byte elements whose rows do not
// start on 16 (source) or 32 (destination) bytes (see copy_transpose_unaligned_kernel.cuh), with
// the policy of the element size, or of copy_unaligned_large for large matrices
// (copy_transpose_policy.hpp).
#include <string>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_unaligned_kernel.cuh"

namespace xpose::detail::cuda {

namespace {

template <int E>
void launch_for(const copy_args& a, bool large, cudaStream_t stream) {
  if (large) return launch_unaligned_with<E, typename copy_unaligned_large<E>::policy>(a, stream);
  launch_unaligned_with<E, copy_unaligned_policy<E>>(a, stream);
}

}  // namespace

void launch_copy_unaligned(const copy_args& a, int word_bytes, cudaStream_t stream) {
  launch_copy_unaligned_tiles(
      a, word_bytes, takes_large_tiles(a.rows, a.cols, word_bytes, copy_unaligned_large_bytes),
      stream);
}

void launch_copy_unaligned_tiles(const copy_args& a, int word_bytes, bool large,
                                 cudaStream_t stream) {
  switch (word_bytes) {
    case 1:
      return launch_for<1>(a, large, stream);
    case 2:
      return launch_for<2>(a, large, stream);
    case 4:
      return launch_for<4>(a, large, stream);
    case 8:
      return launch_for<8>(a, large, stream);
    default:
      throw error(status::internal_error, "copy_unaligned: word size " +
                                              std::to_string(word_bytes) + " is not 1, 2, 4 or 8");
  }
}

}  // namespace xpose::detail::cuda
