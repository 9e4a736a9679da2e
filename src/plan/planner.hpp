// The planner: chooses a route for a validated, normalized plan_data and fills its stages.
// Backend-free: it only reads the target device to know which routes exist there.
#pragma once

#include <cstddef>
#include <functional>

#include "plan/plan_data.hpp"
#include "plan/staged_routes.hpp"

namespace xpose::detail {

/// Workspace bytes a backend needs for plan.stages (the planner compares candidate routes).
using workspace_function = std::function<std::size_t(const plan_data&)>;

/// Extra memory an automatic in-place plan may use: this fraction of the matrix (or
/// workspace_floor_bytes, whichever is larger). Routes over it are taken only when every route
/// is over it, and then the one that needs least, which the CPU runs on fewer threads where that
/// brings its per-thread buffers within the budget.
inline constexpr double workspace_budget_fraction = 0.01;
inline constexpr std::size_t workspace_floor_bytes = 256 * 1024;
/// On the GPU: this fraction of the matrix plus the floor (64 MiB + 0.1 %), whatever its size.
inline constexpr double gpu_workspace_budget_fraction = 0.001;
inline constexpr std::size_t gpu_workspace_floor_bytes = std::size_t{64} << 20;

/// The extra memory an automatic in-place plan of `plan` may take, in bytes: on the CPU the
/// larger of workspace_budget_fraction of the matrix and workspace_floor_bytes; on the GPU
/// gpu_workspace_budget_fraction of it plus gpu_workspace_floor_bytes.
double inplace_workspace_budget(const plan_data& plan);

/// Fills plan.stages, plan.chosen and plan.predicted_passes for an in-place transposition of
/// the row-major plan.rows x plan.cols view. Throws xpose::error{unsupported} when a forced
/// route cannot apply.
/// `cost_of`, when given, prices each stage in passes (the GPU's paths differ in speed); without
/// it the stages' own passes count.
void plan_inplace_stages(plan_data& plan, const workspace_function& workspace_of,
                         const stage_cost_function& cost_of = nullptr);
/// Same for an out-of-place transposition.
void plan_copy_stages(plan_data& plan);

}  // namespace xpose::detail
