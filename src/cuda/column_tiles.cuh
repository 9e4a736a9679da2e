// How copy_unaligned, copy_sectors and copy_any_size walk a batch of matrices in tiles of R rows x
// C columns, in the order tiles_walk_down picks (copy_transpose_launch.hpp): grid x runs down the
// tiles of a column strip and y across the strips, or x across the tiles of a tile row and y down
// the tile rows; z over the matrices. y and z are capped at 65535, the blocks looping over the
// rest, so no kernel divides to find its tile.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/shared_tile_transpose.cuh"

namespace xpose::detail::cuda {

inline dim3 tile_grid(const copy_args& a, int tile_rows, int tile_cols) {
  constexpr std::int64_t cap = 65535;
  const std::int64_t down = (a.rows + tile_rows - 1) / tile_rows;
  const std::int64_t across = (a.cols + tile_cols - 1) / tile_cols;
  const bool walk_down = tiles_walk_down(a.rows, a.cols);
  const std::int64_t x = walk_down ? down : across, y = walk_down ? across : down;
  // x takes every tile of its direction: walking down, rows <= 2 cols, and across, cols < rows /
  // 2, so x passes 2^31 - 1 only for matrices of more than 2^61 elements.
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y < cap ? y : cap),
              static_cast<unsigned>(a.batch < cap ? a.batch : cap));
}

/// Calls visit(b, r0, c0, rows_left, valid_cols) for every tile of this block: matrix b, first
/// row r0 and column c0, rows_left = rows - r0, valid_cols = the tile's columns inside the
/// matrix (at most C). One loop per walk, each as simple as the walk allows: one loop with
/// selects between the walks ran 0.01-0.03 slower for 2-byte elements (11583 x 11585,
/// 40009 x 2001; docs/performance.md).
template <int R, int C, class Visit>
__device__ __forceinline__ void for_each_tile(std::int64_t batch, std::int64_t rows,
                                              std::int64_t cols, Visit&& visit) {
  if (tiles_walk_down(rows, cols)) {
    const std::int64_t r0 = std::int64_t{blockIdx.x} * R;
    for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z)
      for (std::int64_t c0 = std::int64_t{blockIdx.y} * C; c0 < cols;
           c0 += std::int64_t{gridDim.y} * C)
        visit(b, r0, c0, rows - r0, static_cast<int>(cols - c0 < C ? cols - c0 : C));
  } else {
    const std::int64_t c0 = std::int64_t{blockIdx.x} * C;
    const int valid_cols = static_cast<int>(cols - c0 < C ? cols - c0 : C);
    for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z)
      for (std::int64_t r0 = std::int64_t{blockIdx.y} * R; r0 < rows;
           r0 += std::int64_t{gridDim.y} * R)
        visit(b, r0, c0, rows - r0, valid_cols);
  }
}

/// A kernel over tiles of elements of type T (unsigned char for copy_any_size, whose element
/// sizes have no type; sizes and strides are in elements).
template <class T>
using column_tiles_kernel = void (*)(const T*, T*, std::int64_t batch, std::int64_t rows,
                                     std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                                     std::int64_t src_stride, std::int64_t dst_stride);

/// Launches `kernel` on tile_grid(a, tile_rows, tile_cols) with `threads` per block and
/// `dynamic_shared` bytes of dynamic shared memory on `stream` (above 48 KiB the kernel is
/// allowed that much first: host-side calls, no synchronization; a device that cannot give it
/// gets a clear error).
template <class T>
void launch_column_tiles(column_tiles_kernel<T> kernel, const copy_args& a, int tile_rows,
                         int tile_cols, int threads, int dynamic_shared, cudaStream_t stream,
                         const char* launch_name) {
  launch_with_shared(kernel, tile_grid(a, tile_rows, tile_cols), threads, dynamic_shared, stream,
                     launch_name, static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.batch,
                     a.rows, a.cols, a.lda, a.ldb, a.src_stride, a.dst_stride);
}

}  // namespace xpose::detail::cuda
