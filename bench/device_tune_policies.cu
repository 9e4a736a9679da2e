// Device-machine tuning sweep (built with the benchmarks when CUDA is on; run by
// scripts/device_check.sh with TUNE=1 or TUNE=odd): times
// candidate tile policies of copy_tuned per element size on 16-byte aligned shapes, as ratios to a
// device-to-device copy of the same bytes (CUDA events, median of 7). The winners go into
// src/cuda/tuning/. Odd shapes (rows not 16-byte aligned) time candidate
// policies of copy_unaligned (1-, 2-, 4-, 8-byte elements; copy_sectors as the 8-byte comparison)
// and copy_sectors (16), aligned shapes candidate policies of copy_tuned, each next to the
// library's dispatch; every output (random data, poisoned
// destination) is checked byte for byte against copy_multi_element's. `--odd-only` skips the
// copy_tuned policy sweep.
// `--any-size` times copy_any_size's candidate policies for every element size it takes (3, 5, 6,
// 7, 9-15 bytes) on odd, aligned and skinny shapes, next to the super-element kernel in words of
// the element's widest power of two, checked against the super-element kernel in 1-byte words.
// `--any-size-wide` times copy_any_size with tiles of 256- and 512-byte rows (fewer L2 read
// sectors) and with 128-byte rows at more blocks per SM, on 3-, 5- and 7-byte shapes of the
// bench, next to the library's policy, two rounds.
// `--skinny-any-size` times skinny_any_size with candidate slab sizes on skinny shapes (a side of
// 2 to 64) of 3- to 15-byte elements, next to copy_any_size and the super-element kernel, checked
// the same way.
// `--large-tiles` times copy_tuned with its standard and its large tiles (copy_tuned_large) on
// aligned shapes of 1- and 2-byte elements, from a few rows to square, next to the dispatch,
// three rounds each.
// `--unaligned` times copy_unaligned's candidate policies (row blocks, tile widths, threads and
// blocks per SM: the library's standard and large ones, and smaller tiles at more blocks per SM)
// on odd shapes of 1-, 2-, 4- and 8-byte elements of 64 MiB to 540 MiB, next to the dispatch,
// two rounds.
// `--more-blocks` times copy_sectors (16-byte elements, odd shapes) and copy_tuned's standard
// 1- and 2-byte tiles (aligned shapes not made of whole tiles) at more blocks per SM than the
// library's policies, next to the dispatch, two rounds.
// `--profile` runs the dispatch once on 10007 x 7001 for 1-, 2-, 4- and 8-byte elements (for
// ncu).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "cuda/copy/any_size_kernel.cuh"
#include "cuda/copy/sectors_kernel.cuh"
#include "cuda/copy/tuned_kernel.cuh"
#include "cuda/copy/unaligned_kernel.cuh"
#include "cuda/dispatch/copy_dispatch.hpp"
#include "cuda/tuning/copy_policies.hpp"

using namespace xpose::detail::cuda;

namespace {

/// The library's dispatch for E-byte elements, as execute runs it.
void launch_dispatch(const copy_args& a, int e) {
  run_copy(
      decide_copy(a, static_cast<std::size_t>(e), xpose::route::automatic, current_device_class()),
      a, nullptr);
}

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

copy_args dense(std::int64_t rows, std::int64_t cols, void* dst) {
  copy_args a;
  a.src = buf_a;
  a.dst = dst;
  a.rows = rows;
  a.cols = cols;
  a.lda = cols;
  a.ldb = rows;
  a.src_stride = a.dst_stride = rows * cols;
  return a;
}

template <int E, class P>
void candidate(std::int64_t rows, std::int64_t cols) {
  const copy_args a = dense(rows, cols, buf_b);
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

__global__ void count_differences(const unsigned char* a, const unsigned char* b, std::int64_t n,
                                  unsigned long long* differences) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    if (a[i] != b[i]) atomicAdd(differences, 1ull);
}

unsigned long long* differences;

bool same_bytes(const unsigned char* a, const unsigned char* b, std::int64_t bytes) {
  cudaMemset(differences, 0, sizeof *differences);
  count_differences<<<4096, 256>>>(a, b, bytes, differences);
  unsigned long long host = 1;
  cudaMemcpy(&host, differences, sizeof host, cudaMemcpyDeviceToHost);
  return host == 0;
}

/// Times `launch` writing buf_b (poisoned first) and checks its output against buf_c.
template <class F>
void timed_candidate(const char* name, std::int64_t bytes, float copy, F&& launch) {
  cudaMemset(buf_b, 0xA5, bytes);
  const float t = median_ms(ev_a, ev_b, launch);
  const bool ok = same_bytes(buf_b, buf_c, bytes);
  std::printf("  %-40s %.3f ms  ratio %.3f  %s\n", name, t, copy / t, ok ? "ok" : "WRONG OUTPUT");
  std::fflush(stdout);
}

/// A candidate policy: `format` names it from its four numbers; `launch` runs it.
template <int E>
void policy_candidate(std::int64_t rows, std::int64_t cols, float copy, const char* format,
                      const int (&numbers)[4], void (*launch)(const copy_args&, cudaStream_t)) {
  char name[96];
  std::snprintf(name, sizeof name, format, numbers[0], numbers[1], numbers[2], numbers[3]);
  const copy_args a = dense(rows, cols, buf_b);
  timed_candidate(name, rows * cols * E, copy, [&] { launch(a, nullptr); });
}

template <int E, int B, int W, int T, int M>
void odd_candidate(std::int64_t rows, std::int64_t cols, float copy, unaligned_policy<B, W, T, M>) {
  policy_candidate<E>(rows, cols, copy, "copy_unaligned B%d W%d T%d minb %d", {B, W, T, M},
                      launch_unaligned_with<E, unaligned_policy<B, W, T, M>>);
}

template <int E, int R, int C, int T, int M>
void odd_candidate(std::int64_t rows, std::int64_t cols, float copy, sectors_policy<R, C, T, M>) {
  policy_candidate<E>(rows, cols, copy, "copy_sectors R%d C%d T%d minb %d", {R, C, T, M},
                      launch_sectors_with<E, sectors_policy<R, C, T, M>>);
}

template <int E, int R, int W, int T, int M>
void odd_candidate(std::int64_t rows, std::int64_t cols, float copy, tile_policy<R, W, T, M>) {
  policy_candidate<E>(rows, cols, copy, "copy_tuned R%d W%d T%d minb %d", {R, W, T, M},
                      launch_tuned_with<E, tile_policy<R, W, T, M>>);
}

/// Times a D2D copy of a rows x cols matrix of e-byte elements, prints the shape's line and
/// returns the copy's milliseconds.
float time_copy_and_announce(int e, std::int64_t rows, std::int64_t cols) {
  const std::int64_t bytes = rows * cols * e;
  const float copy = median_ms(
      ev_a, ev_b, [&] { cudaMemcpyAsync(buf_b, buf_a, bytes, cudaMemcpyDeviceToDevice); });
  std::printf("shape e=%-2d %6lld x %-6lld (copy %.3f ms)\n", e, (long long)rows, (long long)cols,
              copy);
  return copy;
}

/// One shape: the reference (copy_multi_element) into buf_c, then the library's dispatch and each
/// candidate (a copy_unaligned, copy_sectors or copy_tuned policy), checked against it.
template <int E, class... P>
void shape_sweep(std::int64_t rows, std::int64_t cols) {
  const std::int64_t bytes = rows * cols * E;
  const float copy = time_copy_and_announce(E, rows, cols);
  cudaMemset(buf_c, 0x5A, bytes);
  launch_copy_seed_variant(dense(rows, cols, buf_c), E, xpose::route::copy_multi_element, nullptr);
  const copy_args a = dense(rows, cols, buf_b);
  timed_candidate("the dispatch", bytes, copy, [&] { launch_dispatch(a, E); });
  (odd_candidate<E>(rows, cols, copy, P{}), ...);
}

template <int E, int R, int W, int T, int M>
void any_size_candidate(std::int64_t rows, std::int64_t cols, float copy, tile_policy<R, W, T, M>) {
  policy_candidate<E>(rows, cols, copy, "copy_any_size R%d W%d T%d minb %d", {R, W, T, M},
                      launch_any_size_with<E, tile_policy<R, W, T, M>>);
}

template <int E, int R, int W, int M>
using any_size_policy = tile_policy<R, W, any_size_one_step_threads(E, R, W), M>;

/// The start of a shape of E-byte elements for the sweeps below: the copy's milliseconds, the
/// super-element kernel in 1-byte words into buf_c (the reference), then the super-element
/// kernel in the words of the element's widest power of two and copy_any_size with the library's
/// policy for E, each checked against it. Returns the copy's milliseconds.
template <int E>
float time_any_size_kernels(std::int64_t rows, std::int64_t cols) {
  const std::int64_t bytes = rows * cols * E;
  const float copy = time_copy_and_announce(E, rows, cols);
  cudaMemset(buf_c, 0x5A, bytes);
  launch_copy_super_elements(dense(rows, cols, buf_c), 1, E, nullptr);
  const copy_args a = dense(rows, cols, buf_b);
  constexpr int word = E & -E;
  timed_candidate("super elements (words of the element)", bytes, copy,
                  [&] { launch_copy_super_elements(a, word, E / word, nullptr); });
  timed_candidate("copy_any_size, the library's policy", bytes, copy,
                  [&] { launch_copy_any_size(a, E, nullptr); });
  return copy;
}

/// One shape of E-byte elements: time_any_size_kernels, then copy_any_size with candidate
/// policies.
template <int E>
void any_size_sweep(std::int64_t rows, std::int64_t cols) {
  const float copy = time_any_size_kernels<E>(rows, cols);
  any_size_candidate<E>(rows, cols, copy, any_size_policy<E, 64, 128, 6>{});
  any_size_candidate<E>(rows, cols, copy, any_size_policy<E, 32, 256, 6>{});
}

/// One shape of E-byte elements, two rounds: time_any_size_kernels, then copy_any_size with
/// each of Policies (tiles of wider rows, fewer L2 read sectors from covering chunks and halo
/// rows, or more blocks per SM than the library's).
template <int E, class... Policies>
void any_size_wide_sweep(std::int64_t rows, std::int64_t cols) {
  for (int round = 0; round < 2; ++round) {
    const float copy = time_any_size_kernels<E>(rows, cols);
    (policy_candidate<E>(
         rows, cols, copy, "copy_any_size R%d W%d T%d minb %d",
         {Policies::tile_rows, Policies::tile_bytes, Policies::threads, Policies::min_blocks},
         launch_any_size_with<E, Policies>),
     ...);
  }
}

/// copy_any_size's 3-, 5- and 7-byte tiles on the bench's shapes of those sizes: 256- and
/// 512-byte tile rows, and 128-byte ones at more blocks per SM.
void any_size_wide_sweeps() {
  for (auto [r, c] : {std::pair{16384, 16384},
                      {8192, 4096},
                      {16385, 4096},
                      {6001, 7001},
                      {1000001, 100},
                      {1000000, 128}})
    any_size_wide_sweep<3, any_size_policy<3, 64, 256, 3>, any_size_policy<3, 96, 256, 2>,
                        any_size_policy<3, 128, 256, 2>, any_size_policy<3, 32, 512, 2>,
                        any_size_policy<3, 64, 128, 8>>(r, c);
  for (auto [r, c] : {std::pair{6001, 7001}, {1000000, 65}, {100, 268435}})
    any_size_wide_sweep<5, any_size_policy<5, 64, 256, 3>, any_size_policy<5, 128, 256, 2>,
                        any_size_policy<5, 32, 512, 2>, any_size_policy<5, 64, 128, 8>>(r, c);
  for (auto [r, c] : {std::pair{6001, 7001}, {1000001, 75}})
    any_size_wide_sweep<7, any_size_policy<7, 64, 256, 3>, any_size_policy<7, 32, 512, 2>,
                        any_size_policy<7, 64, 512, 2>, any_size_policy<7, 32, 256, 8>>(r, c);
}

template <int... E>
void any_size_sweeps() {
  for (auto [r, c] : {std::pair{6001, 7001}, {8192, 8192}, {16, 3000000}, {64, 1000000}})
    (any_size_sweep<E>(r, c), ...);
}

/// One skinny shape of E-byte elements: time_any_size_kernels, then the library's
/// skinny_any_size and skinny_any_size with slabs of 16 and 32 KiB.
template <int E>
void skinny_any_size_sweep(std::int64_t rows, std::int64_t cols) {
  const float copy = time_any_size_kernels<E>(rows, cols);
  const std::int64_t bytes = rows * cols * E;
  const copy_args a = dense(rows, cols, buf_b);
  timed_candidate("skinny_any_size, the library's slabs", bytes, copy,
                  [&] { launch_copy_skinny_any_size(a, E, nullptr); });
  for (const int slab : {16 << 10, 32 << 10}) {
    char name[64];
    std::snprintf(name, sizeof name, "skinny_any_size slab %d KiB", slab >> 10);
    timed_candidate(name, bytes, copy, [&] { launch_copy_skinny_any_size(a, E, nullptr, slab); });
  }
}

/// Short sides 2, 8, 16, 32, 64; the long side at least 10^6 and about 96 MiB of data.
template <int... E>
void skinny_any_size_sweeps() {
  for (const std::int64_t side : {2, 8, 16, 32, 64}) {
    const auto long_side = [&](int e) {
      return std::max<std::int64_t>(1000000, (std::int64_t{96} << 20) / (side * e));
    };
    (skinny_any_size_sweep<E>(side, long_side(E)), ...);
    (skinny_any_size_sweep<E>(long_side(E), side), ...);
  }
}

/// One aligned shape of E-byte elements: the dispatch (named by the tiles it chooses), then
/// copy_tuned with the standard and with the large tiles, each checked against
/// copy_multi_element's output; three rounds.
template <int E>
void tiles_sweep(std::int64_t rows, std::int64_t cols) {
  const std::int64_t bytes = rows * cols * E;
  for (int round = 0; round < 3; ++round) {
    const float copy = time_copy_and_announce(E, rows, cols);
    cudaMemset(buf_c, 0x5A, bytes);
    launch_copy_seed_variant(dense(rows, cols, buf_c), E, xpose::route::copy_multi_element,
                             nullptr);
    const copy_args a = dense(rows, cols, buf_b);
    const bool large = choose_tuned_tiles(a, E) == tuned_tiles::large;
    timed_candidate(large ? "dispatch (large tiles)" : "dispatch (standard tiles)", bytes, copy,
                    [&] { launch_dispatch(a, E); });
    timed_candidate("standard tiles", bytes, copy,
                    [&] { launch_copy_tuned_tiles(a, E, tuned_tiles::standard, nullptr); });
    timed_candidate("large tiles", bytes, copy,
                    [&] { launch_copy_tuned_tiles(a, E, tuned_tiles::large, nullptr); });
  }
}

/// copy_unaligned's candidates per element size (tiles of B * 16 / E rows plus a halo of 32 / E,
/// W bytes wide; shared memory W * (B + 2) * 16 / E bytes): the library's standard and large
/// policies first, then smaller tiles at more blocks per SM, two rounds.
void unaligned_sweeps() {
  for (int round = 0; round < 2; ++round) {
    for (auto [r, c] : {std::pair{16383, 16385}, {32767, 8193}, {10007, 7001}, {23169, 23171}})
      shape_sweep<1, copy_unaligned_policy<1>, copy_unaligned_large<1>::policy,
                  unaligned_policy<6, 128, 128, 8>, unaligned_policy<14, 128, 128, 6>,
                  unaligned_policy<22, 128, 256, 4>, unaligned_policy<30, 128, 256, 3>,
                  unaligned_policy<6, 256, 256, 4>>(r, c);
    for (auto [r, c] : {std::pair{11583, 11585}, {16383, 8193}, {10007, 7001}})
      shape_sweep<2, copy_unaligned_policy<2>, copy_unaligned_large<2>::policy,
                  unaligned_policy<14, 128, 128, 8>, unaligned_policy<30, 128, 128, 6>,
                  unaligned_policy<6, 256, 128, 8>, unaligned_policy<30, 256, 256, 3>>(r, c);
    for (auto [r, c] : {std::pair{16383, 8193}, {8191, 8193}, {10007, 7001}})
      shape_sweep<4, copy_unaligned_policy<4>, copy_unaligned_large<4>::policy,
                  unaligned_policy<14, 256, 128, 8>, unaligned_policy<30, 128, 128, 8>,
                  unaligned_policy<14, 512, 256, 4>, unaligned_policy<30, 256, 256, 4>>(r, c);
    for (auto [r, c] : {std::pair{5791, 5793}, {8191, 8193}, {10007, 7001}})
      shape_sweep<8, copy_unaligned_policy<8>, unaligned_policy<30, 256, 128, 8>,
                  unaligned_policy<30, 512, 256, 4>, unaligned_policy<14, 512, 256, 4>,
                  unaligned_policy<62, 256, 256, 4>>(r, c);
  }
}

/// copy_sectors' and copy_tuned's candidates at more blocks per SM (the library's policy first),
/// two rounds.
void more_blocks_sweeps() {
  for (int round = 0; round < 2; ++round) {
    for (auto [r, c] : {std::pair{4095, 4097}, {3001, 7001}, {8191, 2049}})
      shape_sweep<16, copy_sectors_policy<device_class::other>, sectors_policy<32, 32, 256, 4>,
                  sectors_policy<32, 32, 128, 8>, sectors_policy<32, 32, 512, 2>>(r, c);
    for (auto [r, c] : {std::pair{8192, 8192}, {16384, 16384}, {8208, 8176}})
      shape_sweep<1, copy_tuned_policy<1>, tile_policy<64, 128, 128, 8>,
                  tile_policy<128, 128, 128, 8>, tile_policy<64, 256, 256, 4>>(r, c);
    for (auto [r, c] : {std::pair{8208, 8176}, {12304, 8176}})
      shape_sweep<2, copy_tuned_policy<2>, tile_policy<64, 128, 256, 4>,
                  tile_policy<32, 128, 128, 8>, tile_policy<128, 128, 256, 4>>(r, c);
  }
}

/// Short matrices of just over 128 MiB (columns a multiple of 16), then square and long ones.
void large_tiles_sweeps() {
  const auto cols_for = [](std::int64_t rows, int e) {
    return ((std::int64_t{1} << 27) / (rows * e) / 16 + 1) * 16;
  };
  for (const std::int64_t r : {128, 192, 224, 416, 1024, 2016, 10016})
    tiles_sweep<1>(r, cols_for(r, 1));
  for (auto [r, c] : {std::pair{8192, 8192}, {16384, 8192}, {16384, 16384}, {8192, 32768}})
    tiles_sweep<1>(r, c);
  for (const std::int64_t r : {64, 96, 208, 1008}) tiles_sweep<2>(r, cols_for(r, 2));
  for (auto [r, c] : {std::pair{8192, 8192}, {16384, 8192}, {11584, 11584}}) tiles_sweep<2>(r, c);
}

}  // namespace

int main(int argc, char** argv) {
  const bool odd_only = argc > 1 && std::strcmp(argv[1], "--odd-only") == 0;
  const bool profile = argc > 1 && std::strcmp(argv[1], "--profile") == 0;
  cudaMalloc(&buf_a, 1 << 30);
  cudaMalloc(&buf_b, 1 << 30);
  cudaMalloc(&buf_c, 1 << 30);
  fill_random<<<4096, 256>>>(buf_a, std::int64_t{1} << 30);
  cudaEventCreate(&ev_a);
  cudaEventCreate(&ev_b);
  cudaMalloc(&differences, sizeof *differences);
  if (profile) {
    cudaMemcpy(buf_b, buf_a, std::int64_t{10007} * 7001 * 4, cudaMemcpyDeviceToDevice);
    for (int e : {1, 2, 4, 8}) launch_dispatch(dense(10007, 7001, buf_b), e);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
  }
  // The sweeps a flag names; with no flag or --odd-only, the policy sweeps below.
  const struct {
    const char* flag;
    void (*run)();
  } modes[] = {
      {"--any-size", [] { any_size_sweeps<3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15>(); }},
      {"--any-size-wide", any_size_wide_sweeps},
      {"--large-tiles", large_tiles_sweeps},
      {"--more-blocks", more_blocks_sweeps},
      {"--unaligned", unaligned_sweeps},
      {"--skinny-any-size", [] { skinny_any_size_sweeps<3, 5, 6, 7, 12, 15>(); }},
  };
  for (const auto& mode : modes) {
    if (argc > 1 && std::strcmp(argv[1], mode.flag) == 0) {
      mode.run();
      return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
    }
  }
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
  // Odd shapes: the library's policy first, then candidates (tiles over 48 KiB take dynamic
  // shared memory; for 8-byte elements copy_sectors, the kernel they took before).
  for (auto [r, c] : {std::pair{16383, 16385}, {10007, 7001}, {8208, 8176}})
    shape_sweep<1, unaligned_policy<14, 128, 256, 4>, unaligned_policy<14, 256, 512, 2>,
                unaligned_policy<22, 256, 512, 2>>(r, c);
  for (auto [r, c] : {std::pair{11583, 11585}, {10007, 7001}})
    shape_sweep<2, unaligned_policy<6, 512, 512, 2>, unaligned_policy<14, 512, 512, 2>,
                unaligned_policy<6, 256, 256, 4>>(r, c);
  for (auto [r, c] : {std::pair{8191, 8193}, {10007, 7001}})
    shape_sweep<4, unaligned_policy<14, 512, 512, 2>, unaligned_policy<14, 256, 128, 6>,
                unaligned_policy<30, 512, 512, 2>>(r, c);
  for (auto [r, c] : {std::pair{5791, 5793}, {10007, 7001}})
    shape_sweep<8, unaligned_policy<30, 512, 512, 2>, sectors_policy<32, 32, 128, 8>,
                unaligned_policy<14, 512, 256, 4>>(r, c);
  for (auto [r, c] : {std::pair{4095, 4097}, {3001, 7001}})
    shape_sweep<16, sectors_policy<32, 32, 256, 2>, sectors_policy<32, 32, 128, 5>>(r, c);
  // Rows 16-byte aligned on both sides (destination rows on 32 bytes): copy_tuned.
  shape_sweep<1>(8192, 8192);
  shape_sweep<2>(8208, 8176);
  for (auto [r, c] : {std::pair{8192, 8192}, {4096, 4096}, {8208, 8176}})
    shape_sweep<4, tile_policy<64, 256, 256, 4>, tile_policy<128, 256, 512, 2>,
                tile_policy<128, 256, 256, 2>>(r, c);
  for (auto [r, c] : {std::pair{8192, 8192}, {8208, 8176}})
    shape_sweep<8, tile_policy<64, 256, 256, 4>, tile_policy<64, 512, 512, 2>,
                tile_policy<128, 256, 512, 2>>(r, c);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
