// The copy_unaligned kernel template (instantiated per element size by
// copy_transpose_unaligned.cu and, with candidate policies, by scripts/device_tune_policies.cu):
// out-of-place transposition (seed slides 001, "more work per thread") of 1-, 2- and 4-byte
// elements with 16-byte global loads and stores for rows that do not start on 16 bytes (odd
// dimensions), where copy_tuned's vector paths do not apply.
//
// A tile is R source rows x W bytes (R = B * P rows, P = 16 / E elements per 16-byte vector),
// plus a halo of 2P rows below it. Load: each row segment is read as the aligned 16-byte chunks
// that cover it (bytes outside the segment belong to neighbouring tiles and are discarded);
// chunk j and chunk j+1 (from the next lane, __shfl_down_sync) are funnel-shifted by the row's
// misalignment into the segment's logical chunk j, stored in shared memory 16-byte aligned.
// Store: each destination row (a tile column) is cut at its own 32-byte boundaries; the tile
// owns the 32-byte sectors that start in its R rows (so a sector may take up to 2P-1 halo
// rows, and no two tiles write the same sector), each written whole by two neighbouring lanes
// of one instruction. A thread reads P rows of one word for two consecutive row blocks (three
// for E < 4, whose columns in a word may start in different blocks), transposes them in
// registers into column vectors and funnel-shifts each pair by its column's misalignment: one
// aligned 16-byte store per chunk. Only chunks cut by the matrix's first or last row are
// written element by element; tiles cut by the last column take the same vector loads, and
// tiles with all their rows and columns inside the matrix a path without bounds checks (the
// kernel is bound by instruction issue for 1- and 2-byte elements). Shared memory: chunk c of
// row r at c ^ swizzle(r), so the lanes reading NQ row blocks of one word land in distinct
// banks. Tiles from the grid (column_tiles.cuh): no division.
// 64-bit index math; pointers element-aligned; the covering chunks of a row segment lie in the
// pages of the segment.
#pragma once

#include <cstdint>

#include "cuda/column_tiles.cuh"
#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/shared_tile_transpose.cuh"

namespace xpose::detail::cuda {

/// The 16-byte chunk at `chunk` with the bytes at or after `end` read as zero: one vector load
/// when the chunk ends before `end`, byte loads when it is cut by it, none when it lies past.
__device__ __forceinline__ uint4 load_chunk_before(const uint4* chunk, const unsigned char* end) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(chunk);
  if (bytes + 16 <= end) return __ldcg(chunk);
  unsigned words[4] = {0, 0, 0, 0};
  for (int i = 0; i < 16 && bytes + i < end; ++i)
    words[i / 4] |= unsigned(__ldcg(bytes + i)) << (8 * (i % 4));
  return make_uint4(words[0], words[1], words[2], words[3]);
}

/// Bytes [shift, shift + 16) of the 32 bytes lo, hi (little-endian), for shift in [0, 16).
/// (Skipping the byte stage for 4-byte elements, whose shifts are multiples of 4, made
/// copy_unaligned slower on the H100: 0.79 instead of 0.87-0.92 x copy, 2026-11-23.)
__device__ __forceinline__ uint4 funnel_shift_16(uint4 lo, uint4 hi, int shift) {
  const unsigned a[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  unsigned by8[6], by4[5];
#pragma unroll
  for (int i = 0; i < 6; ++i) by8[i] = (shift & 8) ? a[i + 2] : a[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) by4[i] = (shift & 4) ? by8[i + 1] : by8[i];
  const unsigned bits = (shift & 3) * 8;
  return make_uint4(__funnelshift_r(by4[0], by4[1], bits), __funnelshift_r(by4[1], by4[2], bits),
                    __funnelshift_r(by4[2], by4[3], bits), __funnelshift_r(by4[3], by4[4], bits));
}

__device__ __forceinline__ uint4 shuffle_down(uint4 v, int width) {
  return make_uint4(
      __shfl_down_sync(0xffffffffu, v.x, 1, width), __shfl_down_sync(0xffffffffu, v.y, 1, width),
      __shfl_down_sync(0xffffffffu, v.z, 1, width), __shfl_down_sync(0xffffffffu, v.w, 1, width));
}

template <int E, class Policy>
struct unaligned_tile {
  using element = element_t<E>;
  static constexpr int threads = Policy::threads, warps = threads / 32;
  static constexpr int P = 16 / E;  ///< rows in one 16-byte column vector
  static constexpr int B = Policy::row_blocks;
  static constexpr int R = B * P;              ///< rows owned by a tile
  static constexpr int smem_rows = R + 2 * P;  ///< with the halo of two row blocks
  static constexpr int W = Policy::tile_bytes;
  static constexpr int C = W / E;  ///< tile columns
  static constexpr int chunks_per_row = W / 16;
  static constexpr int word_bytes = E < 4 ? 4 : E;  ///< shared-memory read width in stores
  using word = element_t<word_bytes>;
  static constexpr int columns_per_word = word_bytes / E;
  static constexpr int words_per_row = W / word_bytes;
  static constexpr int NQ = 4;  ///< lanes along the row blocks of a word
  static constexpr int lanes_across_words = 32 / NQ;
  static constexpr int word_groups = words_per_row / lanes_across_words;
  static constexpr int warp_units = word_groups * (B / NQ);
  static constexpr int units_per_warp = warp_units / warps;
  static constexpr int load_steps = (smem_rows * chunks_per_row + threads - 1) / threads;
  /// Whether the threads' load steps cover the tile's chunks exactly (else the last step has
  /// lanes past the tile's last row).
  static constexpr bool whole_steps = smem_rows * chunks_per_row % threads == 0;
  static constexpr int bytes = smem_rows * W;

  static_assert(chunks_per_row >= 8 && chunks_per_row <= 32 && 32 % chunks_per_row == 0,
                "a warp loads whole rows, 8 to 32 lanes each");
  static_assert(B % NQ == 0 && words_per_row % lanes_across_words == 0 && warp_units % warps == 0,
                "store work divides evenly");

  __device__ static int chunk_offset(int row, int chunk) {
    return row * W + ((chunk ^ (((row / P) % NQ) * (8 / NQ))) << 4);
  }
  __device__ static int byte_offset(int row, int byte_in_row) {
    return chunk_offset(row, byte_in_row >> 4) + (byte_in_row & 15);
  }

  /// Source rows r0 .. r0 + rows_here - 1 (at most smem_rows), columns c0 .. c0 + C - 1 of
  /// `src` into shared memory, logical byte b of local row r at byte_offset(r, b). `src_end`
  /// is one past the matrix's last source byte: covering chunks are read only before it, so no
  /// load leaves the caller's data. In a tile cut by the last column the bytes past the row's
  /// end are read too (the next row's, or zero past `src_end`) and never stored. INSIDE: the
  /// tile has all its rows and columns and rows below it (so every covering chunk lies before
  /// `src_end`): no checks.
  template <bool INSIDE>
  __device__ static void load(unsigned char* tile, const element* src, std::int64_t ld,
                              int rows_here, const unsigned char* src_end) {
    uint4 raw[load_steps], next_raw[load_steps];
    int shift[load_steps];
#pragma unroll
    for (int k = 0; k < load_steps; ++k) {
      const int idx = threadIdx.x + k * threads;
      const int r = idx / chunks_per_row, j = idx % chunks_per_row;
      const unsigned char* row_start = reinterpret_cast<const unsigned char*>(src + r * ld);
      shift[k] = static_cast<int>(reinterpret_cast<std::uintptr_t>(row_start) & 15);
      const uint4* aligned = reinterpret_cast<const uint4*>(row_start - shift[k]);
      raw[k] = next_raw[k] = make_uint4(0, 0, 0, 0);
      if (INSIDE && (whole_steps || r < smem_rows)) {
        raw[k] = __ldcg(aligned + j);
        if (j == chunks_per_row - 1 && shift[k] != 0) next_raw[k] = __ldcg(aligned + j + 1);
      } else if (!INSIDE && r < rows_here) {
        raw[k] = load_chunk_before(aligned + j, src_end);
        if (j == chunks_per_row - 1 && shift[k] != 0)
          next_raw[k] = load_chunk_before(aligned + j + 1, src_end);
      }
    }
#pragma unroll
    for (int k = 0; k < load_steps; ++k) {
      const int idx = threadIdx.x + k * threads;
      const int r = idx / chunks_per_row, j = idx % chunks_per_row;
      const uint4 from_next_lane = shuffle_down(raw[k], chunks_per_row);
      if (j != chunks_per_row - 1) next_raw[k] = from_next_lane;
      if (INSIDE ? whole_steps || r < smem_rows : r < rows_here)
        *reinterpret_cast<uint4*>(tile + chunk_offset(r, j)) =
            funnel_shift_16(raw[k], next_raw[k], shift[k]);
    }
  }

  /// Word w of local rows row0 .. row0 + P-1 (row0: the first row of a row block, so one
  /// swizzle serves all P rows and the loads take immediate offsets) as column vectors: out[j]
  /// holds tile column w * columns_per_word + j of those rows.
  __device__ static void read_columns(const unsigned char* tile, int row0, int w,
                                      uint4 (&out)[columns_per_word]) {
    const int b = w * word_bytes;
    const unsigned char* first =
        tile + row0 * W + (((b >> 4) ^ (((row0 / P) % NQ) * (8 / NQ))) << 4) + (b & 15);
    word in[P];
#pragma unroll
    for (int i = 0; i < P; ++i) in[i] = *reinterpret_cast<const word*>(first + i * W);
    words_to_column_vectors<E>(in, out);
  }

  /// Elements 0 .. count-1 of `v` to dst[0] .. dst[count-1].
  __device__ static void store_elements(element* dst, const uint4& v, int count) {
    const element* parts = reinterpret_cast<const element*>(&v);
#pragma unroll
    for (int i = 0; i < P; ++i)
      if (i < count) dst[i] = parts[i];
  }

  /// Bytes from `column` (a destination row) to the next 32-byte boundary (0 .. 31).
  __device__ static int to_sector(const element* column) {
    return (32 - static_cast<int>(reinterpret_cast<std::uintptr_t>(column) & 31)) & 31;
  }

  /// Chunk q of destination row `column` (tile column c): the 16 bytes starting q * 16 bytes
  /// after the row's first 32-byte boundary, i.e. tile rows first .. first + P-1 with
  /// first = to_sector / E + q * P; `lo` and `hi` hold the two row blocks around it.
  template <bool INSIDE>
  __device__ static void store_chunk(element* column, int q, int to_sector_bytes, const uint4& lo,
                                     const uint4& hi, std::int64_t rows_left) {
    const int first_row = to_sector_bytes / E + q * P;
    const uint4 v = funnel_shift_16(lo, hi, to_sector_bytes & 15);
    if (INSIDE || first_row + P <= rows_left)
      __stcg(reinterpret_cast<uint4*>(column + first_row), v);
    else if (first_row < rows_left)
      store_elements(column + first_row, v, static_cast<int>(rows_left - first_row));
  }

  /// The destination chunks this tile owns: tile element (r, c) goes to dst[c * ld + r]. Each
  /// destination row is cut at its own 32-byte boundaries, and the tile owns the 32-byte
  /// sectors that start in its R rows (up to 2P - 1 halo rows), written as two 16-byte chunks
  /// by neighbouring lanes of one store instruction: every sector leaves in one piece (halves
  /// of a sector written apart cost the L2 far more than their bytes). `rows_left` = source
  /// rows from the tile's first row to the matrix's end; `first_tile_row`: the tile starts at
  /// row 0 and also writes the rows before each destination row's first boundary. INSIDE: as
  /// for load (every chunk whole, every column valid).
  template <bool INSIDE>
  __device__ static void store_transposed(const unsigned char* tile, element* dst, std::int64_t ld,
                                          std::int64_t rows_left, int valid_cols,
                                          bool first_tile_row) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int s = 0; s < units_per_warp; ++s) {
      const int unit = warp + s * warps;
      const int w = (unit % word_groups) * lanes_across_words + lane / NQ;
      const int q = (unit / word_groups) * NQ + lane % NQ;
      int skip[columns_per_word];  // row blocks from block q to the chunk's first block
#pragma unroll
      for (int j = 0; j < columns_per_word; ++j)
        skip[j] = to_sector(dst + (w * columns_per_word + j) * ld) >= 16;
      uint4 lo[columns_per_word], hi[columns_per_word];
      if constexpr (columns_per_word == 1) {
        read_columns(tile, (q + skip[0]) * P, w, lo);
        read_columns(tile, (q + skip[0] + 1) * P, w, hi);
      } else {
        // The columns of one word may start in different row blocks: read blocks q, q+1, q+2
        // and pick each column's pair with selects (one store per column, no divergence).
        uint4 third[columns_per_word];
        read_columns(tile, q * P, w, lo);
        read_columns(tile, q * P + P, w, hi);
        read_columns(tile, q * P + 2 * P, w, third);
#pragma unroll
        for (int j = 0; j < columns_per_word; ++j) {
          lo[j] = skip[j] ? hi[j] : lo[j];
          hi[j] = skip[j] ? third[j] : hi[j];
        }
      }
#pragma unroll
      for (int j = 0; j < columns_per_word; ++j) {
        const int c = w * columns_per_word + j;
        if (INSIDE || c < valid_cols)
          store_chunk<INSIDE>(dst + c * ld, q, to_sector(dst + c * ld), lo[j], hi[j], rows_left);
      }
      if (first_tile_row && q == 0) {
#pragma unroll
        for (int j = 0; j < columns_per_word; ++j) {
          const int c = w * columns_per_word + j;
          if (c >= valid_cols) continue;
          element* column = dst + c * ld;
          const int head = to_sector(column) / E;
          for (int r = 0; r < head && r < rows_left; ++r)
            column[r] = *reinterpret_cast<const element*>(tile + byte_offset(r, c * E));
        }
      }
    }
  }
};

template <int E, class Policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_unaligned_kernel(const element_t<E>* __restrict__ src,
                                    element_t<E>* __restrict__ dst, std::int64_t batch,
                                    std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                    std::int64_t ldb, std::int64_t src_stride,
                                    std::int64_t dst_stride) {
  using tile_t = unaligned_tile<E, Policy>;
  __shared__ __align__(16) unsigned char tile[tile_t::bytes];
  for_each_tile<tile_t::R, tile_t::C>(
      batch, rows, cols,
      [&](std::int64_t b, std::int64_t r0, std::int64_t c0, std::int64_t rows_left,
          int valid_cols) {
        const element_t<E>* matrix = src + b * src_stride;
        const auto* matrix_end =
            reinterpret_cast<const unsigned char*>(matrix + (rows - 1) * lda + cols);
        const int rows_here =
            static_cast<int>(rows_left < tile_t::smem_rows ? rows_left : tile_t::smem_rows);
        const element_t<E>* from = matrix + r0 * lda + c0;
        element_t<E>* to = dst + b * dst_stride + c0 * ldb + r0;
        if (rows_left > tile_t::smem_rows && valid_cols == tile_t::C) {
          tile_t::template load<true>(tile, from, lda, rows_here, matrix_end);
          __syncthreads();
          tile_t::template store_transposed<true>(tile, to, ldb, rows_left, valid_cols, r0 == 0);
        } else {
          tile_t::template load<false>(tile, from, lda, rows_here, matrix_end);
          __syncthreads();
          tile_t::template store_transposed<false>(tile, to, ldb, rows_left, valid_cols, r0 == 0);
        }
        __syncthreads();
      });
}

template <int E, class Policy>
void launch_unaligned_with(const copy_args& a, cudaStream_t stream) {
  using tile_t = unaligned_tile<E, Policy>;
  launch_column_tiles<E>(copy_transpose_unaligned_kernel<E, Policy>, a, tile_t::R, tile_t::C,
                         tile_t::threads, stream, "copy_transpose_unaligned_kernel launch");
}

}  // namespace xpose::detail::cuda
