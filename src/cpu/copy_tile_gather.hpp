// Gathering a block of the out-of-place CPU transposition into the tile buffer, transposed:
// buffer row c (at out + c * out_stride) receives column c of the block. Element sizes 1, 2, 4,
// 8 and 16 go by line blocks (L x L elements, one 64-byte line per source row) transposed
// through registers in K x K blocks (register_block.hpp), with SSE2, or with AVX2 two blocks
// side by side in the two 128-bit lanes of a register (the unpack instructions work within each
// lane, so one round of shuffles transposes both); the edges of a block that are not whole line
// blocks take register blocks, then single elements. Every other size is moved element by
// element, each a fixed-size copy for sizes up to 16 bytes. As each line block is read, the
// source lines at the same place in the thread's next tile are prefetched.
// Assumes: source rows and buffer rows may be at any alignment; x86-64 (SSE2) for AVX2.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu/register_block.hpp"

namespace xpose::detail::cpu {

/// Element sizes with register blocks: powers of two up to 16 bytes.
constexpr bool has_register_blocks(std::size_t e) {
  return e == 1 || e == 2 || e == 4 || e == 8 || e == 16;
}

/// What to prefetch while a block is read: the source `ahead` bytes further (the same place in
/// the next tile; 0: nothing), into every cache level or, non-temporal, into L1 alone.
struct source_prefetch {
  std::intptr_t ahead = 0;
  bool non_temporal = false;
};

/// Prefetches the line at `p + ahead`. An asm statement, not __builtin_prefetch: GCC deletes
/// loops whose bodies are only that builtin (it has no side effects, and such loops are assumed
/// finite). A prefetch never faults, so the address may lie past the matrix: it is formed as an
/// integer.
inline void prefetch_at(const std::byte* p, const source_prefetch& f) {
  if (f.ahead == 0) return;
  const auto* const line =
      reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) + f.ahead);
#if defined(__x86_64__)
  if (f.non_temporal)
    asm volatile("prefetchnta %0" : : "m"(*line));
  else
    asm volatile("prefetcht0 %0" : : "m"(*line));
#else
  __builtin_prefetch(line, 0, f.non_temporal ? 0 : 3);
#endif
}

/// Prefetches the lines of `bytes` bytes from `p` (at most two lines when bytes <= 64).
inline void prefetch_bytes(const std::byte* p, std::int64_t bytes, const source_prefetch& f) {
  const auto first = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p) % 64);
  for (std::int64_t q = -first; q < bytes; q += 64) prefetch_at(p + q, f);
}

/// Copies one element of E bytes (E = 0: `bytes` bytes, at least 16).
template <std::size_t E>
inline void copy_element(std::byte* to, const std::byte* from, std::int64_t bytes) {
  if constexpr (E != 0) {
    std::memcpy(to, from, E);
  } else {
    std::int64_t q = 0;
    for (; q + 16 < bytes; q += 16) store_row(to + q, load_row(from + q));
    store_row(to + bytes - 16, load_row(from + bytes - 16));
  }
}

/// out(c, r) = src(r, c) for a rows x cols block, element by element, source rows in order.
template <std::size_t E>
void gather_elements(const std::byte* src, std::int64_t src_row_bytes, std::int64_t rows,
                     std::int64_t cols, std::byte* out, std::int64_t out_stride, std::int64_t elem,
                     const source_prefetch& f) {
  const std::int64_t e = E != 0 ? static_cast<std::int64_t>(E) : elem;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::byte* const row = src + r * src_row_bytes;
    prefetch_bytes(row, cols * e, f);
    for (std::int64_t c = 0; c < cols; ++c)
      copy_element<E>(out + c * out_stride + r * e, row + c * e, e);
  }
}

/// K x K register blocks of a rows x cols block (multiples of K), K rows at a time.
template <std::size_t E>
void gather_register_blocks(const std::byte* src, std::int64_t src_row_bytes, std::int64_t rows,
                            std::int64_t cols, std::byte* out, std::int64_t out_stride,
                            const source_prefetch& f) {
  constexpr std::int64_t k = register_block_edge<E>;
  constexpr std::int64_t e = static_cast<std::int64_t>(E);
  for (std::int64_t r = 0; r < rows; r += k)
    for (std::int64_t c = 0; c < cols; c += k) {
      if (c == 0)
        for (std::int64_t i = 0; i < k; ++i)
          prefetch_bytes(src + (r + i) * src_row_bytes, cols * e, f);
      row_register block[k];
      load_block<E>(src + r * src_row_bytes + c * e, src_row_bytes, block);
      transpose_registers<E>(block);
      store_block<E>(out + c * out_stride + r * e, out_stride, block);
    }
}

#if defined(__x86_64__)

template <std::size_t E>
__attribute__((target("avx2"))) inline __m256i interleave_low_avx2(__m256i a, __m256i b) {
  if constexpr (E == 1) return _mm256_unpacklo_epi8(a, b);
  if constexpr (E == 2) return _mm256_unpacklo_epi16(a, b);
  if constexpr (E == 4) return _mm256_unpacklo_epi32(a, b);
  if constexpr (E == 8) return _mm256_unpacklo_epi64(a, b);
}
template <std::size_t E>
__attribute__((target("avx2"))) inline __m256i interleave_high_avx2(__m256i a, __m256i b) {
  if constexpr (E == 1) return _mm256_unpackhi_epi8(a, b);
  if constexpr (E == 2) return _mm256_unpackhi_epi16(a, b);
  if constexpr (E == 4) return _mm256_unpackhi_epi32(a, b);
  if constexpr (E == 8) return _mm256_unpackhi_epi64(a, b);
}

/// One L x L line block (E < 16) with AVX2: K source rows of 32 bytes hold two K x K blocks side
/// by side, transposed together by the perfect-shuffle rounds of transpose_registers; row j of
/// the result holds column j of the left block (low lane) and of the right one (high lane).
template <std::size_t E>
__attribute__((target("avx2"))) void gather_line_block_avx2(const std::byte* src,
                                                            std::int64_t src_row_bytes,
                                                            std::byte* out,
                                                            std::int64_t out_stride) {
  constexpr std::int64_t k = register_block_edge<E>, e = static_cast<std::int64_t>(E);
  constexpr std::int64_t lines = line_block_edge<E>;
  for (std::int64_t r = 0; r < lines; r += k)
    for (std::int64_t c = 0; c < lines; c += 2 * k) {
      __m256i block[k];
      for (std::int64_t i = 0; i < k; ++i)
        block[i] = _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(src + (r + i) * src_row_bytes + c * e));
      for (std::int64_t round = 1; round < k; round *= 2) {
        __m256i shuffled[k];
        for (std::int64_t i = 0; i < k / 2; ++i) {
          shuffled[2 * i] = interleave_low_avx2<E>(block[i], block[i + k / 2]);
          shuffled[2 * i + 1] = interleave_high_avx2<E>(block[i], block[i + k / 2]);
        }
        for (std::int64_t i = 0; i < k; ++i) block[i] = shuffled[i];
      }
      std::byte* const left = out + c * out_stride + r * e;
      std::byte* const right = left + k * out_stride;
      for (std::int64_t j = 0; j < k; ++j) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(left + j * out_stride),
                         _mm256_castsi256_si128(block[j]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(right + j * out_stride),
                         _mm256_extracti128_si256(block[j], 1));
      }
    }
}

#endif

/// out(c, r) = src(r, c) for one whole line block (E with register blocks), its lines at the
/// same place in the next tile prefetched first.
template <std::size_t E, bool Avx2>
inline void gather_line_block(const std::byte* src, std::int64_t src_row_bytes, std::byte* out,
                              std::int64_t out_stride, const source_prefetch& f) {
  constexpr std::int64_t lines = line_block_edge<E>;
  for (std::int64_t i = 0; i < lines; ++i) prefetch_at(src + i * src_row_bytes, f);
#if defined(__x86_64__)
  if constexpr (Avx2 && E < 16) {
    gather_line_block_avx2<E>(src, src_row_bytes, out, out_stride);
    return;
  }
#endif
  gather_register_blocks<E>(src, src_row_bytes, lines, lines, out, out_stride, {});
}

/// out(c, r) = src(r, c) for the rows x cols block at src into buffer rows of out_stride bytes.
template <std::size_t E, bool Avx2>
void gather_block(const std::byte* src, std::int64_t src_row_bytes, std::int64_t rows,
                  std::int64_t cols, std::byte* out, std::int64_t out_stride, std::int64_t elem,
                  const source_prefetch& f) {
  if constexpr (!has_register_blocks(E)) {
    gather_elements<E>(src, src_row_bytes, rows, cols, out, out_stride, elem, f);
  } else {
    constexpr std::int64_t k = register_block_edge<E>, e = static_cast<std::int64_t>(E);
    constexpr std::int64_t lines = line_block_edge<E>;
    const std::int64_t line_rows = rows - rows % lines, line_cols = cols - cols % lines;
    const std::int64_t block_rows = rows - rows % k, block_cols = cols - cols % k;
    for (std::int64_t r = 0; r < line_rows; r += lines)
      for (std::int64_t c = 0; c < line_cols; c += lines)
        gather_line_block<E, Avx2>(src + r * src_row_bytes + c * e, src_row_bytes,
                                   out + c * out_stride + r * e, out_stride, f);
    // The edges prefetch their own rows' bytes in the next tile.
    if (line_cols < block_cols)
      gather_register_blocks<E>(src + line_cols * e, src_row_bytes, line_rows,
                                block_cols - line_cols, out + line_cols * out_stride, out_stride,
                                f);
    if (line_rows < block_rows)
      gather_register_blocks<E>(src + line_rows * src_row_bytes, src_row_bytes,
                                block_rows - line_rows, block_cols, out + line_rows * e, out_stride,
                                f);
    if (block_cols < cols)
      gather_elements<E>(src + block_cols * e, src_row_bytes, rows, cols - block_cols,
                         out + block_cols * out_stride, out_stride, e, f);
    if (block_rows < rows)
      gather_elements<E>(src + block_rows * src_row_bytes, src_row_bytes, rows - block_rows,
                         block_cols, out + block_rows * e, out_stride, e, f);
  }
}

}  // namespace xpose::detail::cpu
