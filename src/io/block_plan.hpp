// Blocked in-place transposition for data that does not fit in memory (a file larger than RAM):
// the transposition as phases of independent steps, each step a permutation of a bounded set of
// bytes (read into memory, permuted, written back to the same places). A step never reads what
// another step of its phase writes, so a step can be redone from a saved copy of its result
// (the journal, io/journal.hpp) and the phases run with memory bounded by the step size.
//
// The M x N row-major matrix of e-byte elements, viewed as (M', m, N', n), transposes along one
// of these routes:
//   whole          the matrix fits one step: read, transpose, write back.
//   row_column     Catanzaro, Keller, Garland (PPoPP'14), plan/row_column.hpp: its phases move
//                  whole rows (row shuffle) or whole columns (pre-rotation, column shuffle), so a
//                  step is a block of rows, or a block of columns read as one segment per row.
//   rows_first     the 3-stage route's two-pass form, mirrored (PPoPP'14 sec. 4.2): M' slabs of
//                  m x N (contiguous) transposed one by one (010), then the M' x N matrix of
//                  m*e-byte super-elements transposed by the row/column decomposition (100).
//   columns_first  100 first on the M x N' matrix of n*e-byte super-elements (row/column
//                  decomposition), then N' slabs of M x n (contiguous) transposed (010).
// Wide super-elements make the column steps read long segments (m*e or n*e bytes and more)
// instead of single elements, which is what keeps the disk traffic near one read and one write
// per phase when the file does not fit in the page cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace xpose::detail::io {

enum class block_route : std::uint32_t {
  identity = 0,  ///< one row or one column: the bytes do not move
  whole = 1,
  row_column = 2,
  rows_first = 3,
  columns_first = 4,
};

enum class block_phase_kind : std::uint32_t {
  slabs,           ///< `count` contiguous rows x cols matrices of unit_bytes each, transposed
  pre_rotate,      ///< row/column decomposition of rows x cols units: phase 1 (column blocks)
  row_shuffle,     ///< phase 2 (row blocks)
  column_shuffle,  ///< phase 3 (column blocks)
};

struct block_phase {
  block_phase_kind kind = block_phase_kind::slabs;
  std::int64_t rows = 0, cols = 0;  ///< one slab, or the decomposed matrix
  std::int64_t count = 1;           ///< slabs only: how many
  std::uint64_t unit_bytes = 0;     ///< element (slabs) or super-element (decomposition) bytes
  std::int64_t per_step = 0;        ///< slabs, rows or columns per step
  std::int64_t steps = 0;
};

/// A contiguous run of bytes, at `offset` from the start of the matrix's data.
struct byte_run {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

struct block_plan {
  block_route route = block_route::identity;
  std::int64_t rows = 0, cols = 0;
  std::uint64_t elem_size = 0;
  std::int64_t factor = 0;  ///< m (rows_first) or n (columns_first); 0 for the others
  std::uint64_t step_bytes = 0;
  std::vector<block_phase> phases;
  std::int64_t total_steps = 0;
  /// Predicted bytes of disk traffic (reads, writes, the journal's copy, a per-segment cost).
  double predicted_traffic = 0;

  /// The route, phases, steps and memory, for the command line's report.
  std::string describe() const;
  /// The bytes of the largest step (each step reads them into one buffer and permutes them into
  /// another of the same size).
  std::uint64_t largest_step_bytes() const;
};

/// Bytes that must fit in one step for some route to apply: max(rows, cols) * elem_size (a row
/// of the matrix, or a column).
std::uint64_t min_step_bytes(std::int64_t rows, std::int64_t cols, std::uint64_t elem_size);

/// The plan of route `route` (with its factor) for steps of at most `step_bytes`; throws
/// xpose::error{unsupported} when it does not apply (a factor that does not divide, a row or
/// column larger than a step). Deterministic: the journal records (route, factor, step_bytes)
/// and an interrupted run is resumed with the same plan.
block_plan make_block_plan(std::int64_t rows, std::int64_t cols, std::uint64_t elem_size,
                           std::uint64_t step_bytes, block_route route, std::int64_t factor,
                           bool journal);

/// The route with the least predicted traffic for steps of at most `step_bytes`; throws
/// xpose::error{unsupported} naming min_step_bytes when none applies.
block_plan choose_block_plan(std::int64_t rows, std::int64_t cols, std::uint64_t elem_size,
                             std::uint64_t step_bytes, bool journal);

/// Phase and step within it of global step `step` (0 <= step < plan.total_steps).
std::pair<std::size_t, std::int64_t> locate_step(const block_plan& plan, std::int64_t step);

/// The byte runs of step `step` of phase `phase`, in the order the step's buffer holds them;
/// returns the step's total bytes.
std::uint64_t step_runs(const block_phase& phase, std::int64_t step, std::vector<byte_run>& runs);

/// Permutes the step's bytes `in` (as step_runs lays them out) into `out` (same layout) with
/// `threads` OpenMP threads.
void permute_step(const block_phase& phase, std::int64_t step, const std::byte* in, std::byte* out,
                  int threads);

const char* to_string(block_route route);

}  // namespace xpose::detail::io
