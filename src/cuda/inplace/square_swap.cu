// Square in-place transposition, one pass over the matrix (tile (i, j) swapped with (j, i)):
//   square_tile_swap  one block per pair of tiles (i, j), i <= j: both tiles go into shared
//                     memory, then each is written back transposed into the other's place;
//                     a diagonal tile is transposed in its own place. Tiles use the 16-byte
//                     swizzled pieces of block/shared_tile_transpose.cuh (policies:
//                     square_tile_policy, square_tile_unaligned_policy): whole tiles of rows that
//                     do not start on 16 bytes (odd n, odd ld) take the funnel-shifting whole-tile
//                     pieces, cut tiles the shifted ones. Every block owns its two tiles, so blocks
//                     never touch each other's data. (The tiled kernel of the blog post "GPU Matrix
//                     Transpose" writes each tile back transposed into its own place, which is not
//                     a transposition; this one swaps.)
//   square_naive      the blog post's naive kernel: one thread per element (r, c) with c > r
//                     swaps it with (c, r); 2-D grid as in the blog, grid-stride for size.
// Elements of 1, 2, 4, 8 or 16 bytes take these kernels; other sizes run a super-element tile
// swap (k words per element, padded shared tile). Batches: grid-stride over (matrix, tile pair).
#include <cmath>
#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

namespace {

/// Tile pair p (0 <= p < t(t+1)/2) in row-major order of the upper triangle -> (i, j), i <= j.
__device__ void tile_pair(std::int64_t p, std::int64_t t, std::int64_t& i, std::int64_t& j) {
  // Pairs before row i: i*t - i(i-1)/2. Solve for i, then correct the rounding.
  const double tt = 2.0 * t + 1.0;
  std::int64_t row = static_cast<std::int64_t>((tt - sqrt(tt * tt - 8.0 * p)) / 2.0);
  auto before = [t](std::int64_t r) { return r * t - r * (r - 1) / 2; };
  while (row > 0 && before(row) > p) --row;
  while (before(row + 1) <= p) ++row;
  i = row;
  j = row + (p - before(row));
}

/// aligned: every row starts on 16 bytes (the data, ld and the batch stride allow it). Matrices
/// whose rows do not take the instantiation with Unaligned, a kernel of its own so that its
/// registers do not weigh on the aligned one's.
template <int E, class Policy, bool Unaligned>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    square_tile_swap_kernel(element_t<E>* data, std::int64_t n, std::int64_t ld,
                            std::int64_t stride, std::int64_t tiles, std::int64_t total_pairs,
                            bool aligned) {
  using tile_t = shared_tile_transpose<E, Policy::tile_rows, Policy::tile_bytes, Policy::threads>;
  static_assert(tile_t::tile_cols == Policy::tile_rows, "square tiles");
  constexpr int side = Policy::tile_rows;
  __shared__ __align__(16) unsigned char upper[tile_t::bytes];
  __shared__ __align__(16) unsigned char lower[tile_t::bytes];
  const std::int64_t pairs_per_matrix = tiles * (tiles + 1) / 2;
  for (std::int64_t p = blockIdx.x; p < total_pairs; p += gridDim.x) {
    const std::int64_t b = p / pairs_per_matrix;
    std::int64_t i, j;
    tile_pair(p - b * pairs_per_matrix, tiles, i, j);
    element_t<E>* m = data + b * stride;
    const int rows_i = static_cast<int>(n - i * side < side ? n - i * side : side);
    const int rows_j = static_cast<int>(n - j * side < side ? n - j * side : side);
    element_t<E>* tile_ij = m + i * side * ld + j * side;
    element_t<E>* tile_ji = m + j * side * ld + i * side;
    const element_t<E>* end = m + (n - 1) * ld + n;
    const bool rows_aligned = !Unaligned && aligned;
    if (Unaligned && rows_i == side && rows_j == side) {
      tile_t::load_whole_any_alignment(upper, tile_ij, ld, end);
      if (i != j) tile_t::load_whole_any_alignment(lower, tile_ji, ld, end);
      __syncthreads();
      tile_t::store_whole_any_alignment(upper, tile_ji, ld);
      if (i != j) tile_t::store_whole_any_alignment(lower, tile_ij, ld);
      __syncthreads();
      continue;
    }
    const auto upper_shifts =
        tile_t::template load<true>(upper, tile_ij, ld, rows_i, rows_j, rows_aligned, end);
    typename tile_t::row_shifts lower_shifts;
    if (i != j)
      lower_shifts =
          tile_t::template load<true>(lower, tile_ji, ld, rows_j, rows_i, rows_aligned, end);
    __syncthreads();
    tile_t::store_transposed(upper, tile_ji, ld, rows_i, rows_j, rows_aligned, upper_shifts);
    if (i != j)
      tile_t::store_transposed(lower, tile_ij, ld, rows_j, rows_i, rows_aligned, lower_shifts);
    __syncthreads();
  }
}

template <class T>
__global__ void square_naive_kernel(T* data, std::int64_t n, std::int64_t ld, std::int64_t stride,
                                    std::int64_t batch) {
  const std::int64_t step_x = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t step_y = std::int64_t{gridDim.y} * blockDim.y;
  for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    T* m = data + b * stride;
    for (std::int64_t r = blockIdx.y * std::int64_t{blockDim.y} + threadIdx.y; r < n; r += step_y)
      for (std::int64_t c = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; c < n;
           c += step_x) {
        if (c > r) {
          const T t = m[r * ld + c];
          m[r * ld + c] = m[c * ld + r];
          m[c * ld + r] = t;
        }
      }
  }
}

/// Super-element tile swap: elements of k words of type W, square tiles of `side` elements,
/// rows padded by one word.
template <class W>
__global__ void square_super_elements_kernel(W* data, std::int64_t k, int side, std::int64_t n,
                                             std::int64_t ld, std::int64_t stride,
                                             std::int64_t tiles, std::int64_t total_pairs) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int row_words = static_cast<int>(side * k), pitch = row_words + 1;
  W* upper = reinterpret_cast<W*>(shared_bytes);
  W* lower = upper + side * pitch;
  const std::int64_t pairs_per_matrix = tiles * (tiles + 1) / 2;
  for (std::int64_t p = blockIdx.x; p < total_pairs; p += gridDim.x) {
    const std::int64_t b = p / pairs_per_matrix;
    std::int64_t i, j;
    tile_pair(p - b * pairs_per_matrix, tiles, i, j);
    W* m = data + b * stride * k;
    const int rows_i = static_cast<int>(n - i * side < side ? n - i * side : side);
    const int rows_j = static_cast<int>(n - j * side < side ? n - j * side : side);
    W* tile_ij = m + (i * side * ld + j * side) * k;
    W* tile_ji = m + (j * side * ld + i * side) * k;
    for (int x = threadIdx.x; x < side * row_words; x += blockDim.x) {
      const int r = x / row_words, q = x - r * row_words;
      if (r < rows_i && q < rows_j * k) upper[r * pitch + q] = tile_ij[r * ld * k + q];
      if (i != j && r < rows_j && q < rows_i * k) lower[r * pitch + q] = tile_ji[r * ld * k + q];
    }
    __syncthreads();
    for (int x = threadIdx.x; x < side * row_words; x += blockDim.x) {
      const int c = x / row_words, q = x - c * row_words;
      const int r = static_cast<int>(q / k), part = static_cast<int>(q - r * k);
      // Row c of the transposed upper tile lands in tile (j, i); of the lower one in (i, j).
      if (c < rows_j && r < rows_i) tile_ji[c * ld * k + q] = upper[r * pitch + c * k + part];
      if (i != j && c < rows_i && r < rows_j)
        tile_ij[c * ld * k + q] = lower[r * pitch + c * k + part];
    }
    __syncthreads();
  }
}

template <int E>
void launch_tile_swap(const square_args& a, cudaStream_t stream) {
  using policy = square_tile_policy<E>;
  const std::int64_t tiles = (a.n + policy::tile_rows - 1) / policy::tile_rows;
  const std::int64_t total = tiles * (tiles + 1) / 2 * a.batch;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(a.data) & 15) == 0 &&
                       (a.ld * E) % 16 == 0 && (a.batch == 1 || (a.stride * E) % 16 == 0);
  auto* data = static_cast<element_t<E>*>(a.data);
  using unaligned_policy = square_tile_unaligned_policy<E>;
  static_assert(unaligned_policy::tile_rows == policy::tile_rows, "the same tiles");
  if (aligned)
    square_tile_swap_kernel<E, policy, false><<<grid_for(total), policy::threads, 0, stream>>>(
        data, a.n, a.ld, a.stride, tiles, total, true);
  else
    square_tile_swap_kernel<E, unaligned_policy, true>
        <<<grid_for(total), unaligned_policy::threads, 0, stream>>>(data, a.n, a.ld, a.stride,
                                                                    tiles, total, false);
  check_launch("square_tile_swap_kernel launch");
}

template <class T>
void launch_naive(const square_args& a, cudaStream_t stream) {
  const dim3 block(32, 8);
  const auto blocks = [](std::int64_t n, unsigned side, std::int64_t cap) {
    const std::int64_t g = (n + side - 1) / side;
    return static_cast<unsigned>(g < cap ? g : cap);
  };
  const dim3 grid(blocks(a.n, block.x, 0x7fffffff), blocks(a.n, block.y, 65535),
                  static_cast<unsigned>(a.batch < 65535 ? a.batch : 65535));
  square_naive_kernel<T>
      <<<grid, block, 0, stream>>>(static_cast<T*>(a.data), a.n, a.ld, a.stride, a.batch);
  check_launch("square_naive_kernel launch");
}

template <class W>
void launch_super(const square_args& a, std::int64_t k, cudaStream_t stream) {
  int side = 32;
  while (side > 1 && 2 * static_cast<std::int64_t>(side) * (side * k + 1) * sizeof(W) > 32 * 1024)
    side /= 2;
  const std::size_t shared = 2 * static_cast<std::size_t>(side) * (side * k + 1) * sizeof(W);
  const std::int64_t tiles = (a.n + side - 1) / side;
  const std::int64_t total = tiles * (tiles + 1) / 2 * a.batch;
  square_super_elements_kernel<W><<<grid_for(total), 256, shared, stream>>>(
      static_cast<W*>(a.data), k, side, a.n, a.ld, a.stride, tiles, total);
  check_launch("square_super_elements_kernel launch");
}

template <int E>
void launch_for_word(const square_args& a, std::int64_t k, route variant, cudaStream_t stream) {
  if (k != 1) return launch_super<element_t<E>>(a, k, stream);
  if (variant == route::square_naive) return launch_naive<element_t<E>>(a, stream);
  launch_tile_swap<E>(a, stream);
}

}  // namespace

void launch_square_swap(const square_args& a, int word_bytes, std::int64_t words_per_element,
                        route variant, cudaStream_t stream) {
  with_word(word_bytes, "launch_square_swap", [&](auto w) {
    launch_for_word<decltype(w)::value>(a, words_per_element, variant, stream);
  });
}

}  // namespace xpose::detail::cuda
