// skinny_any_size: out-of-place transposition of skinny matrices of elements of 3 to 15 bytes
// that are not powers of two (see copy/skinny_any_size_kernel.cuh).
#include <string>

#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"
#include "cuda/copy/skinny_any_size_kernel.cuh"

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
// Rows of more than skinny_any_size_tall_row_bytes take the same 3/4 rule for every element
// size (before the seventeenth session they all went to copy_any_size). H100, seventeenth
// session, 1000001 rows, harness with the L2 evicted, two rounds: at 3/4 or less the 32 KiB slabs
// ran 9-byte 57 columns 0.80 against 0.79 there, 11-byte 48 0.85 against 0.82, 13-byte 40 0.81
// against 0.75, 14-byte 40 0.86 against 0.80 (12-byte 48 0.87 against 0.86); above it copy_any_size
// stayed ahead (13-byte 57 0.93 against 0.79, 14-byte 57 0.84 against 0.73, 11-byte 64 0.94
// against 0.76) or within 0.015 (13-byte 31, 82% full, 0.84 against 0.85).
namespace {
/// Whether copy_any_size's column tiles would hold the matrix's columns more than 3/4 full (and
/// it has the rows of one tile).
bool any_size_column_tiles_mostly_full(const copy_args& a, int e) {
  const std::int64_t tile_columns = any_size_tile_bytes(e) / e;
  const std::int64_t covered = (a.cols + tile_columns - 1) / tile_columns * tile_columns;
  return a.rows >= any_size_tile_rows(e) && 4 * a.cols > 3 * covered;
}
}  // namespace

bool skinny_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  if (!copy_any_size_takes(elem_bytes)) return false;
  const int e = static_cast<int>(elem_bytes);
  const bool wide = a.rows <= a.cols;
  const std::int64_t short_side = wide ? a.rows : a.cols;
  if ((wide && short_side >= full_height_any_size_least_rows) ||
      short_side > skinny_any_size_max_side)
    return false;
  if (!wide) {
    // Longer rows and fewer rows than copy_any_size's tile: the super-element kernel, as before.
    const bool long_rows = short_side * e > skinny_any_size_tall_row_bytes;
    const bool mostly_full = any_size_column_tiles_mostly_full(a, e);
    if (long_rows ? a.rows < any_size_tile_rows(e) || mostly_full : e <= 12 && mostly_full)
      return false;
  }
  return short_side < 32 || !super_elements_aligned(a, elem_bytes, word_bytes);
}

// Tall slabs of 31 columns or more of elements from 5 bytes take 32 KiB. H100, seventeenth
// session (harness, L2 evicted, 1000001 rows, two rounds), 32 against 24 KiB where the dispatch
// takes the slabs: 5-byte 31 and 33 columns 0.88 / 0.85 against 0.86 / 0.84, 7-byte 40 and 48
// 0.86 / 0.85 against 0.84 / 0.81, 9-byte 31 0.89 against 0.83, 11-byte 31 0.88 against 0.84,
// 12-byte 31 0.88 against 0.86, 6-byte 31 and 9-byte 40 level; with 17 columns 24 KiB stayed
// ahead (5-, 9-, 10-, 11-, 13-, 14-byte 0.87-0.89 against 0.84-0.87), with 24 columns the two
// split (7-, 12-, 13-, 14-byte ahead at 32, 6- and 15-byte behind), and for 3-byte elements 24
// KiB was ahead on 17-40 columns (0.86-0.87 against 0.83-0.84). 40 KiB ran 0.61-0.72 on most
// shapes (0.83-0.88 on a few rows over 384 bytes).
int skinny_any_size_slab_for(const copy_args& a, std::size_t elem_bytes) {
  const bool tall = a.rows > a.cols;
  return tall && elem_bytes >= 5 && a.cols >= skinny_any_size_many_columns
             ? skinny_any_size_many_columns_slab_bytes
             : skinny_any_size_slab_bytes;
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
  if (slab == 0) slab = skinny_any_size_slab_for(a, elem_bytes);
  if (slab < 1) throw error(status::internal_error, "skinny_any_size: slab of no bytes");
  with_any_size(elem_bytes, "skinny_any_size",
                [&](auto e) { launch_skinny_any_size_with<decltype(e)::value>(a, slab, stream); });
}

}  // namespace xpose::detail::cuda
