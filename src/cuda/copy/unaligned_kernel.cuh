// The copy_unaligned kernel template (instantiated per element size by
// copy/unaligned.cu and, with candidate policies, by bench/device_tune_policies.cu):
// out-of-place transposition (more work per thread, as in the lecture slides "Matrix Transpose
// — get 90% bandwidth") of 1-, 2-, 4- and 8-byte elements with 16-byte global loads and stores
// for rows that do not start on 16 bytes (odd dimensions), where copy_tuned's vector paths do not
// apply.
//
// A tile is R source rows x W bytes (R = B * P rows, P = 16 / E elements per 16-byte vector),
// plus a halo of 2P rows below it, kept in shared memory column by column (a column of the
// tile is a run of consecutive bytes, as in the destination).
// Load: each row segment is read as the aligned 16-byte chunks that cover it (bytes outside the
// segment belong to neighbouring tiles and are discarded); chunk j and chunk j+1 (from the next
// lane, __shfl_down_sync) are funnel-shifted by the row's misalignment into the segment's
// logical chunk j (L1-cached loads: the last lane's chunk j+1 often lies in a line already
// fetched; whole 256-byte blocks from DRAM, see load_chunk_l1_l2_prefetch). A lane takes the same
// chunk of 4 consecutive rows and transposes the 4 x P elements in registers into P pieces of
// 4 rows of one column (4E bytes each), stored with one shared-memory store per piece (two for
// 8-byte elements).
// Store: each destination row (a tile column) is cut at its own 32-byte boundaries; the tile
// owns the 32-byte sectors that start in its R rows (so a sector may take up to 2P-1 halo
// rows, and no two tiles write the same sector), each written whole by two neighbouring lanes
// of one instruction. A destination chunk is 16 consecutive bytes of its column in shared
// memory at any byte offset: five word reads funnel-shifted by the offset (four aligned reads
// for 4- and 8-byte elements), one aligned 16-byte global store. Only chunks cut by the matrix's
// first or last row are written in aligned pieces (store_bytes_to_sector, store_first_bytes); tiles
// cut by the last column take the same vector loads, and tiles with all their rows and columns
// inside the matrix a path without bounds checks. Column c starts at c * pitch + 16 * (c / P)
// bytes, so the pieces one store instruction writes (P-column groups j = 0..7 of a row segment, 4
// rows each) fall in distinct banks. Tiles from the grid (block/column_tiles.cuh; a division per
// tile only in the instantiation that takes them in interleaved regions). 64-bit index math;
// pointers element-aligned; the covering chunks of a row segment lie in the pages of the segment.
#pragma once

#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/column_tiles.cuh"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

/// The 16 bytes at byte `offset` (any) of shared memory at `base` (4-byte aligned): five word
/// reads funnel-shifted by the offset's last two bits.
__device__ __forceinline__ uint4 read_16_bytes_at(const unsigned char* base, int offset) {
  const auto* words = reinterpret_cast<const unsigned*>(base) + (offset >> 2);
  const unsigned bits = (offset & 3) * 8;
  unsigned w[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) w[i] = words[i];
  return make_uint4(__funnelshift_r(w[0], w[1], bits), __funnelshift_r(w[1], w[2], bits),
                    __funnelshift_r(w[2], w[3], bits), __funnelshift_r(w[3], w[4], bits));
}

/// Bytes from `p` to the next 32-byte boundary (0 .. 31).
__device__ __forceinline__ int bytes_to_sector(const void* p) {
  return (32 - static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 31)) & 31;
}

/// Chunk j (bytes [16j, 16j + 16)) of G row segments, row i starting at first_row + i * ld (any
/// alignment), for a lane among CHUNKS_PER_ROW (a divisor of 32) that take chunks 0 ..
/// CHUNKS_PER_ROW - 1 of the same rows, or with CHUNKS_PER_ROW 0 among `n` (any) that do: the
/// lane reads the aligned chunk j that covers the segment's chunk j (the row's last lane, and
/// for any n the warp's last lane, also chunk j + 1), takes chunk j + 1 from the next lane and
/// funnel-shifts the two by the row's misalignment. Every lane of the warp calls it; inactive
/// lanes read nothing. INSIDE: every covering chunk lies before `src_end`
/// (load_chunk_l1_l2_prefetch: the last lane's second chunk often hits its line in L1); else only
/// rows i < rows_valid are read, and only before `src_end`. SEGMENT_BYTES (0: all): the bytes of
/// a row segment where they end before its lanes' chunks do (copy_any_size's C * E < W); covering
/// chunks that hold none of them are not read (such lanes' rows come out zero, never stored).
template <int G, int CHUNKS_PER_ROW, bool INSIDE, int SEGMENT_BYTES = 0>
__device__ __forceinline__ void load_row_chunks(const unsigned char* first_row, std::int64_t ld,
                                                int j, bool active, int rows_valid,
                                                const unsigned char* src_end, uint4 (&rows)[G],
                                                int n = CHUNKS_PER_ROW) {
  constexpr int width = CHUNKS_PER_ROW > 0 ? CHUNKS_PER_ROW : 32;
  const bool own_next =
      CHUNKS_PER_ROW > 0 ? j == CHUNKS_PER_ROW - 1 : j == n - 1 || (threadIdx.x & 31) == 31;
  uint4 raw[G], next_raw[G];
  int shift[G];
#pragma unroll
  for (int i = 0; i < G; ++i) {
    const unsigned char* row_start = first_row + i * ld;
    shift[i] = static_cast<int>(reinterpret_cast<std::uintptr_t>(row_start) & 15);
    const uint4* aligned = reinterpret_cast<const uint4*>(row_start - shift[i]);
    raw[i] = next_raw[i] = make_uint4(0, 0, 0, 0);
    // Whether aligned chunk j, and j + 1, hold bytes of the segment ([shift, shift + bytes)).
    const bool own = SEGMENT_BYTES == 0 || 16 * j < shift[i] + SEGMENT_BYTES;
    const bool next =
        shift[i] != 0 && (SEGMENT_BYTES == 0 || 16 * j + 16 < shift[i] + SEGMENT_BYTES);
    if (INSIDE && active && own) {
      raw[i] = load_chunk_l1_l2_prefetch(aligned + j);
      if (own_next && next) next_raw[i] = load_chunk_l1_l2_prefetch(aligned + j + 1);
    } else if (!INSIDE && active && own && i < rows_valid) {
      raw[i] = load_chunk_before(aligned + j, src_end);
      if (own_next && next) next_raw[i] = load_chunk_before(aligned + j + 1, src_end);
    }
  }
#pragma unroll
  for (int i = 0; i < G; ++i) {
    const uint4 from_next_lane = shuffle_down(raw[i], width);
    if (!own_next) next_raw[i] = from_next_lane;
    rows[i] = funnel_shift_16(raw[i], next_raw[i], shift[i]);
  }
}

/// The 16 bytes at `offset` (any multiple of E) of a shared tile of E-byte elements (4-byte
/// aligned): four word reads for E >= 4, five funnel-shifted ones below.
template <int E>
__device__ __forceinline__ uint4 read_tile_chunk(const unsigned char* tile, int offset) {
  if constexpr (E >= 4) {
    const auto* words = reinterpret_cast<const unsigned*>(tile) + (offset >> 2);
    return make_uint4(words[0], words[1], words[2], words[3]);
  } else {
    return read_16_bytes_at(tile, offset);
  }
}

/// store_bytes_to_sector: the n bytes (n < 32) at byte `from` (any) of shared memory at `tile`
/// (4-byte aligned; the 36 bytes from `from` readable) to `p`, where p + n lies on 32 bytes:
/// pieces of 1, 2, 4, 8, 16 bytes in that order, each aligned to its size.
__device__ __forceinline__ void store_bytes_to_sector(unsigned char* p, const unsigned char* tile,
                                                      int from, int n) {
  int at = 0;
  if (n & 1) store_piece<1>(p, read_16_bytes_at(tile, from)), at = 1;
  if (n & 2) store_piece<2>(p + at, read_16_bytes_at(tile, from + at)), at += 2;
  if (n & 4) store_piece<4>(p + at, read_16_bytes_at(tile, from + at)), at += 4;
  if (n & 8) store_piece<8>(p + at, read_16_bytes_at(tile, from + at)), at += 8;
  if (n & 16) store_piece<16>(p + at, read_16_bytes_at(tile, from + at));
}

/// A piece of one tile column: 4 consecutive rows of E bytes (two 16-byte halves for E = 8).
template <int E>
struct column_piece {
  using type = element_t<4 * E>;
};
template <>
struct column_piece<8> {
  struct type {
    uint4 rows01, rows23;
  };
};

/// The 4 x P elements of `rows` (the same 16 bytes of 4 consecutive rows) as P column pieces:
/// out[c] holds column c of rows 0..3, row i at bytes [i * E, (i + 1) * E).
template <int E>
__device__ __forceinline__ void rows_to_column_pieces(
    const uint4 (&rows)[4], typename column_piece<E>::type (&out)[16 / E]) {
  const unsigned w[4][4] = {{rows[0].x, rows[0].y, rows[0].z, rows[0].w},
                            {rows[1].x, rows[1].y, rows[1].z, rows[1].w},
                            {rows[2].x, rows[2].y, rows[2].z, rows[2].w},
                            {rows[3].x, rows[3].y, rows[3].z, rows[3].w}};
  if constexpr (E == 8) {
#pragma unroll
    for (int c = 0; c < 2; ++c)  // column c: words 2c, 2c + 1 of each row
      out[c] = {make_uint4(w[0][2 * c], w[0][2 * c + 1], w[1][2 * c], w[1][2 * c + 1]),
                make_uint4(w[2][2 * c], w[2][2 * c + 1], w[3][2 * c], w[3][2 * c + 1])};
  } else {
#pragma unroll
    for (int m = 0; m < 4; ++m) {  // word m of each row: columns m * 4 / E ..
      if constexpr (E == 4) {
        out[m] = make_uint4(w[0][m], w[1][m], w[2][m], w[3][m]);
      } else if constexpr (E == 2) {
        out[2 * m] = make_uint2(__byte_perm(w[0][m], w[1][m], 0x5410),
                                __byte_perm(w[2][m], w[3][m], 0x5410));
        out[2 * m + 1] = make_uint2(__byte_perm(w[0][m], w[1][m], 0x7632),
                                    __byte_perm(w[2][m], w[3][m], 0x7632));
      } else {
        const unsigned ab_lo = __byte_perm(w[0][m], w[1][m], 0x5140);  // a0 b0 a1 b1
        const unsigned ab_hi = __byte_perm(w[0][m], w[1][m], 0x7362);  // a2 b2 a3 b3
        const unsigned cd_lo = __byte_perm(w[2][m], w[3][m], 0x5140);
        const unsigned cd_hi = __byte_perm(w[2][m], w[3][m], 0x7362);
        out[4 * m] = __byte_perm(ab_lo, cd_lo, 0x5410);
        out[4 * m + 1] = __byte_perm(ab_lo, cd_lo, 0x7632);
        out[4 * m + 2] = __byte_perm(ab_hi, cd_hi, 0x5410);
        out[4 * m + 3] = __byte_perm(ab_hi, cd_hi, 0x7632);
      }
    }
  }
}

/// Chunk q of the destination row `column` that a tile owns: the tile's column lies at byte
/// `at` of shared memory (rows in order, from the tile's first row), and it owns the 32-byte
/// sectors of the row that start in its rows, written as 16-byte chunks, chunk q from row
/// bytes_to_sector(column) / E + q * 16 / E. Whole where INSIDE or the matrix's rows (rows_left
/// from the tile's first) reach past it, else in aligned pieces; with first_tile_row, chunk 0
/// also writes the rows before the row's first boundary.
template <int E, bool INSIDE>
__device__ __forceinline__ void store_owned_chunk(const unsigned char* tile, int at,
                                                  element_t<E>* column, int q,
                                                  std::int64_t rows_left, bool first_tile_row) {
  const int head = bytes_to_sector(column);  // bytes before the column's first boundary
  const int first_row = head / E + q * (16 / E);
  const uint4 v = read_tile_chunk<E>(tile, at + head + q * 16);
  if (INSIDE || first_row + 16 / E <= rows_left)
    __stcg(reinterpret_cast<uint4*>(column + first_row), v);
  else if (first_row < rows_left)
    store_first_bytes(reinterpret_cast<unsigned char*>(column + first_row), v,
                      static_cast<int>(rows_left - first_row) * E);
  if (first_tile_row && q == 0) {
    if (head <= rows_left * E) {
      store_bytes_to_sector(reinterpret_cast<unsigned char*>(column), tile, at, head);
    } else {  // the whole row lies before its first boundary
      for (int r = 0; r < rows_left; ++r)
        column[r] = *reinterpret_cast<const element_t<E>*>(tile + at + r * E);
    }
  }
}

/// One load item of a tile kept column by column: chunk j of the 4 rows from `first_row`
/// (load_row_chunks, rows `ld` bytes apart) as 16 / E column pieces of 4 rows, piece c stored at
/// byte column_start(j * 16 / E + c) + `row_offset` of `tile` by active lanes.
template <int E, int CHUNKS_PER_ROW, bool INSIDE, class ColumnStart>
__device__ __forceinline__ void load_column_pieces(unsigned char* tile,
                                                   const unsigned char* first_row, std::int64_t ld,
                                                   int j, bool active, int rows_valid,
                                                   const unsigned char* src_end, int row_offset,
                                                   ColumnStart column_start,
                                                   int n = CHUNKS_PER_ROW) {
  constexpr int P = 16 / E;
  using piece = typename column_piece<E>::type;
  uint4 rows[4];
  load_row_chunks<4, CHUNKS_PER_ROW, INSIDE>(first_row, ld, j, active, rows_valid, src_end, rows,
                                             n);
  piece pieces[P];
  rows_to_column_pieces<E>(rows, pieces);
  if (active) {
#pragma unroll
    for (int c = 0; c < P; ++c)
      *reinterpret_cast<piece*>(tile + column_start(j * P + c) + row_offset) = pieces[c];
  }
}

template <int E, class Policy>
struct unaligned_tile {
  using element = element_t<E>;
  static constexpr int threads = Policy::threads;
  static constexpr int P = 16 / E;  ///< rows in one 16-byte column vector
  static constexpr int B = Policy::row_blocks;
  static constexpr int R = B * P;              ///< rows owned by a tile
  static constexpr int smem_rows = R + 2 * P;  ///< with the halo of two row blocks
  static constexpr int W = Policy::tile_bytes;
  static constexpr int C = W / E;  ///< tile columns
  static constexpr int chunks_per_row = W / 16;
  static constexpr int G = 4;  ///< rows a lane loads together
  using piece = typename column_piece<E>::type;
  static constexpr int pitch = smem_rows * E;  ///< bytes of one column
  static constexpr int load_items = smem_rows / G * chunks_per_row;
  static constexpr int load_steps = (load_items + threads - 1) / threads;
  static constexpr bool whole_load_steps = load_items % threads == 0;
  static constexpr int store_items = C * B;  ///< 16-byte destination chunks
  static constexpr int store_steps = (store_items + threads - 1) / threads;
  static constexpr bool whole_store_steps = store_items % threads == 0;
  /// The columns with their bank offsets (column_start), and the word read past the last
  /// column's end.
  static constexpr int bytes = C * pitch + 16 * chunks_per_row;

  static_assert(chunks_per_row >= 8 && chunks_per_row <= 32 && 32 % chunks_per_row == 0,
                "a warp loads whole rows, 8 to 32 lanes each");
  static_assert(B % 2 == 0, "a tile owns whole 32-byte sectors of each destination row");
  static_assert(smem_rows % G == 0, "whole 4-row load groups");
  static_assert(P * pitch % 128 == 0, "the bank offsets of column_start spread a store");
  static_assert(threads % 32 == 0, "whole warps");

  __device__ static int column_start(int c) { return c * pitch + 16 * (c / P); }

  /// Source rows 0 .. rows_here - 1 (at most smem_rows) of the tile at `src`, columns 0 .. C-1,
  /// into shared memory column by column. `src_end` is one past the matrix's last source byte:
  /// covering chunks are read only before it, so no load leaves the caller's data. In a tile
  /// cut by the last column the bytes past the row's end are read too (the next row's, or zero
  /// past `src_end`) and never stored to the destination. INSIDE: the tile has all its rows and
  /// columns and rows below it (so every covering chunk lies before `src_end`): no checks.
  template <bool INSIDE>
  __device__ static void load(unsigned char* tile, const element* src, std::int64_t ld,
                              int rows_here, const unsigned char* src_end) {
#pragma unroll 1  // one step's loads at a time: without, 1-byte tiles spill
    for (int k = 0; k < load_steps; ++k) {
      const int item = threadIdx.x + k * threads;
      const bool active = whole_load_steps || item < load_items;
      const int g = item / chunks_per_row, j = item % chunks_per_row;
      load_column_pieces<E, chunks_per_row, INSIDE>(
          tile, reinterpret_cast<const unsigned char*>(src + g * G * ld), ld * E, j, active,
          rows_here - g * G, src_end, g * G * E, [](int c) { return column_start(c); });
    }
  }

  /// The destination chunks this tile owns: tile element (r, c) goes to dst[c * ld + r]. Each
  /// destination row is cut at its own 32-byte boundaries, and the tile owns the 32-byte
  /// sectors that start in its R rows (up to 2P - 1 halo rows), written as two 16-byte chunks
  /// by neighbouring lanes of one store instruction: every sector leaves in one piece (halves
  /// of a sector written apart cost the L2 far more than their bytes). Chunk q of column c
  /// holds tile rows bytes_to_sector / E + q * P onwards. `rows_left` = source rows from the tile's
  /// first row to the matrix's end; `first_tile_row`: the tile starts at row 0 and also writes
  /// the rows before each destination row's first boundary. INSIDE: as for load (every chunk
  /// whole, every column valid).
  template <bool INSIDE>
  __device__ static void store_transposed(const unsigned char* tile, element* dst, std::int64_t ld,
                                          std::int64_t rows_left, int valid_cols,
                                          bool first_tile_row) {
#pragma unroll
    for (int s = 0; s < store_steps; ++s) {
      const int item = threadIdx.x + s * threads;
      const int q = item % B, c = item / B;
      if (!whole_store_steps && item >= store_items) continue;
      if (!INSIDE && c >= valid_cols) continue;
      store_owned_chunk<E, INSIDE>(tile, column_start(c), dst + c * ld, q, rows_left,
                                   first_tile_row);
    }
  }
};

template <int E, class Policy, bool IN_REGIONS>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_unaligned_kernel(const element_t<E>* __restrict__ src,
                                    element_t<E>* __restrict__ dst, std::int64_t batch,
                                    std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                    std::int64_t ldb, std::int64_t src_stride,
                                    std::int64_t dst_stride, unsigned regions, unsigned length) {
  using tile_t = unaligned_tile<E, Policy>;
  extern __shared__ __align__(16) unsigned char tile[];  // tile_t::bytes
  for_each_tile<tile_t::R, tile_t::C, IN_REGIONS>(
      batch, rows, cols, regions, length,
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

/// Launches the kernel with Policy's tiles on `a`, in `regions` interleaved regions (0:
/// tile_regions'; block/column_tiles.cuh).
template <int E, class Policy>
void launch_unaligned_with(const copy_args& a, cudaStream_t stream, int regions) {
  using tile_t = unaligned_tile<E, Policy>;
  launch_column_tiles<element_t<E>>(copy_transpose_unaligned_kernel<E, Policy, false>,
                                    copy_transpose_unaligned_kernel<E, Policy, true>, a, E,
                                    tile_t::R, tile_t::C, tile_t::threads, tile_t::bytes, regions,
                                    stream, "copy_transpose_unaligned_kernel launch");
}

template <int E, class Policy>
void launch_unaligned_with(const copy_args& a, cudaStream_t stream) {
  launch_unaligned_with<E, Policy>(a, stream, 0);
}

}  // namespace xpose::detail::cuda
