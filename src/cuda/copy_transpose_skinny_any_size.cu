// skinny_any_size: out-of-place transposition of skinny matrices of elements of 3 to 15 bytes
// that are not powers of two (see copy_transpose_skinny_any_size_kernel.cuh).
#include <string>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_skinny_any_size_kernel.cuh"

namespace xpose::detail::cuda {

// On the H100 (2026-11-23, scripts/device_tune_policies.cu --skinny-any-size, device runs 7-8 of
// the seventh session; docs/performance.md), against the other kernels on 3-, 5-, 6-, 7-, 12- and
// 15-byte elements: wide shapes of 2 to 64 rows 0.76-0.95 x copy here, 0.04-0.84 on
// copy_any_size and the super-element kernel (12-byte rows on 16 / 32 bytes from 32 rows up:
// 0.91-0.94 there); tall shapes of 2 to 32 columns 0.80-0.90 against 0.06-0.87 (long sides
// whose destination rows start on 16 bytes; on others the tall slabs fell to 0.60-0.77 before
// their halo, sixteenth session). Which tall shapes go to copy_any_size: below.
// Wide shapes of more rows took the wide slabs where copy_any_size's tiles were less than 4/5
// full (tenth session: 0.73-0.88 x copy against 0.25-0.75). copy_full_height takes wide shapes of
// 48 to 320 rows now (thirteenth session: 0.89-0.97; docs/performance.md), and copy_any_size
// those where its tiles are full (any_size_tiles_full), so this rule keeps fewer than 48 rows.
// Measured on 128 MiB matrices; the rule takes any shape with no more rows than columns, small
// and square ones too.
// Tall shapes of elements up to 12 bytes whose columns fill copy_any_size's column tiles
// (any_size_tile_bytes / E columns each) more than 3/4 go there. Sixteenth session, H100, tall
// shapes of 96 MiB and 10^6 rows or more, docs/performance.md:
// - Odd row counts (.dev harness, the slabs with their halo): 3-byte 33, 40, 64 columns 0.81-0.91
//   x copy there against 0.76-0.87 on the slabs; 5-byte 24-64 0.82-0.96 against 0.79-0.88;
//   6-byte 17, 33-64 0.87-0.94 against 0.78-0.87; 7-byte 31, 33 0.88-0.90 against 0.82-0.87;
//   9-byte 24 0.91 against 0.86; 12-byte 17 0.90 against 0.87.
// - At 3/4 or less the slabs stay ahead or level (6-byte 31 columns, 74% full: 0.84 against
//   0.84; 3-byte 31 0.86 against 0.81; 7-byte 48 0.82 against 0.78).
// - 15-byte 13 and 17 columns (76% and full tiles) ran 0.85-0.98 there in two runs, 0.86-0.89 on
//   the slabs: they stay on the slabs, which measured the same both times.
namespace {
bool any_size_column_tiles_mostly_full(const copy_args& a, std::size_t elem_bytes) {
  const int e = static_cast<int>(elem_bytes);
  const std::int64_t tile_columns = any_size_tile_bytes(e) / e;
  const std::int64_t covered = (a.cols + tile_columns - 1) / tile_columns * tile_columns;
  return e <= 12 && a.rows >= any_size_tile_rows(e) && 4 * a.cols > 3 * covered;
}
}  // namespace

bool skinny_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  if (!copy_any_size_takes(elem_bytes)) return false;
  const bool wide = a.rows <= a.cols;
  const std::int64_t short_side = wide ? a.rows : a.cols;
  if ((wide && short_side >= full_height_any_size_least_rows) ||
      short_side > skinny_any_size_max_side ||
      (!wide &&
       (short_side * static_cast<std::int64_t>(elem_bytes) > skinny_any_size_tall_row_bytes ||
        any_size_column_tiles_mostly_full(a, elem_bytes))))
    return false;
  return short_side < 32 || !super_elements_aligned(a, elem_bytes, word_bytes);
}

void launch_copy_skinny_any_size(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream,
                                 int slab) {
  const bool wide = a.rows <= a.cols;
  if (wide ? a.rows > skinny_any_size_wide_max_rows : a.cols > skinny_any_size_max_side)
    throw error(status::internal_error, "skinny_any_size: " + std::to_string(a.rows) + " x " +
                                            std::to_string(a.cols) + " has neither at most " +
                                            std::to_string(skinny_any_size_wide_max_rows) +
                                            " rows and at least as many columns nor at most " +
                                            std::to_string(skinny_any_size_max_side) + " columns");
  if (slab < 1) throw error(status::internal_error, "skinny_any_size: slab of no bytes");
  with_any_size(elem_bytes, "skinny_any_size",
                [&](auto e) { launch_skinny_any_size_with<decltype(e)::value>(a, slab, stream); });
}

}  // namespace xpose::detail::cuda
