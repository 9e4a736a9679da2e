// copy_sectors: out-of-place transposition of 8- and 16-byte elements whose rows do not start on
// 16 (source) or 32 (destination) bytes (see copy_transpose_sectors_kernel.cuh), with the policy
// of the element size (copy_transpose_policy.hpp).
#include <string>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_sectors_kernel.cuh"

namespace xpose::detail::cuda {

void launch_copy_sectors(const copy_args& a, int word_bytes, cudaStream_t stream) {
  switch (word_bytes) {
    case 8:
      return launch_sectors_with<8, copy_sectors_policy<8>>(a, stream);
    case 16:
      return launch_sectors_with<16, copy_sectors_policy<16>>(a, stream);
    default:
      throw error(status::internal_error,
                  "copy_sectors: word size " + std::to_string(word_bytes) + " is not 8 or 16");
  }
}

}  // namespace xpose::detail::cuda
