#include "host/cost_model.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace xpose::detail::host {

namespace {

std::string ms_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
  return text;
}

}  // namespace

cost_estimate estimate_costs(const bandwidths& bw, const cost_inputs& in) {
  cost_estimate c;
  const double S = in.bytes;
  // memcpy of S bytes: cpu_copy counts 2 x bytes per second.
  const double memcpy_seconds = 2.0 * S / bw.cpu_copy;
  const double sequential = S / bw.h2d + S / bw.d2h;
  const double copies = in.in_core ? sequential : 2.0 * S / std::max(bw.both, bw.h2d);
  const double work = in.kernel_seconds + in.host_stage_seconds;
  c.cpu_seconds = in.cpu_passes * 2.0 * S / bw.cpu_copy;
  c.pinned_seconds = copies + work;
  c.registered_seconds = copies + S / bw.host_register + work;
  c.staged_seconds =
      std::max(S / bw.h2d, memcpy_seconds) + std::max(S / bw.d2h, memcpy_seconds) + work;
  switch (in.pinning) {
    case host_pinning::register_memory:
      c.pageable = pageable_access::registered;
      break;
    case host_pinning::staged:
      c.pageable = pageable_access::staged;
      break;
    case host_pinning::automatic:
      c.pageable = c.registered_seconds < c.staged_seconds ? pageable_access::registered
                                                           : pageable_access::staged;
      break;
  }
  c.gpu_seconds =
      c.pageable == pageable_access::registered ? c.registered_seconds : c.staged_seconds;
  c.work_seconds = work;
  c.always = in.always;
  c.gpu = in.always || c.gpu_seconds < c.cpu_seconds;
  return c;
}

std::string cost_estimate::describe(const bandwidths& bw) const {
  std::ostringstream out;
  out << "host_via_gpu cost model (" << bw.describe() << "): CPU " << ms_text(cpu_seconds)
      << "; GPU on pinned memory " << ms_text(pinned_seconds) << ", on pageable memory registered "
      << ms_text(registered_seconds) << " or staged " << ms_text(staged_seconds) << " (takes "
      << (pageable == pageable_access::registered ? "registered" : "staged")
      << "; kernels and host stage " << ms_text(work_seconds) << "): "
      << (gpu ? (always ? "the GPU runs it (always)" : "the GPU runs it") : "the CPU runs it");
  return out.str();
}

}  // namespace xpose::detail::host
