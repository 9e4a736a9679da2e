// Catanzaro, Keller, Garland, "A Decomposition for In-place Matrix Transposition" (PPoPP'14),
// sec. 3-4 (index maps and their derivation in plan/row_column.hpp), on the CPU with OpenMP.
// Assumes one dense row-major m x n matrix (row stride n) of e-byte elements, any m, n >= 1.
//  - Row shuffle: rows are split across threads; each row is scattered into a per-thread row
//    buffer and copied back (one pass over memory, the scatter stays in L1/L2). When gcd(m, n) = 1
//    the scatter is by a fixed table and the copy back rotates the row. Rows that outgrow L1
//    (gcd > 1, long runs) are copied into the buffer and gathered back instead, the stores in
//    order (gather_row).
//  - Pre-rotation fused into the row shuffle (where row_column_rotated_bands says): one band of
//    rows per thread, permuted from its last row to its first, each row gathering its pieces from
//    the rows the pre-rotation would move them out of; the gcd - 1 rows below each band are saved
//    first (halos), as the band below overwrites them. One pass plus the halos.
//  - Pre-rotation and column shuffle: blocks of `tile` adjacent columns are split across
//    threads. A block's columns are rotated by amounts k0 + residual(j), residual < tile, so a
//    block is (1) skewed by the residuals in one top-to-bottom sweep that saves only the first
//    max-residual row segments (in the column shuffle the skew is a diagonal, moved 16 bytes at a
//    time with SSE4.1 blends), then (2) its row segments are permuted by one row permutation
//    (the rotation by k0, composed with g(r) in the column shuffle), by cycle following with one
//    flag bit per row. The block (m segments of up to 512 bytes) is sized to stay in cache
//    between the two sweeps; the sweeps prefetch rows ahead, as rows are too far apart for the
//    hardware prefetchers.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

#include "cpu/cpu_kernels.hpp"
#include "cpu/element_size_dispatch.hpp"
#include "plan/permutation.hpp"
#include "plan/row_column.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {

namespace {

constexpr std::size_t alignment = 64;
constexpr std::size_t cache_line = 64;
constexpr std::int64_t prefetch_rows = 8;  ///< how far ahead (rows) the block sweeps prefetch

std::size_t round_up(std::size_t bytes) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/// Copies one element of E bytes (E == 0: `bytes`, known only at run time).
template <std::size_t E>
inline void copy_element(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if constexpr (E != 0) {
    std::memcpy(dst, src, E);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

/// Copies one row segment of a column block (16-byte moves, then the remaining tail).
inline void copy_segment(std::byte* dst, const std::byte* src, std::size_t bytes) {
  std::size_t offset = 0;
  for (; offset + 16 <= bytes; offset += 16) std::memcpy(dst + offset, src + offset, 16);
  if (offset < bytes) std::memcpy(dst + offset, src + offset, bytes - offset);
}

#if defined(__SSE4_1__)
/// Loads 16 bytes from each of 16 / E rows `row_bytes` apart, starting at `first`, and keeps
/// E-byte lane l of row l: a diagonal. L = 0 .. 16 / E - 2 numbers the rows after the first.
template <std::size_t E, int... L>
inline __m128i load_diagonal(const std::byte* first, std::size_t row_bytes,
                             std::integer_sequence<int, L...>) {
  constexpr int words = static_cast<int>(E / 2);  // 16-bit words per element
  __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(first));
  ((v = _mm_blend_epi16(
        v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(first + (L + 1) * row_bytes)),
        ((1 << words) - 1) << ((L + 1) * words))),
   ...);
  return v;
}
#endif

/// Columns [0, columns) of one row of a diagonal skew: out[k] = (out + k * row_bytes)[k]. 16 bytes
/// at a time (16-byte loads split cache lines less often than 32-byte ones, and are as fast here)
/// for 2-, 4- and 8-byte elements; returns how many columns it did.
template <std::size_t E>
std::int64_t skew_row_diagonal(std::byte* out, std::size_t row_bytes, std::int64_t columns) {
#if defined(__SSE4_1__)
  if constexpr (E == 2 || E == 4 || E == 8) {
    constexpr std::int64_t lanes = 16 / E;
    const std::size_t step = lanes * (row_bytes + E);  // lanes rows down, lanes columns right
    const std::int64_t vector_columns = columns - columns % lanes;
    const std::byte* in = out;
    for (std::int64_t k = 0; k < vector_columns; k += lanes, in += step, out += 16)
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(out),
          load_diagonal<E>(in, row_bytes, std::make_integer_sequence<int, lanes - 1>()));
    return vector_columns;
  }
#endif
  return 0;
}

/// Per-thread scratch of one column-block phase, carved out of the workspace.
struct block_scratch {
  std::uint8_t* flags;  ///< one bit per row of the block
  std::size_t flags_bytes;
  std::byte* saved_rows;       ///< the first (max residual) row segments, before the skew
  std::byte* cycle_segment;    ///< the segment that starts a cycle
  std::int64_t* read_offsets;  ///< per column: byte offset of its source in the skew sweep

  static std::size_t bytes(std::int64_t m, std::int64_t width, std::size_t e) {
    const std::size_t segment = static_cast<std::size_t>(width) * e;
    const auto saved = static_cast<std::size_t>(std::min(width, m) - 1);
    return round_up(flag_bytes(m)) + round_up(saved * segment) + round_up(segment) +
           round_up(static_cast<std::size_t>(width) * sizeof(std::int64_t));
  }

  block_scratch(std::byte* base, std::int64_t m, std::int64_t width, std::size_t e) {
    const std::size_t segment = static_cast<std::size_t>(width) * e;
    const auto saved = static_cast<std::size_t>(std::min(width, m) - 1);
    flags = reinterpret_cast<std::uint8_t*>(base);
    flags_bytes = flag_bytes(m);
    base += round_up(flag_bytes(m));
    saved_rows = base;
    base += round_up(saved * segment);
    cycle_segment = base;
    base += round_up(segment);
    read_offsets = reinterpret_cast<std::int64_t*>(base);
  }
};

/// One column block [j0, j0 + width) of the m x n matrix: column j0 + k is first rotated up by
/// residual(k) (0 <= residual(k) <= max_residual < m), then row x of the block takes row
/// source_row(x) of the block (a permutation of 0..m-1).
template <std::size_t E, class Residual, class SourceRow>
void permute_column_block(std::byte* data, std::int64_t m, std::int64_t n, std::size_t e,
                          std::int64_t j0, std::int64_t width, Residual residual,
                          std::int64_t max_residual, SourceRow source_row,
                          const block_scratch& scratch) {
  const std::size_t bytes = E != 0 ? E : e;
  const std::size_t row_bytes = static_cast<std::size_t>(n) * bytes;
  const std::size_t segment_bytes = static_cast<std::size_t>(width) * bytes;
  std::byte* block = data + static_cast<std::size_t>(j0) * bytes;
  auto segment = [&](std::int64_t row) {
    return block + static_cast<std::size_t>(row) * row_bytes;
  };
  // Prefetches every line of a segment a few rows ahead of its use.
  auto prefetch_segment = [&](std::int64_t row) {
    const std::byte* first = segment(row);
    for (std::size_t offset = 0; offset < segment_bytes; offset += cache_line)
      __builtin_prefetch(first + offset, 1);
    __builtin_prefetch(first + segment_bytes - 1, 1);
  };

  // (1) Skew: new[x][k] = old[(x + residual(k)) mod m][k], sweeping x upward; rows read are at
  // or below x, except the wrap-around into rows 0..max_residual-1, which are saved first.
  if (max_residual > 0) {
    for (std::int64_t x = 0; x < max_residual; ++x)
      std::memcpy(scratch.saved_rows + x * segment_bytes, segment(x), segment_bytes);
    bool diagonal = true;  // residual(k) == k: column k rotated up by k
    for (std::int64_t k = 0; k < width; ++k) {
      diagonal = diagonal && residual(k) == k;
      scratch.read_offsets[k] =
          residual(k) * static_cast<std::int64_t>(row_bytes) + k * static_cast<std::int64_t>(bytes);
    }
    const std::int64_t unwrapped_rows = m - max_residual;
    for (std::int64_t x = 0; x < unwrapped_rows; ++x) {
      if (x + max_residual + prefetch_rows < m) prefetch_segment(x + max_residual + prefetch_rows);
      std::byte* out = segment(x);
      const std::int64_t vector_columns =
          diagonal ? skew_row_diagonal<E>(out, row_bytes, width) : 0;
      for (std::int64_t k = vector_columns; k < width; ++k)
        copy_element<E>(out + k * bytes, out + scratch.read_offsets[k], bytes);
    }
    for (std::int64_t x = unwrapped_rows; x < m; ++x) {
      std::byte* out = segment(x);
      for (std::int64_t k = 0; k < width; ++k) {
        const std::int64_t from = x + residual(k);
        const std::byte* in = from < m
                                  ? segment(from) + k * bytes
                                  : scratch.saved_rows + (from - m) * segment_bytes + k * bytes;
        copy_element<E>(out + k * bytes, in, bytes);
      }
    }
  }

  // (2) Row permutation of the block's segments, one cycle at a time.
  std::memset(scratch.flags, 0, scratch.flags_bytes);
  for (std::int64_t start = 0; start < m; ++start) {
    if (flag_is_set(scratch.flags, start)) continue;
    set_flag(scratch.flags, start);
    if (source_row(start) == start) continue;
    // `ahead` holds the next rows of the cycle, up to prefetch_rows of them, already prefetched.
    std::int64_t ahead[prefetch_rows];
    std::int64_t queued = 0, lead = start;
    auto extend = [&] {
      lead = source_row(lead);
      if (lead == start) return false;
      prefetch_segment(lead);
      ahead[queued++ % prefetch_rows] = lead;
      return true;
    };
    while (queued < prefetch_rows && extend()) {
    }
    copy_segment(scratch.cycle_segment, segment(start), segment_bytes);
    std::int64_t to = start;
    for (std::int64_t used = 0; used < queued; ++used) {
      const std::int64_t from = ahead[used % prefetch_rows];
      if (lead != start) extend();
      copy_segment(segment(to), segment(from), segment_bytes);
      set_flag(scratch.flags, from);
      to = from;
    }
    copy_segment(segment(to), scratch.cycle_segment, segment_bytes);
  }
}

/// Calls move_block(j0, block_width, scratch) for every block of s.tile columns of the
/// s.rows x s.cols matrix; OpenMP threads take whole blocks, each with its own scratch.
template <class BlockMover>
void for_each_column_block(const stage& s, std::byte* workspace, int threads,
                           BlockMover move_block) {
  const std::int64_t m = s.rows, n = s.cols, width = s.tile;
  const std::int64_t blocks = (n + width - 1) / width;
  const std::size_t scratch_bytes = block_scratch::bytes(m, width, s.super_bytes);
#pragma omp parallel num_threads(threads)
  {
    const block_scratch scratch(workspace + omp_get_thread_num() * scratch_bytes, m, width,
                                s.super_bytes);
#pragma omp for schedule(static)
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t j0 = block * width;
      move_block(j0, std::min(width, n - j0), scratch);
    }
  }
}

/// Phase 1: column j rotated down by q(j) = floor(j / b). In a block whose last column has
/// q_last, that is a rotation up by k0 = (m - q_last) mod m plus residual q_last - q(j).
template <std::size_t E>
void pre_rotate(std::byte* data, const stage& s, std::byte* workspace, int threads) {
  const row_column_math math(s.rows, s.cols);
  const std::int64_t m = math.m(), n = math.n(), b = math.b();
  for_each_column_block(
      s, workspace, threads,
      [&](std::int64_t j0, std::int64_t block_width, const block_scratch& scratch) {
        const std::int64_t q_first = j0 / b;
        const std::int64_t q_last = (j0 + block_width - 1) / b;
        const std::int64_t k0 = (m - q_last) % m;
        permute_column_block<E>(
            data, m, n, s.super_bytes, j0, block_width,
            [&](std::int64_t k) { return q_last - (j0 + k) / b; }, q_last - q_first,
            [&](std::int64_t x) { return x + k0 < m ? x + k0 : x + k0 - m; }, scratch);
      });
}

/// Phase 3: new[r][s] = cur[(g(r) + s) mod m][s]. In a block starting at column j0 the column
/// rotation is k0 = j0 mod m plus residual (s - j0) mod m; g and k0 make one row permutation.
template <std::size_t E>
void shuffle_columns(std::byte* data, const stage& s, std::byte* workspace, int threads) {
  const row_column_math math(s.rows, s.cols);
  const std::int64_t m = math.m(), n = math.n();
  for_each_column_block(
      s, workspace, threads,
      [&](std::int64_t j0, std::int64_t block_width, const block_scratch& scratch) {
        const std::int64_t k0 = math.column_rotation(j0);
        permute_column_block<E>(
            data, m, n, s.super_bytes, j0, block_width, [&](std::int64_t k) { return k % m; },
            std::min(block_width, m) - 1,
            [&](std::int64_t r) {
              const std::int64_t from = math.row_permutation_source(r) + k0;
              return from < m ? from : from - m;
            },
            scratch);
      });
}

/// The row shuffle runs over q outside and k inside (destinations from a table of k*m mod n,
/// the same for every run and row) when the runs are long; else over k outside.
/// 32-bit entries: the table, a row and its buffer stay in L1 for rows of a few thousand.
bool uses_destination_table(const row_column_math& math) {
  return math.b() >= 16 && math.n() <= std::int64_t{1} << 32;
}

/// Row shuffle workspace: the destination table (shared), then one row buffer per thread.
std::size_t destination_table_bytes(const row_column_math& math) {
  return uses_destination_table(math) ? round_up(math.b() * sizeof(std::uint32_t)) : 0;
}
std::size_t row_buffer_bytes(const row_column_math& math, std::size_t e) {
  return round_up(static_cast<std::size_t>(math.n()) * e);
}

/// Scatters the elements of runs q0, q0 + 1, ..., q0 + count - 1 at byte `offset` of each run
/// (run(q) points to the run's first element) to buffer positions s, s-1, s-2, ... taken mod n
/// (the position after 0 is n-1).
template <std::size_t E, class Run>
void scatter_descending(std::byte* buffer, const Run& run, std::size_t offset, std::int64_t q0,
                        std::int64_t count, std::int64_t s, std::int64_t n, std::size_t bytes) {
  while (count > 0) {
    const std::int64_t length = std::min(count, s + 1);
    std::byte* out = buffer + s * bytes;
    for (std::int64_t t = 0; t < length; ++t)
      copy_element<E>(out - t * bytes, run(q0 + t) + offset, bytes);
    q0 += length;
    count -= length;
    s = n - 1;
  }
}

/// x^-1 mod d for gcd(x, d) = 1, d >= 1 (extended Euclid).
std::int64_t modular_inverse(std::int64_t x, std::int64_t d) {
  std::int64_t r0 = d, r1 = x % d, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const std::int64_t q = r0 / r1;
    r0 = std::exchange(r1, r0 - q * r1);
    t0 = std::exchange(t1, t0 - q * t1);
  }
  return d == 1 ? 0 : (t0 % d + d) % d;
}

/// The terms of phase 2 that every row shares.
struct row_shuffle_terms {
  std::int64_t m, n, b, c;
  std::int64_t m_mod_n, last_row_mod_n;  ///< m mod n, (m - 1) mod n
  std::size_t bytes;
  const std::uint32_t* destination_table;  ///< k*m mod n for k < b, or nullptr
  std::int64_t step;                       ///< a^-1 mod b, for gather_row
};

/// Phase 2 of row x with c > 1: column j = q*b + k (0 <= k < b) goes to s = (k*m + i_q) mod n,
/// where i_q = (x - q) mod m is the element's original row (j*m = q*a*n + k*m); run(q) points to
/// where the element of column q*b is read. Scatters into `buffer` in whichever order gives the
/// longer inner loops: for fixed q, s = (table[k] + i_q) mod n; for fixed k, s steps down by one
/// with q, except once where i_q wraps from 0 to m - 1.
template <std::size_t E, class Run, class Ahead>
void scatter_row(std::byte* buffer, std::int64_t x, const row_shuffle_terms& t, const Run& run,
                 const Ahead& ahead) {
  const std::size_t bytes = E != 0 ? E : t.bytes;
  const std::int64_t n = t.n;
  if (t.destination_table != nullptr) {
    const std::int64_t line_elements = std::max<std::int64_t>(1, cache_line / bytes);
    std::int64_t i_mod_n = x % n;  // i_q mod n, for q = 0, 1, ...
    for (std::int64_t q = 0; q < t.c; ++q) {
      const std::byte* in = run(q);
      const std::byte* next = ahead(q);
      for (std::int64_t k0 = 0; k0 < t.b; k0 += line_elements) {
        if (next != nullptr) __builtin_prefetch(next + k0 * bytes);
        const std::int64_t k_end = std::min(k0 + line_elements, t.b);
        for (std::int64_t k = k0; k < k_end; ++k, in += bytes) {
          const std::int64_t to = t.destination_table[k] + i_mod_n;
          copy_element<E>(buffer + (to >= n ? to - n : to) * bytes, in, bytes);
        }
      }
      i_mod_n = q == x ? t.last_row_mod_n : (i_mod_n == 0 ? n - 1 : i_mod_n - 1);
    }
    return;
  }
  const std::int64_t unwrapped = std::min(x + 1, t.c);  // q <= x: i_q = x - q
  const std::int64_t x_mod_n = x % n;
  std::int64_t k_times_m = 0;  // k*m mod n
  for (std::int64_t k = 0; k < t.b; ++k) {
    const std::size_t offset = k * bytes;
    std::int64_t to = k_times_m + x_mod_n;
    scatter_descending<E>(buffer, run, offset, 0, unwrapped, to >= n ? to - n : to, n, bytes);
    if (unwrapped < t.c) {
      to = k_times_m + t.last_row_mod_n;
      scatter_descending<E>(buffer, run, offset, unwrapped, t.c - unwrapped, to >= n ? to - n : to,
                            n, bytes);
    }
    k_times_m += t.m_mod_n;
    if (k_times_m >= n) k_times_m -= n;
  }
}

/// The terms of phase 2, with the destination table filled at the start of `workspace` where
/// the row shuffle uses one.
row_shuffle_terms make_row_shuffle_terms(const stage& s, std::byte* workspace) {
  const row_column_math math(s.rows, s.cols);
  row_shuffle_terms t{math.m(),
                      math.n(),
                      math.b(),
                      math.c(),
                      math.m() % math.n(),
                      (math.m() - 1) % math.n(),
                      s.super_bytes,
                      nullptr,
                      modular_inverse(math.a() % math.b(), math.b())};
  if (uses_destination_table(math)) {
    auto* table = reinterpret_cast<std::uint32_t*>(workspace);
    std::int64_t k_times_m = 0;  // k*m mod n
    for (std::int64_t k = 0; k < t.b; ++k) {
      table[k] = static_cast<std::uint32_t>(k_times_m);
      k_times_m += t.m_mod_n;
      if (k_times_m >= t.n) k_times_m -= t.n;
    }
    t.destination_table = table;
  }
  return t;
}

/// Row shuffle as a gather (the inverse of phase 2). With c = gcd(m, n), n = c*b, m = c*a and
/// i_q = (x - q) mod m = c*h_q + r_q, column j = q*b + k of row x goes to
/// s = (k*m + i_q) mod n = c*((k*a + h_q) mod b) + r_q: residue class r_q of the row takes run q
/// alone, its slot w from k = (w - h_q) * a^-1 mod b. Walking s upward, each class reads its run
/// with the fixed step a^-1 mod b: sequential stores, loads spread over the run (in L1/L2), no
/// division per element. Used where the row outgrows L1 (gather_pays): there the scatter stores
/// every element to another cache line of the row buffer (fp32 7444 x 11444: 1.2-2.4x slower).
/// On rows in L1, or with short runs, the scatter is as fast or faster.
bool gather_pays(const row_column_math& math, std::size_t e) {
  return math.c() > 1 && math.b() >= 64 && static_cast<std::size_t>(math.n()) * e >= (16 << 10);
}
/// Per residue class: the run it reads and its next position in that run (gather_row).
std::size_t class_state_bytes(const row_column_math& math) {
  return round_up(static_cast<std::size_t>(math.c()) * 2 * sizeof(std::int64_t));
}
/// Per thread of the row shuffle alone: a row buffer and the classes' state.
std::size_t row_thread_bytes(const row_column_math& math, std::size_t e) {
  return row_buffer_bytes(math, e) + class_state_bytes(math);
}

/// out[v * out_stride] = run[k_v] for v < count, with k_0 = k and k_{v+1} = (k_v + step) mod b;
/// leaves k at k_count. Four positions walk at once, each by 4*step: one chain of adds alone is
/// latency bound (4 dependent operations per element).
template <std::size_t E>
inline void gather_stepped(std::byte* out, std::size_t out_stride, const std::byte* run,
                           std::int64_t count, std::int64_t& k, std::int64_t step, std::int64_t b,
                           std::size_t bytes) {
  auto advance = [b](std::int64_t x, std::int64_t by) {  // (x + by) mod b, x, by < b
    x += by - b;
    return x + (b & (x >> 63));  // no branch: a taken one is unpredictable
  };
  std::int64_t k0 = k;
  if (count >= 8) {
    std::int64_t k1 = advance(k0, step), k2 = advance(k1, step), k3 = advance(k2, step);
    const std::int64_t step2 = advance(step, step), step4 = advance(step2, step2);
    const std::size_t stride4 = 4 * out_stride;
    std::int64_t v = 0;
    for (; v + 4 <= count; v += 4, out += stride4) {
      copy_element<E>(out, run + k0 * bytes, bytes);
      copy_element<E>(out + out_stride, run + k1 * bytes, bytes);
      copy_element<E>(out + 2 * out_stride, run + k2 * bytes, bytes);
      copy_element<E>(out + 3 * out_stride, run + k3 * bytes, bytes);
      k0 = advance(k0, step4);
      k1 = advance(k1, step4);
      k2 = advance(k2, step4);
      k3 = advance(k3, step4);
    }
    count -= v;
  }
  for (std::int64_t v = 0; v < count; ++v, out += out_stride) {
    copy_element<E>(out, run + k0 * bytes, bytes);
    k0 = advance(k0, step);
  }
  k = k0;
}

/// Phase 2 of row x as a gather into `out` from `source`, which holds the row's elements in
/// their order before the phase (run q at q*b). `state` holds 2c integers of scratch.
template <std::size_t E>
void gather_row(std::byte* out, const std::byte* source, std::int64_t x, const row_shuffle_terms& t,
                std::int64_t* state) {
  const std::size_t bytes = E != 0 ? E : t.bytes;
  const std::int64_t b = t.b, c = t.c, step = t.step;
  std::int64_t* run_start = state;  // per class r: q*b, where its run starts
  std::int64_t* next = state + c;   // per class r: the position k it reads next
  // i_q for q = 0, 1, ...: x, x - 1, ..., 0, then m - 1, m - 2, ...
  std::int64_t i = x, r = x % c, h = x / c % b;
  std::int64_t k =
      static_cast<std::int64_t>(static_cast<unsigned __int128>(b - h) *
                                static_cast<std::uint64_t>(step) % static_cast<std::uint64_t>(b));
  for (std::int64_t q = 0; q < c; ++q) {
    run_start[r] = q * b;
    next[r] = k;
    if (i == 0) {
      i = t.m - 1;
      r = i % c;
      h = i / c % b;
      k = static_cast<std::int64_t>(static_cast<unsigned __int128>(b - h) *
                                    static_cast<std::uint64_t>(step) %
                                    static_cast<std::uint64_t>(b));
    } else {
      --i;
      if (r > 0) {
        --r;
      } else {  // h - 1 (mod b): k + a^-1 (mod b)
        r = c - 1;
        k += step;
        if (k >= b) k -= b;
      }
    }
  }
  const std::size_t stride = static_cast<std::size_t>(c) * bytes;
  // Blocks of destination slots that stay in L1 while every class writes its part.
  constexpr std::int64_t block_bytes = 4096;
  const std::int64_t block_slots =
      std::max<std::int64_t>(16, block_bytes / static_cast<std::int64_t>(stride));
  for (std::int64_t w0 = 0; w0 < b; w0 += block_slots) {
    const std::int64_t w_end = std::min(w0 + block_slots, b);
    for (std::int64_t cls = 0; cls < c; ++cls)
      gather_stepped<E>(out + (w0 * c + cls) * bytes, stride, source + run_start[cls] * bytes,
                        w_end - w0, next[cls], step, b, bytes);
  }
}

/// Phase 2: each row scattered into a per-thread buffer (scatter_row) and copied back. With
/// c = 1 the buffer takes table[k] alone and the copy back rotates by x mod n.
template <std::size_t E>
void shuffle_rows(std::byte* data, const stage& s, std::byte* workspace, int threads) {
  const row_shuffle_terms t = make_row_shuffle_terms(s, workspace);
  const std::int64_t m = t.m, n = t.n, b = t.b;
  const std::size_t bytes = E != 0 ? E : s.super_bytes;
  const std::size_t row_bytes = static_cast<std::size_t>(n) * bytes;
  const row_column_math math(m, n);
  std::byte* const row_buffers = workspace + destination_table_bytes(math);
  const bool gathers = gather_pays(math, s.super_bytes);
#pragma omp parallel num_threads(threads)
  {
    std::byte* buffer = row_buffers + omp_get_thread_num() * row_thread_bytes(math, s.super_bytes);
    auto* state = reinterpret_cast<std::int64_t*>(buffer + row_buffer_bytes(math, s.super_bytes));
#pragma omp for schedule(static)
    for (std::int64_t x = 0; x < m; ++x) {
      std::byte* line = data + static_cast<std::size_t>(x) * row_bytes;
      if (gathers) {
        std::memcpy(buffer, line, row_bytes);
        gather_row<E>(line, buffer, x, t, state);
      } else if (t.destination_table != nullptr && t.c == 1) {
        // s = (k*m mod n + x mod n) mod n: scatter by the table alone, rotate while copying back.
        for (std::int64_t k = 0; k < n; ++k)
          copy_element<E>(buffer + t.destination_table[k] * bytes, line + k * bytes, bytes);
        const std::size_t rotation = static_cast<std::size_t>(x % n) * bytes;
        std::memcpy(line + rotation, buffer, row_bytes - rotation);
        std::memcpy(line, buffer + row_bytes - rotation, rotation);
      } else {
        const std::size_t run_bytes = static_cast<std::size_t>(b) * bytes;
        // The next row prefetched along, a stream the scatter alone leaves to the hardware.
        const std::byte* next = x + 1 < m ? line + row_bytes : nullptr;
        scatter_row<E>(
            buffer, x, t, [&](std::int64_t q) { return line + q * run_bytes; },
            [&](std::int64_t q) { return next == nullptr ? next : next + q * run_bytes; });
        std::memcpy(line, buffer, row_bytes);
      }
    }
  }
}

/// Workspace of phases 1 and 2 fused in `bands` bands: the destination table, the halos
/// (bands x (c - 1) rows), then per thread a row buffer and c run pointers.
std::size_t halo_bytes(const row_column_math& math, std::size_t e, std::int64_t bands) {
  return static_cast<std::size_t>(bands * (math.c() - 1)) * row_buffer_bytes(math, e);
}
std::size_t rotated_thread_bytes(const row_column_math& math, std::size_t e) {
  return row_buffer_bytes(math, e) +
         round_up(static_cast<std::size_t>(math.c()) * sizeof(const std::byte*)) +
         class_state_bytes(math);
}

/// Phases 1 and 2 in one pass: band t (rows [t*band_rows, (t+1)*band_rows)) permutes its rows
/// from its last to its first, row x gathering column j from row (x - floor(j/b)) mod m, where
/// the pre-rotation would have moved it from. The rows it reads below x in its band are still as
/// they were; the c - 1 rows below its first row belong to the band below (or, for band 0, are
/// the matrix's last rows) and are read from its halo, copied before any band starts.
template <std::size_t E>
void shuffle_rotated_rows(std::byte* data, const stage& s, std::byte* workspace, int threads,
                          std::int64_t bands) {
  const row_shuffle_terms t = make_row_shuffle_terms(s, workspace);
  const row_column_math math(s.rows, s.cols);
  const std::int64_t m = t.m, c = t.c, halo_rows = c - 1;
  const std::size_t bytes = E != 0 ? E : s.super_bytes;
  const std::size_t row_bytes = static_cast<std::size_t>(t.n) * bytes;
  const std::size_t halo_row_bytes = row_buffer_bytes(math, s.super_bytes);
  const std::size_t run_bytes = static_cast<std::size_t>(t.b) * bytes;
  const std::int64_t band_rows = (m + bands - 1) / bands;
  bands = (m + band_rows - 1) / band_rows;
  std::byte* const halos = workspace + destination_table_bytes(math);
  std::byte* const per_thread = halos + halo_bytes(math, s.super_bytes, bands);
  const bool gathers = gather_pays(math, s.super_bytes);
  auto row = [&](std::int64_t x) { return data + static_cast<std::size_t>(x) * row_bytes; };
#pragma omp parallel num_threads(threads)
  {
    std::byte* thread_scratch =
        per_thread + omp_get_thread_num() * rotated_thread_bytes(math, s.super_bytes);
    std::byte* buffer = thread_scratch;
    auto** runs = reinterpret_cast<const std::byte**>(thread_scratch + halo_row_bytes);
    auto* state = reinterpret_cast<std::int64_t*>(
        thread_scratch + halo_row_bytes +
        round_up(static_cast<std::size_t>(c) * sizeof(const std::byte*)));
#pragma omp for schedule(static)
    for (std::int64_t h = 0; h < bands * halo_rows; ++h) {
      std::int64_t from = h / halo_rows * band_rows - halo_rows + h % halo_rows;
      if (from < 0) from += m;
      std::memcpy(halos + h * halo_row_bytes, row(from), row_bytes);
    }
    // The implicit barrier above: every halo is saved before any band writes.
#pragma omp for schedule(static)
    for (std::int64_t band = 0; band < bands; ++band) {
      const std::int64_t first = band * band_rows, end = std::min(first + band_rows, m);
      // Halo row h of this band holds row first - halo_rows + h (mod m) as it was.
      const std::byte* halo = halos + band * halo_rows * halo_row_bytes;
      auto run_of = [&](std::int64_t x, std::int64_t q) {
        const std::int64_t from = x - q;
        return (from >= first ? row(from) : halo + (from - first + halo_rows) * halo_row_bytes) +
               q * run_bytes;
      };
      for (std::int64_t x = end - 1; x >= first && gathers; --x) {
        for (std::int64_t q = 0; q < c; ++q)
          std::memcpy(buffer + q * run_bytes, run_of(x, q), run_bytes);
        gather_row<E>(row(x), buffer, x, t, state);
      }
      for (std::int64_t x = end - 1; x >= first && !gathers; --x) {
        for (std::int64_t q = 0; q < c; ++q) runs[q] = run_of(x, q);
        // Each run of row x is a stream of its own: the next row's are prefetched along.
        scatter_row<E>(
            buffer, x, t, [&](std::int64_t q) { return runs[q]; },
            [&](std::int64_t q) -> const std::byte* {
              return x > first ? run_of(x - 1, q) : nullptr;
            });
        std::memcpy(row(x), buffer, row_bytes);
      }
    }
  }
}

template <std::size_t E>
void run_phase(std::byte* data, const stage& s, std::byte* workspace, int threads) {
  switch (s.kind) {
    case stage_kind::row_column_pre_rotate:
      return pre_rotate<E>(data, s, workspace, threads);
    case stage_kind::row_column_row_shuffle:
      return shuffle_rows<E>(data, s, workspace, threads);
    case stage_kind::row_column_column_shuffle:
      return shuffle_columns<E>(data, s, workspace, threads);
    default:
      throw error(status::internal_error, "row_column_phase: not a row_column stage");
  }
}

}  // namespace

std::int64_t row_column_fused_bands(const stage& pre, const stage& row, int threads) {
  if (pre.kind != stage_kind::row_column_pre_rotate ||
      row.kind != stage_kind::row_column_row_shuffle || pre.rows != row.rows ||
      pre.cols != row.cols || pre.super_bytes != row.super_bytes)
    return 0;
  return row_column_rotated_bands(row.rows, row.cols, row.super_bytes, threads);
}

std::size_t row_column_fused_workspace(const stage& row, int threads, std::int64_t bands) {
  const row_column_math math(row.rows, row.cols);
  const std::int64_t band_rows = (row.rows + bands - 1) / bands;
  return destination_table_bytes(math) +
         halo_bytes(math, row.super_bytes, (row.rows + band_rows - 1) / band_rows) +
         rotated_thread_bytes(math, row.super_bytes) * static_cast<std::size_t>(threads);
}

void row_column_fused_phases(std::byte* data, const stage& pre, const stage& row,
                             std::byte* workspace, int threads, std::int64_t bands) {
  if (pre.kind != stage_kind::row_column_pre_rotate ||
      row.kind != stage_kind::row_column_row_shuffle || pre.rows != row.rows ||
      pre.cols != row.cols || pre.super_bytes != row.super_bytes || bands < 1 ||
      row_column_math(row.rows, row.cols).c() < 2)
    throw error(status::internal_error,
                "row_column_fused_phases: not a pre-rotation and the row shuffle after it");
  dispatch_element_size(row.super_bytes, [&](auto size) {
    shuffle_rotated_rows<decltype(size)::value>(data, row, workspace, threads,
                                                std::min(bands, row.rows));
  });
}

std::size_t row_column_workspace(const stage& s, int threads) {
  const auto thread_count = static_cast<std::size_t>(threads);
  if (s.kind == stage_kind::row_column_row_shuffle) {
    const row_column_math math(s.rows, s.cols);
    return destination_table_bytes(math) + row_thread_bytes(math, s.super_bytes) * thread_count;
  }
  return block_scratch::bytes(s.rows, s.tile, s.super_bytes) * thread_count;
}

void row_column_phase(std::byte* data, const stage& s, std::byte* workspace, int threads) {
  dispatch_element_size(s.super_bytes, [&](auto size) {
    run_phase<decltype(size)::value>(data, s, workspace, threads);
  });
}

}  // namespace xpose::detail::cpu
