// Times one CPU case through the public API (plan once, execute many times), checks every run
// against the reference, and measures the memcpy baseline and the OpenBLAS peer beside it.
#pragma once

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// The CPU row for `c`; planning or execution errors are reported in row.failure.
bench_row run_cpu_case(const bench_case& c, const reference_pair& reference,
                       const bench_settings& settings);

/// The CPU's model name (from /proc/cpuinfo) and the thread count.
device_info describe_cpu(const bench_settings& settings);

}  // namespace xpose_cli
