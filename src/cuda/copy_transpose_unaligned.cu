// copy_unaligned: out-of-place transposition of 1-, 2-, 4- and 8-byte elements whose rows do not
// start on 16 (source) or 32 (destination) bytes (see copy_transpose_unaligned_kernel.cuh), with
// the policy of the element size (copy_transpose_policy.hpp).
#include <string>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_unaligned_kernel.cuh"

namespace xpose::detail::cuda {

void launch_copy_unaligned(const copy_args& a, int word_bytes, cudaStream_t stream) {
  switch (word_bytes) {
    case 1:
      return launch_unaligned_with<1, copy_unaligned_policy<1>>(a, stream);
    case 2:
      return launch_unaligned_with<2, copy_unaligned_policy<2>>(a, stream);
    case 4:
      return launch_unaligned_with<4, copy_unaligned_policy<4>>(a, stream);
    case 8:
      return launch_unaligned_with<8, copy_unaligned_policy<8>>(a, stream);
    default:
      throw error(status::internal_error, "copy_unaligned: word size " +
                                              std::to_string(word_bytes) + " is not 1, 2, 4 or 8");
  }
}

}  // namespace xpose::detail::cuda
