// The skinny route's remainder steps on the GPU (skinny_remainder.hpp).
#include "cuda/inplace/skinny_remainder.hpp"

#include <algorithm>
#include <cstdint>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/dispatch/copy_dispatch.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

constexpr int move_threads = 512;
constexpr int move_items = 8;  ///< words per thread in flight in a chunk

/// A remainder stage in elements: m rows of n, closed up to kept = q*w; r = n mod w; k words of
/// the launch's word size per element; the closed matrix cut into `ranges` ranges, each with
/// `stride` words of scratch.
struct remainder_geometry {
  std::int64_t m = 0, n = 0, kept = 0, r = 0, k = 1, ranges = 1, stride = 0;

  __host__ __device__ std::int64_t closed() const { return m * kept; }
  /// First closed element of range g: equal ranges, the first ones one longer.
  __host__ __device__ std::int64_t range_start(std::int64_t g) const {
    const std::int64_t size = closed(), extra = size % ranges;
    return size / ranges * g + (g < extra ? g : extra);
  }
  /// How far closed element p moves.
  __host__ __device__ std::int64_t shift(std::int64_t p) const { return p / kept * r; }
};

std::size_t round_up_16(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

/// The ranges of stage `s` and the bytes of scratch each holds; k = 1.
remainder_geometry geometry_of(const stage& s, std::size_t& range_bytes) {
  remainder_geometry g;
  g.m = s.rows;
  g.n = s.cols;
  g.r = s.cols % s.tile;
  g.kept = s.cols - g.r;
  const std::int64_t max_shift = (g.m - 1) * g.r;
  // A range of spread must be at least as long as the farthest move, so that the elements the
  // range before it writes past its start all lie in its saved head. Otherwise as short as a
  // block's chunk of 4096 words, so that arrays of a few MiB still fill the GPU with blocks.
  const std::int64_t least = std::max<std::int64_t>(max_shift, 4096);
  const std::int64_t by_size = std::max<std::int64_t>(1, g.closed() / least);
  range_bytes = round_up_16(static_cast<std::size_t>(max_shift) * s.super_bytes);
  const std::int64_t by_scratch =
      range_bytes == 0
          ? by_size
          : std::max<std::int64_t>(
                1, static_cast<std::int64_t>(skinny_remainder_scratch_max_bytes / range_bytes));
  g.ranges = std::min<std::int64_t>({by_size, by_scratch, std::int64_t{1} << 20});
  return g;
}

/// Split, before anything moves: held (r x m) = columns [kept, n) transposed; range b's tail, the
/// words after its end that its moves read (overwritten by the range after it), to its scratch.
template <class W>
__global__ void split_save_kernel(const W* data, W* held, W* scratch, remainder_geometry g) {
  const std::int64_t k = g.k;
  if (blockIdx.x < g.ranges) {
    const std::int64_t begin = g.range_start(blockIdx.x), end = g.range_start(blockIdx.x + 1);
    const std::int64_t words = end > begin ? g.shift(end - 1) * k : 0;
    W* tail = scratch + blockIdx.x * g.stride;
    for (std::int64_t x = threadIdx.x; x < words; x += blockDim.x) tail[x] = data[end * k + x];
  }
  const std::int64_t held_words = g.m * g.r * k;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < held_words;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t element = x / k, part = x - element * k;
    const std::int64_t j = element / g.m, i = element - j * g.m;
    held[x] = data[(i * g.n + g.kept + j) * k + part];
  }
}

/// Split: range b's closed words [begin, end), each from begin + shift, front to back in chunks.
template <class W>
__global__ void __launch_bounds__(move_threads)
    split_move_kernel(W* data, const W* scratch, remainder_geometry g) {
  const std::int64_t k = g.k;
  const std::int64_t begin = g.range_start(blockIdx.x) * k, end = g.range_start(blockIdx.x + 1) * k;
  const W* tail = scratch + blockIdx.x * g.stride;
  constexpr std::int64_t chunk = std::int64_t{move_threads} * move_items;
  for (std::int64_t first = begin; first < end; first += chunk) {
    W v[move_items];
#pragma unroll
    for (int it = 0; it < move_items; ++it) {
      const std::int64_t p = first + it * move_threads + threadIdx.x;
      if (p < end) {
        const std::int64_t source = p + g.shift(p / k) * k;
        v[it] = source < end ? data[source] : tail[source - end];
      }
    }
    // Every load of the chunk before any store: its sources overlap its destinations.
    __syncthreads();
#pragma unroll
    for (int it = 0; it < move_items; ++it) {
      const std::int64_t p = first + it * move_threads + threadIdx.x;
      if (p < end) data[p] = v[it];
    }
  }
}

/// Spread, before anything moves: range b's head, the words at its start that the range before
/// it overwrites, to its scratch.
template <class W>
__global__ void spread_save_kernel(const W* data, W* scratch, remainder_geometry g) {
  const std::int64_t k = g.k;
  const std::int64_t begin = g.range_start(blockIdx.x), end = g.range_start(blockIdx.x + 1);
  const std::int64_t reach = begin > 0 ? begin + g.shift(begin - 1) : begin;
  const std::int64_t head_end = reach < end ? reach : end;
  W* head = scratch + blockIdx.x * g.stride;
  for (std::int64_t x = threadIdx.x; x < (head_end - begin) * k; x += blockDim.x)
    head[x] = data[begin * k + x];
}

/// Spread: range b's closed words [begin, end), each to p + shift, back to front in chunks.
template <class W>
__global__ void __launch_bounds__(move_threads)
    spread_move_kernel(W* data, const W* scratch, remainder_geometry g) {
  const std::int64_t k = g.k;
  const std::int64_t begin_element = g.range_start(blockIdx.x);
  const std::int64_t end = g.range_start(blockIdx.x + 1) * k, begin = begin_element * k;
  const std::int64_t reach =
      begin_element > 0 ? begin_element + g.shift(begin_element - 1) : begin_element;
  const std::int64_t head_end = (reach < end / k ? reach : end / k) * k;
  const W* head = scratch + blockIdx.x * g.stride;
  constexpr std::int64_t chunk = std::int64_t{move_threads} * move_items;
  for (std::int64_t last = end; last > begin; last -= chunk) {
    const std::int64_t first = last - chunk > begin ? last - chunk : begin;
    W v[move_items];
#pragma unroll
    for (int it = 0; it < move_items; ++it) {
      const std::int64_t p = first + it * move_threads + threadIdx.x;
      if (p < last) v[it] = p < head_end ? head[p - begin] : data[p];
    }
    // Every load of the chunk before any store: its destinations overlap its sources.
    __syncthreads();
#pragma unroll
    for (int it = 0; it < move_items; ++it) {
      const std::int64_t p = first + it * move_threads + threadIdx.x;
      if (p < last) data[p + g.shift(p / k) * k] = v[it];
    }
  }
}

/// Spread, after the moves: columns [kept, n) of every row = held (r x m) transposed.
template <class W>
__global__ void spread_fill_kernel(W* data, const W* held, remainder_geometry g) {
  const std::int64_t k = g.k, held_words = g.m * g.r * k;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < held_words;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t element = x / k, part = x - element * k;
    const std::int64_t j = element / g.m, i = element - j * g.m;
    data[(i * g.n + g.kept + j) * k + part] = held[x];
  }
}

unsigned blocks_for_words(std::int64_t words, int threads) {
  return grid_for(std::min<std::int64_t>((words + threads - 1) / threads, 4096));
}

}  // namespace

std::size_t skinny_remainder_held_bytes(const stage& s) {
  return static_cast<std::size_t>(s.rows * (s.cols % s.tile)) * s.super_bytes;
}

std::size_t skinny_remainder_scratch_bytes(const stage& s) {
  if (s.kind != stage_kind::skinny_remainder_split && s.kind != stage_kind::skinny_remainder_spread)
    return 0;
  if (s.cols % s.tile == 0) return 0;
  std::size_t range_bytes = 0;
  const remainder_geometry g = geometry_of(s, range_bytes);
  return static_cast<std::size_t>(g.ranges) * range_bytes;
}

void launch_skinny_remainder(void* data, const stage& s, void* held, void* scratch,
                             cudaStream_t stream) {
  if (s.tile < 1 || s.rows < 1 || s.cols < s.tile)
    throw error(status::internal_error, "skinny remainder stage: bad shape");
  const std::int64_t r = s.cols % s.tile;
  if (r == 0) return;
  const std::size_t held_bytes = skinny_remainder_held_bytes(s);
  auto* bytes = static_cast<unsigned char*>(data);
  const std::size_t matrix_bytes = static_cast<std::size_t>(s.rows * s.cols) * s.super_bytes;
  switch (s.kind) {
    case stage_kind::skinny_remainder_place:
      check_cuda(cudaMemcpyAsync(bytes + matrix_bytes - held_bytes, held, held_bytes,
                                 cudaMemcpyDeviceToDevice, stream),
                 "skinny remainder place");
      return;
    case stage_kind::skinny_remainder_take:
      check_cuda(cudaMemcpyAsync(held, bytes + matrix_bytes - held_bytes, held_bytes,
                                 cudaMemcpyDeviceToDevice, stream),
                 "skinny remainder take");
      return;
    case stage_kind::skinny_remainder_split:
    case stage_kind::skinny_remainder_spread:
      break;
    default:
      throw error(status::internal_error, "launch_skinny_remainder: not a remainder stage");
  }
  std::size_t range_bytes = 0;
  remainder_geometry g = geometry_of(s, range_bytes);
  const int word = word_bytes_for(s.super_bytes, data, held);
  g.k = static_cast<std::int64_t>(s.super_bytes) / word;
  g.stride = static_cast<std::int64_t>(range_bytes) / word;
  const auto ranges = static_cast<unsigned>(g.ranges);
  const std::int64_t held_words = g.m * g.r * g.k;
  with_word(word, "skinny remainder", [&](auto w) {
    using W = element_t<decltype(w)::value>;
    auto* words = static_cast<W*>(data);
    auto* held_words_ptr = static_cast<W*>(held);
    auto* scratch_words = static_cast<W*>(scratch);
    if (s.kind == stage_kind::skinny_remainder_split) {
      const unsigned save_blocks = std::max(ranges, blocks_for_words(held_words, 256));
      split_save_kernel<W>
          <<<save_blocks, 256, 0, stream>>>(words, held_words_ptr, scratch_words, g);
      check_launch("skinny remainder split_save_kernel");
      split_move_kernel<W><<<ranges, move_threads, 0, stream>>>(words, scratch_words, g);
      check_launch("skinny remainder split_move_kernel");
    } else {
      spread_save_kernel<W><<<ranges, 256, 0, stream>>>(words, scratch_words, g);
      check_launch("skinny remainder spread_save_kernel");
      spread_move_kernel<W><<<ranges, move_threads, 0, stream>>>(words, scratch_words, g);
      check_launch("skinny remainder spread_move_kernel");
      spread_fill_kernel<W>
          <<<blocks_for_words(held_words, 256), 256, 0, stream>>>(words, held_words_ptr, g);
      check_launch("skinny remainder spread_fill_kernel");
    }
  });
}

}  // namespace xpose::detail::cuda
