// TEMPORARY STUB: replaced by the real implementation.
#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
void copy_transpose(const std::byte*, std::byte*, const stage&, int) { throw error(status::internal_error, "copy_transpose: not yet implemented"); }
}  // namespace xpose::detail::cpu
