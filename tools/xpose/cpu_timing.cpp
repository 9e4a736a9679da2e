#include "cpu_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>

#include <unistd.h>

#include "host_data.hpp"

namespace xpose_cli {

rate rate_from_times(std::vector<double> times_ms, std::size_t bytes) {
  std::sort(times_ms.begin(), times_ms.end());
  const std::size_t n = times_ms.size();
  const double median =
      n % 2 == 1 ? times_ms[n / 2] : 0.5 * (times_ms[n / 2 - 1] + times_ms[n / 2]);
  return {median, median > 0 ? 2.0 * static_cast<double>(bytes) / (median * 1e6) : 0.0};
}

void evict_host_caches(int threads) {
  static const std::size_t words = [] {
    const long last_level = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const std::size_t bytes = std::max<std::size_t>(
        std::size_t{64} << 20, 2 * static_cast<std::size_t>(std::max(0L, last_level)));
    return bytes / sizeof(std::uint64_t);
  }();
  static std::vector<std::uint64_t> lines(words, 1);
  constexpr std::size_t words_per_line = 64 / sizeof(std::uint64_t);
  std::uint64_t* const data = lines.data();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t w = 0; w < words; w += words_per_line) data[w] += 1;
}

timed_runs time_host_runs(const bench_settings& settings, const std::function<void()>& prepare,
                          const std::function<void()>& run,
                          const std::function<std::string()>& check) {
  timed_runs result;
  try {
    for (int r = 0; r <= settings.reps; ++r) {  // r == 0 is the warm-up
      prepare();
      if (settings.evict_caches) evict_host_caches(settings.threads);
      const auto start = std::chrono::steady_clock::now();
      run();
      const auto stop = std::chrono::steady_clock::now();
      result.failure = check();
      if (!result.failure.empty()) return result;
      if (r > 0)
        result.times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
  } catch (const std::exception& e) {
    result.failure = e.what();
  }
  return result;
}

rate time_host_memcpy(std::size_t bytes, const bench_settings& settings) {
  byte_buffer src(bytes), dst(bytes);
  poison(src.data(), bytes, settings.threads);  // the contents do not change a memcpy's speed
  const timed_runs runs = time_host_runs(
      settings, [&] { poison(dst.data(), bytes, settings.threads); },
      [&] { parallel_memcpy(dst.data(), src.data(), bytes, settings.threads); },
      [] { return std::string(); });
  return rate_from_times(runs.times_ms, bytes);
}

}  // namespace xpose_cli
