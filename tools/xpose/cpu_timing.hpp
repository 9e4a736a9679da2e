// Host timing for `xpose bench`: a warm-up then N timed runs, each prepared (re-filled or
// poisoned) and checked outside the timed region; the median and 2 x bytes / time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "bench_types.hpp"

namespace xpose_cli {

/// Median of `times_ms` (not empty) and 2 x bytes / median, in GB/s (10^9 bytes).
rate rate_from_times(std::vector<double> times_ms, std::size_t bytes);

struct timed_runs {
  std::vector<double> times_ms;  ///< the timed runs (the warm-up is not included)
  std::string failure;           ///< first wrong result or exception; "" if all runs were right
};

/// Evicts the matrices from the CPU caches: updates every cache line of a buffer twice the size
/// of the last-level cache (at least 64 MiB) with `threads` threads, so every timed run starts
/// with its data in DRAM, as a memory-speed measurement needs.
void evict_host_caches(int threads);

/// One warm-up and settings.reps timed runs of `run`; `prepare` runs before each run, then the
/// caches are evicted (if settings.evict_caches), and `check` runs after it, all untimed. Stops
/// at the first failure (an exception or a non-empty `check` message).
timed_runs time_host_runs(const bench_settings& settings, const std::function<void()>& prepare,
                          const std::function<void()>& run,
                          const std::function<std::string()>& check);

/// The CPU baseline: a memcpy of `bytes` split over `threads` threads, timed the same way.
rate time_host_memcpy(std::size_t bytes, const bench_settings& settings);

}  // namespace xpose_cli
