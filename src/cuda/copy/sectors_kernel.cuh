// The copy_sectors kernel template (instantiated per element size by copy/sectors.cu
// and, with candidate policies, by bench/device_tune_policies.cu): out-of-place transposition
// for rows of any alignment: the padded shared-memory tile with several elements per thread of
// the lecture slides "Matrix Transpose — get 90% bandwidth", made to move whole 32-byte
// destination sectors.
//
// Global accesses are one element per lane, a warp reading 32 consecutive elements of a source
// row and writing 32 consecutive elements of a destination row, so no row needs any alignment
// and no lane shifts bytes. A tile is R source rows x C columns; each destination row (a tile
// column) is cut at its own 32-byte boundaries, and the tile owns the sectors that start in its
// R rows: it writes rows head .. head + R - 1 of the column (head = elements from the
// destination row's start to its first boundary; the first tile row also writes rows 0 ..
// head - 1), so it loads R + S - 1 rows (S elements per sector) and every 32 lanes of a store
// write whole sectors that no other tile touches: sector pieces written by different tiles cost
// the L2 far more than their bytes. The shared tile's rows are padded by
// one element (at least 4 bytes), so the lanes reading consecutive rows of one column (32 lanes
// of 4 bytes, or the 16 or 8 lanes of one 8- or 16-byte phase) land in distinct banks. Tiles from
// the grid (block/column_tiles.cuh); 64-bit offsets.
#pragma once

#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/column_tiles.cuh"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

template <int E, class Policy>
struct sector_tile {
  using element = element_t<E>;
  static constexpr int threads = Policy::threads, warps = threads / 32;
  static constexpr int S = 32 / E;  ///< elements in a 32-byte sector
  static constexpr int R = Policy::tile_rows, C = Policy::tile_cols;
  static constexpr int smem_rows = R + S - 1;
  static constexpr int pitch = C * E + (E < 4 ? 4 : E);  ///< bytes from one tile row to the next
  static constexpr int bytes = smem_rows * pitch;
  static constexpr int column_groups = C / 32, row_groups = R / 32;
  static constexpr int load_units = smem_rows * column_groups;
  static constexpr int loads_per_warp = (load_units + warps - 1) / warps;
  static constexpr int store_units = C * row_groups;
  static constexpr int stores_per_warp = store_units / warps;
  static_assert(R % 32 == 0 && C % 32 == 0 && store_units % warps == 0,
                "a warp moves 32 elements of a row or a column");

  __device__ static element& at(unsigned char* tile, int row, int col) {
    return *reinterpret_cast<element*>(tile + row * pitch + col * E);
  }

  /// Source rows 0 .. rows_here - 1 (at most smem_rows), columns 0 .. valid_cols - 1 of `src`
  /// into the tile; every load is issued before the first shared-memory store.
  __device__ static void load(unsigned char* tile, const element* src, std::int64_t ld,
                              int rows_here, int valid_cols) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    element v[loads_per_warp];
#pragma unroll
    for (int k = 0; k < loads_per_warp; ++k) {
      const int u = warp + k * warps;
      const int row = u / column_groups, col = (u % column_groups) * 32 + lane;
      if (u < load_units && row < rows_here && col < valid_cols) {
        if constexpr (E == 16)
          v[k] = load_chunk_l2_prefetch(src + row * ld + col);
        else  // the candidate policies' smaller elements (bench/device_tune_policies.cu)
          v[k] = __ldcg(src + row * ld + col);
      }
    }
#pragma unroll
    for (int k = 0; k < loads_per_warp; ++k) {
      const int u = warp + k * warps;
      const int row = u / column_groups, col = (u % column_groups) * 32 + lane;
      if (u < load_units && row < rows_here && col < valid_cols) at(tile, row, col) = v[k];
    }
  }

  /// The destination sectors this tile owns: tile element (r, c) goes to dst[c * ld + r];
  /// `rows_left` = source rows from the tile's first row to the matrix's end.
  __device__ static void store(unsigned char* tile, element* dst, std::int64_t ld,
                               std::int64_t rows_left, int valid_cols, bool first_tile_row) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int k = 0; k < stores_per_warp; ++k) {
      const int u = warp + k * warps;
      const int col = u / row_groups, group = u % row_groups;
      if (col >= valid_cols) continue;
      element* column = dst + col * ld;
      const int head =
          ((32 - static_cast<int>(reinterpret_cast<std::uintptr_t>(column) & 31)) & 31) / E;
      const int row = head + group * 32 + lane;
      if (row < rows_left) __stcg(column + row, at(tile, row, col));
      if (first_tile_row && group == 0 && lane < head && lane < rows_left)
        __stcg(column + lane, at(tile, lane, col));
    }
  }
};

template <int E, class Policy, bool IN_REGIONS>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_sectors_kernel(const element_t<E>* __restrict__ src,
                                  element_t<E>* __restrict__ dst, std::int64_t batch,
                                  std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                  std::int64_t ldb, std::int64_t src_stride,
                                  std::int64_t dst_stride, unsigned regions, unsigned length) {
  using tile_t = sector_tile<E, Policy>;
  __shared__ __align__(16) unsigned char tile[tile_t::bytes];
  for_each_tile<tile_t::R, tile_t::C, IN_REGIONS>(
      batch, rows, cols, regions, length,
      [&](std::int64_t b, std::int64_t r0, std::int64_t c0, std::int64_t rows_left,
          int valid_cols) {
        const int rows_here =
            static_cast<int>(rows_left < tile_t::smem_rows ? rows_left : tile_t::smem_rows);
        tile_t::load(tile, src + b * src_stride + r0 * lda + c0, lda, rows_here, valid_cols);
        __syncthreads();
        tile_t::store(tile, dst + b * dst_stride + c0 * ldb + r0, ldb, rows_left, valid_cols,
                      r0 == 0);
        __syncthreads();
      });
}

/// Launches the kernel with Policy's tiles on `a`, in `regions` interleaved regions (0:
/// tile_regions'; block/column_tiles.cuh).
template <int E, class Policy>
void launch_sectors_with(const copy_args& a, cudaStream_t stream, int regions) {
  using tile_t = sector_tile<E, Policy>;
  launch_column_tiles<element_t<E>>(copy_transpose_sectors_kernel<E, Policy, false>,
                                    copy_transpose_sectors_kernel<E, Policy, true>, a, E, tile_t::R,
                                    tile_t::C, tile_t::threads, 0, regions, stream,
                                    "copy_transpose_sectors_kernel launch");
}

template <int E, class Policy>
void launch_sectors_with(const copy_args& a, cudaStream_t stream) {
  launch_sectors_with<E, Policy>(a, stream, 0);
}

}  // namespace xpose::detail::cuda
