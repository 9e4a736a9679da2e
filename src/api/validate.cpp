#include "api/validate.hpp"

#include <string>

#include "xpose/error.hpp"

namespace xpose::detail {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw error(status::invalid_argument, message);
}

void require_positive(std::int64_t value, const char* name) {
  if (value <= 0) invalid(std::string(name) + " must be positive, got " + std::to_string(value));
}

/// a * b, or throws if it does not fit in int64 (the message names `what`).
std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what) {
  __int128 product = static_cast<__int128>(a) * b;
  if (product > INT64_MAX) invalid(what + " overflows 64-bit indexing");
  return static_cast<std::int64_t>(product);
}

}  // namespace

std::uint64_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
                         std::int64_t batch_stride, std::size_t elem_size) {
  __int128 elements =
      static_cast<__int128>(batch - 1) * batch_stride + static_cast<__int128>(rows - 1) * ld + cols;
  __int128 bytes = elements * static_cast<__int128>(elem_size);
  if (bytes > INT64_MAX)
    invalid("matrix of " + std::to_string(rows) + " x " + std::to_string(cols) + " x " +
            std::to_string(elem_size) + " bytes (batch " + std::to_string(batch) +
            ") overflows 64-bit indexing");
  return static_cast<std::uint64_t>(bytes);
}

void validate_and_normalize(const matrix_desc& desc, bool in_place, plan_data& plan) {
  require_positive(desc.rows, "rows");
  require_positive(desc.cols, "cols");
  if (desc.elem_size == 0) invalid("elem_size must be positive, got 0");
  if (desc.elem_size > max_elem_size)
    throw error(status::unsupported, "elem_size " + std::to_string(desc.elem_size) +
                                         " exceeds the largest supported element size (" +
                                         std::to_string(max_elem_size) + " bytes)");
  require_positive(desc.batch, "batch");
  if (desc.order != storage_order::row_major && desc.order != storage_order::col_major)
    invalid("order must be row_major or col_major, got " +
            std::to_string(static_cast<int>(desc.order)));
  if (desc.ld < 0) invalid("ld must be 0 (dense) or positive, got " + std::to_string(desc.ld));
  if (desc.batch_stride < 0)
    invalid("batch_stride must be 0 (dense) or positive, got " + std::to_string(desc.batch_stride));

  // A column-major rows x cols matrix is a row-major cols x rows one.
  const bool row_major = desc.order == storage_order::row_major;
  plan.desc = desc;
  plan.rows = row_major ? desc.rows : desc.cols;
  plan.cols = row_major ? desc.cols : desc.rows;
  const char* inner_name = row_major ? "cols" : "rows";
  plan.ld = desc.ld == 0 ? plan.cols : desc.ld;
  if (plan.ld < plan.cols)
    invalid("ld (" + std::to_string(plan.ld) + ") must be at least " + inner_name + " (" +
            std::to_string(plan.cols) + ")");
  if (in_place && plan.ld != plan.cols && plan.rows != plan.cols)
    throw error(status::unsupported,
                "in-place transposition of a non-square matrix needs a dense matrix: ld (" +
                    std::to_string(plan.ld) + ") must equal " + inner_name + " (" +
                    std::to_string(plan.cols) + ")");
  const std::int64_t matrix_extent = checked_mul(plan.rows, plan.ld, "rows x ld");
  plan.batch_stride = desc.batch_stride == 0 ? matrix_extent : desc.batch_stride;
  if (desc.batch > 1 && plan.batch_stride < matrix_extent)
    invalid("batch_stride (" + std::to_string(plan.batch_stride) +
            ") is smaller than one matrix (" + std::to_string(matrix_extent) +
            " elements): the matrices of the batch would overlap");
  span_bytes(plan.rows, plan.cols, plan.ld, desc.batch, plan.batch_stride, desc.elem_size);
}

void validate_destination(std::int64_t dst_ld, std::int64_t dst_batch_stride, plan_data& plan) {
  if (dst_ld < 0) invalid("dst_ld must be 0 (dense) or positive, got " + std::to_string(dst_ld));
  if (dst_batch_stride < 0)
    invalid("dst_batch_stride must be 0 (dense) or positive, got " +
            std::to_string(dst_batch_stride));
  // The destination is cols x rows in the same storage order.
  plan.dst_ld = dst_ld == 0 ? plan.rows : dst_ld;
  if (plan.dst_ld < plan.rows)
    invalid("dst_ld (" + std::to_string(plan.dst_ld) + ") must be at least the transpose's " +
            (plan.desc.order == storage_order::row_major ? "cols" : "rows") + " (" +
            std::to_string(plan.rows) + ")");
  const std::int64_t matrix_extent = checked_mul(plan.cols, plan.dst_ld, "cols x dst_ld");
  plan.dst_batch_stride = dst_batch_stride == 0 ? matrix_extent : dst_batch_stride;
  if (plan.desc.batch > 1 && plan.dst_batch_stride < matrix_extent)
    invalid("dst_batch_stride (" + std::to_string(plan.dst_batch_stride) +
            ") is smaller than one transposed matrix (" + std::to_string(matrix_extent) +
            " elements)");
  span_bytes(plan.cols, plan.rows, plan.dst_ld, plan.desc.batch, plan.dst_batch_stride,
             plan.desc.elem_size);
}

void require_pointer(const void* p, const char* name) {
  if (p == nullptr) invalid(std::string(name) + " is null");
}

}  // namespace xpose::detail
