// Out-of-place transposition on the CPU (stage_kind::copy_transpose), blocked at two levels.
// The matrices are cut into tiles (copy_policy.hpp: a source segment wide, a destination segment
// high); threads take equal runs of consecutive tiles, across bands of source rows or down bands
// of source columns. A tile is moved a row group (one 64-byte line of each destination row) and
// a line block of columns at a time: gathered transposed through registers into a buffer on the
// thread's stack (copy_tile_gather.hpp), while the same lines of the thread's next tile are
// prefetched, then written at once as whole destination lines (copy_line_writer.hpp), so that
// the loads of one block overlap the stores of the last. Large destinations take non-temporal
// stores at any alignment and are never read; a line that a piece only starts or ends is
// completed from the next piece of the same destination row when the thread writes it next,
// else written with ordinary stores. Dense destination rows of at most 1 KiB are gathered a
// whole tile at a time and written as one run, whole lines across the rows' ends. Small
// destinations take ordinary stores, so they stay in cache for the caller.
// Assumes: src and dst do not overlap; 64-bit index math throughout.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cpu/copy_line_writer.hpp"
#include "cpu/copy_policy.hpp"
#include "cpu/copy_tile_gather.hpp"
#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
namespace {

/// Matrices smaller than this run on one thread: starting the others costs more than they save.
constexpr std::int64_t parallel_min_bytes = std::int64_t{256} << 10;
/// Dense destination rows of at most this many bytes are written as one run per tile (whole
/// lines across the rows' ends) rather than piece by piece per row, which would leave a partial
/// line at each end of each row.
constexpr std::int64_t single_run_max_row_bytes = 1024;
/// Destination rows one tile may write (their pending tails live on the stack).
constexpr std::int64_t max_tile_cols = 512;

struct copy_geometry {
  const std::byte* src;
  std::byte* dst;
  std::int64_t rows, cols;  ///< of the source
  std::int64_t elem;        ///< element bytes
  std::int64_t src_row_bytes, dst_row_bytes;
  std::int64_t src_matrix_bytes, dst_matrix_bytes;  ///< batch strides
};

std::int64_t round_up(std::int64_t n, std::int64_t to) {
  return (n + to - 1) / to * to;
}

/// How the tiles of one copy are cut and buffered. Per-row pieces: a tile is moved `group`
/// source rows at a time (64 bytes of each destination row, one element if larger) into buffer
/// rows `row_stride` bytes apart, each a 64-byte carry area then the piece. A single run: the
/// tile spans every source row and is gathered whole, its destination rows back to back after
/// one carry area.
struct tile_shape {
  std::int64_t rows = 0, cols = 0;
  bool single_run = false;
  std::int64_t group = 0;
  std::int64_t row_stride = 0;
};

/// The policy's tile (or `edge` x `edge` elements when edge > 0) for `g`, its columns cut to
/// what the buffer holds.
tile_shape fit_tile(const copy_geometry& g, const copy_policy& p, std::int64_t edge) {
  const std::int64_t e = g.elem;
  tile_shape t;
  const std::int64_t cols = edge > 0 ? edge : std::max<std::int64_t>(1, p.src_segment_bytes / e);
  t.single_run =
      edge == 0 && g.dst_row_bytes == g.rows * e && g.rows * e <= single_run_max_row_bytes;
  if (t.single_run) {
    t.rows = g.rows;
    t.cols = std::min({cols, g.cols, (copy_tile_buffer_bytes - line_bytes) / (g.rows * e)});
    return t;
  }
  t.group = std::max<std::int64_t>(1, line_bytes / e);
  const std::int64_t rows = edge > 0 ? edge : std::max<std::int64_t>(1, p.dst_segment_bytes / e);
  t.rows = std::min(g.rows, rows < t.group ? rows : rows - rows % t.group);
  t.row_stride = line_bytes + round_up(t.group * e, line_bytes);
  t.cols = std::min({cols, g.cols, max_tile_cols, copy_tile_buffer_bytes / t.row_stride});
  if (t.cols < 1)
    throw error(status::internal_error, "copy_transpose: an element of " + std::to_string(e) +
                                            " bytes does not fit the tile buffer");
  return t;
}

/// Walks the tiles in the policy's order (matrix, then row bands across or column bands down)
/// from any one of them, one step at a time, without dividing.
struct tile_walk {
  std::int64_t b = 0, i = 0, j = 0;  ///< matrix, row band, column band
  std::int64_t row_tiles = 0, col_tiles = 0;
  bool down = false;

  void start(std::int64_t k) {
    const std::int64_t per_matrix = row_tiles * col_tiles;
    const std::int64_t in_matrix = k % per_matrix;
    b = k / per_matrix;
    i = down ? in_matrix % row_tiles : in_matrix / col_tiles;
    j = down ? in_matrix / row_tiles : in_matrix % col_tiles;
  }
  void next() {
    std::int64_t& inner = down ? i : j;
    std::int64_t& outer = down ? j : i;
    if (++inner < (down ? row_tiles : col_tiles)) return;
    inner = 0;
    if (++outer < (down ? col_tiles : row_tiles)) return;
    outer = 0;
    ++b;
  }
};

/// Every tile of every matrix, threads taking equal runs of consecutive tiles.
template <std::size_t E, bool Avx2, bool Stream>
void copy_tiles(const copy_geometry& g, std::int64_t batch, const tile_shape& t,
                const copy_policy& p, int threads) {
  const std::int64_t e = g.elem;
  const std::int64_t row_tiles = (g.rows + t.rows - 1) / t.rows;
  const std::int64_t col_tiles = (g.cols + t.cols - 1) / t.cols;
  const std::int64_t tiles = batch * row_tiles * col_tiles;
  const auto source = [&](const tile_walk& w) {
    return g.src + w.b * g.src_matrix_bytes + w.i * t.rows * g.src_row_bytes + w.j * t.cols * e;
  };
  // Every full row group lands on whole destination lines: nothing to carry.
  const bool lines_aligned = line_offset(g.dst) == 0 && g.dst_row_bytes % line_bytes == 0 &&
                             (batch == 1 || g.dst_matrix_bytes % line_bytes == 0) &&
                             (t.rows * e) % line_bytes == 0;
  const bool parallel =
      threads > 1 && tiles > 1 && batch * g.rows * g.cols * e >= parallel_min_bytes;
#pragma omp parallel num_threads(threads) if (parallel)
  {
    const std::int64_t count = omp_get_num_threads(), id = omp_get_thread_num();
    const std::int64_t end = tiles * (id + 1) / count;
    alignas(64) std::byte buffer[copy_tile_buffer_bytes];
    std::byte* const pieces = buffer + line_bytes;  // after the first carry area
    pending_tail pending[max_tile_cols];            // [0, used) initialized as they come in use
    std::int64_t used = 0;
    tile_walk here{0, 0, 0, row_tiles, col_tiles, p.order == copy_order::down};
    here.start(tiles * id / count);
    for (std::int64_t k = tiles * id / count; k < end; ++k, here.next()) {
      const std::int64_t r0 = here.i * t.rows, c0 = here.j * t.cols;
      const std::int64_t rows = std::min(t.rows, g.rows - r0);
      const std::int64_t cols = std::min(t.cols, g.cols - c0);
      const std::byte* const src = source(here);
      std::byte* const dst = g.dst + here.b * g.dst_matrix_bytes + c0 * g.dst_row_bytes + r0 * e;
      source_prefetch ahead;  // the same place in the next tile
      if (p.prefetch != copy_prefetch::none && k + 1 < end) {
        tile_walk next = here;
        next.next();
        ahead.ahead =
            reinterpret_cast<std::intptr_t>(source(next)) - reinterpret_cast<std::intptr_t>(src);
        ahead.non_temporal = p.prefetch == copy_prefetch::non_temporal;
      }
      if (t.single_run) {
        gather_block<E, Avx2>(src, g.src_row_bytes, rows, cols, pieces, rows * e, e, ahead);
        if (used == 0) pending[used++] = {};
        write_piece<Stream>(dst, pieces, cols * rows * e, pending[0]);
        continue;
      }
      for (; used < cols; ++used) pending[used] = {};
      for (std::int64_t r = 0; r < rows; r += t.group) {
        const std::int64_t group = std::min(t.group, rows - r);
        const bool whole_lines = lines_aligned && group * e == line_bytes;
        // A line block of columns at a time, written as soon as it is gathered, so that the
        // loads of the next block overlap the stores of this one.
        for (std::int64_t c = 0; c < cols; c += t.group) {
          const std::int64_t block_cols = std::min(t.group, cols - c);
          const std::byte* const from = src + r * g.src_row_bytes + c * e;
          std::byte* const piece = pieces + c * t.row_stride;
          std::byte* const to = dst + c * g.dst_row_bytes + r * e;
          if constexpr (has_register_blocks(E)) {
            if (whole_lines && block_cols == t.group) {
              // Whole lines need no carry area: a contiguous block in L1 (faster than the
              // carrying rows: AMD EPYC, one thread, 16-byte elements: 5.8 ms vs 6.2).
              alignas(64) std::byte block[line_block_edge<E>][line_bytes];
              gather_line_block<E, Avx2>(from, g.src_row_bytes, &block[0][0], line_bytes, ahead);
              for (std::int64_t q = 0; q < line_block_edge<E>; ++q)
                write_line<Stream>(to + q * g.dst_row_bytes, block[q]);
              continue;
            }
          }
          gather_block<E, Avx2>(from, g.src_row_bytes, group, block_cols, piece, t.row_stride, e,
                                ahead);
          for (std::int64_t q = 0; q < block_cols; ++q)
            write_piece<Stream>(to + q * g.dst_row_bytes, piece + q * t.row_stride, group * e,
                                pending[c + q]);
        }
      }
    }
    const std::int64_t stride = t.single_run ? 0 : t.row_stride;
    for (std::int64_t c = 0; c < used; ++c) flush_tail(pending[c], pieces + c * stride);
    if (Stream) finish_streaming();
  }
}

bool cpu_has_avx2() {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

/// Element sizes 1 to 16 each get their own instantiation (fixed-size element copies, register
/// blocks for the powers of two); every other size runs the one for size 0.
template <class Body>
void dispatch_copy_element_size(std::size_t bytes, Body&& body) {
  switch (bytes) {
#define XPOSE_COPY_SIZE(n) \
  case n:                  \
    return body(std::integral_constant<std::size_t, n>{});
    XPOSE_COPY_SIZE(1)
    XPOSE_COPY_SIZE(2)
    XPOSE_COPY_SIZE(3)
    XPOSE_COPY_SIZE(4)
    XPOSE_COPY_SIZE(5)
    XPOSE_COPY_SIZE(6)
    XPOSE_COPY_SIZE(7)
    XPOSE_COPY_SIZE(8)
    XPOSE_COPY_SIZE(9)
    XPOSE_COPY_SIZE(10)
    XPOSE_COPY_SIZE(11)
    XPOSE_COPY_SIZE(12)
    XPOSE_COPY_SIZE(13)
    XPOSE_COPY_SIZE(14)
    XPOSE_COPY_SIZE(15)
    XPOSE_COPY_SIZE(16)
#undef XPOSE_COPY_SIZE
    default:
      return body(std::integral_constant<std::size_t, 0>{});
  }
}

std::int64_t read_number(const std::string& word, std::size_t from) {
  std::size_t end = 0;
  long long value = -1;
  try {
    value = std::stoll(word.substr(from), &end);
  } catch (const std::exception&) {
    end = 0;
  }
  if (end == 0 || from + end != word.size() || value < 0)
    throw error(status::invalid_argument, "copy policy: '" + word + "' needs a number >= 0");
  return value;
}

}  // namespace

copy_policy choose_copy_policy(const stage& s, const std::byte* dst, int) {
  copy_policy p;
  const auto e = static_cast<std::int64_t>(s.super_bytes);
  const bool rows_on_lines = line_offset(dst) == 0 && (s.ldb * e) % line_bytes == 0 &&
                             (s.batch == 1 || (s.dst_batch_stride * e) % line_bytes == 0);
  // Rows that start on lines take short tiles, others long ones with fewer partial lines (H200
  // host, 16 threads: 1.17 x copy vs 1.10 for 1 KiB; 0.67 vs 0.55 for 256 bytes, fp32).
  p.dst_segment_bytes = rows_on_lines ? 256 : 1024;
  p.isa = cpu_has_avx2() ? copy_isa::avx2 : copy_isa::sse2;
  return p;
}

std::string to_string(const copy_policy& p) {
  const char* const prefetch[] = {"noprefetch", "t0", "nta"};
  return "src=" + std::to_string(p.src_segment_bytes) +
         " dst=" + std::to_string(p.dst_segment_bytes) +
         (p.order == copy_order::down ? " down " : " across ") +
         prefetch[static_cast<int>(p.prefetch)] +
         " stream=" + std::to_string(p.streaming_min_bytes >> 20) +
         (p.isa == copy_isa::avx2 ? " avx2" : " sse2");
}

copy_policy parse_copy_policy(const std::string& text, const copy_policy& defaults) {
  copy_policy p = defaults;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find_first_of(" ,", begin), text.size());
    const std::string word = text.substr(begin, end - begin);
    begin = end + 1;
    if (word.empty()) continue;
    if (word == "sse2" || word == "avx2") {
      p.isa = word == "avx2" ? copy_isa::avx2 : copy_isa::sse2;
      continue;
    }
    if (word == "down" || word == "across") {
      p.order = word == "down" ? copy_order::down : copy_order::across;
      continue;
    }
    if (word == "noprefetch" || word == "t0" || word == "nta") {
      p.prefetch = word == "t0"    ? copy_prefetch::temporal
                   : word == "nta" ? copy_prefetch::non_temporal
                                   : copy_prefetch::none;
      continue;
    }
    const std::size_t equals = word.find('=');
    const std::string key = word.substr(0, equals);
    if (equals == std::string::npos)
      throw error(status::invalid_argument, "copy policy: unknown word '" + word + "'");
    const std::int64_t value = read_number(word, equals + 1);
    if (key == "src" || key == "dst") {
      if (value < 1)
        throw error(status::invalid_argument, "copy policy: '" + word + "' needs bytes >= 1");
      (key == "src" ? p.src_segment_bytes : p.dst_segment_bytes) = value;
    } else if (key == "stream") {
      if (value > (std::numeric_limits<std::int64_t>::max() >> 20))
        throw error(status::invalid_argument, "copy policy: '" + word + "' is too large");
      p.streaming_min_bytes = value << 20;
    } else {
      throw error(status::invalid_argument, "copy policy: unknown word '" + word + "'");
    }
  }
  return p;
}

void copy_transpose_with_policy(const std::byte* src, std::byte* dst, const stage& s,
                                const copy_policy& p, int threads) {
  if (s.batch <= 0 || s.rows <= 0 || s.cols <= 0) return;
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
  threads = std::max(threads, 1);
  const tile_shape t = fit_tile(g, p, s.tile);
  const bool streaming = s.batch * g.cols * g.dst_row_bytes >= p.streaming_min_bytes;
  const bool avx2 = p.isa == copy_isa::avx2 && cpu_has_avx2();
  dispatch_copy_element_size(s.super_bytes, [&](auto size) {
    constexpr std::size_t size_bytes = decltype(size)::value;
    const auto run = [&](auto use_avx2) {
      if (streaming)
        copy_tiles<size_bytes, decltype(use_avx2)::value, true>(g, s.batch, t, p, threads);
      else
        copy_tiles<size_bytes, decltype(use_avx2)::value, false>(g, s.batch, t, p, threads);
    };
    if constexpr (has_register_blocks(size_bytes) && size_bytes < 16)
      if (avx2) return run(std::true_type{});
    run(std::false_type{});
  });
}

void copy_transpose(const std::byte* src, std::byte* dst, const stage& s, int threads) {
  copy_transpose_with_policy(src, dst, s, choose_copy_policy(s, dst, threads), threads);
}

}  // namespace xpose::detail::cpu
