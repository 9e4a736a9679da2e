// GPU in-place plans that share one scratch: for callers that run several plans one after another
// on one stream (the distributed transposition's local stages), so that their extra device memory
// is one scratch and the plans' tables rather than a whole workspace per plan.
#pragma once

#include <cstddef>
#include <memory>

#include "xpose/plan.hpp"

namespace xpose::detail {

/// An in-place plan on the GPU whose scratch (the part of the workspace every stage may overwrite,
/// after the tables) is the caller's: the plan allocates its tables only and, when it runs, uses
/// the `scratch_bytes` bytes at `*scratch` (on 256 bytes), which the caller sets before the first
/// execute and keeps for the plan's life. workspace_bytes() counts the tables only.
plan plan_inplace_sharing_scratch(const matrix_desc& desc, const plan_options& options,
                                  std::shared_ptr<void*> scratch, std::size_t& scratch_bytes);

}  // namespace xpose::detail
