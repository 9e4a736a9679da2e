// The out-of-place progression of the lecture slides "Matrix Transpose — get 90% bandwidth",
// kept as named variants to measure against copy_tuned:
//   copy_naive          one element per thread, reads coalesced, writes strided by ldb;
//   copy_shared_tiles   32 x 32 shared-memory tile, 32 x 32 threads: coalesced both ways;
//   copy_padded_tiles   the same tile padded by one column: no shared-memory bank conflicts;
//   copy_multi_element  padded tile, 32 x 8 threads, four elements per thread.
// Generalized from the slides' single float matrix to E-byte elements, leading dimensions,
// batches (grid-stride over the tiles of all matrices) and 64-bit indices.
#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

constexpr int seed_tile = 32;

template <class T>
__global__ void copy_transpose_naive_kernel(const T* __restrict__ src, T* __restrict__ dst,
                                            std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                            std::int64_t ldb, std::int64_t src_stride,
                                            std::int64_t dst_stride, std::int64_t total) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t per_matrix = rows * cols;
    const std::int64_t b = i / per_matrix;
    const std::int64_t r = (i - b * per_matrix) / cols;
    const std::int64_t c = i - b * per_matrix - r * cols;
    dst[b * dst_stride + c * ldb + r] = src[b * src_stride + r * lda + c];
  }
}

/// One 32 x 32 tile per block and iteration; blockDim = (32, BLOCK_ROWS), PAD columns of padding.
template <class T, int PAD, int BLOCK_ROWS>
__global__ void copy_transpose_tiles_kernel(const T* __restrict__ src, T* __restrict__ dst,
                                            std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                            std::int64_t ldb, std::int64_t src_stride,
                                            std::int64_t dst_stride, std::int64_t tiles_down,
                                            std::int64_t tiles_across, std::int64_t total_tiles) {
  __shared__ T tile[seed_tile][seed_tile + PAD];
  const std::int64_t tiles_per_matrix = tiles_down * tiles_across;
  for (std::int64_t t = blockIdx.x; t < total_tiles; t += gridDim.x) {
    const std::int64_t b = t / tiles_per_matrix;
    const std::int64_t in_matrix = t - b * tiles_per_matrix;
    const std::int64_t r0 = (in_matrix / tiles_across) * seed_tile;
    const std::int64_t c0 = (in_matrix % tiles_across) * seed_tile;
    const T* s = src + b * src_stride;
    T* d = dst + b * dst_stride;
#pragma unroll
    for (int k = 0; k < seed_tile; k += BLOCK_ROWS) {
      const std::int64_t r = r0 + threadIdx.y + k, c = c0 + threadIdx.x;
      if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = s[r * lda + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < seed_tile; k += BLOCK_ROWS) {
      const std::int64_t c = c0 + threadIdx.y + k, r = r0 + threadIdx.x;
      if (r < rows && c < cols) d[c * ldb + r] = tile[threadIdx.x][threadIdx.y + k];
    }
    __syncthreads();
  }
}

template <class T, int PAD, int BLOCK_ROWS>
void launch_tiles(const copy_args& a, cudaStream_t stream) {
  const std::int64_t down = (a.rows + seed_tile - 1) / seed_tile;
  const std::int64_t across = (a.cols + seed_tile - 1) / seed_tile;
  const std::int64_t total = down * across * a.batch;
  copy_transpose_tiles_kernel<T, PAD, BLOCK_ROWS>
      <<<grid_for(total), dim3(seed_tile, BLOCK_ROWS), 0, stream>>>(
          static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.lda, a.ldb,
          a.src_stride, a.dst_stride, down, across, total);
  check_launch("copy_transpose_tiles_kernel launch");
}

template <class T>
void launch_variant(const copy_args& a, route variant, cudaStream_t stream) {
  switch (variant) {
    case route::copy_naive: {
      const std::int64_t total = a.rows * a.cols * a.batch;
      constexpr int threads = 256;
      copy_transpose_naive_kernel<T>
          <<<grid_for((total + threads - 1) / threads), threads, 0, stream>>>(
              static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.lda, a.ldb,
              a.src_stride, a.dst_stride, total);
      check_launch("copy_transpose_naive_kernel launch");
      return;
    }
    case route::copy_shared_tiles:
      return launch_tiles<T, 0, seed_tile>(a, stream);
    case route::copy_padded_tiles:
      return launch_tiles<T, 1, seed_tile>(a, stream);
    case route::copy_multi_element:
      return launch_tiles<T, 1, 8>(a, stream);
    default:
      throw error(status::internal_error, "launch_copy_seed_variant: not a seed variant: " +
                                              std::string(to_string(variant)));
  }
}

}  // namespace

void launch_copy_seed_variant(const copy_args& a, int word_bytes, route variant,
                              cudaStream_t stream) {
  with_word(word_bytes, "launch_copy_seed_variant",
            [&](auto w) { launch_variant<element_t<decltype(w)::value>>(a, variant, stream); });
}

}  // namespace xpose::detail::cuda
