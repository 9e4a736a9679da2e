// TEMPORARY STUB: replaced by the real implementation.
#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
void cycle_following_reference(std::byte*, std::int64_t, std::int64_t, std::size_t, std::byte*) { throw error(status::internal_error, "cycle_following_reference: not yet implemented"); }
}  // namespace xpose::detail::cpu
