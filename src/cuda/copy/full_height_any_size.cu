// copy_full_height for elements of 3 to 15 bytes that are not powers of two: short, wide
// matrices whose tile covers every row (see copy/full_height_any_size_kernel.cuh), with
// the tile width of the matrix's height and element size (full_height_any_size_tile_width).
#include <string>

#include "cuda/copy/full_height_any_size_kernel.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

/// Shared memory a tile may take (about: W x rows padded to 8; the odd-word pitch and the margins
/// add up to 2 KiB): less for 3- and 5-byte elements, whose 48 KiB tiles run behind narrower ones;
/// for the others the widest tile within these budgets is the fastest of 64-, 128-, 256- and
/// 512-byte rows, or within 0.01.
/// H100: 3-byte 192 rows 0.86 x copy with 256-byte tile rows (a 48 KiB tile) against 0.93 with
/// 128-byte ones.
constexpr std::int64_t tile_budget(std::size_t elem_bytes) {
  return elem_bytes < 6 ? 40 * 1024 : 48 * 1024;
}

/// 288 threads where the tile's load items (16-byte chunks of 4-row groups) take two steps of
/// 288 and three of 256 (a step's loads wait for the step before). Four blocks of either size fit
/// an SM (ptxas gives 54-64 registers to 256 threads, 56 to 288).
/// H100: 65, 71, 139 and 143 rows of 3- to 15-byte elements 0.85-0.94 x copy -> 0.90-0.97.
constexpr int fewer_steps_threads = 288;
/// Where 288 threads would take three load steps and 320 take two (576 to 640 load items: 3- to
/// 15-byte elements in 145 to 160 rows of 256-byte tile rows, 289 to 320 of 128-byte ones, 73 to
/// 80 of 512-byte ones), 320 threads, three blocks per SM (four spill 140 bytes).
/// H100: 14-byte 75 x 200001 0.938-0.941 x copy against 0.917-0.925 for 256 threads in three steps.
constexpr int two_steps_threads = 320;

/// 3- and 5-byte elements in one_step_least_rows to one_step_most_rows rows take 128-byte tile
/// rows loaded in one step (threads: the tile's load items in whole warps, 160 to 224; five to
/// seven blocks per SM) instead of the widest tile (512 bytes to 80 rows, 256 above), whose load
/// takes two steps of 256 or 288 threads. Outside these rows they run behind; 7-, 9- and 12-byte
/// elements keep the widest tile (ahead on some rows, behind on others). group_tile_for's tiles
/// take 77 to 92 and 97 to 108 rows first, which leaves these 76, 93 to 96 and 109 to 112.
/// H100: 3-byte 76 rows 0.917 x copy against 0.888.
constexpr std::int64_t one_step_least_rows = 76, one_step_most_rows = 112;
bool one_step_tile(std::int64_t rows, std::size_t elem_bytes) {
  return (elem_bytes == 3 || elem_bytes == 5) && rows >= one_step_least_rows &&
         rows <= one_step_most_rows;
}

/// 3- and 5-byte elements in the load groups (4-row groups, (rows + 3) / 4) below take the
/// tile width, threads and blocks per SM of group_tile_for, loaded in two or three steps: more of
/// the matrix in flight than the widest tile's two steps of 256 or 288 threads (four blocks) or
/// the one-step tiles. Other group counts keep those tiles; such candidates fall 0.02-0.1 behind
/// where their last load step is under 5/6 full or they take four steps.
/// H100: 3-byte 84 to 92 rows (21 to 23 groups) 0.927-0.945 x copy against 0.868-0.918.
struct group_tile {
  int width, threads, blocks;
};
constexpr group_tile group_tile_for(std::int64_t rows, std::size_t elem_bytes) {
  const std::int64_t groups = (rows + 3) / 4;
  if (elem_bytes != 3 && elem_bytes != 5) return {0, 0, 0};
  if (groups == 12 || groups == 17) return {256, 96, 10};
  if (groups >= 13 && groups <= 15) return {512, 160, 6};
  if (groups == 20 || (groups >= 25 && groups <= 27)) return {256, 160, 7};
  if (groups >= 21 && groups <= 23) return {256, 128, 8};
  return {0, 0, 0};
}

/// Launches group_tile_for's tile if it is W bytes wide with THREADS threads and BLOCKS blocks per
/// SM (the tiles' shared memory, at most 31 KiB, lets as many in); false where it is not.
template <int E, int W, int THREADS, int BLOCKS>
bool launch_group_tile(const copy_args& a, cudaStream_t stream, unsigned regions) {
  const group_tile tile = group_tile_for(a.rows, E);
  if (tile.width != W || tile.threads != THREADS || tile.blocks != BLOCKS) return false;
  launch_full_height_any_size_with<E, full_height_policy<W, THREADS, BLOCKS>>(a, stream, regions);
  return true;
}

/// 3-byte elements in wide_3_least_rows to wide_3_most_rows rows take 128-byte tiles (40 to 44
/// KiB, past tile_budget from 329 rows) of 384 threads (two load steps), three blocks per SM, and,
/// where a destination row starts off 32 bytes, copy_full_height instead of copy_any_size's halo
/// tiles (full_height_any_size_chosen). On destination rows on 32 bytes and from 360 rows
/// copy_any_size runs ahead; 5-byte elements run within 0.01 of it either way and keep it.
/// H100: 324 x 138085 0.931-0.937 x copy against 0.887-0.888 on copy_any_size.
constexpr std::int64_t wide_3_least_rows = 321, wide_3_most_rows = 353;
constexpr int wide_3_threads = 384;
constexpr bool wide_3_tile(std::int64_t rows, std::size_t elem_bytes) {
  return elem_bytes == 3 && rows >= wide_3_least_rows && rows <= wide_3_most_rows;
}

template <int E, int W>
void launch_width(const copy_args& a, cudaStream_t stream, unsigned regions) {
  if constexpr (E == 3 && W == 128) {
    if (wide_3_tile(a.rows, E))
      return launch_full_height_any_size_with<E, full_height_policy<W, wide_3_threads, 3>>(
          a, stream, regions);
  }
  if constexpr ((E == 3 || E == 5) && W == 256) {
    if (launch_group_tile<E, W, 96, 10>(a, stream, regions) ||
        launch_group_tile<E, W, 128, 8>(a, stream, regions) ||
        launch_group_tile<E, W, 160, 7>(a, stream, regions))
      return;
  }
  if constexpr ((E == 3 || E == 5) && W == 512) {
    if (launch_group_tile<E, W, 160, 6>(a, stream, regions)) return;
  }
  // A group_tile_for entry without its instantiation above would run other tiles unnoticed.
  if (group_tile_for(a.rows, E).width == W)
    throw error(status::internal_error, "copy_full_height: no launch for the measured tile of " +
                                            std::to_string(a.rows) + " rows");
  if constexpr (W == 128 && (E == 3 || E == 5)) {
    if (one_step_tile(a.rows, E)) {
      const std::int64_t items = (a.rows + 3) / 4 * (W / 16);
      if (items <= 160)
        return launch_full_height_any_size_with<E, full_height_policy<W, 160, 7>>(a, stream,
                                                                                  regions);
      if (items <= 192)
        return launch_full_height_any_size_with<E, full_height_policy<W, 192, 6>>(a, stream,
                                                                                  regions);
      return launch_full_height_any_size_with<E, full_height_policy<W, 224, 5>>(a, stream, regions);
    }
  }
  if (loads_in_two_steps_of(a.rows, W, fewer_steps_threads))
    return launch_full_height_any_size_with<E, full_height_policy<W, fewer_steps_threads>>(
        a, stream, regions);
  if (loads_in_two_steps_of(a.rows, W, two_steps_threads))
    return launch_full_height_any_size_with<E, full_height_policy<W, two_steps_threads, 3>>(
        a, stream, regions);
  launch_full_height_any_size_with<E, full_height_policy<W, 256>>(a, stream, regions);
}

}  // namespace

int full_height_any_size_tile_width(std::int64_t rows, std::size_t elem_bytes) {
  const int group_width = group_tile_for(rows, elem_bytes).width;
  if (group_width != 0) return group_width;
  if (one_step_tile(rows, elem_bytes) || wide_3_tile(rows, elem_bytes)) return 128;
  const std::int64_t padded = (rows + 7) / 8 * 8;
  for (int width = 512; width >= 64; width /= 2)
    if (width * padded <= tile_budget(elem_bytes)) return width;
  return 0;
}

// 12-byte elements on the super-element kernel's aligned chunks from 32 rows
// (full_height_any_size_least_aligned_rows).
// H100: 32-44 rows 0.89-0.98 x copy here, 0.60-0.95 on the super-element kernel.
bool full_height_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  const std::int64_t least_rows = super_elements_aligned(a, elem_bytes, word_bytes)
                                      ? full_height_any_size_least_aligned_rows
                                      : full_height_any_size_least_rows;
  if (!copy_any_size_takes(elem_bytes) || a.rows > a.cols || a.rows < least_rows) return false;
  if (wide_3_tile(a.rows, elem_bytes))
    return !rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, 3, 32);
  return a.rows <= full_height_any_size_most_rows && !any_size_tiles_full(a, elem_bytes);
}

void launch_copy_full_height_any_size(const copy_args& a, std::size_t elem_bytes,
                                      cudaStream_t stream, int regions) {
  if (!copy_any_size_takes(elem_bytes))
    throw error(status::internal_error, "copy_full_height: element size " +
                                            std::to_string(elem_bytes) +
                                            " is not 3 to 15 bytes and not a power of two");
  const int width = full_height_any_size_tile_width(a.rows, elem_bytes);
  if (width == 0 || a.rows * static_cast<std::int64_t>(elem_bytes) < 16)
    throw error(status::internal_error, "copy_full_height: " + std::to_string(a.rows) +
                                            " rows of " + std::to_string(elem_bytes) +
                                            "-byte elements do not fit one tile");
  const unsigned strip_regions =
      chosen_regions(regions, full_height_regions(a, elem_bytes), "copy_full_height");
  with_any_size(elem_bytes, "copy_full_height", [&](auto e) {
    with_full_height_width(width, [&](auto w) {
      launch_width<decltype(e)::value, decltype(w)::value>(a, stream, strip_regions);
    });
  });
}

}  // namespace xpose::detail::cuda
