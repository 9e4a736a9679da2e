// The copy_full_width kernel (instantiated per element size by copy/full_width.cu):
// out-of-place transposition (more work per thread, as in the lecture slides "Matrix Transpose
// — get 90% bandwidth") of tall, narrow matrices of 1-, 2-, 4- and 8-byte elements, rows of any
// alignment, whose tile covers every column: the mirror of copy_full_height. copy_unaligned's tiles
// are a fixed number of bytes wide, so a row of a few hundred bytes leaves its last column tile
// mostly empty (1-byte 1040417 x 129: one full tile and one of one column per tile row) while every
// tile pays for whole loads.
//
// A tile is R = B * P source rows (P = 16 / E rows per 16-byte vector, B even; B chosen per
// shape so the tile fits full_width_tile_budget), plus a halo of 2P rows below it, times every
// column, kept in shared memory column by column as copy_unaligned keeps it.
// Load: copy_unaligned's (load_column_pieces), with any number n of 16-byte chunks per row: a
// lane reads the aligned chunk that covers its chunk of 4 rows and takes the next one from the
// next lane (__shfl_down_sync), or reads it too where that lane holds another row or warp; the
// two are funnel-shifted by the row's misalignment and the 4 x P elements transposed in
// registers into P column pieces of 4 rows.
// Store: copy_unaligned's: each destination row (a tile column) cut at its own 32-byte
// boundaries, the tile owning the sectors that start in its R rows (reaching up to 2P - 1 rows
// into the halo), each written whole by two neighbouring lanes; the first tile also writes the
// elements before each destination row's first boundary. Only chunks cut by the matrix's last
// row take element stores.
// 64-bit global index math; pointers element-aligned; no load reaches past the matrix's last
// byte, and none before the aligned 16-byte chunk of its first (up to 15 bytes before a
// misaligned first row, never stored).
#pragma once

#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/copy/skinny_any_size_kernel.cuh"
#include "cuda/copy/unaligned_kernel.cuh"

namespace xpose::detail::cuda {

template <int E, int THREADS>
struct full_width_tile {
  using element = element_t<E>;
  static constexpr int threads = THREADS;
  static constexpr int P = 16 / E;
  static constexpr int G = 4;  ///< rows a lane loads together

  static_assert(threads % 32 == 0, "whole warps");

  /// 16-byte chunks of a row of `cols` elements.
  __host__ __device__ static int chunks(int cols) { return (cols * E + 15) / 16; }
  /// Bytes of one column: R rows and the halo of 2P, (B + 2) * 16.
  __host__ __device__ static int pitch(int row_blocks) { return (row_blocks + 2) * 16; }
  /// The columns of whole chunks with their bank offsets, and the word read past the last.
  __host__ __device__ static int shared_bytes(int cols, int row_blocks) {
    return chunks(cols) * P * pitch(row_blocks) + 16 * chunks(cols) + 16;
  }
  __device__ static int column_start(int c, int pitch_bytes) {
    return c * pitch_bytes + 16 * (c / P);
  }

  /// Source rows 0 .. rows_here - 1 (at most (B + 2) * P) of the tile at `src`, every column,
  /// into shared memory column by column. INSIDE: rows below the tile's halo exist, so every
  /// covering chunk lies before `src_end`: no checks.
  template <bool INSIDE>
  __device__ static void load(unsigned char* tile, const element* src, std::int64_t ld, int cols,
                              int row_blocks, int rows_here, const unsigned char* src_end) {
    const int n = chunks(cols), pitch_bytes = pitch(row_blocks);
    const int items = (row_blocks + 2) * P / G * n;
#pragma unroll 1  // one step's loads at a time, as copy_unaligned
    for (int first = 0; first < items; first += threads) {
      const int item = first + threadIdx.x;
      const bool active = item < items;
      const int g = item / n, j = item - g * n;
      load_column_pieces<E, 0, INSIDE>(
          tile, reinterpret_cast<const unsigned char*>(src + g * G * ld), ld * E, j, active,
          rows_here - g * G, src_end, g * G * E,
          [&](int c) { return column_start(c, pitch_bytes); }, n);
    }
  }

  /// The destination chunks this tile owns (copy_unaligned's store_transposed with `cols`
  /// columns and B chunks of each): tile element (r, c) goes to dst[c * ld + r]; `rows_left` =
  /// source rows from the tile's first row to the matrix's end; `first_tile_row`: the tile
  /// starts at row 0 and also writes the rows before each destination row's first boundary.
  template <bool INSIDE>
  __device__ static void store(const unsigned char* tile, element* dst, std::int64_t ld, int cols,
                               int row_blocks, std::int64_t rows_left, bool first_tile_row) {
    const int pitch_bytes = pitch(row_blocks);
    for (split_index cq(threadIdx.x, threads, row_blocks); cq.major < cols; cq.advance()) {
      const int c = cq.major, q = cq.minor;
      store_owned_chunk<E, INSIDE>(tile, column_start(c, pitch_bytes), dst + c * ld, q, rows_left,
                                   first_tile_row);
    }
  }
};

template <int E, int THREADS>
__global__ void __launch_bounds__(THREADS)
    copy_transpose_full_width_kernel(const element_t<E>* __restrict__ src,
                                     element_t<E>* __restrict__ dst, std::int64_t batch,
                                     std::int64_t rows, int cols, std::int64_t lda,
                                     std::int64_t ldb, std::int64_t src_stride,
                                     std::int64_t dst_stride, int row_blocks) {
  using tile_t = full_width_tile<E, THREADS>;
  extern __shared__ __align__(16) unsigned char tile[];  // tile_t::shared_bytes(cols, row_blocks)
  const int tile_rows = row_blocks * tile_t::P, smem_rows = tile_rows + 2 * tile_t::P;
  const std::int64_t r0 = std::int64_t{blockIdx.x} * tile_rows;
  const std::int64_t rows_left = rows - r0;
  const int rows_here = static_cast<int>(rows_left < smem_rows ? rows_left : smem_rows);
  for (std::int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const element_t<E>* matrix = src + b * src_stride;
    const auto* matrix_end =
        reinterpret_cast<const unsigned char*>(matrix + (rows - 1) * lda + cols);
    const element_t<E>* from = matrix + r0 * lda;
    element_t<E>* to = dst + b * dst_stride + r0;
    if (rows_left > smem_rows) {
      tile_t::template load<true>(tile, from, lda, cols, row_blocks, rows_here, matrix_end);
      __syncthreads();
      tile_t::template store<true>(tile, to, ldb, cols, row_blocks, rows_left, r0 == 0);
    } else {
      tile_t::template load<false>(tile, from, lda, cols, row_blocks, rows_here, matrix_end);
      __syncthreads();
      tile_t::template store<false>(tile, to, ldb, cols, row_blocks, rows_left, r0 == 0);
    }
    __syncthreads();
  }
}

/// Row blocks of a copy_full_width tile of `cols` columns of E-byte elements within `budget`
/// bytes of shared memory: the most, even (for 8-byte elements 2 more than a multiple of 4, so
/// that P * pitch is a multiple of 128 and column_start spreads a store's pieces over the
/// banks), at least 2; 0 when not even 2 fit.
template <int E, int THREADS>
int full_width_row_blocks(int cols, int budget, int most) {
  using tile_t = full_width_tile<E, THREADS>;
  const int step = E == 8 ? 4 : 2;
  int best = 0;
  for (int b = 2; b <= most; b += step)
    if (tile_t::shared_bytes(cols, b) <= budget) best = b;
  return best;
}

template <int E, int THREADS>
void launch_full_width_with(const copy_args& a, int row_blocks, cudaStream_t stream) {
  using tile_t = full_width_tile<E, THREADS>;
  const int cols = static_cast<int>(a.cols);
  const int shared = tile_t::shared_bytes(cols, row_blocks);
  const auto kernel = copy_transpose_full_width_kernel<E, THREADS>;
  constexpr const char* name = "copy_transpose_full_width_kernel launch";
  const std::int64_t tile_rows = std::int64_t{row_blocks} * tile_t::P;
  const dim3 grid(static_cast<unsigned>((a.rows + tile_rows - 1) / tile_rows),
                  static_cast<unsigned>(a.batch < 65535 ? a.batch : 65535));
  launch_with_shared(kernel, grid, THREADS, shared, stream, name,
                     static_cast<const element_t<E>*>(a.src), static_cast<element_t<E>*>(a.dst),
                     a.batch, a.rows, cols, a.lda, a.ldb, a.src_stride, a.dst_stride, row_blocks);
}

}  // namespace xpose::detail::cuda
