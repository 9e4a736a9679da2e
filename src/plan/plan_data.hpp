// The plan as data: a backend-free list of stages. Built by the planner (planner.cpp), printed by
// describe(), executed by a backend (src/cpu, src/cuda) which must follow it exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "xpose/plan.hpp"

namespace xpose::detail {

enum class stage_kind {
  /// Elementary tiled transposition (PPoPP'14 sec. 4): `batch` independent instances, each a
  /// rows x cols matrix of super-elements of `super_bytes` bytes, transposed in place to
  /// cols x rows. Instance k starts at byte k * rows * cols * super_bytes. Every elementary
  /// transposition of the paper is one of these: 100 = (1, A, B, C·e), 010 = (A, B, C, e),
  /// 1000 = (1, A, B, C·D·e), 0100 = (A, B, C, D·e), 0010 = (A·B, C, D, e).
  tiled_transpose,
  /// Square in place: an n x n matrix (rows == cols == n) of super_bytes-byte elements, rows
  /// `lda` elements apart, or with `batch` > 1 that many of them one after another within each
  /// matrix of the plan (n * lda elements apart: the 3-stage route's square blocks); `variant`
  /// picks the algorithm (square_* routes), `tile` its block.
  square_swap,
  /// Catanzaro-Keller-Garland decomposition of one rows x cols row-major matrix (rows = m,
  /// cols = n, super_bytes = element bytes, tile = width of the column blocks that phases 1
  /// and 3 move together), phases in this order:
  row_column_pre_rotate,      ///< gcd(m,n) > 1 only: column j rotated down by floor(j / (n/c))
  row_column_row_shuffle,     ///< each row permuted independently (scatter through a row buffer)
  row_column_column_shuffle,  ///< column j rotated up by j mod m, then whole rows permuted
  /// Out of place: rows x cols (lda) -> cols x rows (ldb), `batch` matrices.
  copy_transpose,
  /// Remainder steps of the skinny_chunks route (plan/skinny_route.hpp). In all four, rows = the
  /// short dimension m, cols = the long one n, tile = the chunk width w, super_bytes = element
  /// bytes; q = n / w, r = n mod w. The r x m remainder block is held in the workspace from the
  /// first step to the second (cpu::skinny_remainder_held_bytes).
  skinny_remainder_split,   ///< wide m x n: columns [q*w, n) to workspace transposed, rows closed
  skinny_remainder_place,   ///< wide: the r x m block from workspace to the last r*m elements
  skinny_remainder_take,    ///< tall n x m: the last r rows to workspace as they are
  skinny_remainder_spread,  ///< tall: rows of q*w opened to n, columns [q*w, n) from workspace
};

enum class tiled_method {
  in_cache,         ///< each instance fits the per-thread scratch: gather transposed, copy back
  cycle_following,  ///< instances too large for scratch: follow cycles with one bit per
                    ///< super-element
};

struct stage {
  stage_kind kind = stage_kind::tiled_transpose;
  std::string label;  ///< factorial name ("100", "0010", ...) or phase name, for describe()
  std::int64_t batch = 1;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::size_t super_bytes = 0;
  tiled_method method = tiled_method::cycle_following;
  route variant = route::automatic;  ///< square_* or copy_* variant for those kinds
  std::int64_t tile = 0;             ///< square tile / copy block edge, in elements (0 = default)
  std::int64_t lda = 0, ldb = 0;     ///< copy_transpose / square_swap leading dims (elements)
  std::int64_t src_batch_stride = 0, dst_batch_stride = 0;  ///< in elements
  std::size_t workspace_bytes = 0;  ///< scratch this stage needs (all threads together)
  double passes = 1.0;              ///< predicted passes over the matrix for this stage
  /// tiled_transpose only: run this stage and the next one slab by slab (each instance of the
  /// next stage covers a whole number of this stage's instances), so that a slab is transposed
  /// while it is in cache: the 0010 + 0100 pair of the 3-stage route costs one pass over DRAM.
  bool fused_with_next = false;
  /// Where this stage's table starts in the plan's workspace: data a backend makes once at plan
  /// time and keeps between runs (the CUDA chains' cycle tables, the CPU cycles' work lists).
  std::size_t table_offset = 0;
  /// The CPU's table bytes at table_offset, set when the table is made (0: none made; the stage
  /// then runs without one).
  std::size_t table_bytes = 0;
};

struct plan_data {
  matrix_desc desc;  ///< as given by the caller, normalized to row-major
  bool in_place = true;
  route chosen = route::automatic;
  plan_options options;
  int threads = 1;                  ///< resolved CPU thread count
  std::int64_t rows = 0, cols = 0;  ///< row-major view after normalizing the storage order
  std::int64_t ld = 0, dst_ld = 0, batch_stride = 0, dst_batch_stride = 0;  ///< in elements
  std::vector<stage> stages;  ///< applied, in order, to each matrix of the batch
  std::size_t workspace_bytes = 0;
  /// Where the scratch that every stage may overwrite starts in the workspace (after the tables).
  std::size_t scratch_offset = 0;
  double predicted_passes = 0;
  /// What describe() adds about the planner's choice (fewer threads than asked, a route slower
  /// than the fastest one because of the workspace budget).
  std::vector<std::string> notes;
  /// Workspace allocated at plan time (host or device memory, per options.target).
  std::shared_ptr<void> workspace;
  /// GPU in-place plans made by plan_inplace_sharing_scratch: the scratch is the caller's, at
  /// *caller_scratch when the plan runs (scratch_bytes of it); `workspace` holds the tables only.
  std::shared_ptr<void*> caller_scratch;
  std::size_t scratch_bytes = 0;
  /// Serializes execute() calls on one plan (and its copies): they share the workspace.
  std::shared_ptr<std::mutex> execute_lock = std::make_shared<std::mutex>();
};

}  // namespace xpose::detail
