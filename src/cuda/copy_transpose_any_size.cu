// copy_any_size: out-of-place transposition of elements of 3 to 15 bytes that are not powers of
// two (see copy_transpose_any_size_kernel.cuh), with the policy of copy_transpose_policy.hpp.
#include <string>

#include "cuda/copy_transpose_any_size_kernel.cuh"
#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"

namespace xpose::detail::cuda {

bool copy_any_size_takes(std::size_t elem_bytes) {
  return elem_bytes >= 3 && elem_bytes <= 15 && (elem_bytes & (elem_bytes - 1)) != 0;
}

// On the H100 (2026-11-23, scripts/device_tune_policies.cu --any-size, run 10): with fewer rows
// than a tile most of each tile stays empty: 16 x 3000000 ran at 0.19-0.55 x copy, the
// super-element kernel at 0.53-0.81 for 6, 10, 12, 14 bytes and 0.22-0.32 for odd sizes (where
// copy_any_size was ahead from 7 bytes up: not taken, no measurement below 16 rows); 12-byte
// elements of 4-byte words on rows that start on 16 (source) and 32 (destination) bytes move as
// aligned 16-byte chunks there: 0.914 against 0.913 on 8192 x 8192, 0.924 against 0.839 on
// 64 x 1000000.
bool super_elements_aligned(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  const int e = static_cast<int>(elem_bytes);
  return word_bytes >= 4 && rows_aligned(a.src, a.lda, a.src_stride, a.batch, e, 16) &&
         rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, e, 32);
}

// On the H100 (2026-11-24, fourteenth session, 12-byte elements on such rows, 128 MiB, after
// copy_any_size lost its local memory), the super-element kernel stayed ahead only on tall
// shapes of at most 128 columns: 32-128 columns 0.93-0.97 x copy against copy_any_size's
// 0.90-0.95, 200-640 columns 0.93-0.97 against 0.94-0.99, wide and square shapes 0.87-0.95
// against 0.94-1.00 (8192 x 8192 0.92 against 0.94, 64 x 1000000 0.93 against 0.96).
bool super_elements_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  return a.rows > a.cols && a.cols <= super_elements_most_cols &&
         super_elements_aligned(a, elem_bytes, word_bytes);
}

// The same runs, short, wide shapes of odd widths against copy_full_height: copy_any_size ahead
// where its tiles load no halo and are full (3-byte 320 rows 0.98 against 0.96, 7-byte 96 rows
// 0.95 against 0.90, 12-byte 200 rows 0.99 against 0.94, 15-byte 96 rows 0.98 against 0.95),
// behind with one tile row (3-, 5-, 6-byte 64 rows 0.91-0.94 against 0.96-0.97) or a halo
// (3-byte 250 rows 0.72 against 0.92, 7-byte 250 rows 0.92 against 0.95; up to 0.03 ahead on
// 9-15 bytes) or tiles 3/4 full (12-byte 48 rows 0.90 against 0.96).
bool any_size_tiles_full(const copy_args& a, std::size_t elem_bytes) {
  const int e = static_cast<int>(elem_bytes);
  const std::int64_t tile_rows = any_size_tile_rows(e);
  const std::int64_t tiled = (a.rows + tile_rows - 1) / tile_rows * tile_rows;
  return a.rows >= 2 * tile_rows && 8 * a.rows >= 7 * tiled &&
         rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, e, 32);
}

bool copy_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  if (!copy_any_size_takes(elem_bytes)) return false;
  if (a.rows < any_size_tile_rows(static_cast<int>(elem_bytes))) return false;
  return !super_elements_chosen(a, elem_bytes, word_bytes);
}

// On the H100 (eighteenth session, docs/performance.md; x copy, three rounds): 1000000 x 200 (256
// columns covered against 210) 0.847 against 0.911 with the 42-column tiles; 1000000 x 128 (128
// against 168) 0.904-0.914 against 0.809-0.811, 524288 x 300 (320 against 336) 0.907-0.909
// against 0.868-0.870; 8192 x 8193 (8256 against 8232: the 1/32) 0.926-0.931 against 0.913-0.918.
namespace {
/// The columns that 3-byte tiles of 64 (wide) and 42 (narrow) columns cover for `a`.
struct covered_3_columns {
  std::int64_t wide, narrow;
  explicit covered_3_columns(const copy_args& a) {
    constexpr std::int64_t w = copy_any_size_aligned_3_policy::columns;
    constexpr std::int64_t n = copy_any_size_policy<3>::tile_bytes / 3;
    static_assert(n == copy_any_size_tall_3_policy::tile_bytes / 3, "both 42-column tiles");
    wide = (a.cols + w - 1) / w * w;
    narrow = (a.cols + n - 1) / n * n;
  }
};
}  // namespace

bool any_size_aligned_3_chosen(const copy_args& a) {
  const covered_3_columns covered(a);
  return rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, 3, 32) &&
         32 * covered.wide <= 33 * covered.narrow;
}

// Same harness runs: the 64-column tiles kept 1000000 x 128 (every column of 128 against 128 of
// 168: 0.905-0.915 against 0.884-0.885 on the tall tiles); 1000000 x 300 (300 of 320 against 300
// of 336) went to the tall tiles (0.937-0.938 against 0.914).
bool any_size_tall_3_chosen(const copy_args& a) {
  const covered_3_columns covered(a);
  // cols / covered.wide - cols / covered.narrow >= 1/8: the 64-column tiles.
  const bool wide_fill_better =
      8 * a.cols * (covered.narrow - covered.wide) >= covered.wide * covered.narrow;
  return rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, 3, 32) && a.rows >= 4 * a.cols &&
         !wide_fill_better;
}

void launch_copy_any_size(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream) {
  with_any_size(elem_bytes, "copy_any_size", [&](auto e) {
    constexpr int E = decltype(e)::value;
    if constexpr (E == 3) {
      if (any_size_tall_3_chosen(a))
        return launch_any_size_with<E, copy_any_size_tall_3_policy>(a, stream);
      if (any_size_aligned_3_chosen(a))
        return launch_any_size_with<E, copy_any_size_aligned_3_policy>(a, stream);
    }
    launch_any_size_with<E, copy_any_size_policy<E>>(a, stream);
  });
}

}  // namespace xpose::detail::cuda
