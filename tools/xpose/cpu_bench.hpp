// Times one CPU case through the public API (plan once, execute many times), checks every run
// against the reference, and measures the memcpy baseline and the OpenBLAS peer beside it; the
// stages of in-place plans are timed alone too. For tuning, XPOSE_CPU_COPY_POLICIES="P1;P2;..."
// (copy policies, src/cpu/copy_policy.hpp: e.g. "src=512 dst=1024 down;nta") times each policy
// on every out-of-place case as one line under it, in place of the peer.
#pragma once

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// The CPU row for `c`: planned first, then the reference of its shape taken from `references`
/// (computed only for shapes the planner accepts). Planning or execution errors are reported in
/// row.failure; a case the host memory cannot hold is reported in row.skipped.
bench_row run_cpu_case(const bench_case& c, reference_cache& references,
                       const bench_settings& settings);

/// The CPU's model name (from /proc/cpuinfo), the thread count, the memcpy bandwidth at that
/// count (over max(256 MiB, twice the last-level cache); 16 MiB without cache eviction) and the
/// OpenMP binding.
device_info describe_cpu(const bench_settings& settings);

}  // namespace xpose_cli
