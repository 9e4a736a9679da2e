// The planner: chooses a route for a validated, normalized plan_data and fills its stages.
// Backend-free: it only reads the target device to know which routes exist there.
#pragma once

#include "plan/plan_data.hpp"

namespace xpose::detail {

/// Fills plan.stages, plan.chosen and plan.predicted_passes for an in-place transposition of
/// the row-major plan.rows x plan.cols view. Throws xpose::error{unsupported} when a forced
/// route cannot apply.
void plan_inplace_stages(plan_data& plan);
/// Same for an out-of-place transposition.
void plan_copy_stages(plan_data& plan);

}  // namespace xpose::detail
