// Host matrices transposed in place through the GPU (plan_options::host_via_gpu), timed against
// the sequential copy bound measured in the same run: a pinned host-to-device copy of the same
// bytes followed by a pinned device-to-host copy (issue 41's target: 0.8 x that bound in core).
// Each size runs: overlapped and synchronous schedules on pinned memory; pageable memory staged
// through pinned chunks on the CPU threads, or registered for each run; out of core (a GPU
// budget of 1/1.5 of the matrix) on pinned and on staged pageable memory; the cost model's
// automatic choice on pageable memory; the CPU backend on all threads. The first size also
// runs staged with other chunk sizes and half the threads. Every result is checked at 2^20
// random positions against the original. Rate = 2 x matrix bytes / median wall time.
//   usage: xpose_host_bench [GiB ...] [--reps N]
//   (default 1 4 16; reps 3 up to 1.5 GiB, 2 up to 6 GiB, then 1 with no warm-up run)
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

void check(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(result));
    std::exit(1);
  }
}

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void fill(unsigned char* data, std::size_t bytes) {
#pragma omp parallel
  {
    std::mt19937_64 rng(1234 + omp_get_thread_num());
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < bytes / 8; ++i) {
      const std::uint64_t r = rng();
      std::memcpy(data + 8 * i, &r, 8);
    }
  }
}

/// memcpy on all threads (the restores between runs of 16 GiB would otherwise dominate).
void parallel_copy(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  const std::size_t part = std::size_t{64} << 20;
  const std::int64_t parts = static_cast<std::int64_t>((bytes + part - 1) / part);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::size_t at = static_cast<std::size_t>(p) * part;
    std::memcpy(dst + at, src + at, std::min(part, bytes - at));
  }
}

/// Host memory, uninitialized: the fills and copies touch it first on all threads.
struct host_bytes {
  explicit host_bytes(std::size_t bytes) : data(new unsigned char[bytes]) {}
  std::unique_ptr<unsigned char[]> data;
};

/// Whether `now` holds the transpose of the rows x cols matrix `original` (4-byte elements) at
/// 2^20 random positions.
bool sampled_transpose(const unsigned char* original, const unsigned char* now, std::int64_t rows,
                       std::int64_t cols) {
  std::mt19937_64 rng(7);
  for (int s = 0; s < (1 << 20); ++s) {
    const std::int64_t i = static_cast<std::int64_t>(rng() % rows);
    const std::int64_t j = static_cast<std::int64_t>(rng() % cols);
    if (std::memcmp(original + (i * cols + j) * 4, now + (j * rows + i) * 4, 4) != 0) return false;
  }
  return true;
}

struct result {
  std::string name;
  double seconds = 0;
  bool correct = false;
  bool through_gpu = false;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> sizes;
  int reps_asked = 0;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--reps" && a + 1 < argc) {
      reps_asked = std::max(1, std::atoi(argv[++a]));
    } else {
      sizes.push_back(std::atof(argv[a]));
    }
  }
  if (sizes.empty()) sizes = {1, 4, 16};
  int device = 0;
  cudaDeviceProp properties{};
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  std::printf("device: %s, %d CPU threads\n", properties.name, omp_get_max_threads());
  const auto bench_start = clock_type::now();

  for (std::size_t size_index = 0; size_index < sizes.size(); ++size_index) {
    const double gib = sizes[size_index];
    const int reps = reps_asked > 0 ? reps_asked : gib <= 1.5 ? 3 : gib <= 6 ? 2 : 1;
    const int warmups = reps_asked > 0 || gib <= 6 ? 1 : 0;
    // A rectangular matrix with good factors: 12288 columns of 4-byte elements.
    constexpr std::int64_t cols = 12288;
    const std::int64_t rows = std::max<std::int64_t>(
        1024, static_cast<std::int64_t>(gib * (1 << 30) / (4.0 * cols)) / 1024 * 1024);
    const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 4;
    std::printf("\n%lld x %lld float32 (%.2f GiB), %d timed run%s after %d warm-up\n",
                static_cast<long long>(rows), static_cast<long long>(cols), bytes / 1073741824.0,
                reps, reps == 1 ? "" : "s", warmups);
    unsigned char *pinned = nullptr, *device_copy = nullptr;
    check(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes), "cudaMallocHost");
    check(cudaMalloc(reinterpret_cast<void**>(&device_copy), bytes), "cudaMalloc");
    const host_bytes original(bytes);
    fill(original.data.get(), bytes);
    parallel_copy(pinned, original.data.get(), bytes);

    // The sequential copy bound: pinned H2D, then D2H, of the same bytes.
    std::vector<double> bound_runs;
    for (int r = 0; r < std::max(reps, 2) + 1; ++r) {
      const auto start = clock_type::now();
      check(cudaMemcpy(device_copy, pinned, bytes, cudaMemcpyHostToDevice), "H2D");
      check(cudaMemcpy(pinned, device_copy, bytes, cudaMemcpyDeviceToHost), "D2H");
      if (r > 0) bound_runs.push_back(seconds_since(start));
    }
    check(cudaFree(device_copy), "cudaFree");
    const double bound = median(bound_runs);
    std::printf("  %-40s %8.1f GB/s\n", "bound (pinned H2D then D2H)", 2.0 * bytes / bound / 1e9);

    const host_bytes pageable(bytes);
    const auto run = [&](const std::string& name, xpose::plan_options options, bool use_pinned,
                         bool show = false) {
      unsigned char* data = use_pinned ? pinned : pageable.data.get();
      result r;
      r.name = name;
      try {
        const xpose::plan p = xpose::plan_inplace({rows, cols, 4}, options);
        r.through_gpu = p.runs_through_gpu();
        std::vector<double> runs;
        bool correct = true;
        for (int k = 0; k < reps + warmups; ++k) {
          parallel_copy(data, original.data.get(), bytes);
          const auto start = clock_type::now();
          p.execute(data);
          const double s = seconds_since(start);
          if (k >= warmups) runs.push_back(s);
          correct = correct && sampled_transpose(original.data.get(), data, rows, cols);
        }
        r.seconds = median(runs);
        r.correct = correct;
        if (show) std::printf("%s", p.describe().c_str());
      } catch (const xpose::error& e) {
        std::printf("  %-40s failed: %s\n", name.c_str(), e.what());
        return;
      }
      std::printf("  %-40s %8.1f GB/s  %5.2f x bound  %s%s\n", name.c_str(),
                  2.0 * bytes / r.seconds / 1e9, bound / r.seconds, r.through_gpu ? "GPU" : "CPU",
                  r.correct ? "" : "  WRONG RESULT");
      std::fflush(stdout);
    };
    xpose::plan_options gpu;
    gpu.host_via_gpu = xpose::host_gpu_policy::always;
    run("overlapped, pinned", gpu, true);
    xpose::plan_options sync = gpu;
    sync.overlap_copies = false;
    run("synchronous, pinned", sync, true);
    xpose::plan_options staged = gpu;
    staged.pinning = xpose::host_pinning::staged;
    run("overlapped, pageable, staged", staged, false);
    xpose::plan_options reg = gpu;
    reg.pinning = xpose::host_pinning::register_memory;
    run("overlapped, pageable, registered", reg, false);
    xpose::plan_options out_of_core = gpu;
    out_of_core.gpu_memory_budget = static_cast<std::size_t>(bytes / 1.5);
    run("out of core (budget / 1.5), pinned", out_of_core, true);
    xpose::plan_options out_of_core_staged = out_of_core;
    out_of_core_staged.pinning = xpose::host_pinning::staged;
    run("out of core (budget / 1.5), staged", out_of_core_staged, false);
    if (size_index == 0) {
      for (std::size_t chunk : {std::size_t{512} << 10, std::size_t{8} << 20}) {
        xpose::plan_options other = staged;
        other.staging_chunk_bytes = chunk;
        run("staged, chunks of " + std::to_string(chunk >> 10) + " KiB", other, false);
      }
      xpose::plan_options half = staged;
      half.threads = std::max(1, omp_get_max_threads() / 2);
      run("staged, " + std::to_string(half.threads) + " threads", half, false);
    }
    xpose::plan_options automatic;
    automatic.host_via_gpu = xpose::host_gpu_policy::automatic;
    run("automatic (cost model), pageable", automatic, false, size_index == 0);
    run("CPU backend, all threads, pageable", xpose::plan_options{}, false);
    check(cudaFreeHost(pinned), "cudaFreeHost");
    std::printf("  (%.0f s so far)\n", seconds_since(bench_start));
  }
  return 0;
}
