// Which tile order the tile kernels and copy_full_height take (copy/launchers.hpp,
// tile_regions, full_height_regions): the plain walk, or the strips or tile rows in interleaved
// regions where the rows the walk meets at a time resonate with the H100's memory.
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

int resonant_rows(std::int64_t row_bytes, std::int64_t period) {
  for (int k : {1, 2, 3, 4, 6}) {
    const std::int64_t span = k * row_bytes;
    if (span + resonance_tolerance_bytes < period) continue;  // not a whole period yet
    const std::int64_t off = span % period;
    if (off <= resonance_tolerance_bytes || period - off <= resonance_tolerance_bytes) return k;
  }
  return 0;
}

int resonant_regions(std::int64_t row_bytes, std::int64_t period) {
  // The regions that run each k fastest, for source rows walking down and destination rows
  // walking across alike. Neighbouring shapes lose 0.005-0.04 in regions (more with more
  // regions), so only these rows take them; rows of a whole number of 2^18 bytes (5 rows a
  // period) run at 0.96-0.97 x copy and take none.
  // H100: k = 1 (4-byte 704 x 327680, 353 x 327681) 0.85-0.87 x copy, in 8 regions 0.91-0.92.
  constexpr int regions_for_k[] = {1, 8, 6, 3, 2, 0, 2};
  return regions_for_k[resonant_rows(row_bytes, period)];
}

int resonant_strip_regions(std::int64_t row_bytes, std::int64_t period) {
  // copy_full_height's source rows: resonant_regions' counts but 3 for k = 4 (2 run behind on
  // 1- and 2-byte rows). copy_full_width's destination rows do not resonate and take none.
  // H100: k = 2, 1-byte 256 x 655361 0.88 -> 0.95 x copy in 6 regions.
  constexpr int regions_for_k[] = {1, 8, 6, 3, 3, 0, 2};
  return regions_for_k[resonant_rows(row_bytes, period)];
}

unsigned chosen_regions(int requested, int rule, const std::string& kernel) {
  if (requested < 0)
    throw error(status::internal_error,
                kernel + ": " + std::to_string(requested) + " tile regions asked for");
  return static_cast<unsigned>(requested > 0 ? requested : rule);
}

int tile_regions(const copy_args& a, std::size_t elem_bytes, device_class device) {
  if (device != device_class::h100) return 1;
  const std::int64_t row_elements = tiles_walk_down(a.rows, a.cols) ? a.lda : a.ldb;
  return resonant_regions(row_elements * static_cast<std::int64_t>(elem_bytes), h100_memory_period);
}

int full_height_regions(const copy_args& a, std::size_t elem_bytes, device_class device) {
  if (device != device_class::h100) return 1;
  return resonant_strip_regions(a.lda * static_cast<std::int64_t>(elem_bytes), h100_memory_period);
}

int tile_regions(const copy_args& a, std::size_t elem_bytes) {
  return tile_regions(a, elem_bytes, current_device_class());
}

int full_height_regions(const copy_args& a, std::size_t elem_bytes) {
  return full_height_regions(a, elem_bytes, current_device_class());
}

}  // namespace xpose::detail::cuda
