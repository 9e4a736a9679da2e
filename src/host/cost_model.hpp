// The host plans' cost model (docs/host.md): whether the CPU or the GPU transposes a host matrix,
// and how the GPU reaches pageable memory (registered for each execute, or staged through pinned
// chunks on the CPU threads), from the bandwidths measured once per process (host/bandwidths.hpp)
// and the plans' predicted passes. Pure arithmetic, so that tests check its choices on made-up
// bandwidths.
#pragma once

#include <string>

#include "host/bandwidths.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail::host {

enum class pageable_access { registered, staged };

struct cost_inputs {
  double bytes = 0;  ///< the whole batch
  bool in_core = true;
  double cpu_passes = 0;          ///< the CPU plan's predicted passes
  double kernel_seconds = 0;      ///< the GPU piece plans, the whole batch
  double host_stage_seconds = 0;  ///< out of core's 100 stage on the host CPU, the whole batch
  host_pinning pinning = host_pinning::automatic;
  bool always = false;  ///< host_gpu_policy::always: the GPU runs it whatever the prediction
};

struct cost_estimate {
  double cpu_seconds = 0;
  double pinned_seconds = 0;      ///< the GPU on pinned memory
  double registered_seconds = 0;  ///< the GPU on pageable memory registered for the execute
  double staged_seconds = 0;      ///< the GPU on pageable memory staged through pinned chunks
  pageable_access pageable = pageable_access::staged;
  double gpu_seconds = 0;   ///< the GPU on pageable memory, by `pageable` (what the choice uses)
  double work_seconds = 0;  ///< of each GPU time: the pieces' kernels and the host stage
  bool gpu = false;
  bool always = false;
  /// The predictions and the choice in words, for plan::describe().
  std::string describe(const bandwidths& measured) const;
};

/// The CPU: its predicted passes at the CPU's copy rate. The GPU: its copies (in core one
/// direction after the other; out of core both at once on pinned or registered memory, one
/// after the other when staged, since a staged copy back waits for its chunks), the pieces'
/// passes at the device's copy rate and the host stage; for pageable memory either registration
/// (bytes / its rate) or staging (each direction the slower of the link and the threads'
/// memcpy, which runs beside it). The plan prices pageable memory: it cannot know the pointer.
cost_estimate estimate_costs(const bandwidths& measured, const cost_inputs& in);

}  // namespace xpose::detail::host
