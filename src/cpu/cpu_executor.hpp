// Runs a plan's stages on the CPU, matrix by matrix of the batch.
#pragma once

#include <cstddef>

#include "plan/plan_data.hpp"

namespace xpose::detail::cpu {

/// Workspace bytes the plan's stages need (the largest stage: stages run one after another).
std::size_t workspace_bytes(const plan_data& plan);
void execute_inplace(const plan_data& plan, void* data);
void execute_copy(const plan_data& plan, const void* src, void* dst);

}  // namespace xpose::detail::cpu
