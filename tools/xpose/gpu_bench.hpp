// Times one GPU case through the public API on a CUDA stream, checks every run against the
// host reference (copied back), and measures the device-to-device copy baseline and the cuBLAS
// peer beside it. Everything but usable_cuda_devices() exists only in CUDA builds.
#pragma once

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// CUDA devices this process can use: 0 when built without CUDA or when none is present.
int usable_cuda_devices();

#ifdef XPOSE_HAVE_CUDA

/// The GPU row for `c`; errors in row.failure, a case too large for the device in row.skipped
/// (its host reference is then never computed).
bench_row run_gpu_case(const bench_case& c, reference_cache& references,
                       const bench_settings& settings);

/// Name, memory and compute capability of the current device.
device_info describe_gpu();

#endif

}  // namespace xpose_cli
