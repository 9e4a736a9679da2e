#include "io/block_plan.hpp"
#include "plan/bytes_text.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

#include "plan/row_column.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail::io {

namespace {

/// Reads smaller than a page cost a whole page; each run costs about this much besides its bytes
/// (a system call and, on a disk, a seek).
constexpr double page_bytes = 4096;
constexpr double run_overhead_bytes = 16384;

std::uint64_t multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    throw error(status::invalid_argument, "the matrix's size in bytes overflows");
  return a * b;
}

std::vector<std::int64_t> divisors(std::int64_t x) {
  std::vector<std::int64_t> small, large;
  for (std::int64_t d = 1; d * d <= x; ++d) {
    if (x % d) continue;
    small.push_back(d);
    if (d != x / d) large.push_back(x / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

block_phase slab_phase(std::int64_t count, std::int64_t rows, std::int64_t cols, std::uint64_t unit,
                       std::uint64_t step_bytes) {
  block_phase p;
  p.kind = block_phase_kind::slabs;
  p.count = count;
  p.rows = rows;
  p.cols = cols;
  p.unit_bytes = unit;
  const std::uint64_t slab = multiply(multiply(rows, cols), unit);
  p.per_step = static_cast<std::int64_t>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(count), step_bytes / slab));
  p.steps = ceil_div(count, p.per_step);
  return p;
}

/// The decomposition's phases for a rows x cols matrix of `unit`-byte super-elements (none when
/// a side is 1).
void add_row_column_phases(std::vector<block_phase>& phases, std::int64_t rows, std::int64_t cols,
                           std::uint64_t unit, std::uint64_t step_bytes) {
  if (rows < 2 || cols < 2) return;
  const row_column_math math(rows, cols);
  block_phase p;
  p.rows = rows;
  p.cols = cols;
  p.unit_bytes = unit;
  const std::uint64_t column_bytes = multiply(rows, unit);
  p.per_step = static_cast<std::int64_t>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(cols), step_bytes / column_bytes));
  p.steps = ceil_div(cols, p.per_step);
  if (math.c() > 1) {
    p.kind = block_phase_kind::pre_rotate;
    phases.push_back(p);
  }
  block_phase r = p;
  r.kind = block_phase_kind::row_shuffle;
  r.per_step = static_cast<std::int64_t>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(rows), step_bytes / multiply(cols, unit)));
  r.steps = ceil_div(rows, r.per_step);
  phases.push_back(r);
  p.kind = block_phase_kind::column_shuffle;
  phases.push_back(p);
}

bool is_column_phase(block_phase_kind k) {
  return k == block_phase_kind::pre_rotate || k == block_phase_kind::column_shuffle;
}

double phase_traffic(const block_phase& p, bool journal) {
  const double total = static_cast<double>(p.rows) * static_cast<double>(p.cols) *
                       static_cast<double>(p.unit_bytes) * static_cast<double>(p.count);
  double traffic = journal ? total : 0.0;  // the journal's copy of every step
  if (is_column_phase(p.kind) && p.per_step < p.cols) {
    // One run per row and step, read and written.
    const double run = static_cast<double>(p.per_step) * static_cast<double>(p.unit_bytes);
    const double runs = static_cast<double>(p.rows) * static_cast<double>(p.steps);
    traffic += runs * (2 * std::max(run, page_bytes) + run_overhead_bytes);
  } else {
    traffic += 2 * total + static_cast<double>(p.steps) * run_overhead_bytes;
  }
  return traffic;
}

const char* phase_text(block_phase_kind k) {
  switch (k) {
    case block_phase_kind::slabs:
      return "slabs";
    case block_phase_kind::pre_rotate:
      return "pre-rotation";
    case block_phase_kind::row_shuffle:
      return "row shuffle";
    case block_phase_kind::column_shuffle:
      return "column shuffle";
  }
  return "?";
}

// --- the permutations of one step, in memory -----------------------------------------------

template <std::size_t S>
inline void copy_unit(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if constexpr (S != 0) {
    std::memcpy(dst, src, S);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

/// Slabs: each rows x cols matrix of `in` transposed into `out`, tile by tile.
template <std::size_t S>
void transpose_slabs(const block_phase& p, std::int64_t slabs, const std::byte* in, std::byte* out,
                     int threads) {
  constexpr std::int64_t tile = 32;
  const std::size_t u = S != 0 ? S : p.unit_bytes;
  const std::int64_t rows = p.rows, cols = p.cols;
  const std::size_t slab_bytes = static_cast<std::size_t>(rows * cols) * u;
  const std::int64_t row_tiles = ceil_div(rows, tile), col_tiles = ceil_div(cols, tile);
#pragma omp parallel for collapse(3) schedule(static) num_threads(threads)
  for (std::int64_t b = 0; b < slabs; ++b)
    for (std::int64_t ti = 0; ti < row_tiles; ++ti)
      for (std::int64_t tj = 0; tj < col_tiles; ++tj) {
        const std::byte* src = in + b * slab_bytes;
        std::byte* dst = out + b * slab_bytes;
        const std::int64_t i_end = std::min(rows, (ti + 1) * tile);
        const std::int64_t j_end = std::min(cols, (tj + 1) * tile);
        for (std::int64_t i = ti * tile; i < i_end; ++i)
          for (std::int64_t j = tj * tile; j < j_end; ++j)
            copy_unit<S>(dst + static_cast<std::size_t>(j * rows + i) * u,
                         src + static_cast<std::size_t>(i * cols + j) * u, u);
      }
}

/// Row shuffle of rows [first, first + count) of the decomposed matrix.
template <std::size_t S>
void row_shuffle(const block_phase& p, std::int64_t first, std::int64_t count, const std::byte* in,
                 std::byte* out, int threads) {
  const row_column_math math(p.rows, p.cols);
  const std::size_t u = S != 0 ? S : p.unit_bytes;
  const std::int64_t cols = p.cols;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (std::int64_t r = 0; r < count; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t to = math.row_shuffle_destination(first + r, j);
      copy_unit<S>(out + static_cast<std::size_t>(r * cols + to) * u,
                   in + static_cast<std::size_t>(r * cols + j) * u, u);
    }
}

/// Pre-rotation or column shuffle of columns [first, first + width): `in` and `out` hold them as
/// a rows x width matrix.
template <std::size_t S>
void column_gather(const block_phase& p, std::int64_t first, std::int64_t width,
                   const std::byte* in, std::byte* out, int threads) {
  const row_column_math math(p.rows, p.cols);
  const std::size_t u = S != 0 ? S : p.unit_bytes;
  const bool pre = p.kind == block_phase_kind::pre_rotate;
  const std::int64_t rows = p.rows;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < width; ++k) {
      const std::int64_t j = first + k;
      const std::int64_t from =
          pre ? math.pre_rotation_source(r, j) : math.column_shuffle_source(r, j);
      copy_unit<S>(out + static_cast<std::size_t>(r * width + k) * u,
                   in + static_cast<std::size_t>(from * width + k) * u, u);
    }
}

template <std::size_t S>
void permute(const block_phase& p, std::int64_t step, const std::byte* in, std::byte* out,
             int threads) {
  const std::int64_t first = step * p.per_step;
  switch (p.kind) {
    case block_phase_kind::slabs:
      transpose_slabs<S>(p, std::min(p.per_step, p.count - first), in, out, threads);
      return;
    case block_phase_kind::row_shuffle:
      row_shuffle<S>(p, first, std::min(p.per_step, p.rows - first), in, out, threads);
      return;
    case block_phase_kind::pre_rotate:
    case block_phase_kind::column_shuffle:
      column_gather<S>(p, first, std::min(p.per_step, p.cols - first), in, out, threads);
      return;
  }
}

}  // namespace

const char* to_string(block_route route) {
  switch (route) {
    case block_route::identity:
      return "identity";
    case block_route::whole:
      return "whole";
    case block_route::row_column:
      return "row_column";
    case block_route::rows_first:
      return "rows_first";
    case block_route::columns_first:
      return "columns_first";
  }
  return "?";
}

std::uint64_t min_step_bytes(std::int64_t rows, std::int64_t cols, std::uint64_t elem_size) {
  return multiply(static_cast<std::uint64_t>(std::max(rows, cols)), elem_size);
}

block_plan make_block_plan(std::int64_t rows, std::int64_t cols, std::uint64_t elem_size,
                           std::uint64_t step_bytes, block_route route, std::int64_t factor,
                           bool journal) {
  if (rows < 1 || cols < 1 || elem_size < 1)
    throw error(status::invalid_argument, "a blocked plan needs rows, cols and elem_size >= 1");
  block_plan plan;
  plan.route = route;
  plan.rows = rows;
  plan.cols = cols;
  plan.elem_size = elem_size;
  plan.factor = factor;
  plan.step_bytes = step_bytes;
  const std::uint64_t matrix = multiply(multiply(rows, cols), elem_size);
  const auto refuse = [&](const std::string& why) {
    throw error(status::unsupported, std::string("blocked route ") + to_string(route) + " " + why);
  };
  const bool vector = rows == 1 || cols == 1;
  if (vector != (route == block_route::identity))
    refuse(vector ? "does not apply to a single row or column" : "applies only to a vector");
  switch (route) {
    case block_route::identity:
      break;
    case block_route::whole:
      if (matrix > step_bytes) refuse("needs the matrix within one step");
      plan.phases.push_back(slab_phase(1, rows, cols, elem_size, step_bytes));
      break;
    case block_route::row_column:
      if (min_step_bytes(rows, cols, elem_size) > step_bytes)
        refuse("needs a row and a column within one step");
      add_row_column_phases(plan.phases, rows, cols, elem_size, step_bytes);
      break;
    case block_route::rows_first: {
      const std::int64_t m = factor;
      if (m < 2 || m >= rows || rows % m != 0) refuse("needs a factor m of the rows, 1 < m < rows");
      const std::uint64_t slab = multiply(multiply(m, cols), elem_size);
      if (slab > step_bytes || multiply(rows, elem_size) > step_bytes)
        refuse("needs a slab of m rows and a column within one step");
      plan.phases.push_back(slab_phase(rows / m, m, cols, elem_size, step_bytes));
      add_row_column_phases(plan.phases, rows / m, cols, m * elem_size, step_bytes);
      break;
    }
    case block_route::columns_first: {
      const std::int64_t n = factor;
      if (n < 2 || n >= cols || cols % n != 0) refuse("needs a factor n of the cols, 1 < n < cols");
      const std::uint64_t slab = multiply(multiply(rows, n), elem_size);
      if (slab > step_bytes || multiply(cols, elem_size) > step_bytes)
        refuse("needs a slab of n columns and a row within one step");
      add_row_column_phases(plan.phases, rows, cols / n, n * elem_size, step_bytes);
      plan.phases.push_back(slab_phase(cols / n, rows, n, elem_size, step_bytes));
      break;
    }
    default:
      refuse("is unknown");
  }
  for (const block_phase& p : plan.phases) {
    plan.total_steps += p.steps;
    plan.predicted_traffic += phase_traffic(p, journal);
  }
  return plan;
}

block_plan choose_block_plan(std::int64_t rows, std::int64_t cols, std::uint64_t elem_size,
                             std::uint64_t step_bytes, bool journal) {
  if (rows == 1 || cols == 1)
    return make_block_plan(rows, cols, elem_size, step_bytes, block_route::identity, 0, journal);
  const std::uint64_t matrix = multiply(multiply(rows, cols), elem_size);
  if (matrix <= step_bytes)
    return make_block_plan(rows, cols, elem_size, step_bytes, block_route::whole, 0, journal);
  const std::uint64_t needed = min_step_bytes(rows, cols, elem_size);
  if (needed > step_bytes)
    throw error(status::unsupported,
                "a row and a column of the " + std::to_string(rows) + " x " + std::to_string(cols) +
                    " matrix (" + std::to_string(needed) +
                    " bytes) must fit in one step of the blocked transposition, which has " +
                    std::to_string(step_bytes) + " bytes: give it more memory (at least " +
                    std::to_string(2 * needed) + " bytes, two steps' buffers)");
  block_plan best =
      make_block_plan(rows, cols, elem_size, step_bytes, block_route::row_column, 0, journal);
  const auto consider = [&](block_route route, std::int64_t factor) {
    try {
      block_plan candidate =
          make_block_plan(rows, cols, elem_size, step_bytes, route, factor, journal);
      if (candidate.predicted_traffic < best.predicted_traffic) best = std::move(candidate);
    } catch (const error&) {
      // This factor leaves a slab larger than a step.
    }
  };
  for (std::int64_t m : divisors(rows))
    if (m > 1 && m < rows && multiply(multiply(m, cols), elem_size) <= step_bytes)
      consider(block_route::rows_first, m);
  for (std::int64_t n : divisors(cols))
    if (n > 1 && n < cols && multiply(multiply(rows, n), elem_size) <= step_bytes)
      consider(block_route::columns_first, n);
  return best;
}

std::uint64_t block_plan::largest_step_bytes() const {
  std::uint64_t largest = 0;
  std::vector<byte_run> runs;
  for (const block_phase& p : phases) largest = std::max(largest, step_runs(p, 0, runs));
  return largest;
}

std::string block_plan::describe() const {
  std::ostringstream out;
  out << "blocked route " << to_string(route);
  if (route == block_route::rows_first) out << " (m = " << factor << ")";
  if (route == block_route::columns_first) out << " (n = " << factor << ")";
  out << ": " << phases.size() << " phase" << (phases.size() == 1 ? "" : "s") << ", " << total_steps
      << " step" << (total_steps == 1 ? "" : "s") << " of at most "
      << bytes_text(static_cast<double>(largest_step_bytes())) << "\n";
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const block_phase& p = phases[i];
    out << "  phase " << i + 1 << ": " << phase_text(p.kind) << " — ";
    if (p.kind == block_phase_kind::slabs) {
      out << p.count << " slab" << (p.count == 1 ? "" : "s") << " of " << p.rows << " x " << p.cols
          << " (" << p.unit_bytes << "-byte elements), " << p.per_step << " per step";
    } else {
      const bool rows = p.kind == block_phase_kind::row_shuffle;
      out << p.rows << " x " << p.cols << " of " << p.unit_bytes << "-byte units, " << p.per_step
          << (rows ? " row" : " column") << (p.per_step == 1 ? "" : "s") << " per step";
    }
    out << ", " << p.steps << " step" << (p.steps == 1 ? "" : "s") << "\n";
  }
  return out.str();
}

std::pair<std::size_t, std::int64_t> locate_step(const block_plan& plan, std::int64_t step) {
  for (std::size_t i = 0; i < plan.phases.size(); ++i) {
    if (step < plan.phases[i].steps) return {i, step};
    step -= plan.phases[i].steps;
  }
  throw error(status::internal_error, "step past the end of the blocked plan");
}

std::uint64_t step_runs(const block_phase& p, std::int64_t step, std::vector<byte_run>& runs) {
  runs.clear();
  const std::uint64_t u = p.unit_bytes;
  const std::int64_t first = step * p.per_step;
  switch (p.kind) {
    case block_phase_kind::slabs: {
      const std::uint64_t slab = static_cast<std::uint64_t>(p.rows * p.cols) * u;
      const std::int64_t count = std::min(p.per_step, p.count - first);
      runs.push_back(
          {static_cast<std::uint64_t>(first) * slab, static_cast<std::uint64_t>(count) * slab});
      break;
    }
    case block_phase_kind::row_shuffle: {
      const std::uint64_t row = static_cast<std::uint64_t>(p.cols) * u;
      const std::int64_t count = std::min(p.per_step, p.rows - first);
      runs.push_back(
          {static_cast<std::uint64_t>(first) * row, static_cast<std::uint64_t>(count) * row});
      break;
    }
    case block_phase_kind::pre_rotate:
    case block_phase_kind::column_shuffle: {
      const std::int64_t width = std::min(p.per_step, p.cols - first);
      const std::uint64_t row = static_cast<std::uint64_t>(p.cols) * u;
      if (width == p.cols) {
        runs.push_back({0, static_cast<std::uint64_t>(p.rows) * row});
        break;
      }
      runs.reserve(static_cast<std::size_t>(p.rows));
      for (std::int64_t r = 0; r < p.rows; ++r)
        runs.push_back({static_cast<std::uint64_t>(r) * row + static_cast<std::uint64_t>(first) * u,
                        static_cast<std::uint64_t>(width) * u});
      break;
    }
  }
  std::uint64_t total = 0;
  for (const byte_run& r : runs) total += r.bytes;
  return total;
}

void permute_step(const block_phase& p, std::int64_t step, const std::byte* in, std::byte* out,
                  int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  switch (p.unit_bytes) {
    case 1:
      return permute<1>(p, step, in, out, threads);
    case 2:
      return permute<2>(p, step, in, out, threads);
    case 4:
      return permute<4>(p, step, in, out, threads);
    case 8:
      return permute<8>(p, step, in, out, threads);
    case 16:
      return permute<16>(p, step, in, out, threads);
    default:
      return permute<0>(p, step, in, out, threads);
  }
}

}  // namespace xpose::detail::io
