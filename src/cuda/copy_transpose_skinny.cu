// Out-of-place transposition of skinny matrices (one dimension small, the other long: the
// AoS <-> SoA case), where a square tile would be mostly empty. One block moves a whole slab:
//   wide (few rows R, many columns): R x CB source elements -> CB contiguous destination rows
//     of R elements; the slab is loaded with 16-byte row loads, and the destination (dense
//     when ldb == R) is written as one contiguous run of 16-byte stores;
//   tall (many rows, few columns C): RB x C source elements (one contiguous run when
//     lda == C, loaded with 16-byte loads) -> C destination row segments of RB elements,
//     written with 16-byte stores.
// Shared memory holds the slab with the short dimension outermost, rows padded by 16 bytes.
// Accesses that are not 16-byte aligned, and slab edges, fall back to element accesses.
// Grid-stride over the slabs of all matrices; 64-bit indices.
#include <cstdint>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/shared_tile_transpose.cuh"

namespace xpose::detail::cuda {

namespace {

constexpr int skinny_threads = 256;
constexpr int skinny_slab_bytes = 16 * 1024;

__device__ bool aligned_16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0;
}

/// Wide: rows <= skinny_max, slab of `slab_cols` columns (slab_cols * E a multiple of 16).
template <int E>
__global__ void __launch_bounds__(skinny_threads)
    copy_transpose_wide_kernel(const element_t<E>* __restrict__ src, element_t<E>* __restrict__ dst,
                               int rows, std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                               std::int64_t src_stride, std::int64_t dst_stride, int slab_cols,
                               std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  using element = element_t<E>;
  constexpr int P = 16 / E;
  extern __shared__ __align__(16) unsigned char slab[];
  const int pitch = slab_cols * E + 16;
  const int chunks_per_row = slab_cols * E / 16;
  for (std::int64_t t = blockIdx.x; t < total_slabs; t += gridDim.x) {
    const std::int64_t b = t / slabs_per_matrix;
    const std::int64_t c0 = (t - b * slabs_per_matrix) * slab_cols;
    const int valid_cols = static_cast<int>(cols - c0 < slab_cols ? cols - c0 : slab_cols);
    const element* s = src + b * src_stride + c0;
    element* d = dst + b * dst_stride + c0 * ldb;
    for (int idx = threadIdx.x; idx < rows * chunks_per_row; idx += skinny_threads) {
      const int r = idx / chunks_per_row, col = (idx - r * chunks_per_row) * P;
      const element* p = s + r * lda + col;
      unsigned char* out = slab + r * pitch + col * E;
      if (col + P <= valid_cols && aligned_16(p)) {
        *reinterpret_cast<uint4*>(out) = __ldcg(reinterpret_cast<const uint4*>(p));
      } else {
        for (int e = 0; e < P && col + e < valid_cols; ++e)
          reinterpret_cast<element*>(out)[e] = p[e];
      }
    }
    __syncthreads();
    const int total = valid_cols * rows;  // destination elements of this slab
    if (ldb == rows) {
      // Dense destination: elements k = c * rows + r of one contiguous run.
      for (int k0 = threadIdx.x * P; k0 < total; k0 += skinny_threads * P) {
        int c = k0 / rows, r = k0 - c * rows;
        if (k0 + P <= total && aligned_16(d + k0)) {
          uint4 v;
          element* parts = reinterpret_cast<element*>(&v);
#pragma unroll
          for (int i = 0; i < P; ++i) {
            parts[i] = *reinterpret_cast<const element*>(slab + r * pitch + c * E);
            if (++r == rows) r = 0, ++c;
          }
          __stcg(reinterpret_cast<uint4*>(d + k0), v);
        } else {
          for (int k = k0; k < k0 + P && k < total; ++k) {
            d[k] = *reinterpret_cast<const element*>(slab + r * pitch + c * E);
            if (++r == rows) r = 0, ++c;
          }
        }
      }
    } else {
      for (int k = threadIdx.x; k < total; k += skinny_threads) {
        const int c = k / rows, r = k - c * rows;
        d[c * ldb + r] = *reinterpret_cast<const element*>(slab + r * pitch + c * E);
      }
    }
    __syncthreads();
  }
}

/// Tall: cols <= skinny_max, slab of `slab_rows` rows (slab_rows * E a multiple of 16).
template <int E>
__global__ void __launch_bounds__(skinny_threads)
    copy_transpose_tall_kernel(const element_t<E>* __restrict__ src, element_t<E>* __restrict__ dst,
                               std::int64_t rows, int cols, std::int64_t lda, std::int64_t ldb,
                               std::int64_t src_stride, std::int64_t dst_stride, int slab_rows,
                               std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  using element = element_t<E>;
  constexpr int P = 16 / E;
  extern __shared__ __align__(16) unsigned char slab[];
  const int pitch = slab_rows * E + 16;
  const int chunks_per_row = slab_rows * E / 16;
  for (std::int64_t t = blockIdx.x; t < total_slabs; t += gridDim.x) {
    const std::int64_t b = t / slabs_per_matrix;
    const std::int64_t r0 = (t - b * slabs_per_matrix) * slab_rows;
    const int valid_rows = static_cast<int>(rows - r0 < slab_rows ? rows - r0 : slab_rows);
    const element* s = src + b * src_stride + r0 * lda;
    element* d = dst + b * dst_stride + r0;
    const int total = valid_rows * cols;  // source elements of this slab
    if (lda == cols) {
      // Dense source: elements k = r * cols + c of one contiguous run.
      for (int k0 = threadIdx.x * P; k0 < total; k0 += skinny_threads * P) {
        int r = k0 / cols, c = k0 - r * cols;
        if (k0 + P <= total && aligned_16(s + k0)) {
          const uint4 v = __ldcg(reinterpret_cast<const uint4*>(s + k0));
          const element* parts = reinterpret_cast<const element*>(&v);
#pragma unroll
          for (int i = 0; i < P; ++i) {
            *reinterpret_cast<element*>(slab + c * pitch + r * E) = parts[i];
            if (++c == cols) c = 0, ++r;
          }
        } else {
          for (int k = k0; k < k0 + P && k < total; ++k) {
            *reinterpret_cast<element*>(slab + c * pitch + r * E) = s[k];
            if (++c == cols) c = 0, ++r;
          }
        }
      }
    } else {
      for (int k = threadIdx.x; k < total; k += skinny_threads) {
        const int r = k / cols, c = k - r * cols;
        *reinterpret_cast<element*>(slab + c * pitch + r * E) = s[r * lda + c];
      }
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < cols * chunks_per_row; idx += skinny_threads) {
      const int c = idx / chunks_per_row, row = (idx - c * chunks_per_row) * P;
      element* p = d + c * ldb + row;
      const unsigned char* in = slab + c * pitch + row * E;
      if (row + P <= valid_rows && aligned_16(p)) {
        __stcg(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(in));
      } else {
        for (int e = 0; e < P && row + e < valid_rows; ++e)
          p[e] = reinterpret_cast<const element*>(in)[e];
      }
    }
    __syncthreads();
  }
}

/// Slab length along the long dimension: about skinny_slab_bytes of data, a multiple of 16
/// bytes.
int slab_length(std::int64_t short_side, int e) {
  const std::int64_t units = skinny_slab_bytes / (short_side * 16);
  return static_cast<int>((units > 0 ? units : 1) * 16 / e);
}

template <int E>
void launch_skinny(const copy_args& a, cudaStream_t stream) {
  if (a.rows <= a.cols) {
    const int slab_cols = slab_length(a.rows, E);
    const std::int64_t per_matrix = (a.cols + slab_cols - 1) / slab_cols;
    const std::int64_t total = per_matrix * a.batch;
    const std::size_t shared = static_cast<std::size_t>(a.rows) * (slab_cols * E + 16);
    copy_transpose_wide_kernel<E><<<grid_for(total), skinny_threads, shared, stream>>>(
        static_cast<const element_t<E>*>(a.src), static_cast<element_t<E>*>(a.dst),
        static_cast<int>(a.rows), a.cols, a.lda, a.ldb, a.src_stride, a.dst_stride, slab_cols,
        per_matrix, total);
    check_launch("copy_transpose_wide_kernel launch");
  } else {
    const int slab_rows = slab_length(a.cols, E);
    const std::int64_t per_matrix = (a.rows + slab_rows - 1) / slab_rows;
    const std::int64_t total = per_matrix * a.batch;
    const std::size_t shared = static_cast<std::size_t>(a.cols) * (slab_rows * E + 16);
    copy_transpose_tall_kernel<E><<<grid_for(total), skinny_threads, shared, stream>>>(
        static_cast<const element_t<E>*>(a.src), static_cast<element_t<E>*>(a.dst), a.rows,
        static_cast<int>(a.cols), a.lda, a.ldb, a.src_stride, a.dst_stride, slab_rows, per_matrix,
        total);
    check_launch("copy_transpose_tall_kernel launch");
  }
}

}  // namespace

void launch_copy_skinny(const copy_args& a, int word_bytes, cudaStream_t stream) {
  with_word(word_bytes, "launch_copy_skinny",
            [&](auto w) { launch_skinny<decltype(w)::value>(a, stream); });
}

}  // namespace xpose::detail::cuda
