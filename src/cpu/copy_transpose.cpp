// Out-of-place transposition on the CPU (stage_kind::copy_transpose): the cache-blocked CPU
// counterpart of the tiled out-of-place kernels of the lecture slides "Matrix Transpose — get 90%
// bandwidth". The matrix is cut into tiles, OpenMP threads take whole tiles; a tile is cut into
// line blocks (L x L elements, one 64-byte line per row, register_block.hpp) that are transposed
// through registers in K x K blocks (K = 16 / element bytes) into an L1 buffer and leave as whole
// destination lines: large destinations get non-temporal stores and are never read. The source
// rows of a tile are prefetched ahead in software (16 to 64 short row segments at a time defeat
// the hardware prefetcher). Edges that are not whole line blocks take register blocks, then single
// elements.
// Assumes: src and dst do not overlap; element sizes 1, 2, 4, 8, 16 take the register blocks, any
// other size is moved element by element with memcpy; 64-bit index math throughout.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "cpu/cpu_kernels.hpp"
#include "cpu/element_size_dispatch.hpp"
#include "cpu/register_block.hpp"

namespace xpose::detail::cpu {
namespace {

/// Default tile edge, as bytes of one tile row (measured on 8000 x 8000 fp32, one thread: 256
/// beat 128 and 512).
constexpr std::int64_t default_tile_row_bytes = 256;
/// Destinations at least this large are written with non-temporal stores (measured faster on
/// 8000 x 8000 fp32, one thread); smaller ones stay in cache for the caller to read.
constexpr std::int64_t streaming_min_bytes = std::int64_t{8} << 20;
/// Matrices smaller than this run on one thread: starting the others costs more than they save.
constexpr std::int64_t parallel_min_bytes = std::int64_t{256} << 10;
/// Source bytes prefetched ahead along each row of a line block (measured: 256 and 512 reach
/// memcpy speed on 8000 x 8000 fp32 where no prefetch reaches 0.35 of it).
constexpr std::int64_t prefetch_ahead_bytes = 256;

struct copy_geometry {
  const std::byte* src;
  std::byte* dst;
  std::int64_t rows, cols;  ///< of the source
  std::int64_t elem;        ///< element bytes
  std::int64_t src_row_bytes, dst_row_bytes;
  std::int64_t src_matrix_bytes, dst_matrix_bytes;  ///< batch strides
};

/// dst(c, r) = src(r, c) for a rows x cols block, one element at a time, destination rows in
/// order (the edges of tiles, and every element whose size has no register block).
template <std::size_t E>
void transpose_elements(const std::byte* src, std::int64_t src_row_bytes, std::byte* dst,
                        std::int64_t dst_row_bytes, std::int64_t rows, std::int64_t cols,
                        std::int64_t elem) {
  const std::int64_t bytes = E != 0 ? static_cast<std::int64_t>(E) : elem;
  for (std::int64_t c = 0; c < cols; ++c) {
    std::byte* out = dst + c * dst_row_bytes;
    const std::byte* in = src + c * bytes;
    for (std::int64_t r = 0; r < rows; ++r)
      std::memcpy(out + r * bytes, in + r * src_row_bytes, E != 0 ? E : bytes);
  }
}

/// K x K register blocks of a rows x cols block (multiples of K), stored directly.
template <std::size_t E>
void transpose_register_blocks(const std::byte* src, std::int64_t src_row_bytes, std::byte* dst,
                               std::int64_t dst_row_bytes, std::int64_t rows, std::int64_t cols) {
  constexpr std::int64_t k = register_block_edge<E>;
  constexpr std::int64_t e = static_cast<std::int64_t>(E);
  for (std::int64_t r = 0; r < rows; r += k)
    for (std::int64_t c = 0; c < cols; c += k) {
      row_register block[k];
      load_block<E>(src + r * src_row_bytes + c * e, src_row_bytes, block);
      transpose_registers<E>(block);
      store_block<E>(dst + c * dst_row_bytes + r * e, dst_row_bytes, block);
    }
}

/// One line block (register_block.hpp) gathered transposed in L1, then written as whole
/// destination lines (non-temporal when Stream).
template <std::size_t E, bool Stream>
void transpose_line_block(const std::byte* src, std::int64_t src_row_bytes, std::byte* dst,
                          std::int64_t dst_row_bytes) {
  constexpr std::int64_t lines = line_block_edge<E>;
  alignas(64) std::byte buffer[lines][64];
  gather_line_block_transposed<E>(src, src_row_bytes, buffer);
  for (std::int64_t i = 0; i < lines; ++i)
    for (std::int64_t q = 0; q < 64; q += 16) {
      if constexpr (Stream)
        stream_row(dst + i * dst_row_bytes + q, load_row(&buffer[i][q]));
      else
        store_row(dst + i * dst_row_bytes + q, load_row(&buffer[i][q]));
    }
}

/// One tile: rows x cols of the source at src, to cols x rows at dst; `row_bytes_left`: bytes
/// from src to the end of its row in the matrix (the prefetch stays inside it). Line blocks
/// cover what they can, register blocks the largest multiple of K left, elements the rest.
template <std::size_t E, bool Stream>
void transpose_tile(const std::byte* src, std::int64_t src_row_bytes, std::byte* dst,
                    std::int64_t dst_row_bytes, std::int64_t rows, std::int64_t cols,
                    std::int64_t row_bytes_left) {
  constexpr std::int64_t k = register_block_edge<E>;
  constexpr std::int64_t e = static_cast<std::int64_t>(E);
  constexpr std::int64_t lines = line_block_edge<E>;
  const std::int64_t line_rows = rows - rows % lines, line_cols = cols - cols % lines;
  const std::int64_t block_rows = rows - rows % k, block_cols = cols - cols % k;
  for (std::int64_t r = 0; r < line_rows; r += lines) {
    for (std::int64_t c = 0; c < line_cols; c += lines) {
      if (c * e + prefetch_ahead_bytes < row_bytes_left)
        for (std::int64_t i = r; i < r + lines; ++i)
          __builtin_prefetch(src + i * src_row_bytes + c * e + prefetch_ahead_bytes, 0, 0);
      transpose_line_block<E, Stream>(src + r * src_row_bytes + c * e, src_row_bytes,
                                      dst + c * dst_row_bytes + r * e, dst_row_bytes);
    }
  }
  transpose_register_blocks<E>(src + line_cols * e, src_row_bytes, dst + line_cols * dst_row_bytes,
                               dst_row_bytes, line_rows, block_cols - line_cols);
  transpose_register_blocks<E>(src + line_rows * src_row_bytes, src_row_bytes, dst + line_rows * e,
                               dst_row_bytes, block_rows - line_rows, block_cols);
  transpose_elements<E>(src + block_cols * e, src_row_bytes, dst + block_cols * dst_row_bytes,
                        dst_row_bytes, rows, cols - block_cols, e);
  transpose_elements<E>(src + block_rows * src_row_bytes, src_row_bytes, dst + block_rows * e,
                        dst_row_bytes, rows - block_rows, block_cols, e);
}

/// Every tile of every matrix of the batch, tiles shared among the threads in row-major order.
/// `move_tile(src, dst, rows, cols, row_bytes_left)` transposes one tile.
template <class TileMover>
void for_each_tile(const copy_geometry& g, std::int64_t batch, std::int64_t tile, int threads,
                   bool streaming, TileMover move_tile) {
  const std::int64_t tile_rows = (g.rows + tile - 1) / tile;
  const std::int64_t tile_cols = (g.cols + tile - 1) / tile;
  const std::int64_t per_matrix = tile_rows * tile_cols;
  const std::int64_t tiles = batch * per_matrix;
  const bool parallel =
      threads > 1 && tiles > 1 && batch * g.rows * g.cols * g.elem >= parallel_min_bytes;
#pragma omp parallel num_threads(threads) if (parallel)
  {
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t b = t / per_matrix;
      const std::int64_t r0 = (t % per_matrix) / tile_cols * tile;
      const std::int64_t c0 = (t % per_matrix) % tile_cols * tile;
      move_tile(g.src + b * g.src_matrix_bytes + r0 * g.src_row_bytes + c0 * g.elem,
                g.dst + b * g.dst_matrix_bytes + c0 * g.dst_row_bytes + r0 * g.elem,
                std::min(tile, g.rows - r0), std::min(tile, g.cols - c0), (g.cols - c0) * g.elem);
    }
    if (streaming) finish_streaming();
  }
}

std::int64_t tile_edge(const stage& s, std::int64_t k) {
  const std::int64_t wanted =
      s.tile > 0 ? s.tile : default_tile_row_bytes / static_cast<std::int64_t>(s.super_bytes);
  return std::max(k, wanted - wanted % k);
}

template <std::size_t E>
void copy_transpose_fixed(const copy_geometry& g, const stage& s, int threads) {
  constexpr std::int64_t k = register_block_edge<E>;
  const std::int64_t tile = tile_edge(s, k);
  const auto aligned = [](std::int64_t bytes) { return bytes % 16 == 0; };
  const bool streaming =
      s.batch * g.cols * g.dst_row_bytes >= streaming_min_bytes &&
      aligned(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(g.dst))) &&
      aligned(g.dst_row_bytes) && (s.batch == 1 || aligned(g.dst_matrix_bytes));
  const auto mover = [&](auto stream) {
    return [&, stream](const std::byte* src, std::byte* dst, std::int64_t rows, std::int64_t cols,
                       std::int64_t row_bytes_left) {
      transpose_tile<E, decltype(stream)::value>(src, g.src_row_bytes, dst, g.dst_row_bytes, rows,
                                                 cols, row_bytes_left);
    };
  };
  if (streaming)
    for_each_tile(g, s.batch, tile, threads, true, mover(std::true_type{}));
  else
    for_each_tile(g, s.batch, tile, threads, false, mover(std::false_type{}));
}

void copy_transpose_any_size(const copy_geometry& g, const stage& s, int threads) {
  const std::int64_t tile = tile_edge(s, 1);
  for_each_tile(g, s.batch, tile, threads, false,
                [&](const std::byte* src, std::byte* dst, std::int64_t rows, std::int64_t cols,
                    std::int64_t) {
                  transpose_elements<0>(src, g.src_row_bytes, dst, g.dst_row_bytes, rows, cols,
                                        g.elem);
                });
}

}  // namespace

void copy_transpose(const std::byte* src, std::byte* dst, const stage& s, int threads) {
  const auto e = static_cast<std::int64_t>(s.super_bytes);
  const copy_geometry g{src,
                        dst,
                        s.rows,
                        s.cols,
                        e,
                        s.lda * e,
                        s.ldb * e,
                        s.src_batch_stride * e,
                        s.dst_batch_stride * e};
  if (s.batch <= 0 || s.rows <= 0 || s.cols <= 0) return;
  threads = std::max(threads, 1);
  dispatch_element_size(s.super_bytes, [&](auto size) {
    if constexpr (decltype(size)::value != 0)
      copy_transpose_fixed<decltype(size)::value>(g, s, threads);
    else
      copy_transpose_any_size(g, s, threads);
  });
}

}  // namespace xpose::detail::cpu
