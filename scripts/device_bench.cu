// Device-machine benchmark of the CUDA backend (run by scripts/device_check.sh): out-of-place
// variants and square in-place through the public API, each as a ratio to a device-to-device
// copy of the same bytes timed in the same run (CUDA events, median of 7 after a warm-up).
// Every result is checked on the GPU against its input (first run, poisoned output).
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude device_bench.cu libxpose.a -Xcompiler -fopenmp
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

__global__ void fill_random(unsigned char* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    p[i] = static_cast<unsigned char>(x | 1);  // never zero
  }
}

/// Counts elements with dst[c*ldb + r] != src[r*lda + c] (row-major, e-byte elements).
__global__ void count_wrong(const unsigned char* src, const unsigned char* dst, std::int64_t rows,
                            std::int64_t cols, std::int64_t lda, std::int64_t ldb, int e,
                            unsigned long long* wrong) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < rows * cols;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    for (int b = 0; b < e; ++b)
      if (src[(r * lda + c) * e + b] != dst[(c * ldb + r) * e + b]) {
        atomicAdd(wrong, 1ull);
        break;
      }
  }
}

struct timer {
  cudaEvent_t start, stop;
  timer() {
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
  }
  template <class F>
  double median_ms(F&& f, int reps = 7) {
    f();  // warm-up
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(start);
      f();
      cudaEventRecord(stop);
      check(cudaEventSynchronize(stop), "run");
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

unsigned long long wrong_count(const unsigned char* src, const unsigned char* dst,
                               std::int64_t rows, std::int64_t cols, int e) {
  unsigned long long* d = nullptr;
  check(cudaMalloc(&d, sizeof *d), "cudaMalloc");
  cudaMemset(d, 0, sizeof *d);
  count_wrong<<<4096, 256>>>(src, dst, rows, cols, cols, rows, e, d);
  unsigned long long h = 0;
  check(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), "check");
  cudaFree(d);
  return h;
}

timer clock_;
unsigned char *buf_a = nullptr, *buf_b = nullptr;
int failures = 0;

void row(const char* kind, int e, std::int64_t rows, std::int64_t cols, const char* variant,
         double ms, double copy_ms, unsigned long long wrong) {
  const double bytes = 2.0 * rows * cols * e;
  std::printf("%-8s %3d %8lld x %-9lld %-20s %9.3f ms %7.0f GB/s  ratio %.3f  %s\n", kind, e,
              static_cast<long long>(rows), static_cast<long long>(cols), variant, ms,
              bytes / ms / 1e6, copy_ms / ms, wrong == 0 ? "ok" : "WRONG");
  std::fflush(stdout);
  if (wrong) ++failures;
}

double copy_time(std::int64_t bytes) {
  return clock_.median_ms([&] { cudaMemcpyAsync(buf_b, buf_a, bytes, cudaMemcpyDeviceToDevice); });
}

void bench_copy(int e, std::int64_t rows, std::int64_t cols, xpose::route variant) {
  const std::int64_t bytes = rows * cols * e;
  fill_random<<<4096, 256>>>(buf_a, bytes, rows * 31 + cols);
  const double copy_ms = copy_time(bytes);
  xpose::plan_options options;
  options.target = xpose::device::cuda;
  options.forced_route = variant;
  const xpose::plan p = xpose::plan_copy({rows, cols, static_cast<std::size_t>(e)}, 0, 0, options);
  cudaMemset(buf_b, 0xA5, bytes);
  p.execute(buf_a, buf_b);
  check(cudaDeviceSynchronize(), "execute");
  const unsigned long long wrong = wrong_count(buf_a, buf_b, rows, cols, e);
  const double ms = clock_.median_ms([&] { p.execute(buf_a, buf_b); });
  row("copy", e, rows, cols, std::string(xpose::to_string(variant)).c_str(), ms, copy_ms, wrong);
}

void bench_square(int e, std::int64_t n, xpose::route variant) {
  const std::int64_t bytes = n * n * e;
  fill_random<<<4096, 256>>>(buf_a, bytes, n);
  const double copy_ms = copy_time(bytes);
  check(cudaMemcpy(buf_b, buf_a, bytes, cudaMemcpyDeviceToDevice), "copy");
  xpose::plan_options options;
  options.target = xpose::device::cuda;
  options.forced_route = variant;
  const xpose::plan p = xpose::plan_inplace({n, n, static_cast<std::size_t>(e)}, options);
  p.execute(buf_b);
  check(cudaDeviceSynchronize(), "execute");
  const unsigned long long wrong = wrong_count(buf_a, buf_b, n, n, e);
  const double ms = clock_.median_ms([&] { p.execute(buf_b); });
  row("inplace", e, n, n, std::string(xpose::to_string(variant)).c_str(), ms, copy_ms, wrong);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const std::int64_t capacity = std::int64_t{8} << 30;  // 8 GiB each: 32768^2 fp64
  check(cudaMalloc(&buf_a, capacity), "cudaMalloc a");
  check(cudaMalloc(&buf_b, capacity), "cudaMalloc b");
  using xpose::route;
  try {
    // Out of place, 256 MiB, square and rectangular, aligned and odd dimensions.
    const std::int64_t sides[] = {0, 16384, 11584, 0, 8192, 0, 0, 0,   5792,
                                  0, 0,     0,     0, 0,    0, 0, 4096};
    for (int e : {1, 2, 4, 8, 16}) {
      const std::int64_t s = sides[e];
      bench_copy(e, s, s, route::copy_tuned);            // rows 16-byte aligned
      bench_copy(e, s + 16, s - 16, route::copy_tuned);  // aligned, not multiples of 32
      bench_copy(e, s - 1, s + 1, route::copy_tuned);    // odd: rows not aligned
      bench_copy(e, s - 1, s + 1, route::copy_multi_element);
      bench_copy(e, s / 2, 2 * s, route::copy_tuned);
      bench_copy(e, 4 * s, s / 4, route::copy_tuned);
      if (e == 4 || e == 8)
        for (route v : {route::copy_naive, route::copy_shared_tiles, route::copy_padded_tiles,
                        route::copy_multi_element})
          bench_copy(e, s, s, v);
      if (quick) continue;
      // Skinny: one dimension 2..64, the other >= 10^6.
      for (std::int64_t small : {2, 3, 8, 32, 64}) {
        const std::int64_t big =
            std::max<std::int64_t>(1000000, (std::int64_t{64} << 20) / (small * e));
        bench_copy(e, small, big, route::copy_tuned);
        bench_copy(e, big, small, route::copy_tuned);
      }
    }
    bench_copy(12, 4096, 4096, route::copy_tuned);
    // Square in place.
    for (int e : {4, 8})
      for (std::int64_t n : {4096, 8192, 16384, 32768}) {
        bench_square(e, n, route::square_tile_swap);
        if (n == 8192) bench_square(e, n, route::square_naive);
      }
    bench_square(4, 8191, route::square_tile_swap);
    bench_square(1, 16384, route::square_tile_swap);
    bench_square(2, 16384, route::square_tile_swap);
  } catch (const xpose::error& err) {
    std::fprintf(stderr, "xpose error: %s\n", err.what());
    return 1;
  }
  std::printf("device_bench: %d wrong results\n", failures);
  return failures == 0 ? 0 : 1;
}
