// TEMPORARY STUB: replaced by the real implementation.
#include "cpu/cpu_kernels.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
std::size_t tiled_transpose_workspace(const stage&, int) { return 0; }
void tiled_transpose(std::byte*, const stage&, std::byte*, int) { throw error(status::internal_error, "tiled_transpose: not yet implemented"); }
std::size_t tiled_transpose_fused_workspace(const stage&, const stage&, int) { return 0; }
void tiled_transpose_fused(std::byte*, const stage&, const stage&, std::byte*, int) { throw error(status::internal_error, "tiled_transpose_fused: not yet implemented"); }
}  // namespace xpose::detail::cpu
