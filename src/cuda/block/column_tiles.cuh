// How copy_unaligned, copy_sectors and copy_any_size walk a batch of matrices in tiles of R rows x
// C columns, in the order tiles_walk_down picks (copy/launchers.hpp): grid x runs down the
// tiles of a column strip and y across the strips, or x across the tiles of a tile row and y down
// the tile rows; z over the matrices. y and z are capped at 65535, the blocks looping over the
// rest. Where tile_regions names several regions, a second instantiation of each kernel takes
// the strips (walking down) or tile rows (walking across) in that many interleaved regions
// (copy/launchers.hpp); otherwise no kernel divides to find its tile.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

/// The strips (walking down) or tile rows (walking across) of each of `regions` interleaved
/// regions among n: ceil(n / regions). 32-bit: a matrix in memory has fewer than 2^32 strips
/// and tile rows. Host and device.
__host__ __device__ inline unsigned region_length(unsigned n, unsigned regions) {
  return (n + regions - 1) / regions;
}

/// The strip or tile row that position y of the walk takes in `regions` interleaved regions of
/// `length` (n or more, for n strips or tile rows, for none). Host and device.
__host__ __device__ inline unsigned region_tile(unsigned y, unsigned length, unsigned regions) {
  return regions == 1 ? y : y % regions * length + y / regions;
}

/// The strips (walking down) or tile rows (walking across) of `a` in tiles of tile_rows x
/// tile_cols.
inline unsigned walked_tiles(const copy_args& a, int tile_rows, int tile_cols) {
  return static_cast<unsigned>(tiles_walk_down(a.rows, a.cols)
                                   ? (a.cols + tile_cols - 1) / tile_cols
                                   : (a.rows + tile_rows - 1) / tile_rows);
}

inline dim3 tile_grid(const copy_args& a, int tile_rows, int tile_cols, unsigned regions) {
  constexpr std::int64_t cap = 65535;
  const std::int64_t down = (a.rows + tile_rows - 1) / tile_rows;
  const std::int64_t across = (a.cols + tile_cols - 1) / tile_cols;
  const std::int64_t x = tiles_walk_down(a.rows, a.cols) ? down : across;
  const std::int64_t y =
      std::int64_t{region_length(walked_tiles(a, tile_rows, tile_cols), regions)} * regions;
  // x takes every tile of its direction: walking down, rows <= 2 cols, and across, cols < rows /
  // 2, so x passes 2^31 - 1 only for matrices of more than 2^61 elements.
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y < cap ? y : cap),
              static_cast<unsigned>(a.batch < cap ? a.batch : cap));
}

/// Calls visit(b, r0, c0, rows_left, valid_cols) for every tile of this block: matrix b, first
/// row r0 and column c0, rows_left = rows - r0, valid_cols = the tile's columns inside the
/// matrix (at most C); IN_REGIONS: the strips (walking down) or tile rows (walking across) in
/// `regions` interleaved regions of `length` each (region_length). IN_REGIONS is a template
/// parameter, so the plain walk keeps a loop of its own (one loop for both: 1-byte copy_unaligned
/// 0.011 x copy slower on 700 x 438112); `regions` and `length` are kernel parameters, since
/// computing them here makes copy_any_size spill. Each walk direction has its own loop, as
/// simple as the walk allows: one loop with selects between them is 0.01-0.03 x copy slower for
/// 2-byte elements.
template <int R, int C, bool IN_REGIONS, class Visit>
__device__ __forceinline__ void for_each_tile(std::int64_t batch, std::int64_t rows,
                                              std::int64_t cols, unsigned regions, unsigned length,
                                              Visit&& visit) {
  if (tiles_walk_down(rows, cols)) {
    const std::int64_t r0 = std::int64_t{blockIdx.x} * R;
    for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
      if constexpr (IN_REGIONS) {
        for (unsigned y = blockIdx.y; y < length * regions; y += gridDim.y) {
          const std::int64_t c0 = std::int64_t{region_tile(y, length, regions)} * C;
          if (c0 < cols)
            visit(b, r0, c0, rows - r0, static_cast<int>(cols - c0 < C ? cols - c0 : C));
        }
      } else {
        for (std::int64_t c0 = std::int64_t{blockIdx.y} * C; c0 < cols;
             c0 += std::int64_t{gridDim.y} * C)
          visit(b, r0, c0, rows - r0, static_cast<int>(cols - c0 < C ? cols - c0 : C));
      }
    }
  } else {
    const std::int64_t c0 = std::int64_t{blockIdx.x} * C;
    const int valid_cols = static_cast<int>(cols - c0 < C ? cols - c0 : C);
    for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
      if constexpr (IN_REGIONS) {
        for (unsigned y = blockIdx.y; y < length * regions; y += gridDim.y) {
          const std::int64_t r0 = std::int64_t{region_tile(y, length, regions)} * R;
          if (r0 < rows) visit(b, r0, c0, rows - r0, valid_cols);
        }
      } else {
        for (std::int64_t r0 = std::int64_t{blockIdx.y} * R; r0 < rows;
             r0 += std::int64_t{gridDim.y} * R)
          visit(b, r0, c0, rows - r0, valid_cols);
      }
    }
  }
}

/// A kernel over tiles of elements of type T (unsigned char for copy_any_size, whose element
/// sizes have no type; sizes and strides are in elements).
template <class T>
using column_tiles_kernel = void (*)(const T*, T*, std::int64_t batch, std::int64_t rows,
                                     std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                                     std::int64_t src_stride, std::int64_t dst_stride,
                                     unsigned regions, unsigned length);

/// Launches `plain` (the plain walk) or, where the walk takes several regions, `in_regions` on
/// tile_grid(a, tile_rows, tile_cols, regions) with `threads` per block and `dynamic_shared`
/// bytes of dynamic shared memory on `stream` (above 48 KiB the kernel is allowed that much
/// first: host-side calls, no synchronization; a device that cannot give it gets a clear error);
/// `regions` 0 takes tile_regions(a, elem_bytes).
template <class T>
void launch_column_tiles(column_tiles_kernel<T> plain, column_tiles_kernel<T> in_regions,
                         const copy_args& a, std::size_t elem_bytes, int tile_rows, int tile_cols,
                         int threads, int dynamic_shared, int regions, cudaStream_t stream,
                         const char* launch_name) {
  const unsigned regions_u = chosen_regions(regions, tile_regions(a, elem_bytes), launch_name);
  launch_with_shared(regions_u == 1 ? plain : in_regions,
                     tile_grid(a, tile_rows, tile_cols, regions_u), threads, dynamic_shared, stream,
                     launch_name, static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.batch,
                     a.rows, a.cols, a.lda, a.ldb, a.src_stride, a.dst_stride, regions_u,
                     region_length(walked_tiles(a, tile_rows, tile_cols), regions_u));
}

}  // namespace xpose::detail::cuda
