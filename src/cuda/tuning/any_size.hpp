// copy_any_size's tiles (elements of 3 to 15 bytes that are not powers of two, rows of any
// alignment): tile_rows source rows (tile_rows * E a multiple of 32) x tile_bytes / E columns (or
// `columns` where a policy names fewer), threads per block, resident blocks per SM asked of
// ptxas. any_size_tiles_for (copy/any_size.cu) picks one per shape and destination alignment.
#pragma once

#include <type_traits>

#include "cuda/tuning/tile_policy.hpp"

namespace xpose::detail::cuda {

/// The whole warps that load a tile with its halo of ceil(31 / E) rows in one step, one lane per
/// 16-byte chunk of four rows.
constexpr int any_size_one_step_threads(int e, int tile_rows, int tile_bytes) {
  return ((tile_rows + (31 + e - 1) / e + 3) / 4 * (tile_bytes / 16) + 31) / 32 * 32;
}
/// The standard tiles' rows and row bytes; the rows also set the fewest rows the dispatch runs
/// copy_any_size on (copy_any_size_chosen) and what any_size_tiles_full counts.
constexpr int any_size_tile_rows(int e) {
  return e < 7 ? 64 : 32;
}
constexpr int any_size_tile_bytes(int e) {
  return e < 7 ? 128 : 256;
}
/// Standard tiles: 5 to 15 bytes, destination rows on 32 bytes, fewer than three rows a column.
/// H100: six blocks per SM 0.86-0.91 x copy on 64 x 1000000 vs 0.77-0.85 at four.
template <int E>
struct copy_any_size_policy
    : tile_policy<any_size_tile_rows(E), any_size_tile_bytes(E),
                  any_size_one_step_threads(E, any_size_tile_rows(E), any_size_tile_bytes(E)), 6> {
};
template <int R, int W, int THREADS, int MIN_BLOCKS, int COLUMNS>
struct any_size_columns_policy : tile_policy<R, W, THREADS, MIN_BLOCKS> {
  static constexpr int columns = COLUMNS;  ///< tile columns, fewer than W / E
};
/// 3 bytes, destination rows on 32 bytes: 128 x 42 where those tiles are at least 0.85 full.
/// H100: 16384^2 0.936-0.938 x copy vs 0.912-0.914 for 32 x 64 tiles.
using copy_any_size_3_rows_128_policy = tile_policy<128, 128, 256, 4>;
/// 96 x 42 where 128 x 42 tiles are less full. H100: 1000000 x 90 0.903-0.905 vs 0.868-0.870.
using copy_any_size_3_rows_96_policy = tile_policy<96, 128, 192, 5>;
/// 32 x 64 where 64 columns fill the columns 1/8 better than 42.
/// H100: 1000000 x 128 0.904-0.917 x copy vs 0.887-0.888 for 128 x 42.
using copy_any_size_3_columns_64_policy = any_size_columns_policy<32, 256, 128, 8, 64>;
/// 96 x 32 on at least two rows a column where 32 columns fill the columns 1/32 better than 42.
/// H100: 1000000 x 96 0.950 x copy vs 0.918-0.919.
using copy_any_size_3_columns_32_policy = any_size_columns_policy<96, 128, 192, 5, 32>;
/// 32-column tiles on shapes whose tiles walk down (columns_32_down_takes): a tile row of 32 E
/// bytes starts on 32 bytes where the source rows do.
/// H100: 3-byte 8192 x 4096 0.944-0.946 x copy vs 0.928-0.929 for 128 x 42.
template <int E>
struct copy_any_size_columns_32_policy
    : any_size_columns_policy<(E < 9 ? 64 : 32),
                              (E < 5   ? 128
                               : E < 9 ? 256
                                       : 512),
                              (E == 3 || E == 5 || E == 10 || E == 11 ? 128 : 256),
                              (E == 3 || E == 5 || E == 10 || E == 11 ? 8 : 4), 32> {
  static_assert(E != 9, "9-byte elements keep copy_any_size_policy<9>: 32 columns ran behind");
};
/// 3 bytes, destination rows off 32 bytes, tall: 128 rows loaded in two steps by 160 threads,
/// seven blocks per SM, of 32 or 34 columns. H100: 1000001 x 128 0.933-0.935 x copy vs
/// 0.891-0.895 for the one-step 96-row tiles.
template <int COLUMNS>
using copy_any_size_3_halo_narrow_policy = any_size_columns_policy<128, 128, 160, 7, COLUMNS>;
using copy_any_size_3_halo_columns_32_policy = copy_any_size_3_halo_narrow_policy<32>;
/// H100: 1000001 x 100 0.916-0.918 x copy vs 0.885-0.888 for 96 x 42.
using copy_any_size_3_halo_columns_34_policy = copy_any_size_3_halo_narrow_policy<34>;
/// Tall shapes (three rows a column or more), 5 to 15 bytes, destination rows on 32 bytes.
/// H100: x 64 and x 65 0.914-0.966 x copy vs 0.853-0.936 for the standard tiles.
template <int E>
struct copy_any_size_tall_policy : tile_policy<(E < 7 ? 128 : 64), any_size_tile_bytes(E), 256, 4> {
};
/// Tall tiles of 128-byte rows where they fill the columns better.
/// H100: 6-byte 1000000 x 64 0.932-0.933 x copy vs 0.916-0.921 for the tall tiles.
using copy_any_size_tall_rows_96_policy = tile_policy<96, 128, 192, 6>;
/// Destination rows off 32 bytes (the tiles load a halo): 96 rows of 128 bytes in one step.
/// H100: 5-byte 1000001 x 65 0.932-0.934 x copy vs 0.888-0.890 for the standard tiles.
template <int E>
struct copy_any_size_halo_policy : tile_policy<96, 128, any_size_one_step_threads(E, 96, 128), 5> {
};
/// The same with 256-byte rows from 6 bytes. H100: 9-byte 1000001 x 65 0.915-0.916 x copy vs
/// 0.845-0.846 for the standard tiles.
template <int E>
struct copy_any_size_halo_wide_policy
    : tile_policy<(E < 7 ? 96 : 64), 256, any_size_one_step_threads(E, (E < 7 ? 96 : 64), 256),
                  (E < 7 ? 3 : 4)> {
  static_assert(E >= 6, "5- and 3-byte elements take 128-byte rows");
};
/// A copy_any_size policy's tile columns: its `columns` where it names them, else W / E.
template <class Policy, int E, class = void>
struct any_size_columns : std::integral_constant<int, Policy::tile_bytes / E> {};
template <class Policy, int E>
struct any_size_columns<Policy, E, std::void_t<decltype(Policy::columns)>>
    : std::integral_constant<int, Policy::columns> {};

}  // namespace xpose::detail::cuda
