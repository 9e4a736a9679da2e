// Writing the transposed pieces of the out-of-place CPU transposition to the destination as
// whole 64-byte lines, non-temporal for large destinations, at any destination alignment.
// A piece's bytes after its last whole line (its tail) stay pending in the tile buffer, in its
// carry area (the 64 bytes in front of where the next piece is gathered): when the next piece
// of the same destination run starts where the tail ends (the next row group of a tile, the
// next tile down the same destination rows on the same thread), the two complete the line and
// it is written whole. Tails that nothing continues and heads of pieces that start inside a
// line are written with ordinary stores, so that a line shared with another thread or with
// bytes outside the destination is never streamed: no line is read from memory but those.
// Assumes: a piece's buffer bytes have 64 writable bytes in front of them (the carry area).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu/register_block.hpp"

namespace xpose::detail::cpu {

constexpr std::int64_t line_bytes = 64;

/// The unwritten tail of the last piece of one destination run: `bytes` bytes that belong at
/// the line-aligned `line` and sit in front of the buffer's next piece (its carry area).
struct pending_tail {
  std::byte* line;
  std::int64_t bytes;
};

inline std::int64_t line_offset(const std::byte* p) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p) % line_bytes);
}

/// One whole destination line (line-aligned `to`) from 64 bytes at `from`: non-temporal when
/// Stream.
template <bool Stream>
inline void write_line(std::byte* to, const std::byte* from) {
  for (std::int64_t q = 0; q < line_bytes; q += 16) {
    if constexpr (Stream)
      stream_row(to + q, load_row(from + q));
    else
      store_row(to + q, load_row(from + q));
  }
}

/// Writes the pending bytes of the carry area in front of `piece` with ordinary stores.
inline void flush_tail(pending_tail& tail, const std::byte* piece) {
  if (tail.bytes > 0)
    std::memcpy(tail.line, piece - tail.bytes, static_cast<std::size_t>(tail.bytes));
  tail.bytes = 0;
}

/// Writes the piece of `bytes` bytes at `piece` (in the buffer, its carry area in front) to
/// `to`: continued from the pending tail when it ends at `to`, else after writing that tail
/// and the piece's head up to the first line boundary with ordinary stores; whole lines next; the
/// rest copied into the carry area and left pending.
template <bool Stream>
__attribute__((always_inline)) inline void write_piece(std::byte* to, std::byte* piece,
                                                       std::int64_t bytes, pending_tail& tail) {
  const std::byte* from = piece;
  std::int64_t left = bytes;
  if (tail.bytes > 0 && tail.line + tail.bytes == to) {
    from -= tail.bytes;
    left += tail.bytes;
    to = tail.line;
  } else if (tail.bytes > 0 || line_offset(to) != 0) {
    flush_tail(tail, piece);
    const std::int64_t head = std::min(left, (line_bytes - line_offset(to)) % line_bytes);
    if (head > 0) std::memcpy(to, from, static_cast<std::size_t>(head));
    to += head;
    from += head;
    left -= head;
  }
  for (; left >= line_bytes; left -= line_bytes, to += line_bytes, from += line_bytes)
    write_line<Stream>(to, from);
  tail = {to, left};
  if (left > 0) {
    // The last 64 bytes of the piece into the carry area: its last `left` bytes end there. All
    // four loads come first, as the two ranges overlap when the piece is shorter than a line.
    const std::byte* const last = piece + bytes - line_bytes;
    const row_register r0 = load_row(last), r1 = load_row(last + 16);
    const row_register r2 = load_row(last + 32), r3 = load_row(last + 48);
    std::byte* const carry = piece - line_bytes;
    store_row(carry, r0);
    store_row(carry + 16, r1);
    store_row(carry + 32, r2);
    store_row(carry + 48, r3);
  }
}

}  // namespace xpose::detail::cpu
