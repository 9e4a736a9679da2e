// The copy_full_height kernel template (instantiated per element size by
// copy/full_height.cu): out-of-place transposition (more work per thread, as in the lecture
// slides "Matrix Transpose — get 90% bandwidth") of short, wide matrices of 1-, 2-, 4-
// and 8-byte elements, rows of any alignment, whose tile covers every row: a destination row is
// then written by one block only, and with a dense destination (ldb == rows) a block's columns
// are one contiguous run of the destination.
//
// copy_unaligned cuts each destination row at the tile height; where a destination row is a few
// hundred bytes and does not end on a 32-byte boundary, the sector it shares with the next row is
// written in halves by two tiles, and each row's first bytes element by element (1-byte 417 x
// 400001: 0.72 x copy there, against 0.93 for 416 x 400001).
//
// A tile is all `rows` source rows (padded to a multiple of 8) x W bytes, kept in shared memory
// column by column as copy_unaligned keeps it (a column of the tile is a run of consecutive
// bytes, as in the destination; column c starts 16 + c * pitch + 16 * (c / P) bytes in, so that
// a store instruction's pieces fall in distinct banks).
// Load: copy_unaligned's (load_column_pieces: each row segment read as the aligned 16-byte
// chunks that cover it, shifted in registers by the row's misalignment; a lane transposes 4 rows
// x 16 bytes into 16 / E column pieces of 4 rows), only the 4-row groups that hold rows.
// Store, dense destination: the block's run of valid_cols * rows elements is written as the
// aligned 16-byte chunks that cover it; a chunk that straddles two columns is read from both
// (16 bytes at any offset from each) and merged, so only the run's two ends take element
// stores. Other destinations: each column (destination row) as the aligned chunks that cover
// it, its two ends element by element.
// Block x takes column strip x, or in a second instantiation (IN_REGIONS) the strips in
// interleaved regions where the source rows resonate with the memory (region_tile,
// full_height_regions): the plain order keeps its own code (one kernel for both, the order a
// parameter, is 0.007-0.008 x copy slower).
// 64-bit global index math; pointers element-aligned; no load reaches past the matrix's last
// byte, and none before the aligned 16-byte chunk of its first (up to 15 bytes before a
// misaligned first row, never stored).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/column_tiles.cuh"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/copy/skinny_any_size_kernel.cuh"
#include "cuda/copy/unaligned_kernel.cuh"

namespace xpose::detail::cuda {

/// copy_full_height's tile shape: W bytes of each source row, THREADS per block, MIN_BLOCKS
/// resident blocks per SM asked of ptxas (which caps the registers; 0: none asked).
template <int W, int THREADS, int MIN_BLOCKS = 0>
struct full_height_policy {
  static constexpr int tile_bytes = W, threads = THREADS, min_blocks = MIN_BLOCKS;
};

/// Bytes 0 .. keep-1 of `a` and keep .. 15 of `b` (keep 0 .. 16).
__device__ __forceinline__ uint4 merge_chunks(const uint4& a, const uint4& b, int keep) {
  const unsigned x[4] = {a.x, a.y, a.z, a.w}, y[4] = {b.x, b.y, b.z, b.w};
  unsigned out[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const int bytes_of_a = min(max(keep - 4 * w, 0), 4);
    const unsigned mask = bytes_of_a == 4 ? ~0u : (1u << (8 * bytes_of_a)) - 1;
    out[w] = (x[w] & mask) | (y[w] & ~mask);
  }
  return make_uint4(out[0], out[1], out[2], out[3]);
}

/// Units [from, to) (bytes; 0 <= from < to <= 16, multiples of U) of `v` to chunk[from ..], U
/// bytes at a time.
template <int U>
__device__ __forceinline__ void store_chunk_part(unsigned char* chunk, const uint4& v, int from,
                                                 int to) {
  const element_t<U>* parts = reinterpret_cast<const element_t<U>*>(&v);
#pragma unroll
  for (int i = 0; i < 16 / U; ++i)
    if (i * U >= from && i * U < to) reinterpret_cast<element_t<U>*>(chunk)[i] = parts[i];
}

/// Columns 0 .. valid_cols-1 of a tile kept column by column (column c's units from byte
/// column_at(c), any offset; 16 readable bytes before column 0 and 32 after the last) to the
/// dense run at `dst`, unit u of column c at dst[c * column_units + u], by THREADS threads: the
/// aligned 16-byte chunks that cover the run, a chunk that straddles two columns read from both
/// (16 bytes at any offset from each) and merged, so only the run's two ends are stored U bytes
/// at a time. U: the store unit (the element for 1-, 2-, 4- and 8-byte elements, a byte for the
/// others), column_units * U >= 16 (a chunk meets two columns at most); inverse_column_units =
/// 1 / column_units.
template <int U, int THREADS, class ColumnAt>
__device__ __forceinline__ void store_column_run(const unsigned char* tile, ColumnAt column_at,
                                                 element_t<U>* dst, int column_units,
                                                 int valid_cols, float inverse_column_units) {
  const int shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(dst) & 15);
  unsigned char* aligned = reinterpret_cast<unsigned char*>(dst) - shift;
  const int run_bytes = valid_cols * column_units * U;
  const int chunks = (shift + run_bytes + 15) / 16;
  for (int k = threadIdx.x; k < chunks; k += THREADS) {
    const int at = 16 * k - shift;  // the chunk's first byte in the run (from -15)
    const int first = at >= 0 ? at / U : -((-at) / U);
    // c = floor(first / column_units), from a float estimate off by at most one.
    int c = __float2int_rd(static_cast<float>(first) * inverse_column_units);
    int r = first - c * column_units;
    if (r < 0) --c, r += column_units;
    if (r >= column_units) ++c, r -= column_units;
    if (c < 0) c = 0, r = first;  // the run's first chunk, starting before it
    uint4 v = read_tile_chunk<U>(tile, column_at(c) + r * U);
    const int in_column = (column_units - r) * U;  // bytes of the chunk in column c
    if (in_column < 16)
      v = merge_chunks(v, read_tile_chunk<U>(tile, column_at(c + 1) - in_column), in_column);
    if (at >= 0 && at + 16 <= run_bytes)
      __stcg(reinterpret_cast<uint4*>(aligned + 16 * k), v);
    else
      store_chunk_part<U>(aligned + 16 * k, v, max(-at, 0), min(run_bytes - at, 16));
  }
}

/// As store_column_run, column c (c < valid_cols) to dst + c * ld (units) instead: the aligned
/// 16-byte chunks that cover each column, its two ends stored U bytes at a time.
template <int U, int THREADS, class ColumnAt>
__device__ __forceinline__ void store_each_column(const unsigned char* tile, ColumnAt column_at,
                                                  element_t<U>* dst, std::int64_t ld,
                                                  int column_units, int valid_cols) {
  const int column_bytes = column_units * U;
  const int chunks = column_bytes / 16 + 2;  // covering a column, at most
  for (split_index cq(threadIdx.x, THREADS, chunks); cq.major < valid_cols; cq.advance()) {
    const int c = cq.major;
    auto* column = reinterpret_cast<unsigned char*>(dst + c * ld);
    const int shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(column) & 15);
    const int at = 16 * cq.minor - shift;
    if (at >= column_bytes) continue;
    const uint4 v = read_tile_chunk<U>(tile, column_at(c) + at);
    if (at >= 0 && at + 16 <= column_bytes)
      __stcg(reinterpret_cast<uint4*>(column + at), v);
    else
      store_chunk_part<U>(column + at, v, max(-at, 0), min(column_bytes - at, 16));
  }
}

template <int E, class Policy>
struct full_height_tile {
  using element = element_t<E>;
  static constexpr int threads = Policy::threads;
  static constexpr int P = 16 / E;  ///< elements in one 16-byte chunk
  static constexpr int W = Policy::tile_bytes;
  static constexpr int C = W / E;  ///< tile columns
  static constexpr int chunks_per_row = W / 16;
  static constexpr int G = 4;  ///< rows a lane loads together
  static constexpr int row_quantum = 8;
  /// Bytes before column 0 (a chunk's read may start up to 15 bytes before a column) and after
  /// the last column (a read of 16 bytes at any offset takes five words).
  static constexpr int front = 16, back = 32;
  static_assert(32 % chunks_per_row == 0 && chunks_per_row >= 4, "whole rows per warp");
  static_assert(threads % 32 == 0, "whole warps");

  /// Tile rows: `rows` rounded up to row_quantum (whole load groups; P * pitch a multiple of 128
  /// for every E, so column_start spreads a store's pieces over the banks).
  __host__ __device__ static int padded_rows(int rows) {
    return (rows + row_quantum - 1) / row_quantum * row_quantum;
  }
  __host__ __device__ static int pitch(int rows) { return padded_rows(rows) * E; }
  __host__ __device__ static int shared_bytes(int rows) {
    return front + C * pitch(rows) + 16 * (C / P) + back;
  }
  __device__ static int column_start(int c, int pitch) { return front + c * pitch + 16 * (c / P); }

  /// Source rows 0 .. rows-1 of the tile at `src` (row r at src + r * ld), columns 0 .. C-1,
  /// into shared memory column by column, in whole load groups of G rows (those past `rows`
  /// zero; the padding rows after them are left as they are: the stores never take them).
  /// `src_end` is one past the matrix's last byte; `all_columns`: every covering chunk of rows
  /// but the last lies before it.
  __device__ static void load(unsigned char* tile, const element* src, std::int64_t ld, int rows,
                              bool all_columns, const unsigned char* src_end) {
    const int pitch_bytes = pitch(rows);
    const int items = (rows + G - 1) / G * chunks_per_row;
    constexpr int rows_per_step = threads / chunks_per_row * G;
#pragma unroll 1  // one step's loads at a time, as copy_unaligned
    for (int first = 0, step_row = 0; first < items; first += threads, step_row += rows_per_step) {
      const int item = first + threadIdx.x;
      const bool active = item < items;
      const int g = item / chunks_per_row, j = item % chunks_per_row;
      const auto* first_row = reinterpret_cast<const unsigned char*>(src + g * G * ld);
      const auto column_at = [&](int c) { return column_start(c, pitch_bytes); };
      // Whole steps above the last row: no bounds to check (the block decides, so the warps'
      // shuffles stay converged).
      if (all_columns && step_row + rows_per_step < rows)
        load_column_pieces<E, chunks_per_row, true>(tile, first_row, ld * E, j, active, G, src_end,
                                                    g * G * E, column_at);
      else
        load_column_pieces<E, chunks_per_row, false>(tile, first_row, ld * E, j, active,
                                                     rows - g * G, src_end, g * G * E, column_at);
    }
  }

  /// Dense destination: columns 0 .. valid_cols-1 of the tile to the run at `dst`, element
  /// (r, c) at dst[c * rows + r].
  __device__ static void store_run(const unsigned char* tile, element* dst, int rows,
                                   int valid_cols, float inverse_rows) {
    const int pitch_bytes = pitch(rows);
    store_column_run<E, threads>(
        tile, [&](int c) { return column_start(c, pitch_bytes); }, dst, rows, valid_cols,
        inverse_rows);
  }

  /// Other destinations: column c (c < valid_cols) to dst + c * ld, rows elements each.
  __device__ static void store_columns(const unsigned char* tile, element* dst, std::int64_t ld,
                                       int rows, int valid_cols) {
    const int pitch_bytes = pitch(rows);
    store_each_column<E, threads>(
        tile, [&](int c) { return column_start(c, pitch_bytes); }, dst, ld, rows, valid_cols);
  }
};

template <int E, class Policy, bool IN_REGIONS>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_full_height_kernel(const element_t<E>* __restrict__ src,
                                      element_t<E>* __restrict__ dst, std::int64_t batch, int rows,
                                      std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                                      std::int64_t src_stride, std::int64_t dst_stride,
                                      float inverse_rows, unsigned regions, unsigned length) {
  using tile_t = full_height_tile<E, Policy>;
  extern __shared__ __align__(16) unsigned char tile[];  // tile_t::shared_bytes(rows)
  std::int64_t c0 = std::int64_t{blockIdx.x} * tile_t::C;
  if constexpr (IN_REGIONS) {
    c0 = std::int64_t{region_tile(blockIdx.x, length, regions)} * tile_t::C;
    if (c0 >= cols) return;  // past the last strip, in the last region
  }
  const int valid_cols = static_cast<int>(cols - c0 < tile_t::C ? cols - c0 : tile_t::C);
  for (std::int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const element_t<E>* matrix = src + b * src_stride;
    const auto* matrix_end =
        reinterpret_cast<const unsigned char*>(matrix + (rows - 1) * lda + cols);
    tile_t::load(tile, matrix + c0, lda, rows, valid_cols == tile_t::C, matrix_end);
    __syncthreads();
    element_t<E>* to = dst + b * dst_stride + c0 * ldb;
    if (ldb == rows)
      tile_t::store_run(tile, to, rows, valid_cols, inverse_rows);
    else
      tile_t::store_columns(tile, to, ldb, rows, valid_cols);
    __syncthreads();
  }
}

/// The column strips of copy_full_height's tiles of `tile_cols` columns in each of `regions`
/// interleaved regions (block/column_tiles.cuh's region_length).
inline unsigned full_height_region_length(const copy_args& a, int tile_cols, unsigned regions) {
  return region_length(static_cast<unsigned>((a.cols + tile_cols - 1) / tile_cols), regions);
}

/// The grid of copy_full_height's kernels: x over the column strips of `tile_cols` columns, in
/// `regions` interleaved regions (block x takes strip region_tile(x, ...); a strip is one tile),
/// y over the matrices (at most 65535, the blocks looping over the rest).
inline dim3 full_height_grid(const copy_args& a, int tile_cols, unsigned regions) {
  return dim3(full_height_region_length(a, tile_cols, regions) * regions,
              static_cast<unsigned>(a.batch < 65535 ? a.batch : 65535));
}

/// Whether `threads` threads load a copy_full_height tile of `rows` rows x `tile_bytes` bytes
/// (16-byte chunks of 4-row groups) in two steps where 256 threads take three: a step's loads wait
/// for the step before, so the launchers take such thread counts there.
inline bool loads_in_two_steps_of(std::int64_t rows, int tile_bytes, int threads) {
  const std::int64_t items = (rows + 3) / 4 * (tile_bytes / 16);
  return items > 2 * 256 && items <= 2 * threads;
}

/// f(std::integral_constant<int, W>{}) for copy_full_height's tile width W: 512, 256, 128, else
/// 64.
template <class F>
void with_full_height_width(int width, F&& f) {
  switch (width) {
    case 512:
      return f(std::integral_constant<int, 512>{});
    case 256:
      return f(std::integral_constant<int, 256>{});
    case 128:
      return f(std::integral_constant<int, 128>{});
    default:
      return f(std::integral_constant<int, 64>{});
  }
}

/// Rows that full_height_fits, and this policy's tile within shared memory (the callers check);
/// the strips in `regions` interleaved regions (1: in order).
template <int E, class Policy>
void launch_full_height_with(const copy_args& a, cudaStream_t stream, unsigned regions) {
  using tile_t = full_height_tile<E, Policy>;
  const int rows = static_cast<int>(a.rows);
  const int shared = tile_t::shared_bytes(rows);
  const auto kernel = regions == 1 ? copy_transpose_full_height_kernel<E, Policy, false>
                                   : copy_transpose_full_height_kernel<E, Policy, true>;
  constexpr const char* name = "copy_transpose_full_height_kernel launch";
  launch_with_shared(kernel, full_height_grid(a, tile_t::C, regions), tile_t::threads, shared,
                     stream, name, static_cast<const element_t<E>*>(a.src),
                     static_cast<element_t<E>*>(a.dst), a.batch, rows, a.cols, a.lda, a.ldb,
                     a.src_stride, a.dst_stride, 1.0f / static_cast<float>(rows), regions,
                     full_height_region_length(a, tile_t::C, regions));
}

}  // namespace xpose::detail::cuda
