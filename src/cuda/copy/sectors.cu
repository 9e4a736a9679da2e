// copy_sectors: out-of-place transposition of 16-byte elements whose destination rows do not
// start on 32 bytes (see copy/sectors_kernel.cuh), with the policy of
// tuning/copy_policies.hpp (copy_sectors_h200_policy on the H200's memory).
#include <string>

#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"
#include "cuda/copy/sectors_kernel.cuh"

namespace xpose::detail::cuda {

void launch_copy_sectors(const copy_args& a, int word_bytes, cudaStream_t stream, int regions,
                         device_memory memory) {
  switch (word_bytes) {
    case 16:
      if (memory == device_memory::h200)
        return launch_sectors_with<16, copy_sectors_h200_policy>(a, stream, regions);
      return launch_sectors_with<16, copy_sectors_policy<16>>(a, stream, regions);
    default:
      throw error(status::internal_error,
                  "copy_sectors: word size " + std::to_string(word_bytes) + " is not 16");
  }
}

}  // namespace xpose::detail::cuda
