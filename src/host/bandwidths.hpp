// The bandwidths the host plans' cost model uses, measured once per process (and CPU thread
// count): pinned host-to-device and device-to-host copies, both directions at once, a
// device-to-device copy, the CPU's memcpy on the plan's threads, and cudaHostRegister.
#pragma once

#include <cstddef>
#include <string>

namespace xpose::detail::host {

struct bandwidths {
  bool have_device = false;
  std::string device_name;
  double h2d = 0;       ///< bytes/s, pinned, one direction
  double d2h = 0;       ///< bytes/s, pinned, one direction
  double both = 0;      ///< bytes/s of the two directions at once, together
  double gpu_copy = 0;  ///< 2 x bytes / s of a device-to-device copy
  double cpu_copy = 0;  ///< 2 x bytes / s of memcpy on the threads (median, beyond the LLC)
  std::size_t cpu_probe_bytes = 0;
  double host_register = 0;  ///< bytes/s of cudaHostRegister + cudaHostUnregister
  int cpu_threads = 0;
  double seconds_spent = 0;  ///< what measuring took

  std::string describe() const;
};

/// The bandwidths for `cpu_threads` threads, measured on the first call (0.2-0.5 s) and kept.
const bandwidths& measured_bandwidths(int cpu_threads);

}  // namespace xpose::detail::host
