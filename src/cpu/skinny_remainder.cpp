// Remainder steps of the skinny_chunks route (plan/skinny_route.hpp): the m x n matrix (m small)
// is cut into q chunks of w columns per row plus r = n mod w leftover columns, so that the
// elementary transpositions of PPoPP'14 sec. 4 (100 on chunks, 010 on m x w instances) see
// dimensions that divide, without the paper's padding step. These steps move the leftover r x m
// block between the matrix and the workspace and close up (wide) or open up (tall) the rows.
// Closing up moves element p of the closed matrix from p + (p div (q*w)) * r: a shift that grows
// by r per row and never exceeds (m-1)*r, so the threads cut the matrix into equal ranges and
// each first saves the few elements of its neighbour's range that its own moves need.
// Assumes: rows, cols, tile as documented at stage_kind::skinny_remainder_*, 1 <= tile <= cols;
// the held block is r*m elements, the scratch one shift's worth of bytes per thread; 64-bit index
// math throughout.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "cpu/cpu_kernels.hpp"

namespace xpose::detail::cpu {
namespace {

constexpr std::size_t align_bytes = 64;

std::size_t align_up(std::size_t n) {
  return (n + align_bytes - 1) / align_bytes * align_bytes;
}

/// The chunk decomposition of a skinny_remainder_* stage, in elements.
struct chunked_rows {
  std::int64_t m, n, w, q, r;
  std::size_t e;
  explicit chunked_rows(const stage& s)
      : m(s.rows), n(s.cols), w(s.tile), q(s.cols / s.tile), r(s.cols % s.tile), e(s.super_bytes) {}
  std::int64_t kept() const { return q * w; }              ///< closed-up row length
  std::int64_t closed_size() const { return m * kept(); }  ///< elements in closed-up rows
  std::int64_t shift(std::int64_t p) const { return p / kept() * r; }  ///< of closed position p
  std::size_t bytes(std::int64_t elements) const { return static_cast<std::size_t>(elements) * e; }
};

/// Copies one element: fixed sizes compile to plain loads and stores.
template <std::size_t Bytes>
struct fixed_element {
  void copy(std::byte* dst, const std::byte* src) const { std::memcpy(dst, src, Bytes); }
};
struct runtime_element {
  std::size_t size;
  void copy(std::byte* dst, const std::byte* src) const { std::memcpy(dst, src, size); }
};

template <class Body>
void with_element(std::size_t bytes, Body&& body) {
  switch (bytes) {
    case 1:
      return body(fixed_element<1>{});
    case 2:
      return body(fixed_element<2>{});
    case 4:
      return body(fixed_element<4>{});
    case 8:
      return body(fixed_element<8>{});
    case 16:
      return body(fixed_element<16>{});
    default:
      return body(runtime_element{bytes});
  }
}

/// held (r x m) = the transpose of columns [q*w, n) of the m x n matrix.
void gather_remainder(const std::byte* data, std::byte* held, const chunked_rows& c) {
  with_element(c.e, [&](auto element) {
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.r; ++j)
        element.copy(held + c.bytes(j * c.m + i), data + c.bytes(i * c.n + c.kept() + j));
  });
}
/// Columns [q*w, n) of rows [first_row, end_row) = their part of the transpose of held (r x m).
void scatter_remainder(std::byte* data, const std::byte* held, const chunked_rows& c,
                       std::int64_t first_row, std::int64_t end_row) {
  with_element(c.e, [&](auto element) {
    for (std::int64_t i = first_row; i < end_row; ++i)
      for (std::int64_t j = 0; j < c.r; ++j)
        element.copy(data + c.bytes(i * c.n + c.kept() + j), held + c.bytes(j * c.m + i));
  });
}

/// Start of thread `thread`'s range of closed positions: equal ranges, the first ones one longer.
std::int64_t range_start(std::int64_t size, int thread, int threads) {
  return size / threads * thread + std::min<std::int64_t>(thread, size % threads);
}

/// Wide: held = columns [q*w, n) transposed, then every row closed up to q*w elements.
void split_remainder(std::byte* data, const chunked_rows& c, std::byte* held, std::byte* scratch,
                     int threads) {
  const std::int64_t size = c.closed_size(), kept = c.kept();
  const std::size_t tail_stride = align_up(c.bytes((c.m - 1) * c.r));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), team = omp_get_num_threads();
    const std::int64_t begin = range_start(size, t, team), end = range_start(size, t + 1, team);
    // Sources at or after `end` lie in the next range, overwritten by its thread: saved first.
    std::byte* tail = scratch + t * tail_stride;
    const std::int64_t tail_length = end > begin ? c.shift(end - 1) : 0;
    std::memcpy(tail, data + c.bytes(end), c.bytes(tail_length));
    if (t == 0) gather_remainder(data, held, c);
#pragma omp barrier
    for (std::int64_t i = begin / kept; begin < end && i * kept < end; ++i) {
      const std::int64_t first = std::max(begin, i * kept), last = std::min(end, (i + 1) * kept);
      const std::int64_t source = first + i * c.r;
      const std::int64_t from_data = std::clamp<std::int64_t>(end - source, 0, last - first);
      std::memmove(data + c.bytes(first), data + c.bytes(source), c.bytes(from_data));
      std::memcpy(data + c.bytes(first + from_data), tail + c.bytes(source + from_data - end),
                  c.bytes(last - first - from_data));
    }
  }
}

/// Tall: rows of q*w elements opened up to n elements (back to front), then columns [q*w, n)
/// of every row filled from held (r x m) transposed.
void spread_remainder(std::byte* data, const chunked_rows& c, const std::byte* held,
                      std::byte* scratch, int threads) {
  const std::int64_t size = c.closed_size(), kept = c.kept();
  const std::size_t head_stride = align_up(c.bytes((c.m - 1) * c.r));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), team = omp_get_num_threads();
    const std::int64_t begin = range_start(size, t, team), end = range_start(size, t + 1, team);
    // The start of this range is overwritten by the ranges before it: saved first.
    std::byte* head = scratch + t * head_stride;
    const std::int64_t head_end = begin > 0 ? std::min(end, begin + c.shift(begin - 1)) : begin;
    std::memcpy(head, data + c.bytes(begin), c.bytes(head_end - begin));
#pragma omp barrier
    for (std::int64_t i = (end - 1) / kept; begin < end && i >= 0 && (i + 1) * kept > begin; --i) {
      const std::int64_t first = std::max(begin, i * kept), last = std::min(end, (i + 1) * kept);
      const std::int64_t from_head = std::clamp<std::int64_t>(head_end - first, 0, last - first);
      std::memmove(data + c.bytes(first + from_head + i * c.r), data + c.bytes(first + from_head),
                   c.bytes(last - first - from_head));
      std::memcpy(data + c.bytes(first + i * c.r), head + c.bytes(first - begin),
                  c.bytes(from_head));
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < c.m; ++i) scatter_remainder(data, held, c, i, i + 1);
  }
}

}  // namespace

std::size_t skinny_remainder_held_bytes(const stage& s) {
  return static_cast<std::size_t>(s.rows * (s.cols % s.tile)) * s.super_bytes;
}

std::size_t skinny_remainder_scratch_bytes(const stage& s, int threads) {
  if (s.kind != stage_kind::skinny_remainder_split && s.kind != stage_kind::skinny_remainder_spread)
    return 0;
  const chunked_rows c(s);
  return static_cast<std::size_t>(std::max(1, threads)) * align_up(c.bytes((c.m - 1) * c.r));
}

void skinny_remainder(std::byte* data, const stage& s, std::byte* held, std::byte* scratch,
                      int threads) {
  const chunked_rows c(s);
  if (c.r == 0) return;
  threads = std::max(1, threads);
  const std::size_t remainder_bytes = c.bytes(c.m * c.r);
  switch (s.kind) {
    case stage_kind::skinny_remainder_split:
      return split_remainder(data, c, held, scratch, threads);
    case stage_kind::skinny_remainder_place:
      std::memcpy(data + c.bytes(c.m * c.n) - remainder_bytes, held, remainder_bytes);
      return;
    case stage_kind::skinny_remainder_take:
      std::memcpy(held, data + c.bytes(c.m * c.n) - remainder_bytes, remainder_bytes);
      return;
    case stage_kind::skinny_remainder_spread:
      return spread_remainder(data, c, held, scratch, threads);
    default:
      return;
  }
}

}  // namespace xpose::detail::cpu
