// Host plans through the GPU (plan_options::host_via_gpu): the in-place transposition of a dense
// matrix in host memory by the GPU, following a host_schedule (host/host_schedule.hpp). Everything
// a run needs is made at plan time: the streams, the device buffers, a GPU plan per piece shape
// and stream (each its own workspace, so that streams never share scratch), the host CPU's plan
// for out of core's 100 stage, and the pinned staging chunks through which the CPU threads copy
// pageable memory (host/staging.hpp). execute() returns when the host memory holds the result.
// Compiled only with CUDA.
#pragma once

#include <memory>
#include <string>

#include "plan/plan_data.hpp"

namespace xpose::detail::host {

/// The host plan for the CPU plan `cpu` (its options ask for host_via_gpu), or nullptr when the
/// CPU runs it: host_via_gpu automatic and no device, or the cost model predicts the CPU faster.
/// Adds to cpu.notes what the cost model measured and predicted, and why. Throws
/// xpose::error{unsupported} for host_via_gpu always when the GPU cannot run it (no device, a
/// strided matrix), {out_of_memory} when the device memory cannot be had.
std::shared_ptr<detail::host_plan> make_host_plan(plan_data& cpu);

/// Transposes the batch at host pointer `data` through the GPU.
void execute(const detail::host_plan& plan, void* data);

/// The schedule, device memory, pinning and extra host memory, for plan::describe().
std::string describe(const detail::host_plan& plan);

}  // namespace xpose::detail::host
