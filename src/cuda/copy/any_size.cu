// copy_any_size: out-of-place transposition of elements of 3 to 15 bytes that are not powers of
// two (see copy/any_size_kernel.cuh), with the policies of tuning/any_size.hpp.
#include <string>

#include "cuda/copy/any_size_kernel.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

bool copy_any_size_takes(std::size_t elem_bytes) {
  return elem_bytes >= 3 && elem_bytes <= 15 && (elem_bytes & (elem_bytes - 1)) != 0;
}

// With fewer rows than a tile most of each copy_any_size tile stays empty (copy_any_size_chosen
// leaves such shapes to other kernels). 12-byte elements of 4-byte words on rows that start on 16
// (source) and 32 (destination) bytes move as aligned 16-byte chunks in the super-element kernel.
// H100: 16 x 3000000 0.19-0.55 x copy on copy_any_size.
bool super_elements_aligned(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  const int e = static_cast<int>(elem_bytes);
  return word_bytes >= 4 && rows_aligned(a.src, a.lda, a.src_stride, a.batch, e, 16) &&
         rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, e, 32);
}

// On such rows the super-element kernel runs ahead of copy_any_size only on tall shapes of at
// most super_elements_most_cols columns.
// H100: 12-byte, 32-128 columns 0.93-0.97 x copy against copy_any_size's 0.90-0.95.
bool super_elements_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  return a.rows > a.cols && a.cols <= super_elements_most_cols &&
         super_elements_aligned(a, elem_bytes, word_bytes);
}

// Short, wide shapes of odd widths that copy_full_height also takes go to copy_any_size where its
// tiles are full: without a halo, two tile rows or more at least 7/8 full (one tile row or tiles
// 3/4 full run behind); with a halo, from 7 bytes, more than three tile rows at least 9/10 full
// (3- to 6-byte elements keep copy_full_height).
// H100: 11-byte 300 rows 0.967 x copy on the halo tiles vs 0.918 on copy_full_height.
static_assert(copy_any_size_halo_wide_policy<7>::tile_rows ==
                      copy_any_size_halo_wide_policy<15>::tile_rows &&
                  copy_any_size_halo_policy<7>::tile_rows ==
                      copy_any_size_halo_policy<15>::tile_rows,
              "the halo tiles' rows are the same from 7 bytes on");
bool any_size_tiles_full(const copy_args& a, std::size_t elem_bytes) {
  const int e = static_cast<int>(elem_bytes);
  if (rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, e, 32)) {
    const std::int64_t tile_rows = any_size_tile_rows(e);
    return a.rows >= 2 * tile_rows && 8 * a.rows >= 7 * rows_in_whole_tiles(a.rows, tile_rows);
  }
  if (e < 7) return false;
  const std::int64_t tile_rows = any_size_tiles_for(a, elem_bytes) == any_size_tiles::halo_wide
                                     ? copy_any_size_halo_wide_policy<7>::tile_rows
                                     : copy_any_size_halo_policy<7>::tile_rows;
  return a.rows > 3 * tile_rows && 10 * a.rows >= 9 * rows_in_whole_tiles(a.rows, tile_rows);
}

bool copy_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  if (!copy_any_size_takes(elem_bytes)) return false;
  if (a.rows < any_size_tile_rows(static_cast<int>(elem_bytes))) return false;
  return !super_elements_chosen(a, elem_bytes, word_bytes);
}

namespace {
// The columns `columns`-column tiles cover.
std::int64_t covered_columns(const copy_args& a, std::int64_t columns) {
  return (a.cols + columns - 1) / columns * columns;
}
// Whether `columns`-column tiles fill a's columns at least 1/by better than `than`-column ones:
// cols / covered(columns) - cols / covered(than) >= 1 / by.
bool fills_columns_better(const copy_args& a, std::int64_t columns, std::int64_t than,
                          std::int64_t by) {
  const std::int64_t covered = covered_columns(a, columns);
  const std::int64_t covered_than = covered_columns(a, than);
  return by * a.cols * (covered_than - covered) >= covered * covered_than;
}
constexpr std::int64_t columns_32 = copy_any_size_3_columns_32_policy::columns;
static_assert(columns_32 == copy_any_size_3_halo_columns_32_policy::columns &&
                  columns_32 == copy_any_size_columns_32_policy<3>::columns &&
                  columns_32 == copy_any_size_columns_32_policy<15>::columns,
              "all 32 columns");
// The rows copy_any_size_columns_32_policy runs, from the least up to, not including, the most:
// 3 bytes below 16384 rows (level or behind from there), 5 to 15 bytes up to 8192.
// H100: 6-byte 12288 x 8192 0.919-0.920 x copy against 0.947-0.948.
constexpr std::int64_t columns_32_down_least_rows = 1024;
constexpr std::int64_t columns_32_down_most_rows(std::size_t elem_bytes) {
  return elem_bytes == 3 ? 16384 : 8193;
}
// The tile row bytes any_size_tiles_for compares from 6 bytes on (halo) and from 7 (tall).
constexpr int narrow_row_bytes = copy_any_size_halo_policy<6>::tile_bytes;
constexpr int wide_row_bytes = copy_any_size_halo_wide_policy<6>::tile_bytes;
static_assert(narrow_row_bytes == copy_any_size_tall_rows_96_policy::tile_bytes &&
                  wide_row_bytes == copy_any_size_tall_policy<7>::tile_bytes &&
                  narrow_row_bytes == copy_any_size_halo_policy<15>::tile_bytes &&
                  wide_row_bytes == copy_any_size_halo_wide_policy<15>::tile_bytes,
              "128- and 256-byte tile rows");

// 3-byte tiles on destination rows on 32 bytes (the policies' comments in tuning/any_size.hpp):
// the 32-column tiles where they take the shape, then 64 columns where they fill the columns 1/8
// better than 42; between 128 and 96 rows the fill of 128 x 42 tiles (rows and columns) decides.
// H100: at a fill of 0.83 and below 96 rows run up to 0.035 ahead, at 0.87 and above up to 0.015
// behind.
any_size_tiles aligned_3_tiles_for(const copy_args& a) {
  constexpr std::int64_t wide = copy_any_size_3_columns_64_policy::columns;
  constexpr std::int64_t narrow = copy_any_size_3_rows_128_policy::tile_bytes / 3;
  constexpr std::int64_t tall = copy_any_size_3_rows_128_policy::tile_rows;
  static_assert(narrow == copy_any_size_3_rows_96_policy::tile_bytes / 3, "both 42 columns");
  // copy_any_size_3_columns_32_policy's and copy_any_size_columns_32_policy's comments.
  if (a.rows >= 2 * a.cols && fills_columns_better(a, columns_32, narrow, 32))
    return any_size_tiles::columns_32;
  if (columns_32_down_takes(a, 3, narrow)) return any_size_tiles::columns_32_down;
  if (fills_columns_better(a, wide, narrow, 8)) return any_size_tiles::columns_64;
  const double fill = static_cast<double>(a.rows) / rows_in_whole_tiles(a.rows, tall) *
                      static_cast<double>(a.cols) / static_cast<double>(covered_columns(a, narrow));
  return fill >= 0.85 ? any_size_tiles::rows_128 : any_size_tiles::rows_96;
}
}  // namespace

bool columns_32_down_takes(const copy_args& a, std::size_t elem_bytes, std::int64_t other_columns) {
  return elem_bytes != 9 && tiles_walk_down(a.rows, a.cols) &&
         a.rows >= columns_32_down_least_rows && a.rows < columns_32_down_most_rows(elem_bytes) &&
         !fills_columns_better(a, other_columns, columns_32, 32);
}

// Where every destination row starts on 32 bytes, 5 to 15 bytes take the tall tiles from 3 rows
// a column (at 2 they run level); 96 rows of 128 bytes: copy_any_size_tall_rows_96_policy's
// comment. Rows off 32 bytes: copy_any_size_halo_policy's and copy_any_size_halo_wide_policy's
// comments; 32 and 34 columns for 3 bytes: copy_any_size_3_columns_32_policy's and the halo ones'
// comments (tuning/any_size.hpp).
// H100: at 3 rows a column the tall tiles are 0.003-0.014 x copy ahead for every size.
any_size_tiles any_size_tiles_for(const copy_args& a, std::size_t elem_bytes) {
  const int e = static_cast<int>(elem_bytes);
  // From 6 bytes (halo) and 7 (tall): whether tiles of 128-byte rows fill the columns at least
  // 1/10 better than tiles of 256-byte rows.
  const bool narrow_rows_fill_better =
      e >= 6 && fills_columns_better(a, narrow_row_bytes / e, wide_row_bytes / e, 10);
  if (!rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, e, 32)) {
    constexpr std::int64_t halo_3_columns = copy_any_size_halo_policy<3>::tile_bytes / 3;
    constexpr std::int64_t columns_34 = copy_any_size_3_halo_columns_34_policy::columns;
    if (e == 3 && a.rows >= 2 * a.cols) {
      if (fills_columns_better(a, columns_32, halo_3_columns, 10))
        return any_size_tiles::halo_columns_32;
      if (fills_columns_better(a, columns_34, halo_3_columns, 10))
        return any_size_tiles::halo_columns_34;
    }
    return e < 6 || narrow_rows_fill_better ? any_size_tiles::halo : any_size_tiles::halo_wide;
  }
  if (e == 3) return aligned_3_tiles_for(a);
  if (a.rows < 3 * a.cols)  // copy_any_size_columns_32_policy's comment
    return columns_32_down_takes(a, elem_bytes, any_size_tile_bytes(e) / e)
               ? any_size_tiles::columns_32_down
               : any_size_tiles::standard;
  if (e >= 7) return narrow_rows_fill_better ? any_size_tiles::tall_rows_96 : any_size_tiles::tall;
  const std::int64_t covered = covered_columns(a, any_size_tile_bytes(e) / e);
  return 10 * a.cols < 9 * covered ? any_size_tiles::tall_rows_96 : any_size_tiles::tall;
}

namespace {
template <class Policy>
struct policy_tag {
  using type = Policy;
};
/// Calls f(integral_constant<int, E>, policy_tag<Policy>) with `elem_bytes` and the policy
/// copy_any_size runs `a` with (any_size_tiles_for).
template <class F>
void with_any_size_policy(const copy_args& a, std::size_t elem_bytes, F&& f) {
  with_any_size(elem_bytes, "copy_any_size", [&](auto e) {
    constexpr int E = decltype(e)::value;
    const any_size_tiles tiles = any_size_tiles_for(a, E);
    if (tiles == any_size_tiles::halo) return f(e, policy_tag<copy_any_size_halo_policy<E>>{});
    if constexpr (E != 9) {
      if (tiles == any_size_tiles::columns_32_down)
        return f(e, policy_tag<copy_any_size_columns_32_policy<E>>{});
    }
    if constexpr (E >= 6) {
      if (tiles == any_size_tiles::halo_wide)
        return f(e, policy_tag<copy_any_size_halo_wide_policy<E>>{});
    }
    if constexpr (E == 3) {
      switch (tiles) {
        case any_size_tiles::rows_128:
          return f(e, policy_tag<copy_any_size_3_rows_128_policy>{});
        case any_size_tiles::rows_96:
          return f(e, policy_tag<copy_any_size_3_rows_96_policy>{});
        case any_size_tiles::columns_64:
          return f(e, policy_tag<copy_any_size_3_columns_64_policy>{});
        case any_size_tiles::columns_32:
          return f(e, policy_tag<copy_any_size_3_columns_32_policy>{});
        case any_size_tiles::halo_columns_32:
          return f(e, policy_tag<copy_any_size_3_halo_columns_32_policy>{});
        case any_size_tiles::halo_columns_34:
          return f(e, policy_tag<copy_any_size_3_halo_columns_34_policy>{});
        default:
          break;
      }
    } else {
      switch (tiles) {
        case any_size_tiles::tall:
          return f(e, policy_tag<copy_any_size_tall_policy<E>>{});
        case any_size_tiles::tall_rows_96:
          return f(e, policy_tag<copy_any_size_tall_rows_96_policy>{});
        case any_size_tiles::standard:
          return f(e, policy_tag<copy_any_size_policy<E>>{});
        default:
          break;
      }
    }
    throw error(status::internal_error, "copy_any_size: no tiles of kind " +
                                            std::to_string(static_cast<int>(tiles)) + " for " +
                                            std::to_string(E) + "-byte elements");
  });
}
}  // namespace

void launch_copy_any_size(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream,
                          int regions) {
  with_any_size_policy(a, elem_bytes, [&](auto e, auto policy) {
    launch_any_size_with<decltype(e)::value, typename decltype(policy)::type>(a, stream, regions);
  });
}

std::string any_size_tiles_text(const copy_args& a, std::size_t elem_bytes) {
  std::string text;
  with_any_size_policy(a, elem_bytes, [&](auto e, auto policy) {
    constexpr int E = decltype(e)::value;
    using tile_t = any_size_tile<E, typename decltype(policy)::type>;
    text = "tiles of " + std::to_string(tile_t::R) + " rows x " + std::to_string(tile_t::C) +
           " columns";
    if (!rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 32))
      text += " and a halo of " + std::to_string(tile_t::halo) + " rows";
  });
  return text;
}

}  // namespace xpose::detail::cuda
