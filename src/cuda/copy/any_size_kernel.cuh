// The copy_any_size kernel template (instantiated per element size by copy/any_size.cu
// and, with candidate policies, by bench/device_tune_policies.cu): out-of-place transposition
// of elements of E = 3 to 15 bytes that are not powers of two (3, 5, 6, 7, 9-15), rows of any
// alignment, with 16-byte global loads and stores (more work per thread, as in the lecture
// slides "Matrix Transpose — get 90% bandwidth", taken to Hopper's 16-byte accesses like
// copy_unaligned; the super-elements of copy/super_elements.cu moved as runs of bytes rather than
// word by word).
//
// A tile is R source rows x C = W / E columns (a row segment of C * E <= W bytes; fewer where the
// policy names them, any_size_columns, and the chunks past the segment are not read), plus a halo
// of ceil(31 / E) rows below it (not loaded when every destination row starts on 32 bytes), kept in
// shared memory column by column: a column is a run of consecutive bytes, as in the
// destination, one element of E bytes per row.
// Load: a warp's lanes take the W / 16 aligned 16-byte chunks that cover a row segment of 4
// consecutive rows; each lane funnel-shifts its chunk j and the next (from the next lane) by the
// row's misalignment into the segment's logical chunk j, gets logical chunk j + 1 from the next
// lane, and shifts the 32 bytes again so that the first element starting in chunk j sits at
// byte 0 (a run-time shift below E: which element that is depends on the lane). The elements
// starting in chunk j then lie at compile-time byte offsets u * E (u < ceil(16 / E)); for each,
// the E bytes of the 4 rows (4E bytes, E words: rows 4g..4g+3 of one column are word-aligned for
// every E) are gathered with funnel shifts and byte permutes and stored as E words. No element
// starting in a row segment ends past it (C * E <= W), so the segment's last lane needs no
// chunk after its own.
// Store: as copy_unaligned's: each destination row (a tile column) is cut at its own 32-byte
// boundaries, and the tile owns the 32-byte sectors that start in its R rows' R * E bytes (a
// multiple of 32), each written whole by two neighbouring lanes of one instruction from 16
// consecutive bytes of the column (five word reads funnel-shifted by the offset); the lanes of a
// column stay on it for all its chunks. Only chunks cut by the matrix's first or last row are
// written in smaller aligned pieces (store_bytes_to_sector, store_first_bytes).
// Shared memory: the column pitch is an odd number of words, and every 32 columns start a few
// words further (spread, chosen at compile time) where that spreads the load's stores over more
// banks (3- and 7-byte elements). Tiles from the grid (block/column_tiles.cuh). 64-bit index math;
// the covering chunks of a row segment lie in the pages of the segment.
#pragma once

#include <cstdint>

#include "cuda/block/column_tiles.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/copy/unaligned_kernel.cuh"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

/// Words n = 0 .. N-1 of the 32 bytes lo, hi shifted down by `shift` bytes (0 .. 15): out[n] =
/// bytes [4n + shift, 4n + shift + 4), zero past the 32 bytes.
template <int N>
__device__ __forceinline__ void shift_bytes_down(const uint4& lo, const uint4& hi, int shift,
                                                 unsigned (&out)[N]) {
  unsigned a[N + 4];
#pragma unroll
  for (int i = 0; i < N + 4; ++i) {
    const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    a[i] = i < 8 ? w[i] : 0u;
  }
  unsigned by8[N + 2], by4[N + 1];
#pragma unroll
  for (int i = 0; i < N + 2; ++i) by8[i] = (shift & 8) ? a[i + 2] : a[i];
#pragma unroll
  for (int i = 0; i < N + 1; ++i) by4[i] = (shift & 4) ? by8[i + 1] : by8[i];
  const unsigned bits = (shift & 3) * 8;
#pragma unroll
  for (int n = 0; n < N; ++n) out[n] = __funnelshift_r(by4[n], by4[n + 1], bits);
}

/// Bytes [s, s + 4) of `row` (s a compile-time constant after unrolling).
template <int N>
__device__ __forceinline__ unsigned four_bytes_at(const unsigned (&row)[N], int s) {
  return s % 4 == 0 ? row[s / 4] : __funnelshift_r(row[s / 4], row[s / 4 + 1], 8 * (s % 4));
}

/// Word w (bytes [4w, 4w + 4), w < E) of four E-byte elements laid end to end, element i being
/// bytes [first, first + E) of elements[i] (first and w compile-time constants after unrolling;
/// N covers four_bytes_at's spare word).
template <int E, int N>
__device__ __forceinline__ unsigned four_elements_word(const unsigned (&elements)[4][N], int first,
                                                       int w) {
  const int p = 4 * w, i = p / E, left = E - p % E;  // bytes of element i from byte p on
  const unsigned head = four_bytes_at(elements[i], first + p % E);
  if (left >= 4) return head;
  // The rest from element i + 1: selector bytes 0 .. left-1 of head, then element i + 1's.
  const unsigned selector = left == 1 ? 0x6540 : left == 2 ? 0x5410 : 0x4210;
  return __byte_perm(head, four_bytes_at(elements[i + 1], first), selector);
}

/// Most E-byte elements that start in one 16-byte chunk.
__host__ __device__ constexpr int elements_starting_in_chunk(int e) {
  return 15 / e + 1;
}

/// One load item of a tile of E-byte elements (3 to 15 bytes, not a power of two) kept column by
/// column, C columns of a row segment of at most CHUNKS_PER_ROW chunks: chunk j of the 4 rows
/// from `first_row` (load_row_chunks, rows `ld` bytes apart) shifted so that the first element
/// starting in it sits at byte 0; each element starting in the chunk goes as E words (its column's
/// 4 rows) to byte column_start(c) + `row_offset` of `tile`, by active lanes. Every lane of the
/// warp calls it. SKIP_PAST_SEGMENT: covering chunks that hold none of the segment's C * E bytes
/// are not read (copy_any_size, where skipping is up to 0.01 x copy faster; copy_full_height's
/// tiles read them, where skipping is up to 0.01 slower). With it, where not INSIDE, the chunks
/// that lie past the first `valid_cols` columns' bytes at every row alignment are not read either
/// (a tile cut by the matrix's last column; H100: 3-byte 1000000 x 100 0.937 x copy vs 0.922).
template <int E, int CHUNKS_PER_ROW, int C, bool INSIDE, bool SKIP_PAST_SEGMENT, class ColumnStart>
__device__ __forceinline__ void load_element_pieces(unsigned char* tile,
                                                    const unsigned char* first_row, std::int64_t ld,
                                                    int j, bool active, int rows_valid,
                                                    const unsigned char* src_end, int row_offset,
                                                    ColumnStart column_start, int valid_cols = C) {
  constexpr int G = 4;
  constexpr int U = elements_starting_in_chunk(E);
  // The words of the shifted 32 bytes the elements' bytes (and the unused last one's) come
  // from, with a word to spare for four_bytes_at.
  constexpr int window_words = (U * E + 3) / 4 + 1;
  uint4 rows[G];
  // Not INSIDE, a lane whose chunk starts past the valid columns' bytes in every row (shifted by
  // at most 15) reads nothing: no column of the tile starts in it, and the lane before needs none
  // of it.
  if (!INSIDE && SKIP_PAST_SEGMENT && 16 * j >= valid_cols * E + 15) active = false;
  load_row_chunks<G, CHUNKS_PER_ROW, INSIDE, SKIP_PAST_SEGMENT ? C * E : 0>(
      first_row, ld, j, active, rows_valid, src_end, rows);
  const int first = (16 * j + E - 1) / E;  // the first element starting in chunk j
  const int skip = first * E - 16 * j;     // its byte in the chunk (below E)
  unsigned window[G][window_words];
#pragma unroll
  for (int i = 0; i < G; ++i)
    shift_bytes_down(rows[i], shuffle_down(rows[i], CHUNKS_PER_ROW), skip, window[i]);
  if (!active) return;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int c = first + u;
    if ((u == U - 1 && skip + u * E >= 16) || c >= C) continue;
    unsigned* piece = reinterpret_cast<unsigned*>(tile + column_start(c) + row_offset);
#pragma unroll
    for (int w = 0; w < E; ++w)  // bytes 4w .. 4w + 3 of the 4 rows
      piece[w] = four_elements_word<E>(window, u * E, w);
  }
}

template <int E, class Policy>
struct any_size_tile {
  static constexpr int threads = Policy::threads;
  static constexpr int R = Policy::tile_rows;  ///< rows owned by a tile
  static constexpr int W = Policy::tile_bytes;
  static constexpr int C = any_size_columns<Policy, E>::value;  ///< tile columns
  static constexpr int G = 4;                                   ///< rows a lane loads together
  static constexpr int halo = (31 + E - 1) / E;
  static constexpr int smem_rows = (R + halo + G - 1) / G * G;
  static constexpr int chunks_per_row = W / 16;
  static constexpr int U = elements_starting_in_chunk(E);
  static constexpr int pitch_words = smem_rows * E / 4 + (smem_rows * E / 4 % 2 == 0 ? 1 : 0);
  static constexpr int pitch = 4 * pitch_words;         ///< bytes from one column to the next
  static constexpr int chunks_per_column = R * E / 16;  ///< destination chunks a tile owns
  static constexpr int lanes_per_column = threads / C / 2 * 2;
  static constexpr int chunks_per_lane =
      (chunks_per_column + lanes_per_column - 1) / lanes_per_column;

  /// Shared-memory store instructions of one load step: lane j of a row writes the pieces of
  /// the columns c = first(j) + u, and lanes 2E apart take columns 32 apart, which an odd pitch
  /// alone sends to the same bank. Column c therefore starts `spread` words further per 32
  /// columns, spread chosen here (at compile time) to minimize the sum over u of the most lanes
  /// on one bank.
  static constexpr int store_wavefronts(int spread) {
    int total = 0;
    for (int u = 0; u < U; ++u) {
      int lanes_on_bank[32] = {};
      int most = 0;
      for (int lane = 0; lane < 32; ++lane) {
        const int j = lane % chunks_per_row, g = lane / chunks_per_row;
        const int first = (16 * j + E - 1) / E, c = first + u;
        if ((u == U - 1 && first * E - 16 * j + u * E >= 16) || c >= C) continue;
        const int bank = (c * pitch_words + spread * (c / 32) + g * E) % 32;
        if (++lanes_on_bank[bank] > most) most = lanes_on_bank[bank];
      }
      total += most;
    }
    return total;
  }
  static constexpr int best_spread() {
    int best = 0;
    for (int spread = 1; spread < 32; ++spread)
      if (store_wavefronts(spread) < store_wavefronts(best)) best = spread;
    return best;
  }
  static constexpr int spread = best_spread();
  /// The columns, spread, and the word read past the last column's end.
  static constexpr int bytes = C * pitch + 4 * spread * (C / 32) + 16;

  __device__ static int column_start(int c) { return c * pitch + 4 * spread * (c / 32); }

  static_assert(E >= 3 && E <= 15 && (E & (E - 1)) != 0, "3 to 15 bytes, not a power of two");
  static_assert(chunks_per_row >= 8 && chunks_per_row <= 32 && 32 % chunks_per_row == 0,
                "a warp loads whole rows, 8 to 32 lanes each");
  static_assert(C * E <= W, "a row segment within the tile's chunks");
  static_assert(R * E % 32 == 0, "a tile owns whole 32-byte sectors of each destination row");
  static_assert(threads % 32 == 0, "whole warps");
  static_assert(lanes_per_column >= 2, "two lanes per column at least, for whole sectors");

  /// Source rows 0 .. rows_here - 1 (at most load_rows: smem_rows, or R when the destination
  /// rows start on sectors and the halo goes unused) of the tile at `src` (rows `ld` bytes
  /// apart), columns 0 .. C-1, into shared memory column by column. `src_end` is one past the
  /// matrix's last source byte: covering chunks are read only before it. A tile cut by the last
  /// column (`valid_cols` of C) skips the chunks that lie past its columns' bytes at every row
  /// alignment; the bytes past them in the chunks it reads (the next row's, or zero past
  /// `src_end`) are never stored to the destination. INSIDE: the tile has all its columns and
  /// rows below it (so every covering chunk lies before `src_end`): no checks.
  template <bool INSIDE>
  __device__ static void load(unsigned char* tile, const unsigned char* src, std::int64_t ld,
                              int rows_here, const unsigned char* src_end, int load_rows,
                              int valid_cols) {
    const int items = load_rows / G * chunks_per_row;
    // A trip count known only at run time, even where every tile loads in one step: with the
    // one step known at compile time, ptxas spills on the 3-byte tiles of 288 and 224 threads
    // (four and five blocks per SM: 56 registers) and on 14-byte ones.
#pragma unroll 1
    for (int k = 0; k * threads < items; ++k) {
      const int item = threadIdx.x + k * threads;
      const bool active = item < items;
      const int g = item / chunks_per_row, j = item % chunks_per_row;
      load_element_pieces<E, chunks_per_row, C, INSIDE, true>(
          tile, src + g * G * ld, ld, j, active, rows_here - g * G, src_end, g * G * E,
          [](int c) { return column_start(c); }, valid_cols);
    }
  }

  /// The destination chunks this tile owns: tile element (r, c) goes to bytes [r * E, r * E + E)
  /// of dst + c * ld (bytes). Each destination row is cut at its own 32-byte boundaries, and the
  /// tile owns the sectors that start in its R rows' bytes. A column is taken by
  /// lanes_per_column neighbouring lanes, the one in slot l writing chunks l, l +
  /// lanes_per_column, ...
  /// (the column's address, head and place in shared memory worked out once), so lanes 2m and
  /// 2m + 1 write the two halves of one sector in one instruction. `rows_left` = source rows
  /// from the tile's first row to the matrix's end; `first_tile_row`: the tile starts at row 0
  /// and also writes the bytes before each destination row's first boundary. INSIDE: as for
  /// load.
  template <bool INSIDE>
  __device__ static void store_transposed(const unsigned char* tile, unsigned char* dst,
                                          std::int64_t ld, std::int64_t rows_left, int valid_cols,
                                          bool first_tile_row) {
    const std::int64_t bytes_left = rows_left * E;  // of each column, from the tile's row 0
    const int c = threadIdx.x / lanes_per_column, slot = threadIdx.x % lanes_per_column;
    if (c < (INSIDE ? C : valid_cols)) {
      unsigned char* column = dst + c * ld;
      const int head = bytes_to_sector(column);  // bytes before the column's first boundary
      const int from = column_start(c) + head;
#pragma unroll
      for (int k = 0; k < chunks_per_lane; ++k) {
        const int q = slot + k * lanes_per_column, at = head + q * 16;
        if (chunks_per_column % lanes_per_column != 0 && q >= chunks_per_column) break;
        const uint4 v = read_16_bytes_at(tile, from + q * 16);
        if (INSIDE || at + 16 <= bytes_left) {
          __stcg(reinterpret_cast<uint4*>(column + at), v);
        } else if (at < bytes_left) {  // cut by the matrix's last row
          store_first_bytes(column + at, v, static_cast<int>(bytes_left - at));
        }
      }
    }
    if (first_tile_row) {  // the bytes before each column's first boundary
      for (int head_column = threadIdx.x; head_column < valid_cols; head_column += threads) {
        unsigned char* column = dst + head_column * ld;
        const int head = bytes_to_sector(column);
        if (head <= bytes_left) {
          store_bytes_to_sector(column, tile, column_start(head_column), head);
        } else {  // the whole row lies before its first boundary
          for (int b = 0; b < bytes_left; ++b) column[b] = tile[column_start(head_column) + b];
        }
      }
    }
  }
};

template <int E, class Policy, bool IN_REGIONS>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_any_size_kernel(const unsigned char* __restrict__ src,
                                   unsigned char* __restrict__ dst, std::int64_t batch,
                                   std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                   std::int64_t ldb, std::int64_t src_stride,
                                   std::int64_t dst_stride, unsigned regions, unsigned length) {
  using tile_t = any_size_tile<E, Policy>;
  extern __shared__ __align__(16) unsigned char tile[];  // tile_t::bytes
  // Every destination row on 32 bytes: the tile owns exactly its own rows' sectors and loads no
  // halo (H100: 3-byte elements up to 0.046 x copy faster on such shapes; in copy_unaligned the
  // same skip is level or slower, so it is not made there).
  const int load_rows =
      rows_aligned(dst, ldb, dst_stride, batch, E, 32) ? tile_t::R : tile_t::smem_rows;
  for_each_tile<tile_t::R, tile_t::C, IN_REGIONS>(
      batch, rows, cols, regions, length,
      [&](std::int64_t b, std::int64_t r0, std::int64_t c0, std::int64_t rows_left,
          int valid_cols) {
        const unsigned char* matrix = src + b * src_stride * E;
        const unsigned char* matrix_end = matrix + ((rows - 1) * lda + cols) * E;
        const int rows_here = static_cast<int>(rows_left < load_rows ? rows_left : load_rows);
        const unsigned char* from = matrix + (r0 * lda + c0) * E;
        unsigned char* to = dst + (b * dst_stride + c0 * ldb + r0) * E;
        if (rows_left > tile_t::smem_rows && valid_cols == tile_t::C) {
          tile_t::template load<true>(tile, from, lda * E, rows_here, matrix_end, load_rows,
                                      valid_cols);
          __syncthreads();
          tile_t::template store_transposed<true>(tile, to, ldb * E, rows_left, valid_cols,
                                                  r0 == 0);
        } else {
          tile_t::template load<false>(tile, from, lda * E, rows_here, matrix_end, load_rows,
                                       valid_cols);
          __syncthreads();
          tile_t::template store_transposed<false>(tile, to, ldb * E, rows_left, valid_cols,
                                                   r0 == 0);
        }
        __syncthreads();
      });
}

/// Launches the kernel with Policy's tiles on `a`, in `regions` interleaved regions (0:
/// tile_regions'; block/column_tiles.cuh).
template <int E, class Policy>
void launch_any_size_with(const copy_args& a, cudaStream_t stream, int regions) {
  using tile_t = any_size_tile<E, Policy>;
  launch_column_tiles<unsigned char>(copy_transpose_any_size_kernel<E, Policy, false>,
                                     copy_transpose_any_size_kernel<E, Policy, true>, a, E,
                                     tile_t::R, tile_t::C, tile_t::threads, tile_t::bytes, regions,
                                     stream, "copy_transpose_any_size_kernel launch");
}

template <int E, class Policy>
void launch_any_size_with(const copy_args& a, cudaStream_t stream) {
  launch_any_size_with<E, Policy>(a, stream, 0);
}

}  // namespace xpose::detail::cuda
