// Which tile order the tile kernels and copy_full_height take (copy/launchers.hpp,
// tile_regions, full_height_regions): the plain walk, or the strips or tile rows in interleaved
// regions where the rows the walk meets at a time resonate with the H100's memory (twenty-third
// and twenty-fourth sessions, docs/performance.md).
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
  // On the H100 (twenty-third session, harness, x copy, two rounds; source rows walking down,
  // copy_tuned and copy_unaligned): k = 1 (4-byte 704 x 327680, 353 x 327681) 0.85-0.87, in 8
  // regions 0.91-0.92; k = 2 (704 x 163840, 353 x 163841) 0.87, in 6 regions 0.94; k = 3 (1-byte
  // 1024 x 436912, 4-byte 353 x 109227, 704 x 218453) 0.89-0.92, in 3 regions 0.94-0.95 (in 2,
  // 0.87-0.90); k = 4 (2048 x 81920, 353 x 81921, 353 x 245761) 0.87-0.90, in 2 regions 0.93-0.95
  // (in 3, 0.86 for rows of 3/4 of the period); k = 6 (704 x 54613) 0.91, in 2 regions 0.96.
  // Destination rows walking across (xpose bench, two rounds): 4-byte 81920 x 2049 (k = 4) 0.84
  // -> 0.89, 1-byte 436912 x 1025 (k = 3) 0.85 -> 0.90, their neighbours 0.92-0.95 either way.
  // Rows of a whole number of 2^18 bytes (5 rows a period) ran at 0.96-0.97 and take none.
  // Neighbouring shapes lose 0.005-0.04 in regions (more with more regions), so only these rows
  // take them.
  constexpr int regions_for_k[] = {1, 8, 6, 3, 2, 0, 2};
  return regions_for_k[resonant_rows(row_bytes, period)];
}

int resonant_strip_regions(std::int64_t row_bytes, std::int64_t period) {
  // On the H100 (twenty-fourth session, harness, x copy, two rounds), copy_full_height's source
  // rows, the plain order against the regions taken: k = 1, 8 regions (1-byte 128 x 1310721
  // 0.93 -> 0.97, 5-byte 100 x 262145 0.85 -> 0.90, 6-byte 146 x 218453 0.86 -> 0.91; 12
  // regions within 0.005); k = 2, 6 (1-byte 256 x 655361 0.88 -> 0.95, 2-byte 256 x 327681 0.88
  // -> 0.95, 4-byte 128 x 163841 0.92 -> 0.98, 8-byte 100 x 81921 0.93 -> 0.97; 4 regions
  // within 0.012 either way); k = 3, 3 (1-byte 400 x 436907 0.87 -> 0.93, 2-byte 350 x 218456
  // 0.92 -> 0.96, 3-byte 200 x 145635 0.88 -> 0.90; 4 or 6 regions behind by 0.007-0.012); k = 4,
  // 3 (1-byte 480 x 327681 0.84 -> 0.92, 512 x 327681 0.83 -> 0.89, 2-byte 300 x 163841 0.90 ->
  // 0.96; 2 regions behind by 0.008-0.015 for 1- and 2-byte rows, level for 4-byte ones); k = 6,
  // 2 (1-byte 700 x 218453 0.83 -> 0.87, 3 level). copy_full_width's destination rows did not
  // resonate (4-byte 81921 x 100 1.01, 1-byte 1310721 x 64 0.98 x copy) and take none.
  constexpr int regions_for_k[] = {1, 8, 6, 3, 3, 0, 2};
  return regions_for_k[resonant_rows(row_bytes, period)];
}

unsigned chosen_regions(int requested, int rule, const std::string& kernel) {
  if (requested < 0)
    throw error(status::internal_error,
                kernel + ": " + std::to_string(requested) + " tile regions asked for");
  return static_cast<unsigned>(requested > 0 ? requested : rule);
}

int tile_regions(const copy_args& a, std::size_t elem_bytes) {
  if (!h100_memory_interface()) return 1;
  const std::int64_t row_elements = tiles_walk_down(a.rows, a.cols) ? a.lda : a.ldb;
  return resonant_regions(row_elements * static_cast<std::int64_t>(elem_bytes), h100_memory_period);
}

int full_height_regions(const copy_args& a, std::size_t elem_bytes) {
  if (!h100_memory_interface()) return 1;
  return resonant_strip_regions(a.lda * static_cast<std::int64_t>(elem_bytes), h100_memory_period);
}

}  // namespace xpose::detail::cuda
