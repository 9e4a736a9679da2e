// A hook for the crash tests: an in-place file run calls fault_point() where an interruption
// matters (journal written, file marked, each step's record, half of its data, all of its data,
// its commit, the final header), and a test's hook may end the process there (raise SIGKILL in a
// forked child) to check that the next run completes the transposition.
#pragma once

#include <cstdint>
#include <functional>

namespace xpose::detail::io {

using fault_hook = std::function<void(const char* point, std::int64_t step)>;

/// Installs `hook` (an empty function removes it); set it only while no run is in progress.
void set_fault_hook(fault_hook hook);
/// Calls the hook, if any, with the point's name and the step (-1 outside steps).
void fault_point(const char* point, std::int64_t step = -1);

}  // namespace xpose::detail::io
