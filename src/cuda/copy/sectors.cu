// copy_sectors: out-of-place transposition of 16-byte elements whose destination rows do not
// start on 32 bytes (see copy/sectors_kernel.cuh), with the policy of tuning/sectors.hpp
// (copy_sectors_policy<device_class::h200> on the H200's memory).
#include <string>

#include "cuda/copy/launchers.hpp"
#include "cuda/copy/sectors_kernel.cuh"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

void launch_copy_sectors(const copy_args& a, int word_bytes, cudaStream_t stream, int regions,
                         device_class memory) {
  switch (word_bytes) {
    case 16:
      if (memory == device_class::h200)
        return launch_sectors_with<16, copy_sectors_policy<device_class::h200>>(a, stream, regions);
      return launch_sectors_with<16, copy_sectors_policy<device_class::other>>(a, stream, regions);
    default:
      throw error(status::internal_error,
                  "copy_sectors: word size " + std::to_string(word_bytes) + " is not 16");
  }
}

}  // namespace xpose::detail::cuda
