// Square in-place transposition on the CPU (stage_kind::square_swap): the variants of C. Dalvit's
// course report on in-place transposition (CPU and GPU; its Algorithms 1-3) plus the tile swap:
//  - square_tile_swap: tile (I,J) and tile (J,I) are swapped and both transposed, diagonal tiles
//    transposed in place; one pass; OpenMP threads take tile pairs. (The tiled kernels of that
//    report and of the blog post "GPU Matrix Transpose" transpose each tile in its own place,
//    which is not the matrix transpose.)
//  - square_naive: element (i,j) swapped with (j,i) for i < j (Algorithm 1); threads take rows.
//  - square_prefetch: the naive swap, prefetching the column element some rows ahead
//    (Algorithm 2 prefetches the next row, which the hardware prefetcher already streams).
//  - square_recursive: cache-oblivious halving (Algorithm 3) down to a cut-off, written as
//    transpose(A), transpose(D), swap-transpose(B, C) on disjoint quadrants, so each element
//    moves once (Algorithm 3 transposes B and C in place, then swaps them: two moves); the
//    three parts run as OpenMP tasks.
// Tile swap and recursive move line blocks (L x L elements, one 64-byte line per row,
// register_block.hpp) of 1, 2, 4, 8, 16-byte elements: both blocks of a pair are gathered
// transposed into L1 buffers through K x K register blocks, then written back as whole lines;
// the tile swap prefetches the next blocks of both tiles in software. Edges that are not whole
// line blocks take register blocks, then single elements.
// Assumes: one n x n matrix (the executor loops over a batch), rows s.lda >= n elements apart
// (the gap is never touched); any element size (sizes without a register block are swapped
// element by element); 64-bit index math.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "cpu/cpu_kernels.hpp"
#include "cpu/element_size_dispatch.hpp"
#include "cpu/register_block.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
namespace {

/// Default tile edge of square_tile_swap, as bytes of one tile row.
constexpr std::int64_t default_tile_row_bytes = 256;
/// Default cut-off of square_recursive: blocks of at most this many bytes per row are swapped
/// directly (the report's 128 four-byte elements).
constexpr std::int64_t default_cutoff_row_bytes = 512;
/// Rows ahead of the current one whose column element square_prefetch requests.
constexpr std::int64_t prefetch_rows_ahead = 16;
/// square_tile_swap prefetches this many bytes ahead along the rows of tile (I,J) and as many
/// elements down the columns of tile (J,I) (as the copy: measured there).
constexpr std::int64_t prefetch_ahead_bytes = 256;

/// Elements of a size with register blocks (E = 1, 2, 4, 8, 16).
template <std::size_t E>
struct fixed_size_elements {
  static constexpr std::int64_t block = register_block_edge<E>;
  std::int64_t bytes() const { return static_cast<std::int64_t>(E); }
  void swap(std::byte* a, std::byte* b) const {
    std::byte t[E];
    std::memcpy(t, a, E);
    std::memcpy(a, b, E);
    std::memcpy(b, t, E);
  }
  /// K x K block at a <- transpose of the K x K block at b, and the other way round.
  void swap_blocks_transposed(std::byte* a, std::byte* b, std::int64_t row_bytes) const {
    row_register ra[block], rb[block];
    load_block<E>(a, row_bytes, ra);
    load_block<E>(b, row_bytes, rb);
    transpose_registers<E>(ra);
    transpose_registers<E>(rb);
    store_block<E>(b, row_bytes, ra);
    store_block<E>(a, row_bytes, rb);
  }
  void transpose_block(std::byte* a, std::int64_t row_bytes) const {
    row_register r[block];
    load_block<E>(a, row_bytes, r);
    transpose_registers<E>(r);
    store_block<E>(a, row_bytes, r);
  }
  static constexpr std::int64_t line = line_block_edge<E>;
  /// Line blocks (L x L, one cache line per row) through L1 buffers: whole lines written back.
  void swap_line_blocks_transposed(std::byte* a, std::byte* b, std::int64_t row_bytes) const {
    alignas(64) std::byte ta[line][64], tb[line][64];
    gather_line_block_transposed<E>(a, row_bytes, ta);
    gather_line_block_transposed<E>(b, row_bytes, tb);
    for (std::int64_t i = 0; i < line; ++i) {
      std::memcpy(b + i * row_bytes, ta[i], 64);
      std::memcpy(a + i * row_bytes, tb[i], 64);
    }
  }
  void transpose_line_block(std::byte* a, std::int64_t row_bytes) const {
    alignas(64) std::byte t[line][64];
    gather_line_block_transposed<E>(a, row_bytes, t);
    for (std::int64_t i = 0; i < line; ++i) std::memcpy(a + i * row_bytes, t[i], 64);
  }
};

/// Elements of any other size, swapped 16 bytes at a time; blocks are single elements.
struct any_size_elements {
  static constexpr std::int64_t block = 1;
  static constexpr std::int64_t line = 0;  ///< no line blocks
  std::int64_t size;
  std::int64_t bytes() const { return size; }
  void swap(std::byte* a, std::byte* b) const {
    std::byte t[16];
    for (std::int64_t o = 0; o < size; o += 16) {
      const auto n = static_cast<std::size_t>(std::min<std::int64_t>(16, size - o));
      std::memcpy(t, a + o, n);
      std::memcpy(a + o, b + o, n);
      std::memcpy(b + o, t, n);
    }
  }
  void swap_blocks_transposed(std::byte* a, std::byte* b, std::int64_t) const { swap(a, b); }
  void transpose_block(std::byte*, std::int64_t) const {}
  void swap_line_blocks_transposed(std::byte*, std::byte*, std::int64_t) const {}
  void transpose_line_block(std::byte*, std::int64_t) const {}
};

/// Swaps the h x w block at a with the w x h block at b, transposing both (the blocks do not
/// overlap). Register blocks four at a time down a, so each row of b gets 4K elements.
template <class Elements>
void swap_rectangles_transposed(const Elements& el, std::byte* a, std::byte* b, std::int64_t h,
                                std::int64_t w, std::int64_t row_bytes) {
  constexpr std::int64_t k = Elements::block;
  const std::int64_t e = el.bytes();
  const std::int64_t block_h = h - h % k, block_w = w - w % k;
  for (std::int64_t i = 0; i < block_h; i += 4 * k) {
    const std::int64_t strip_end = std::min(i + 4 * k, block_h);
    for (std::int64_t j = 0; j < block_w; j += k)
      for (std::int64_t ii = i; ii < strip_end; ii += k)
        el.swap_blocks_transposed(a + ii * row_bytes + j * e, b + j * row_bytes + ii * e,
                                  row_bytes);
  }
  for (std::int64_t i = 0; i < h; ++i)
    for (std::int64_t j = i < block_h ? block_w : 0; j < w; ++j)
      el.swap(a + i * row_bytes + j * e, b + j * row_bytes + i * e);
}

/// Transposes the n x n block at a in place.
template <class Elements>
void transpose_square_block(const Elements& el, std::byte* a, std::int64_t n,
                            std::int64_t row_bytes) {
  constexpr std::int64_t k = Elements::block;
  const std::int64_t e = el.bytes();
  const std::int64_t block_n = n - n % k;
  for (std::int64_t i = 0; i < block_n; i += k) {
    el.transpose_block(a + i * row_bytes + i * e, row_bytes);
    for (std::int64_t j = i + k; j < block_n; j += k)
      el.swap_blocks_transposed(a + i * row_bytes + j * e, a + j * row_bytes + i * e, row_bytes);
  }
  for (std::int64_t i = block_n; i < n; ++i)
    for (std::int64_t j = 0; j < i; ++j)
      el.swap(a + i * row_bytes + j * e, a + j * row_bytes + i * e);
}

/// Swaps the h x w block at a with the w x h block at b, transposing both: line blocks first
/// (prefetching along the rows of a and down the columns of b), then the rest.
/// `rows_left_b`: rows from b to the end of the matrix, `row_bytes_left_a`: bytes from a to the
/// end of its row (prefetches stay inside the matrix).
template <class Elements>
void swap_tiles_transposed(const Elements& el, std::byte* a, std::byte* b, std::int64_t h,
                           std::int64_t w, std::int64_t row_bytes, std::int64_t row_bytes_left_a,
                           std::int64_t rows_left_b) {
  constexpr std::int64_t l = Elements::line;
  if constexpr (l > 0) {
    const std::int64_t e = el.bytes();
    const std::int64_t line_h = h - h % l, line_w = w - w % l;
    const std::int64_t ahead = prefetch_ahead_bytes / e;  // elements along a, rows down b
    for (std::int64_t i = 0; i < line_h; i += l) {
      for (std::int64_t j = 0; j < line_w; j += l) {
        if ((j + ahead) * e < row_bytes_left_a && j + ahead + l <= rows_left_b)
          for (std::int64_t r = 0; r < l; ++r) {
            __builtin_prefetch(a + (i + r) * row_bytes + (j + ahead) * e, 1, 3);
            __builtin_prefetch(b + (j + ahead + r) * row_bytes + i * e, 1, 3);
          }
        el.swap_line_blocks_transposed(a + i * row_bytes + j * e, b + j * row_bytes + i * e,
                                       row_bytes);
      }
    }
    swap_rectangles_transposed(el, a + line_w * e, b + line_w * row_bytes, line_h, w - line_w,
                               row_bytes);
    swap_rectangles_transposed(el, a + line_h * row_bytes, b + line_h * e, h - line_h, w,
                               row_bytes);
  } else {
    swap_rectangles_transposed(el, a, b, h, w, row_bytes);
  }
}

/// Transposes the n x n tile at a in place: line blocks first, then the rest.
template <class Elements>
void transpose_diagonal_tile(const Elements& el, std::byte* a, std::int64_t n,
                             std::int64_t row_bytes) {
  constexpr std::int64_t l = Elements::line;
  if constexpr (l > 0) {
    const std::int64_t e = el.bytes();
    const std::int64_t line_n = n - n % l;
    for (std::int64_t i = 0; i < line_n; i += l) {
      el.transpose_line_block(a + i * row_bytes + i * e, row_bytes);
      for (std::int64_t j = i + l; j < line_n; j += l)
        el.swap_line_blocks_transposed(a + i * row_bytes + j * e, a + j * row_bytes + i * e,
                                       row_bytes);
    }
    swap_rectangles_transposed(el, a + line_n * e, a + line_n * row_bytes, line_n, n - line_n,
                               row_bytes);
    transpose_square_block(el, a + line_n * row_bytes + line_n * e, n - line_n, row_bytes);
  } else {
    transpose_square_block(el, a, n, row_bytes);
  }
}

std::int64_t edge_from_row_bytes(std::int64_t wanted, std::int64_t row_bytes, std::int64_t e,
                                 std::int64_t k) {
  if (wanted <= 0) wanted = row_bytes / e;
  return std::max(k, wanted - wanted % k);
}

template <class Elements>
void square_tile_swap(const Elements& el, std::byte* data, std::int64_t n, std::int64_t row_bytes,
                      std::int64_t tile, int threads) {
  const std::int64_t e = el.bytes();
  const std::int64_t tiles = (n + tile - 1) / tile;
  const std::int64_t pairs = tiles * (tiles + 1) / 2;  // (I, J) with I <= J
  const bool parallel = threads > 1 && pairs > 1 && n * n * e >= square_parallel_min_bytes;
#pragma omp parallel num_threads(threads) if (parallel)
  {
    const std::int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
    std::int64_t p = pairs * me / team;
    const std::int64_t end = pairs * (me + 1) / team;
    std::int64_t ti = 0;
    while (p >= tiles - ti) p -= tiles - ti++;
    std::int64_t tj = ti + p;
    for (std::int64_t q = pairs * me / team; q < end; ++q) {
      const std::int64_t i0 = ti * tile, j0 = tj * tile;
      const std::int64_t h = std::min(tile, n - i0), w = std::min(tile, n - j0);
      if (ti == tj)
        transpose_diagonal_tile(el, data + i0 * row_bytes + i0 * e, h, row_bytes);
      else
        swap_tiles_transposed(el, data + i0 * row_bytes + j0 * e, data + j0 * row_bytes + i0 * e, h,
                              w, row_bytes, (n - j0) * e, n - j0);
      if (++tj == tiles) tj = ++ti;
    }
  }
}

template <class Elements>
void square_naive(const Elements& el, std::byte* data, std::int64_t n, std::int64_t row_bytes,
                  int threads, bool prefetch) {
  const std::int64_t e = el.bytes();
  const bool parallel = threads > 1 && n * n * e >= square_parallel_min_bytes;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (parallel)
  for (std::int64_t i = 0; i < n; ++i) {
    std::byte* row = data + i * row_bytes;
    std::byte* column = data + i * e;
    std::int64_t j = i + 1;
    if (prefetch) {
      for (; j < n - prefetch_rows_ahead; ++j) {
        __builtin_prefetch(column + (j + prefetch_rows_ahead) * row_bytes, 1, 1);
        el.swap(row + j * e, column + j * row_bytes);
      }
    }
    for (; j < n; ++j) el.swap(row + j * e, column + j * row_bytes);
  }
}

/// Midpoint of a range of n > cutoff elements, on a register-block boundary.
std::int64_t half_of(std::int64_t n, std::int64_t k) {
  return std::max(k, n / 2 / k * k);
}

template <class Elements>
struct recursive_transposer {
  const Elements& el;
  std::int64_t row_bytes, cutoff, task_min;  ///< task_min: smallest range split into tasks

  void swap(std::byte* a, std::byte* b, std::int64_t h, std::int64_t w) const {
    if (h <= cutoff && w <= cutoff) {
      swap_tiles_transposed(el, a, b, h, w, row_bytes, 0, 0);
      return;
    }
    const std::int64_t e = el.bytes();
    const bool tasks = std::max(h, w) >= task_min;
    if (h >= w) {  // rows of a are columns of b
      const std::int64_t h1 = half_of(h, Elements::block);
#pragma omp task if (tasks)
      swap(a, b, h1, w);
      swap(a + h1 * row_bytes, b + h1 * e, h - h1, w);
    } else {
      const std::int64_t w1 = half_of(w, Elements::block);
#pragma omp task if (tasks)
      swap(a, b, h, w1);
      swap(a + w1 * e, b + w1 * row_bytes, h, w - w1);
    }
#pragma omp taskwait
  }

  void transpose(std::byte* a, std::int64_t n) const {
    if (n <= cutoff) {
      transpose_diagonal_tile(el, a, n, row_bytes);
      return;
    }
    const std::int64_t e = el.bytes();
    const std::int64_t h = half_of(n, Elements::block);
    const bool tasks = n >= task_min;
#pragma omp task if (tasks)
    transpose(a, h);
#pragma omp task if (tasks)
    transpose(a + h * row_bytes + h * e, n - h);
    swap(a + h * e, a + h * row_bytes, h, n - h);
#pragma omp taskwait
  }
};

template <class Elements>
void square_recursive(const Elements& el, std::byte* data, std::int64_t n, std::int64_t row_bytes,
                      std::int64_t cutoff, int threads) {
  const bool parallel = threads > 1 && n * n * el.bytes() >= square_parallel_min_bytes;
  const recursive_transposer<Elements> transposer{el, row_bytes, cutoff, 4 * cutoff};
#pragma omp parallel num_threads(threads) if (parallel)
#pragma omp single
  transposer.transpose(data, n);
}

template <class Elements>
void square_swap_variant(const Elements& el, std::byte* data, const stage& s, int threads) {
  constexpr std::int64_t k = Elements::block;
  const std::int64_t e = el.bytes(), n = s.rows, row_bytes = s.lda * e;
  switch (s.variant) {
    case route::automatic:
    case route::square_tile_swap:
      square_tile_swap(el, data, n, row_bytes,
                       edge_from_row_bytes(s.tile, default_tile_row_bytes, e, k), threads);
      break;
    case route::square_naive:
      square_naive(el, data, n, row_bytes, threads, false);
      break;
    case route::square_prefetch:
      square_naive(el, data, n, row_bytes, threads, true);
      break;
    case route::square_recursive:
      square_recursive(el, data, n, row_bytes,
                       edge_from_row_bytes(s.tile, default_cutoff_row_bytes, e, k), threads);
      break;
    default:
      throw error(
          status::internal_error,
          "square_swap: variant " + std::string(to_string(s.variant)) + " is not a square route");
  }
}

}  // namespace

void square_swap(std::byte* data, const stage& s, int threads) {
  if (s.rows != s.cols)
    throw error(status::internal_error, "square_swap: rows (" + std::to_string(s.rows) +
                                            ") != cols (" + std::to_string(s.cols) + ")");
  if (s.batch > 1)
    throw error(status::internal_error, "square_swap: batch (" + std::to_string(s.batch) +
                                            ") > 1; the executor loops over the batch");
  threads = std::max(threads, 1);
  dispatch_element_size(s.super_bytes, [&](auto size) {
    if constexpr (decltype(size)::value != 0)
      square_swap_variant(fixed_size_elements<decltype(size)::value>{}, data, s, threads);
    else
      square_swap_variant(any_size_elements{static_cast<std::int64_t>(s.super_bytes)}, data, s,
                          threads);
  });
}

}  // namespace xpose::detail::cpu
