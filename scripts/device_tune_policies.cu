// Device-machine tuning sweep (run by scripts/device_check.sh with TUNE=1): times candidate
// tile policies of copy_tuned per element size on 16-byte aligned shapes, as ratios to a
// device-to-device copy of the same bytes (CUDA events, median of 7). The winners go into
// src/cuda/copy_transpose_policy.hpp. Odd shapes time the shifted path of the tiles.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Isrc device_tune_policies.cu libxpose.a
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_tuned_kernel.cuh"

using namespace xpose::detail::cuda;

namespace {

template <class F>
float median_ms(cudaEvent_t a, cudaEvent_t b, F&& f) {
  f();
  std::vector<float> t;
  for (int i = 0; i < 7; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[3];
}

unsigned char *buf_a, *buf_b;
cudaEvent_t ev_a, ev_b;

template <int E, class P>
void candidate(std::int64_t rows, std::int64_t cols) {
  copy_args a;
  a.src = buf_a;
  a.dst = buf_b;
  a.rows = rows;
  a.cols = cols;
  a.lda = cols;
  a.ldb = rows;
  a.src_stride = rows * cols;
  a.dst_stride = rows * cols;
  const std::int64_t bytes = rows * cols * E;
  const float copy = median_ms(
      ev_a, ev_b, [&] { cudaMemcpyAsync(buf_b, buf_a, bytes, cudaMemcpyDeviceToDevice); });
  const float t = median_ms(ev_a, ev_b, [&] { launch_tuned_with<E, P>(a, nullptr); });
  std::printf(
      "tune e=%-2d %6lld x %-6lld rows %3d bytes %3d threads %3d minb %d: %.3f ms ratio %.3f\n", E,
      (long long)rows, (long long)cols, P::tile_rows, P::tile_bytes, P::threads, P::min_blocks, t,
      copy / t);
  std::fflush(stdout);
}

template <int E, class... P>
void sweep(std::int64_t rows, std::int64_t cols) {
  (candidate<E, P>(rows, cols), ...);
}

}  // namespace

int main() {
  cudaMalloc(&buf_a, 1 << 30);
  cudaMalloc(&buf_b, 1 << 30);
  cudaMemset(buf_a, 0x5b, 1 << 30);
  cudaEventCreate(&ev_a);
  cudaEventCreate(&ev_b);
  sweep<4, tile_policy<64, 256, 256>, tile_policy<32, 128, 256>, tile_policy<64, 128, 256>,
        tile_policy<128, 128, 256>, tile_policy<32, 256, 256>, tile_policy<64, 256, 256, 4>,
        tile_policy<32, 128, 128>, tile_policy<64, 128, 128>, tile_policy<128, 256, 512>>(8192,
                                                                                          8192);
  sweep<4, tile_policy<64, 256, 256>, tile_policy<64, 128, 256>, tile_policy<32, 128, 256>>(10000,
                                                                                            10000);
  sweep<2, tile_policy<128, 128, 256>, tile_policy<64, 128, 256>, tile_policy<64, 256, 256>,
        tile_policy<128, 256, 256>, tile_policy<32, 128, 128>, tile_policy<64, 128, 128>>(11584,
                                                                                          11584);
  sweep<1, tile_policy<128, 128, 256>, tile_policy<64, 128, 128>, tile_policy<128, 256, 256>,
        tile_policy<64, 256, 256>>(16384, 16384);
  sweep<8, tile_policy<64, 256, 256>, tile_policy<32, 256, 256>, tile_policy<32, 128, 128>,
        tile_policy<64, 128, 256>, tile_policy<16, 128, 128>>(5792, 5792);
  sweep<16, tile_policy<32, 512, 256>, tile_policy<16, 256, 128>, tile_policy<32, 256, 256>>(4096,
                                                                                             4096);
  // Odd shapes (rows not 16-byte aligned): the tiles' shifted path, to compare with the
  // copy_multi_element rows of device_bench.
  candidate<1, copy_tuned_policy<1>>(16383, 16385);
  candidate<2, copy_tuned_policy<2>>(11583, 11585);
  candidate<4, copy_tuned_policy<4>>(8191, 8193);
  candidate<8, copy_tuned_policy<8>>(5791, 5793);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
