// Runs a plan's stages in order on each matrix of the batch, with the plan's workspace.
#include "cpu/cpu_executor.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {

namespace {

bool is_skinny_remainder(stage_kind k) {
  return k == stage_kind::skinny_remainder_split || k == stage_kind::skinny_remainder_place ||
         k == stage_kind::skinny_remainder_take || k == stage_kind::skinny_remainder_spread;
}

/// The phases of the row/column decomposition are every kind not named otherwise.
bool is_row_column(stage_kind k) {
  return k != stage_kind::tiled_transpose && k != stage_kind::square_swap &&
         k != stage_kind::copy_transpose && !is_skinny_remainder(k);
}

constexpr std::size_t held_align = 64;

std::size_t aligned(std::size_t bytes) {
  return (bytes + held_align - 1) / held_align * held_align;
}

/// Whether stage i runs alone through tiled_transpose (not as the first of a fused pair).
bool runs_tiled_alone(const std::vector<stage>& stages, std::size_t i) {
  return stages[i].kind == stage_kind::tiled_transpose &&
         !(stages[i].fused_with_next && i + 1 < stages.size());
}

/// Where each stage's work list (build_tiled_transpose_table, made when the plan is) starts in
/// the workspace, and its bytes (0: none); they follow the skinny_chunks remainder block.
std::vector<std::pair<std::size_t, std::size_t>> tables(const plan_data& plan, std::size_t after) {
  std::vector<std::pair<std::size_t, std::size_t>> at(plan.stages.size(), {after, 0});
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    const std::size_t bytes =
        runs_tiled_alone(plan.stages, i)
            ? aligned(tiled_transpose_table_bytes(plan.stages[i], plan.threads))
            : 0;
    at[i] = {after, bytes};
    after += bytes;
  }
  return at;
}

/// Workspace bytes kept from one stage to a later one (the skinny_chunks remainder block).
std::size_t remainder_bytes(const plan_data& plan) {
  std::size_t bytes = 0;
  for (const stage& s : plan.stages)
    if (is_skinny_remainder(s.kind))
      bytes = std::max(bytes, aligned(skinny_remainder_held_bytes(s)));
  return bytes;
}

/// Workspace bytes held for the plan's lifetime or from one stage to another: the remainder
/// block, then the stages' work lists. They come first in the workspace, the stages' own
/// scratch after them.
std::size_t held_bytes(const plan_data& plan) {
  std::size_t bytes = remainder_bytes(plan);
  for (const auto& [offset, table] : tables(plan, bytes)) bytes += table;
  return bytes;
}

}  // namespace

std::size_t workspace_bytes(const plan_data& plan) {
  std::size_t bytes = 0;
  const auto& stages = plan.stages;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const stage& s = stages[i];
    std::size_t need = 0;
    if (s.kind == stage_kind::tiled_transpose) {
      need = s.fused_with_next && i + 1 < stages.size()
                 ? tiled_transpose_fused_workspace(s, stages[i + 1], plan.threads)
                 : tiled_transpose_workspace(s, plan.threads);
    } else if (is_skinny_remainder(s.kind)) {
      need = skinny_remainder_scratch_bytes(s, plan.threads);
    } else if (is_row_column(s.kind)) {
      need = row_column_workspace(s, plan.threads);
      // A stage-by-stage run takes the pre-rotation alone: room for both.
      const std::int64_t bands =
          i + 1 < stages.size() ? row_column_fused_bands(s, stages[i + 1], plan.threads) : 0;
      if (bands > 0)
        need = std::max(need, row_column_fused_workspace(stages[i + 1], plan.threads, bands));
    }
    bytes = std::max(bytes, need);
  }
  return held_bytes(plan) + bytes;
}

void prepare_workspace(plan_data& plan) {
  auto* held = static_cast<std::byte*>(plan.workspace.get());
  const auto at = tables(plan, remainder_bytes(plan));
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    if (at[i].second == 0) continue;
    build_tiled_transpose_table(plan.stages[i], plan.threads, held + at[i].first);
    plan.stages[i].table_offset = at[i].first;
    plan.stages[i].table_bytes = at[i].second;
  }
}

void execute_inplace(const plan_data& plan, void* data, std::size_t first, std::size_t last) {
  auto* held = static_cast<std::byte*>(plan.workspace.get());
  std::byte* workspace = held + held_bytes(plan);
  const auto& stages = plan.stages;
  const std::size_t matrix_stride =
      static_cast<std::size_t>(plan.batch_stride) * plan.desc.elem_size;
  for (std::int64_t b = 0; b < plan.desc.batch; ++b) {
    std::byte* matrix = static_cast<std::byte*>(data) + b * matrix_stride;
    const std::size_t end = std::min(last, stages.size());
    for (std::size_t i = first; i < end; ++i) {
      const stage& s = stages[i];
      if (s.kind == stage_kind::tiled_transpose) {
        if (s.fused_with_next && i + 1 < end) {
          tiled_transpose_fused(matrix, s, stages[i + 1], workspace, plan.threads);
          ++i;
        } else {
          const std::byte* table = s.table_bytes > 0 ? held + s.table_offset : nullptr;
          tiled_transpose(matrix, s, workspace, plan.threads, table);
        }
      } else if (s.kind == stage_kind::square_swap) {
        // One square, or s.batch square blocks one after another: blocks too small to share
        // among the threads go one to a thread.
        stage block = s;
        block.batch = 1;
        const std::int64_t blocks = std::max<std::int64_t>(s.batch, 1);
        const std::int64_t block_bytes = s.rows * s.lda * static_cast<std::int64_t>(s.super_bytes);
        const bool one_per_thread =
            blocks > 1 && plan.threads > 1 && block_bytes < square_parallel_min_bytes;
        if (one_per_thread) {
#pragma omp parallel for num_threads(plan.threads) schedule(static)
          for (std::int64_t j = 0; j < blocks; ++j) square_swap(matrix + j * block_bytes, block, 1);
        } else {
          // Not inside an inactive parallel region: nested in one, the swap's own team stays
          // on one place under OMP_PROC_BIND=close (4 blocks of 1800^2 fp32 at 16 threads of
          // the H200 host: 13.9 ms against 1.0).
          for (std::int64_t j = 0; j < blocks; ++j)
            square_swap(matrix + j * block_bytes, block, plan.threads);
        }
      } else if (is_skinny_remainder(s.kind)) {
        skinny_remainder(matrix, s, held, workspace, plan.threads);
      } else if (is_row_column(s.kind)) {
        // A pre-rotation and the row shuffle after it run as one pass where they fuse.
        const std::int64_t bands =
            i + 1 < end ? row_column_fused_bands(s, stages[i + 1], plan.threads) : 0;
        if (bands > 0) {
          row_column_fused_phases(matrix, s, stages[i + 1], workspace, plan.threads, bands);
          ++i;
        } else {
          row_column_phase(matrix, s, workspace, plan.threads);
        }
      } else {
        throw error(status::internal_error, "in-place plan holds a stage of kind copy_transpose");
      }
    }
  }
}

void execute_copy(const plan_data& plan, const void* src, void* dst) {
  for (const stage& s : plan.stages) {
    if (s.kind != stage_kind::copy_transpose)
      throw error(status::internal_error, "out-of-place plan holds an in-place stage");
    copy_transpose(static_cast<const std::byte*>(src), static_cast<std::byte*>(dst), s,
                   plan.threads);
  }
}

}  // namespace xpose::detail::cpu
