// CUDA backend entry points (compiled only when nvcc is found; see XPOSE_HAVE_CUDA).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "plan/plan_data.hpp"

namespace xpose::detail::cuda {

/// Whether stage `s` runs on the GPU.
bool runs_on_gpu(const stage& s);
/// The device workspace bytes the plan's stages need on the GPU, or SIZE_MAX where a stage does
/// not run there (so that the planner's route choice passes such routes over).
std::size_t inplace_workspace_bytes(const plan_data& plan);
/// Predicted passes of stage `s` on the GPU (its path's speed relative to a copy); the planner
/// prices the GPU's routes with it.
double stage_passes(const stage& s);
/// Checks that the plan's stages can run on the GPU (throws xpose::error{unsupported} if not)
/// and returns the device workspace bytes it needs.
std::size_t prepare(plan_data& plan);
/// Fills the tables of a prepared plan's stages into its allocated workspace (synchronously, at
/// plan time).
void prepare_workspace(const plan_data& plan);
/// Allocates `bytes` of device memory owned by the returned pointer (nullptr for 0 bytes).
std::shared_ptr<void> allocate_workspace(std::size_t bytes);
/// The kernel a stage runs, in words, for plan::describe(): element sizes become machine words
/// and the copy kernel depends on the pointers' alignment, so the text names the pointers it
/// assumes.
std::string kernel_text(const stage& s);
/// The current device's name (the wisdom key); "no device" when there is none.
std::string device_name();
/// Waits for the plan's stream (measured planning only).
void synchronize(const plan_data& plan);
/// Runs the plan on plan.options.stream; never allocates, never synchronizes.
/// Runs stages [first, last) of an in-place plan (all by default).
void execute_inplace(const plan_data& plan, void* data, std::size_t first = 0,
                     std::size_t last = static_cast<std::size_t>(-1));
void execute_copy(const plan_data& plan, const void* src, void* dst);

}  // namespace xpose::detail::cuda
