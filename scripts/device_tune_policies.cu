// Device-machine tuning sweep (run by scripts/device_check.sh with TUNE=1): times candidate
// tile policies of copy_tuned per element size on 16-byte aligned shapes, as ratios to a
// device-to-device copy of the same bytes (CUDA events, median of 7). The winners go into
// src/cuda/copy_transpose_policy.hpp. Odd shapes (rows not 16-byte aligned) time copy_unaligned
// against copy_multi_element and the tiles' shifted path, on random data, and check that all
// three outputs agree byte for byte. `--odd-only` skips the policy sweep.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Isrc device_tune_policies.cu libxpose.a
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
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

unsigned char *buf_a, *buf_b, *buf_c;
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

__global__ void fill_random(unsigned char* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    p[i] = static_cast<unsigned char>(x >> 40);
  }
}

bool same_bytes(const unsigned char* a, const unsigned char* b, std::int64_t bytes) {
  std::vector<unsigned char> ha(bytes), hb(bytes);
  cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost);
  return std::memcmp(ha.data(), hb.data(), bytes) == 0;
}

/// Odd shape, dense rows: copy_unaligned vs copy_multi_element vs the tiles' shifted path.
template <int E>
void odd_shape(std::int64_t rows, std::int64_t cols) {
  copy_args a;
  a.src = buf_a;
  a.rows = rows;
  a.cols = cols;
  a.lda = cols;
  a.ldb = rows;
  a.src_stride = a.dst_stride = rows * cols;
  const std::int64_t bytes = rows * cols * E;
  const float copy = median_ms(
      ev_a, ev_b, [&] { cudaMemcpyAsync(buf_b, buf_a, bytes, cudaMemcpyDeviceToDevice); });
  a.dst = buf_b;
  cudaMemset(buf_b, 0xA5, bytes);
  const float unaligned = median_ms(ev_a, ev_b, [&] { launch_copy_unaligned(a, E, nullptr); });
  a.dst = buf_c;
  cudaMemset(buf_c, 0x5A, bytes);
  const float multi = median_ms(ev_a, ev_b, [&] {
    launch_copy_seed_variant(a, E, xpose::route::copy_multi_element, nullptr);
  });
  const bool unaligned_ok = same_bytes(buf_b, buf_c, bytes);
  cudaMemset(buf_c, 0x5A, bytes);
  const float shifted =
      median_ms(ev_a, ev_b, [&] { launch_tuned_with<E, copy_tuned_policy<E>>(a, nullptr); });
  const bool shifted_ok = same_bytes(buf_b, buf_c, bytes);
  std::printf(
      "odd e=%-2d %6lld x %-6lld ratio to copy: copy_unaligned %.3f  copy_multi_element %.3f  "
      "shifted tiles %.3f  (copy %.3f ms)  outputs agree: %s %s\n",
      E, (long long)rows, (long long)cols, copy / unaligned, copy / multi, copy / shifted, copy,
      unaligned_ok ? "yes" : "NO", shifted_ok ? "yes" : "NO");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool odd_only = argc > 1 && std::strcmp(argv[1], "--odd-only") == 0;
  cudaMalloc(&buf_a, 1 << 30);
  cudaMalloc(&buf_b, 1 << 30);
  cudaMalloc(&buf_c, 1 << 30);
  fill_random<<<4096, 256>>>(buf_a, std::int64_t{1} << 30);
  cudaEventCreate(&ev_a);
  cudaEventCreate(&ev_b);
  if (!odd_only) {
    sweep<4, tile_policy<64, 256, 256>, tile_policy<32, 128, 256>, tile_policy<64, 128, 256>,
          tile_policy<128, 128, 256>, tile_policy<32, 256, 256>, tile_policy<64, 256, 256, 4>,
          tile_policy<32, 128, 128>, tile_policy<64, 128, 128>, tile_policy<128, 256, 512>>(8192,
                                                                                            8192);
    sweep<4, tile_policy<64, 256, 256>, tile_policy<64, 128, 256>, tile_policy<32, 128, 256>>(
        10000, 10000);
    sweep<2, tile_policy<128, 128, 256>, tile_policy<64, 128, 256>, tile_policy<64, 256, 256>,
          tile_policy<128, 256, 256>, tile_policy<32, 128, 128>, tile_policy<64, 128, 128>>(11584,
                                                                                            11584);
    sweep<1, tile_policy<128, 128, 256>, tile_policy<64, 128, 128>, tile_policy<128, 256, 256>,
          tile_policy<64, 256, 256>>(16384, 16384);
    sweep<8, tile_policy<64, 256, 256>, tile_policy<32, 256, 256>, tile_policy<32, 128, 128>,
          tile_policy<64, 128, 256>, tile_policy<16, 128, 128>>(5792, 5792);
    sweep<16, tile_policy<32, 512, 256>, tile_policy<16, 256, 128>, tile_policy<32, 256, 256>>(
        4096, 4096);
  }
  odd_shape<1>(16383, 16385);
  odd_shape<1>(10007, 7001);
  odd_shape<2>(11583, 11585);
  odd_shape<2>(10007, 7001);
  odd_shape<4>(8191, 8193);
  odd_shape<4>(10007, 7001);
  odd_shape<8>(5791, 5793);
  odd_shape<8>(10007, 7001);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
