// skinny_any_size: out-of-place transposition of skinny matrices of elements of 3 to 15 bytes
// that are not powers of two (see copy/skinny_any_size_kernel.cuh).
#include <string>

#include "cuda/copy/launchers.hpp"
#include "cuda/copy/skinny_any_size_kernel.cuh"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

// The slabs take skinny shapes of 3- to 15-byte elements, whose tiles on copy_any_size and the
// super-element kernel would be mostly empty: wide shapes (no more rows than columns, small and
// square ones too) of fewer rows than copy_full_height takes, and tall ones of at most
// skinny_any_size_max_side columns. Shapes of 32 rows or columns and more whose rows the
// super-element kernel moves in aligned chunks stay there.
// H100: wide shapes of 2 to 64 rows 0.76-0.95 x copy here, 0.04-0.84 on copy_any_size and the
// super-element kernel.
// Tall shapes whose columns fill copy_any_size's column tiles (any_size_tile_bytes / E columns
// each) more than 3/4 go there: elements up to 12 bytes, and every element size in rows of more
// than skinny_any_size_tall_row_bytes (15-byte elements in shorter rows stay on the slabs, which
// run steadier); at 3/4 or less the slabs stay ahead or level.
// H100: 9-byte 24 columns 0.91 x copy there vs 0.86 on the slabs.
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
    // Longer rows in fewer rows than copy_any_size's tile: the super-element kernel.
    const bool long_rows = short_side * e > skinny_any_size_tall_row_bytes;
    const bool mostly_full = any_size_column_tiles_mostly_full(a, e);
    if (long_rows ? a.rows < any_size_tile_rows(e) || mostly_full : e <= 12 && mostly_full)
      return false;
  }
  return short_side < 32 || !super_elements_aligned(a, elem_bytes, word_bytes);
}

// Tall slabs of 31 columns or more of elements from 5 bytes take 32 KiB; fewer columns and 3-byte
// elements run ahead on 24 KiB, and 40 KiB runs at 0.61-0.72 x copy on most shapes.
// H100: 9-byte 31 columns 0.89 x copy at 32 KiB vs 0.83 at 24.
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
