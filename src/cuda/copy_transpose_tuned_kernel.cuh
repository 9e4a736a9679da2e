// The copy_tuned kernel template (instantiated per element size and policy by
// copy_transpose_tuned.cu and, with candidate policies, by scripts/device_tune_policies.cu):
// one block per tile, grid-stride over the tiles of all matrices of the batch, each matrix's
// tiles in the order tiles_walk_down picks (copy_transpose_launch.hpp); the tile pieces
// are shared_tile_transpose.cuh. Pointers are element-aligned; `src_aligned` / `dst_aligned`
// say whether every row starts on 16 bytes (then all tiles take the vector paths).
#pragma once

#include <cstdint>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/shared_tile_transpose.cuh"

namespace xpose::detail::cuda {

template <int E, class Policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_tuned_kernel(const element_t<E>* __restrict__ src,
                                element_t<E>* __restrict__ dst, std::int64_t rows,
                                std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                                std::int64_t src_stride, std::int64_t dst_stride,
                                std::int64_t tiles_down, std::int64_t tiles_across,
                                std::int64_t total_tiles, bool src_aligned, bool dst_aligned) {
  using tile_t = shared_tile_transpose<E, Policy::tile_rows, Policy::tile_bytes, Policy::threads>;
  __shared__ __align__(16) unsigned char tile[tile_t::bytes];
  const std::int64_t tiles_per_matrix = tiles_down * tiles_across;
  const bool walk_down = tiles_walk_down(rows, cols);
  for (std::int64_t t = blockIdx.x; t < total_tiles; t += gridDim.x) {
    const std::int64_t b = t / tiles_per_matrix;
    const std::int64_t in_matrix = t - b * tiles_per_matrix;
    const std::int64_t row_tile = walk_down ? in_matrix % tiles_down : in_matrix / tiles_across;
    const std::int64_t col_tile = walk_down ? in_matrix / tiles_down : in_matrix % tiles_across;
    const std::int64_t r0 = row_tile * Policy::tile_rows;
    const std::int64_t c0 = col_tile * tile_t::tile_cols;
    const int valid_rows =
        static_cast<int>(rows - r0 < Policy::tile_rows ? rows - r0 : Policy::tile_rows);
    const int valid_cols =
        static_cast<int>(cols - c0 < tile_t::tile_cols ? cols - c0 : tile_t::tile_cols);
    const element_t<E>* matrix = src + b * src_stride;
    const auto shifts = tile_t::load(tile, matrix + r0 * lda + c0, lda, valid_rows, valid_cols,
                                     src_aligned, matrix + (rows - 1) * lda + cols);
    __syncthreads();
    tile_t::store_transposed(tile, dst + b * dst_stride + c0 * ldb + r0, ldb, valid_rows,
                             valid_cols, dst_aligned, shifts);
    __syncthreads();
  }
}

template <int E, class Policy>
void launch_tuned_with(const copy_args& a, cudaStream_t stream) {
  constexpr int tile_cols = Policy::tile_bytes / E;
  const std::int64_t tiles_down = (a.rows + Policy::tile_rows - 1) / Policy::tile_rows;
  const std::int64_t tiles_across = (a.cols + tile_cols - 1) / tile_cols;
  const std::int64_t total = tiles_down * tiles_across * a.batch;
  copy_transpose_tuned_kernel<E, Policy><<<grid_for(total), Policy::threads, 0, stream>>>(
      static_cast<const element_t<E>*>(a.src), static_cast<element_t<E>*>(a.dst), a.rows, a.cols,
      a.lda, a.ldb, a.src_stride, a.dst_stride, tiles_down, tiles_across, total,
      rows_aligned(a.src, a.lda, a.src_stride, a.batch, E, 16),
      rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 16));
  check_launch("copy_transpose_tuned_kernel launch");
}

}  // namespace xpose::detail::cuda
