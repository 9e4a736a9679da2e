// One-call helpers: plan and execute once.
#include "xpose/transpose.hpp"

namespace xpose {

void transpose_inplace(void* data, std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                       const plan_options& options) {
  matrix_desc desc;
  desc.rows = rows;
  desc.cols = cols;
  desc.elem_size = elem_size;
  const plan p = plan_inplace(desc, options);
  p.execute(data);
}

void transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
               std::size_t elem_size, const plan_options& options) {
  matrix_desc desc;
  desc.rows = rows;
  desc.cols = cols;
  desc.elem_size = elem_size;
  const plan p = plan_copy(desc, 0, 0, options);
  p.execute(src, dst);
}

}  // namespace xpose
