// Times one CPU case through the public API (plan once, execute many times), checks every run
// against the reference, and measures the memcpy baseline and the OpenBLAS peer beside it.
#pragma once

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// The CPU row for `c`: planned first, then the reference of its shape taken from `references`
/// (computed only for shapes the planner accepts). Planning or execution errors are reported in
/// row.failure; a case the host memory cannot hold is reported in row.skipped.
bench_row run_cpu_case(const bench_case& c, reference_cache& references,
                       const bench_settings& settings);

/// The CPU's model name (from /proc/cpuinfo) and the thread count.
device_info describe_cpu(const bench_settings& settings);

}  // namespace xpose_cli
