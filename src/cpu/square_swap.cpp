// TEMPORARY STUB: replaced by the real implementation.
#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
void square_swap(std::byte*, const stage&, int) { throw error(status::internal_error, "square_swap: not yet implemented"); }
}  // namespace xpose::detail::cpu
