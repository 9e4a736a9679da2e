#include "host/bandwidths.hpp"

#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <unistd.h>

namespace xpose::detail::host {

namespace {

/// Large enough to reach the links' steady rates, small enough to measure in about 0.1 s.
constexpr std::size_t probe_bytes = std::size_t{64} << 20;
constexpr int repeats = 3;

/// The CPU probe copies well beyond the last-level cache (a 64 MiB copy within a large L3 read
/// 186 GB/s on the H200 host, whose DRAM copy is 110-160), on the threads the CPU backend uses,
/// and takes the median of cpu_repeats runs, which one preempted thread does not move.
constexpr std::size_t cpu_probe_min_bytes = std::size_t{256} << 20;
constexpr std::size_t cpu_probe_max_bytes = std::size_t{1} << 30;
constexpr int cpu_repeats = 7;

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// The fastest of `repeats` runs of `work` (after one warm-up), in seconds.
template <class Work>
double fastest(Work work) {
  work();
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = clock_type::now();
    work();
    const double s = seconds_since(start);
    if (r == 0 || s < best) best = s;
  }
  return best;
}

std::size_t cpu_probe_bytes() {
  long l3 = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  const std::size_t beyond = l3 > 0 ? 4 * static_cast<std::size_t>(l3) : 0;
  return std::clamp(beyond, cpu_probe_min_bytes, cpu_probe_max_bytes);
}

/// 2 x bytes / s of memcpy on `threads` threads, each copying its own contiguous part, the
/// buffers first touched by the same threads (as a matrix the CPU backend wrote would be).
double cpu_copy_rate(int threads, std::size_t bytes) {
  std::unique_ptr<char[]> a(new char[bytes]), b(new char[bytes]);
  const auto each_part = [&](auto work) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const std::size_t chunk = bytes / threads;
      const std::size_t begin = chunk * t;
      work(begin, t == threads - 1 ? bytes - begin : chunk);
    }
  };
  each_part([&](std::size_t begin, std::size_t n) {
    std::memset(a.get() + begin, 1, n);
    std::memset(b.get() + begin, 2, n);
  });
  std::vector<double> runs;
  for (int r = 0; r <= cpu_repeats; ++r) {
    const auto start = clock_type::now();
    each_part([&](std::size_t begin, std::size_t n) {
      std::memcpy(b.get() + begin, a.get() + begin, n);
    });
    if (r > 0) runs.push_back(seconds_since(start));  // r = 0 warms the threads up
  }
  std::sort(runs.begin(), runs.end());
  return 2.0 * static_cast<double>(bytes) / runs[runs.size() / 2];
}

/// Device measurements; false (and have_device false) when there is no device or a call fails.
bool measure_device(bandwidths& b) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return false;
  }
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&properties, device) != cudaSuccess)
    return false;
  b.device_name = properties.name;
  void *pinned_in = nullptr, *pinned_out = nullptr, *d0 = nullptr, *d1 = nullptr;
  cudaStream_t s0 = nullptr, s1 = nullptr;
  bool ok = cudaMallocHost(&pinned_in, probe_bytes) == cudaSuccess &&
            cudaMallocHost(&pinned_out, probe_bytes) == cudaSuccess &&
            cudaMalloc(&d0, probe_bytes) == cudaSuccess &&
            cudaMalloc(&d1, probe_bytes) == cudaSuccess &&
            cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking) == cudaSuccess &&
            cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess;
  if (ok) {
    std::memset(pinned_in, 1, probe_bytes);
    const auto copy = [&](void* dst, const void* src, cudaMemcpyKind kind, cudaStream_t s) {
      ok = ok && cudaMemcpyAsync(dst, src, probe_bytes, kind, s) == cudaSuccess;
    };
    const auto wait = [&] {
      ok = ok && cudaStreamSynchronize(s0) == cudaSuccess &&
           cudaStreamSynchronize(s1) == cudaSuccess;
    };
    b.h2d = probe_bytes / fastest([&] {
              copy(d0, pinned_in, cudaMemcpyHostToDevice, s0);
              wait();
            });
    b.d2h = probe_bytes / fastest([&] {
              copy(pinned_out, d0, cudaMemcpyDeviceToHost, s0);
              wait();
            });
    b.both = 2.0 * probe_bytes / fastest([&] {
               copy(d1, pinned_in, cudaMemcpyHostToDevice, s0);
               copy(pinned_out, d0, cudaMemcpyDeviceToHost, s1);
               wait();
             });
    b.gpu_copy = 2.0 * probe_bytes / fastest([&] {
                   copy(d1, d0, cudaMemcpyDeviceToDevice, s0);
                   wait();
                 });
    std::unique_ptr<char[]> pageable(new char[probe_bytes]);
    std::memset(pageable.get(), 3, probe_bytes);
    b.host_register = probe_bytes / fastest([&] {
                        ok = ok &&
                             cudaHostRegister(pageable.get(), probe_bytes,
                                              cudaHostRegisterDefault) == cudaSuccess &&
                             cudaHostUnregister(pageable.get()) == cudaSuccess;
                      });
  }
  if (s0 != nullptr) cudaStreamDestroy(s0);
  if (s1 != nullptr) cudaStreamDestroy(s1);
  if (d0 != nullptr) cudaFree(d0);
  if (d1 != nullptr) cudaFree(d1);
  if (pinned_in != nullptr) cudaFreeHost(pinned_in);
  if (pinned_out != nullptr) cudaFreeHost(pinned_out);
  if (!ok) cudaGetLastError();
  return ok;
}

}  // namespace

const bandwidths& measured_bandwidths(int cpu_threads) {
  static std::mutex lock;
  static std::map<int, std::unique_ptr<bandwidths>> cache;
  const std::lock_guard<std::mutex> guard(lock);
  std::unique_ptr<bandwidths>& entry = cache[cpu_threads];
  if (!entry) {
    entry = std::make_unique<bandwidths>();
    const auto start = clock_type::now();
    const auto device = std::find_if(cache.begin(), cache.end(), [](const auto& e) {
      return e.second && e.second->have_device && e.second->h2d > 0;
    });
    if (device != cache.end()) {
      *entry = *device->second;  // the device's rates do not depend on the CPU threads
    } else {
      entry->have_device = measure_device(*entry);
    }
    entry->cpu_threads = cpu_threads;
    entry->cpu_probe_bytes = cpu_probe_bytes();
    entry->cpu_copy = cpu_copy_rate(cpu_threads, entry->cpu_probe_bytes);
    entry->seconds_spent = seconds_since(start);
  }
  return *entry;
}

std::string bandwidths::describe() const {
  char text[400];
  if (!have_device) {
    std::snprintf(text, sizeof text,
                  "no CUDA device; CPU copy %.1f GB/s on %d threads (median of %d over %.0f MiB)",
                  cpu_copy / 1e9, cpu_threads, cpu_repeats, cpu_probe_bytes / 1048576.0);
    return text;
  }
  std::snprintf(
      text, sizeof text,
      "%s: H2D %.1f GB/s, D2H %.1f GB/s, both %.1f GB/s, GPU copy %.0f GB/s, "
      "registration %.1f GB/s; CPU copy %.1f GB/s on %d threads (median of %d over %.0f MiB); "
      "measured once, %.2f s",
      device_name.c_str(), h2d / 1e9, d2h / 1e9, both / 1e9, gpu_copy / 1e9, host_register / 1e9,
      cpu_copy / 1e9, cpu_threads, cpu_repeats, cpu_probe_bytes / 1048576.0, seconds_spent);
  return text;
}

}  // namespace xpose::detail::host
