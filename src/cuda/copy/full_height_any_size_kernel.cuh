// The copy_full_height kernel for elements of 3 to 15 bytes that are not powers of two
// (instantiated per element size by copy/full_height_any_size.cu): out-of-place
// transposition (more work per thread, as in the lecture slides "Matrix Transpose — get 90%
// bandwidth") of short, wide matrices whose tile covers every row, as
// copy/full_height_kernel.cuh does for 1-, 2-, 4- and 8-byte elements.
//
// copy_any_size cuts each destination row at its tile height (64 or 32 rows), so a matrix of a
// few rows more leaves its last tile row nearly empty, and cuts destination rows that do not end
// on 32 bytes mid-sector; the skinny slabs do no better on these shapes (3-byte 250 x 178957:
// 0.67 x copy on copy_any_size, 3-byte 65 x 688297: 0.71 on the slabs).
//
// A tile is all `rows` source rows (padded to a multiple of 4) x C = W / E columns (a row segment
// of C * E <= W bytes), kept in shared memory column by column: a column is a run of consecutive
// bytes, as in the destination, its pitch an odd number of words.
// Load: copy_any_size's (load_element_pieces: each row segment read as the aligned 16-byte
// chunks that cover it, shifted in registers so that the elements starting in a chunk sit at
// compile-time offsets, each element's 4 rows stored as E words), only the 4-row groups that
// hold rows.
// Store: copy_full_height's (store_column_run, store_each_column) in bytes: a dense destination
// as the aligned 16-byte chunks that cover the block's run, straddling chunks merged from two
// columns, only the run's two ends byte by byte; other destinations column by column.
// Column strips in order or in interleaved regions, as copy_full_height's (full_height_regions).
// 64-bit global index math; no load reaches past the matrix's last byte, and none before the
// aligned 16-byte chunk of its first (up to 15 bytes before a misaligned first row, never
// stored).
#pragma once

#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/copy/any_size_kernel.cuh"
#include "cuda/copy/full_height_kernel.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

template <int E, class Policy>
struct full_height_any_size_tile {
  static constexpr int threads = Policy::threads;
  static constexpr int W = Policy::tile_bytes;
  static constexpr int C = W / E;  ///< tile columns
  static constexpr int chunks_per_row = W / 16;
  static constexpr int G = 4;  ///< rows a lane loads together
  /// Bytes before column 0 (a chunk's read may start up to 15 bytes before a column) and after
  /// the last column (a read of 16 bytes at any offset takes five words).
  static constexpr int front = 16, back = 32;
  static_assert(E >= 3 && E <= 15 && (E & (E - 1)) != 0, "3 to 15 bytes, not a power of two");
  static_assert(32 % chunks_per_row == 0 && chunks_per_row >= 4, "whole rows per warp");
  static_assert(threads % 32 == 0, "whole warps");

  /// Tile rows: `rows` rounded up to whole load groups.
  __host__ __device__ static int padded_rows(int rows) { return (rows + G - 1) / G * G; }
  /// Bytes from one column to the next: an odd number of words, so that the lanes of a load
  /// step, which store to different columns, spread over the banks.
  __host__ __device__ static int pitch(int rows) {
    const int words = padded_rows(rows) * E / 4;
    return 4 * (words | 1);
  }
  __host__ __device__ static int shared_bytes(int rows) { return front + C * pitch(rows) + back; }

  /// Source rows 0 .. rows-1 of the tile at `src` (row r at src + r * ld bytes), columns 0 ..
  /// C-1, into shared memory column by column, in whole load groups of G rows (those past `rows`
  /// zero). `src_end` is one past the matrix's last byte; `all_columns`: every covering chunk of
  /// rows but the last lies before it.
  __device__ static void load(unsigned char* tile, const unsigned char* src, std::int64_t ld,
                              int rows, bool all_columns, const unsigned char* src_end) {
    const int pitch_bytes = pitch(rows);
    const int items = (rows + G - 1) / G * chunks_per_row;
    constexpr int rows_per_step = threads / chunks_per_row * G;
    const auto column_at = [&](int c) { return front + c * pitch_bytes; };
#pragma unroll 1  // one step's loads at a time, as copy_any_size
    for (int first = 0, step_row = 0; first < items; first += threads, step_row += rows_per_step) {
      const int item = first + threadIdx.x;
      const bool active = item < items;
      const int g = item / chunks_per_row, j = item % chunks_per_row;
      const unsigned char* first_row = src + g * G * ld;
      // Whole steps above the last row: no bounds to check (the block decides, so the warps'
      // shuffles stay converged).
      if (all_columns && step_row + rows_per_step < rows)
        load_element_pieces<E, chunks_per_row, C, true, false>(tile, first_row, ld, j, active, G,
                                                               src_end, g * G * E, column_at);
      else
        load_element_pieces<E, chunks_per_row, C, false, false>(
            tile, first_row, ld, j, active, rows - g * G, src_end, g * G * E, column_at);
    }
  }
};

template <int E, class Policy, bool IN_REGIONS>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_full_height_any_size_kernel(const unsigned char* __restrict__ src,
                                               unsigned char* __restrict__ dst, std::int64_t batch,
                                               int rows, std::int64_t cols, std::int64_t lda,
                                               std::int64_t ldb, std::int64_t src_stride,
                                               std::int64_t dst_stride, float inverse_column_bytes,
                                               unsigned regions, unsigned length) {
  using tile_t = full_height_any_size_tile<E, Policy>;
  extern __shared__ __align__(16) unsigned char tile[];  // tile_t::shared_bytes(rows)
  std::int64_t c0 = std::int64_t{blockIdx.x} * tile_t::C;
  if constexpr (IN_REGIONS) {
    c0 = std::int64_t{region_tile(blockIdx.x, length, regions)} * tile_t::C;
    if (c0 >= cols) return;  // past the last strip, in the last region
  }
  const int valid_cols = static_cast<int>(cols - c0 < tile_t::C ? cols - c0 : tile_t::C);
  const int pitch_bytes = tile_t::pitch(rows);
  const auto column_at = [&](int c) { return tile_t::front + c * pitch_bytes; };
  for (std::int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const unsigned char* matrix = src + b * src_stride * E;
    const unsigned char* matrix_end = matrix + ((rows - 1) * lda + cols) * E;
    tile_t::load(tile, matrix + c0 * E, lda * E, rows, valid_cols == tile_t::C, matrix_end);
    __syncthreads();
    unsigned char* to = dst + (b * dst_stride + c0 * ldb) * E;
    if (ldb == rows)
      store_column_run<1, tile_t::threads>(tile, column_at, to, rows * E, valid_cols,
                                           inverse_column_bytes);
    else
      store_each_column<1, tile_t::threads>(tile, column_at, to, ldb * E, rows * E, valid_cols);
    __syncthreads();
  }
}

/// Rows of 16 bytes or more that full_height_any_size_tile_width gives a width, and this policy's
/// tile within shared memory (the callers check); the strips in `regions` interleaved regions (1:
/// in order).
template <int E, class Policy>
void launch_full_height_any_size_with(const copy_args& a, cudaStream_t stream, unsigned regions) {
  using tile_t = full_height_any_size_tile<E, Policy>;
  const int rows = static_cast<int>(a.rows);
  const int shared = tile_t::shared_bytes(rows);
  const auto kernel = regions == 1 ? copy_transpose_full_height_any_size_kernel<E, Policy, false>
                                   : copy_transpose_full_height_any_size_kernel<E, Policy, true>;
  constexpr const char* name = "copy_transpose_full_height_any_size_kernel launch";
  launch_with_shared(kernel, full_height_grid(a, tile_t::C, regions), tile_t::threads, shared,
                     stream, name, static_cast<const unsigned char*>(a.src),
                     static_cast<unsigned char*>(a.dst), a.batch, rows, a.cols, a.lda, a.ldb,
                     a.src_stride, a.dst_stride, 1.0f / static_cast<float>(rows * E), regions,
                     full_height_region_length(a, tile_t::C, regions));
}

}  // namespace xpose::detail::cuda
