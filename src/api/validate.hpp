// Argument validation: every check runs before any data is touched, and each failure names the
// argument and its value.
#pragma once

#include <cstdint>

#include "plan/plan_data.hpp"

namespace xpose::detail {

/// Validates `desc` and fills the normalized row-major view (rows, cols, ld, batch_stride) of
/// `plan`. Throws xpose::error{invalid_argument | unsupported}.
void validate_and_normalize(const matrix_desc& desc, bool in_place, plan_data& plan);
/// Validates the destination of an out-of-place plan (dst_ld, dst_batch_stride; 0 = dense).
void validate_destination(std::int64_t dst_ld, std::int64_t dst_batch_stride, plan_data& plan);
/// Bytes spanned by one operand: (batch-1)*batch_stride + (rows-1)*ld + cols elements.
std::uint64_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
                         std::int64_t batch_stride, std::size_t elem_size);
void require_pointer(const void* p, const char* name);

}  // namespace xpose::detail
