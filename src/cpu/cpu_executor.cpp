#include "cpu/cpu_executor.hpp"

#include <algorithm>

#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {

namespace {

/// The phases of the row/column decomposition are every kind not named otherwise.
bool is_row_column(stage_kind k) {
  return k != stage_kind::tiled_transpose && k != stage_kind::square_swap &&
         k != stage_kind::copy_transpose;
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
    } else if (is_row_column(s.kind)) {
      need = row_column_workspace(s, plan.threads);
    }
    bytes = std::max(bytes, need);
  }
  return bytes;
}

void execute_inplace(const plan_data& plan, void* data) {
  auto* workspace = static_cast<std::byte*>(plan.workspace.get());
  const auto& stages = plan.stages;
  const std::size_t matrix_stride =
      static_cast<std::size_t>(plan.batch_stride) * plan.desc.elem_size;
  for (std::int64_t b = 0; b < plan.desc.batch; ++b) {
    std::byte* matrix = static_cast<std::byte*>(data) + b * matrix_stride;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const stage& s = stages[i];
      if (s.kind == stage_kind::tiled_transpose) {
        if (s.fused_with_next && i + 1 < stages.size()) {
          tiled_transpose_fused(matrix, s, stages[i + 1], workspace, plan.threads);
          ++i;
        } else {
          tiled_transpose(matrix, s, workspace, plan.threads);
        }
      } else if (s.kind == stage_kind::square_swap) {
        square_swap(matrix, s, plan.threads);
      } else if (is_row_column(s.kind)) {
        row_column_phase(matrix, s, workspace, plan.threads);
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
