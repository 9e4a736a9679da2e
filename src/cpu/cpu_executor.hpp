// Runs a plan's stages on the CPU, matrix by matrix of the batch.
#pragma once

#include <cstddef>

#include "plan/plan_data.hpp"

namespace xpose::detail::cpu {

/// Workspace bytes the plan's stages need (the largest stage: stages run one after another),
/// after the bytes held for the plan's lifetime (the work lists prepare_workspace makes).
std::size_t workspace_bytes(const plan_data& plan);
/// Fills what the plan's workspace holds from the start: the work lists of the tiled stages
/// whose threads share an instance (their stages' table_offset and table_bytes set). Once, after
/// the workspace is allocated; a plan never prepared runs those stages without work lists.
void prepare_workspace(plan_data& plan);
/// Runs stages [first, last) of an in-place plan on each matrix of the batch; a fused pair runs
/// fused only when both are in the range.
void execute_inplace(const plan_data& plan, void* data, std::size_t first = 0,
                     std::size_t last = static_cast<std::size_t>(-1));
void execute_copy(const plan_data& plan, const void* src, void* dst);

}  // namespace xpose::detail::cpu
