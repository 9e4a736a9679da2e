// The layout conversions of `xpose bench` (bench_case::layout): each case planned through the
// public API (xpose::plan_layout_conversion), its pristine input restored before every timed run
// and the result checked after it against the AoS the data came from (layout_data.hpp), beside a
// copy of the same bytes (memcpy on the CPU, a device-to-device cudaMemcpyAsync on the GPU).
#pragma once

#include "bench_types.hpp"

namespace xpose_cli {

/// The CPU row for layout case `c`; errors in row.failure, a case the host cannot hold in
/// row.skipped.
bench_row run_cpu_layout_case(const bench_case& c, const bench_settings& settings);

#ifdef XPOSE_HAVE_CUDA
/// The GPU row for layout case `c`: the data made, arranged and checked on the device. A variant
/// the conversion cannot take (status::unsupported at planning) or an array the device cannot
/// hold three times is reported in row.skipped.
bench_row run_gpu_layout_case(const bench_case& c, const bench_settings& settings);
#endif

/// The conversion's steps by their labels (layout_conversion::step_label), joined by " + ";
/// "none" for a conversion without steps.
std::string layout_steps_label(const xpose::layout_conversion& conversion);

}  // namespace xpose_cli
