// Runs a plan's stages on the CPU, matrix by matrix of the batch.
#pragma once

#include <cstddef>

#include "plan/plan_data.hpp"

namespace xpose::detail::cpu {

/// Workspace bytes the plan's stages need (the largest stage: stages run one after another).
std::size_t workspace_bytes(const plan_data& plan);
/// Runs stages [first, last) of an in-place plan on each matrix of the batch; a fused pair runs
/// fused only when both are in the range.
void execute_inplace(const plan_data& plan, void* data, std::size_t first = 0,
                     std::size_t last = static_cast<std::size_t>(-1));
void execute_copy(const plan_data& plan, const void* src, void* dst);

}  // namespace xpose::detail::cpu
