// GPU peer measured in the same run (built with CUDA only): cuBLAS cublasSgeam / cublasDgeam
// with op(A) = A^T, alpha = 1, beta = 0 (fp32 / fp64); for in-place cases geam into a second
// buffer and a copy back, what users do without an in-place transposition.
#pragma once

#ifdef XPOSE_HAVE_CUDA

#include <cuda_runtime.h>

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// Times and verifies cuBLAS geam on `c` (input already on the device in `d_input`, result
/// written to `d_output`, checked through `readback`); in place, geam from `d_output` (reset to
/// the input) into a second buffer allocated here, then a copy back into `d_output`. An empty
/// name when `c` has no peer (element sizes other than 4 and 8, batches, no room for the second
/// buffer).
peer_result run_gpu_peer(const bench_case& c, const reference_pair& reference,
                         const bench_settings& settings, cudaStream_t stream,
                         const std::byte* d_input, std::byte* d_output, std::byte* readback);

}  // namespace xpose_cli

#endif
