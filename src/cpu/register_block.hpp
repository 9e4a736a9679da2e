// Register-block transposition for the CPU copy and square kernels: a K x K block of E-byte
// elements, K = 16 / E (E = 1, 2, 4, 8, 16), one 16-byte block row per register. The block is
// transposed by log2(K) rounds of the perfect shuffle: row 2i <- interleave_low(row i, row i+K/2),
// row 2i+1 <- interleave_high(row i, row i+K/2), with E-byte granularity in every round.
// With SSE2 (every x86-64) a register is an __m128i and the interleaves are unpack instructions;
// elsewhere a register is 16 plain bytes and the same rounds run element by element.
// Assumes: block rows may be unaligned, except for stream_row (16-byte aligned addresses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace xpose::detail::cpu {

#if defined(__SSE2__)

using row_register = __m128i;

inline row_register load_row(const std::byte* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline void store_row(std::byte* p, row_register r) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), r);
}
/// Non-temporal store; `p` must be 16-byte aligned. Call finish_streaming() before other threads
/// read what was streamed.
inline void stream_row(std::byte* p, row_register r) {
  _mm_stream_si128(reinterpret_cast<__m128i*>(p), r);
}
inline void finish_streaming() {
  _mm_sfence();
}

template <std::size_t E>
row_register interleave_low(row_register a, row_register b) {
  if constexpr (E == 1) return _mm_unpacklo_epi8(a, b);
  if constexpr (E == 2) return _mm_unpacklo_epi16(a, b);
  if constexpr (E == 4) return _mm_unpacklo_epi32(a, b);
  if constexpr (E == 8) return _mm_unpacklo_epi64(a, b);
}
template <std::size_t E>
row_register interleave_high(row_register a, row_register b) {
  if constexpr (E == 1) return _mm_unpackhi_epi8(a, b);
  if constexpr (E == 2) return _mm_unpackhi_epi16(a, b);
  if constexpr (E == 4) return _mm_unpackhi_epi32(a, b);
  if constexpr (E == 8) return _mm_unpackhi_epi64(a, b);
}

#else

struct row_register {
  std::byte bytes[16];
};

inline row_register load_row(const std::byte* p) {
  row_register r;
  std::memcpy(r.bytes, p, 16);
  return r;
}
inline void store_row(std::byte* p, row_register r) {
  std::memcpy(p, r.bytes, 16);
}
inline void stream_row(std::byte* p, row_register r) {
  store_row(p, r);
}
inline void finish_streaming() {}

/// Elements 0 .. K/2-1 (low) or K/2 .. K-1 (high) of a and b, alternating a, b.
template <std::size_t E>
row_register interleave_half(row_register a, row_register b, std::size_t first) {
  row_register r;
  for (std::size_t k = 0; k < 8 / E; ++k) {
    std::memcpy(r.bytes + 2 * k * E, a.bytes + (first + k) * E, E);
    std::memcpy(r.bytes + (2 * k + 1) * E, b.bytes + (first + k) * E, E);
  }
  return r;
}
template <std::size_t E>
row_register interleave_low(row_register a, row_register b) {
  return interleave_half<E>(a, b, 0);
}
template <std::size_t E>
row_register interleave_high(row_register a, row_register b) {
  return interleave_half<E>(a, b, 8 / E);
}

#endif

/// Edge of the register block for E-byte elements.
template <std::size_t E>
constexpr std::int64_t register_block_edge = static_cast<std::int64_t>(16 / E);

/// Transposes the K x K block held in r[0..K) (r[i] = block row i).
template <std::size_t E>
inline void transpose_registers(row_register (&r)[register_block_edge<E>]) {
  constexpr std::int64_t k = register_block_edge<E>;
  if constexpr (k > 1) {
    for (std::int64_t round = 1; round < k; round *= 2) {
      row_register shuffled[k];
      for (std::int64_t i = 0; i < k / 2; ++i) {
        shuffled[2 * i] = interleave_low<E>(r[i], r[i + k / 2]);
        shuffled[2 * i + 1] = interleave_high<E>(r[i], r[i + k / 2]);
      }
      for (std::int64_t i = 0; i < k; ++i) r[i] = shuffled[i];
    }
  }
}

template <std::size_t E>
inline void load_block(const std::byte* p, std::int64_t row_bytes,
                       row_register (&r)[register_block_edge<E>]) {
  for (std::int64_t i = 0; i < register_block_edge<E>; ++i) r[i] = load_row(p + i * row_bytes);
}

template <std::size_t E>
inline void store_block(std::byte* p, std::int64_t row_bytes,
                        const row_register (&r)[register_block_edge<E>]) {
  for (std::int64_t i = 0; i < register_block_edge<E>; ++i) store_row(p + i * row_bytes, r[i]);
}

template <std::size_t E>
inline void stream_block(std::byte* p, std::int64_t row_bytes,
                         const row_register (&r)[register_block_edge<E>]) {
  for (std::int64_t i = 0; i < register_block_edge<E>; ++i) stream_row(p + i * row_bytes, r[i]);
}

/// Elements of E bytes in one 64-byte cache line: a line block is L x L elements, L source rows
/// of one line each.
template <std::size_t E>
constexpr std::int64_t line_block_edge = static_cast<std::int64_t>(64 / E);

/// buffer <- transpose of the L x L line block at src (L rows of 64 bytes). Register blocks go
/// one row of blocks at a time, so only K source lines are live at once: strides that map all
/// L rows to one cache set do not thrash.
template <std::size_t E>
inline void gather_line_block_transposed(const std::byte* src, std::int64_t row_bytes,
                                         std::byte (&buffer)[line_block_edge<E>][64]) {
  constexpr std::int64_t k = register_block_edge<E>, e = static_cast<std::int64_t>(E);
  for (std::int64_t r = 0; r < line_block_edge<E>; r += k)
    for (std::int64_t c = 0; c < line_block_edge<E>; c += k) {
      row_register block[k];
      load_block<E>(src + r * row_bytes + c * e, row_bytes, block);
      transpose_registers<E>(block);
      store_block<E>(&buffer[c][r * e], 64, block);
    }
}

}  // namespace xpose::detail::cpu
