// The copy_tuned kernel template (instantiated per element size and policy by
// copy/tuned.cu and, with candidate policies, by bench/device_tune_policies.cu):
// out-of-place transposition through shared-memory tiles, several elements per thread (the
// lecture slides "Matrix Transpose — get 90% bandwidth", with 16-byte accesses); one block per
// tile, grid-stride over the tiles of all matrices of the batch, each matrix's tiles in the order
// tiles_walk_down picks (copy/launchers.hpp), the strips (walking down) or tile rows (walking
// across) in `regions` interleaved regions (tile_regions, block/column_tiles.cuh); the tile pieces
// are block/shared_tile_transpose.cuh. Pointers are element-aligned; `src_aligned` / `dst_aligned`
// say whether every row starts on 16 bytes (then all tiles take the vector paths).
// copy_transpose_whole_tiles_kernel is its lean form for matrices made of whole tiles on aligned
// rows (tuned_tiles::whole_h100 and whole_h200).
#pragma once

#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/column_tiles.cuh"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

template <int E, class Policy, bool IN_REGIONS>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_tuned_kernel(const element_t<E>* __restrict__ src,
                                element_t<E>* __restrict__ dst, std::int64_t rows,
                                std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                                std::int64_t src_stride, std::int64_t dst_stride,
                                std::int64_t tiles_down, std::int64_t tiles_across,
                                std::int64_t batch, unsigned regions, unsigned length,
                                bool src_aligned, bool dst_aligned) {
  using tile_t = shared_tile_transpose<E, Policy::tile_rows, Policy::tile_bytes, Policy::threads>;
  __shared__ __align__(16) unsigned char tile[tile_t::bytes];
  const bool walk_down = tiles_walk_down(rows, cols);
  // Walking down, a matrix's tiles are its strips' tiles in turn, walking across its tile rows';
  // IN_REGIONS: the strips or tile rows in `regions` interleaved regions of `length`
  // (block/column_tiles.cuh; a template parameter, so that the plain walk keeps its arithmetic).
  const std::int64_t inner = walk_down ? tiles_down : tiles_across;
  const std::int64_t outer = walk_down ? tiles_across : tiles_down;
  const std::int64_t tiles_per_matrix = IN_REGIONS ? inner * length * regions : inner * outer;
  for (std::int64_t t = blockIdx.x; t < tiles_per_matrix * batch; t += gridDim.x) {
    const std::int64_t b = t / tiles_per_matrix;
    const std::int64_t in_matrix = t - b * tiles_per_matrix;
    std::int64_t row_tile, col_tile;
    if constexpr (IN_REGIONS) {
      const std::int64_t outer_tile =
          region_tile(static_cast<unsigned>(in_matrix / inner), length, regions);
      if (outer_tile >= outer) continue;
      row_tile = walk_down ? in_matrix % inner : outer_tile;
      col_tile = walk_down ? outer_tile : in_matrix % inner;
    } else {
      row_tile = walk_down ? in_matrix % tiles_down : in_matrix / tiles_across;
      col_tile = walk_down ? in_matrix / tiles_down : in_matrix % tiles_across;
    }
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

/// Launches the kernel with Policy's tiles on `a`, in `regions` interleaved regions (0:
/// tile_regions').
template <int E, class Policy>
void launch_tuned_with(const copy_args& a, cudaStream_t stream, int regions) {
  const unsigned regions_u =
      chosen_regions(regions, tile_regions(a, E), "copy_transpose_tuned_kernel");
  constexpr int tile_cols = Policy::tile_bytes / E;
  const std::int64_t tiles_down = (a.rows + Policy::tile_rows - 1) / Policy::tile_rows;
  const std::int64_t tiles_across = (a.cols + tile_cols - 1) / tile_cols;
  const bool walk_down = tiles_walk_down(a.rows, a.cols);
  const unsigned length =
      region_length(static_cast<unsigned>(walk_down ? tiles_across : tiles_down), regions_u);
  const std::int64_t positions =
      (walk_down ? tiles_down : tiles_across) * length * regions_u * a.batch;
  const auto kernel = regions_u == 1 ? copy_transpose_tuned_kernel<E, Policy, false>
                                     : copy_transpose_tuned_kernel<E, Policy, true>;
  kernel<<<grid_for(positions), Policy::threads, 0, stream>>>(
      static_cast<const element_t<E>*>(a.src), static_cast<element_t<E>*>(a.dst), a.rows, a.cols,
      a.lda, a.ldb, a.src_stride, a.dst_stride, tiles_down, tiles_across, a.batch, regions_u,
      length, rows_aligned(a.src, a.lda, a.src_stride, a.batch, E, 16),
      rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 16));
  check_launch("copy_transpose_tuned_kernel launch");
}

template <int E, class Policy>
void launch_tuned_with(const copy_args& a, cudaStream_t stream) {
  launch_tuned_with<E, Policy>(a, stream, 0);
}

/// copy_tuned's whole tiles (tuned_tiles::whole_h100 and whole_h200: copy_tuned_whole<D, E> in
/// tuning/tuned.hpp): matrices made of whole Policy tiles whose source and destination rows all
/// start on 16 bytes, their tiles walked down each strip whatever the shape (tall ones too,
/// unlike tiles_walk_down: taller shapes than the tables' most_aspect stay on the standard
/// tiles). One tile per block, no edge paths, and
/// offsets inside a tile in 32 bits (whole_tiles_fit checks that they fit), so that the kernel
/// fits the 32 registers a thread has at full occupancy.
template <int E, class Policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_transpose_whole_tiles_kernel(const element_t<E>* __restrict__ src,
                                      element_t<E>* __restrict__ dst, unsigned lda, unsigned ldb,
                                      std::int64_t src_stride, std::int64_t dst_stride,
                                      unsigned tiles_down, unsigned tiles_per_matrix) {
  using tile_t = shared_tile_transpose<E, Policy::tile_rows, Policy::tile_bytes, Policy::threads>;
  __shared__ __align__(16) unsigned char tile[Policy::tile_rows * Policy::tile_bytes];
  const unsigned b = blockIdx.x / tiles_per_matrix, in_matrix = blockIdx.x % tiles_per_matrix;
  const unsigned row_tile = in_matrix % tiles_down, col_tile = in_matrix / tiles_down;
  const std::int64_t r0 = std::int64_t{row_tile} * Policy::tile_rows;
  const std::int64_t c0 = std::int64_t{col_tile} * tile_t::tile_cols;
  tile_t::load_whole(tile, src + b * src_stride + r0 * lda + c0, lda);
  __syncthreads();
  tile_t::store_whole(tile, dst + b * dst_stride + c0 * ldb + r0, ldb);
}

/// Whether `a` runs in copy_transpose_whole_tiles_kernel with Policy's tiles: one or more whole
/// tiles, rows on 16 bytes on both sides, a tile's offsets and the grid within 31 bits.
template <int E, class Policy>
bool whole_tiles_fit(const copy_args& a) {
  constexpr std::int64_t tile_cols = Policy::tile_bytes / E, most = 0x7fffffff;
  return a.batch >= 1 && a.rows > 0 && a.cols > 0 && a.rows % Policy::tile_rows == 0 &&
         a.cols % tile_cols == 0 && rows_aligned(a.src, a.lda, a.src_stride, a.batch, E, 16) &&
         rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 16) &&
         a.lda <= most / Policy::tile_rows && a.ldb <= most / tile_cols &&
         a.rows / Policy::tile_rows * (a.cols / tile_cols) <= most / a.batch;
}

/// Launches copy_transpose_whole_tiles_kernel on `a`, which whole_tiles_fit<E, Policy>.
template <int E, class Policy>
void launch_whole_tiles_with(const copy_args& a, cudaStream_t stream) {
  const auto tiles_down = static_cast<unsigned>(a.rows / Policy::tile_rows);
  const auto tiles_per_matrix =
      static_cast<unsigned>(tiles_down * (a.cols / (Policy::tile_bytes / E)));
  copy_transpose_whole_tiles_kernel<E, Policy>
      <<<grid_for(tiles_per_matrix * a.batch), Policy::threads, 0, stream>>>(
          static_cast<const element_t<E>*>(a.src), static_cast<element_t<E>*>(a.dst),
          static_cast<unsigned>(a.lda), static_cast<unsigned>(a.ldb), a.src_stride, a.dst_stride,
          tiles_down, tiles_per_matrix);
  check_launch("copy_transpose_whole_tiles_kernel launch");
}

}  // namespace xpose::detail::cuda
