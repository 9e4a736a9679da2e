#include "plan/row_column.hpp"

#include <algorithm>
#include <utility>

namespace xpose::detail {

std::int64_t greatest_common_divisor(std::int64_t x, std::int64_t y) noexcept {
  while (y != 0) x = std::exchange(y, x % y);
  return x;
}

std::int64_t row_column_block_width(std::int64_t m, std::int64_t n, std::size_t e) {
  // 512-byte row segments, with the block (m segments) held in L3: fewer TLB misses and less
  // work per segment than 64-byte ones (2-core Zen 5, fp32 7919 x 1801 and 7200 x 1800: 2-3x
  // faster). Narrower segments when m rows of 512 bytes would exceed a few MiB; at most 128
  // elements, which bounds the saved wrap-around rows (width^2 * e bytes per thread).
  constexpr std::int64_t block_bytes = 4 << 20, max_segment = 512, min_segment = 64;
  constexpr std::int64_t max_width = 128;
  const auto elem = static_cast<std::int64_t>(e);
  const std::int64_t segment = std::clamp(block_bytes / m, min_segment, max_segment);
  std::int64_t width = std::clamp<std::int64_t>(segment / elem, 1, max_width);
  const std::int64_t elements_per_line = 64 / greatest_common_divisor(64, elem);
  if (width >= elements_per_line) width -= width % elements_per_line;  // whole cache lines
  return std::min(width, n);
}

std::vector<stage> row_column_stages(std::int64_t m, std::int64_t n, std::size_t e) {
  const row_column_math math(m, n);
  auto make = [&](stage_kind kind, const char* label) {
    stage s;
    s.kind = kind;
    s.label = label;
    s.rows = m;
    s.cols = n;
    s.super_bytes = e;
    s.tile = row_column_block_width(m, n, e);
    s.passes = 1.0;
    return s;
  };
  std::vector<stage> stages;
  if (math.c() > 1) stages.push_back(make(stage_kind::row_column_pre_rotate, "pre-rotate"));
  stages.push_back(make(stage_kind::row_column_row_shuffle, "row shuffle"));
  stages.push_back(make(stage_kind::row_column_column_shuffle, "column shuffle"));
  return stages;
}

}  // namespace xpose::detail
