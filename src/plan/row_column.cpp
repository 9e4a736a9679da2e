#include "plan/row_column.hpp"

#include <algorithm>
#include <utility>

#include "plan/planner.hpp"

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

std::int64_t row_column_rotated_bands(std::int64_t m, std::int64_t n, std::size_t e, int threads) {
  const std::int64_t c = greatest_common_divisor(m, n);
  if (c < 2 || threads < 1) return 0;
  const std::int64_t bands = std::min<std::int64_t>(threads, m);
  const std::int64_t band_rows = (m + bands - 1) / bands;
  if (band_rows < row_column_min_band_halos * (c - 1)) return 0;
  const double row_bytes = static_cast<double>(n) * static_cast<double>(e);
  // The halos and the threads' row buffers, the fused pass's scratch.
  const double scratch_bytes = static_cast<double>(bands * (c - 1) + threads) * row_bytes;
  const double budget = std::max(workspace_budget_fraction * static_cast<double>(m) * row_bytes,
                                 static_cast<double>(workspace_floor_bytes));
  return scratch_bytes <= budget ? bands : 0;
}

std::vector<stage> row_column_stages(std::int64_t m, std::int64_t n, std::size_t e, int threads) {
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
  if (math.c() > 1) {
    stage pre = make(stage_kind::row_column_pre_rotate, "pre-rotate");
    // Fused: the halos, copied out and read back, for bands x (c - 1) rows of m.
    const std::int64_t bands = row_column_rotated_bands(m, n, e, threads);
    if (bands > 0)
      pre.passes = static_cast<double>(bands * (math.c() - 1)) / static_cast<double>(m) + 0.05;
    stages.push_back(pre);
  }
  stages.push_back(make(stage_kind::row_column_row_shuffle, "row shuffle"));
  stages.push_back(make(stage_kind::row_column_column_shuffle, "column shuffle"));
  return stages;
}

}  // namespace xpose::detail
