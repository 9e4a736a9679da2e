// GPU peer measured in the same run (built with CUDA only): cuBLAS cublasSgeam / cublasDgeam
// with op(A) = A^T, alpha = 1, beta = 0 (out of place, fp32 / fp64).
#pragma once

#ifdef XPOSE_HAVE_CUDA

#include <cuda_runtime.h>

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// Times and verifies cuBLAS geam on `c` (input already on the device in `d_input`, result
/// written to `d_output`, checked through `readback`); an empty name when `c` has no peer (in
/// place, other element sizes, batches).
peer_result run_gpu_peer(const bench_case& c, const reference_pair& reference,
                         const bench_settings& settings, cudaStream_t stream,
                         const std::byte* d_input, std::byte* d_output, std::byte* readback);

}  // namespace xpose_cli

#endif
