// copy_full_height for elements of 3 to 15 bytes that are not powers of two: short, wide
// matrices whose tile covers every row (see copy/full_height_any_size_kernel.cuh), with
// the tile width of the matrix's height and element size (full_height_any_size_tile_width).
#include <string>

#include "cuda/copy/full_height_any_size_kernel.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

/// Shared memory a tile may take (about: W x rows padded to 8; the odd-word pitch and the margins
/// add up to 2 KiB): less for 3- and 5-byte elements. On the H100 (thirteenth session,
/// docs/performance.md), 192 rows: 3-byte 0.86 x copy with 256-byte tile rows (a 48 KiB tile)
/// against 0.93 with 128-byte ones, 5-byte 0.86 against 0.94, while 6- to 15-byte elements
/// ran at 0.95-0.96 with the larger tile and 0.91-0.94 with the smaller; elsewhere the widest
/// tile within these budgets was the fastest of 64-, 128-, 256- and 512-byte rows, or within 0.01.
constexpr std::int64_t tile_budget(std::size_t elem_bytes) {
  return elem_bytes < 6 ? 40 * 1024 : 48 * 1024;
}

/// 288 threads where the tile's load items (16-byte chunks of 4-row groups) take two steps of
/// 288 and three of 256 (a step's loads wait for the step before): on the H100 (thirteenth
/// session, docs/performance.md) 65, 71, 139 and 143 rows of 3- to 15-byte elements went from
/// 0.85-0.94 x copy to 0.90-0.97. Four blocks of either size fit an SM (ptxas gives 54-64
/// registers to 256 threads, 56 to 288).
constexpr int fewer_steps_threads = 288;
/// Where 288 threads would take three load steps and 320 take two (576 to 640 load items: 3- to
/// 15-byte elements in 145 to 160 rows of 256-byte tile rows, 289 to 320 of 128-byte ones, 73 to
/// 80 of 512-byte ones), 320 threads, three blocks per SM (four spill 140 bytes). On the H100
/// (twenty-first session, docs/performance.md; harness, L2 evicted, x copy, two rounds), against
/// 256 threads in three steps: 14-byte 75 x 200001 0.938-0.941 against 0.917-0.925, 6-byte 146 x
/// 150001 0.928-0.931 against 0.914-0.916, 13-byte 320 x 30001 0.949-0.950 against 0.935-0.937,
/// 9-byte 150 x 80001 0.952-0.958 against 0.940-0.943, 10-byte 158 x 66870 0.944-0.949 against
/// 0.931-0.938, 3-byte 155 x 250001 0.928-0.930 against 0.919-0.922, 7-byte 157 x 123858
/// 0.944-0.950 against 0.936-0.941, 6-byte 311 x 50707 0.932-0.940 against 0.928-0.932, 12-byte
/// 158 x 60001 0.959-0.967 against 0.951-0.957; 5-byte 158 x 150001 level (0.941-0.942 against
/// 0.937-0.942), 11-byte 300 x 30001 behind (0.895-0.896 against 0.900-0.902).
constexpr int two_steps_threads = 320;

/// 3- and 5-byte elements in one_step_least_rows to one_step_most_rows rows take 128-byte tile
/// rows loaded in one step (threads: the tile's load items in whole warps, 160 to 224; five to
/// seven blocks per SM) instead of the widest tile (512 bytes to 80 rows, 256 above), whose load
/// takes two steps of 256 or 288 threads. On the H100 (seventeenth session, harness, L2 evicted,
/// 128 MiB, two rounds, docs/performance.md): 3-byte 76, 84, 92, 100, 108 rows 0.917 / 0.876 /
/// 0.928 / 0.895 / 0.930 x copy against 0.888 / 0.837 / 0.870 / 0.884 / 0.915, 5-byte 0.933 /
/// 0.888 / 0.928 / 0.908 / 0.935 against 0.906 / 0.846 / 0.876 / 0.889 / 0.920. Outside these rows
/// they ran behind: 116 and 124 rows (256 threads, four blocks) by 0.015-0.035, 65 rows (160
/// threads, seven blocks) 0.85 against 0.91-0.92. 7-, 9- and 12-byte elements split (76 and 100
/// rows ahead by 0.01-0.04, 84 and 92 behind by up to 0.01) and keep the widest tile. Since the
/// twenty-eighth session group_tile_for's tiles take 77 to 92 and 97 to 108 rows, which leaves
/// these 76, 93 to 96 and 109 to 112.
constexpr std::int64_t one_step_least_rows = 76, one_step_most_rows = 112;
bool one_step_tile(std::int64_t rows, std::size_t elem_bytes) {
  return (elem_bytes == 3 || elem_bytes == 5) && rows >= one_step_least_rows &&
         rows <= one_step_most_rows;
}

/// 3- and 5-byte elements in the load groups (4-row groups, (rows + 3) / 4) below take the
/// tile width, threads and blocks per SM of group_tile_for, loaded in two or three steps: more of
/// the matrix in flight than the widest tile's two steps of 256 or 288 threads (four blocks) or
/// the one-step tiles. On the H100 (twenty-eighth session, docs/performance.md; harness, L2
/// evicted, 128 MiB; 3-byte / 5-byte, x copy, against the tiles these replace; one round, two
/// for the 160-thread tiles of 256 bytes):
/// - 12 groups (48 rows), 256 bytes, 96 threads in two steps, ten blocks: 0.962 / 0.959 against
///   0.941 / 0.948;
/// - 13 to 15 (52 to 60 rows), 512 bytes, 160 threads in three steps, six blocks: 0.909-0.927 /
///   0.914-0.941 against 0.887-0.912 / 0.892-0.922;
/// - 17 (65 and 68 rows), 256 bytes, 96 threads in three steps, ten blocks: 0.928-0.936 /
///   0.933-0.943 against 0.910-0.911 / 0.922-0.932;
/// - 20 (80 rows), 256 bytes, 160 threads in two steps, seven blocks: 0.972-0.976 / 0.972-0.976
///   against 0.954 / 0.952;
/// - 21 to 23 (84 to 92 rows), 256 bytes, 128 threads in three steps, eight blocks: 0.927-0.945 /
///   0.928-0.961 against 0.868-0.918 / 0.881-0.941;
/// - 25 to 27 (100 to 108 rows), 256 bytes, 160 threads in three steps, seven blocks:
///   0.932-0.952 / 0.939-0.941 (100 rows) against 0.890-0.929 / 0.904-0.942 (six blocks:
///   0.906-0.940).
/// Elsewhere (16, 18, 19, 24, 28, 30 and 32 groups; 29 and 31 not measured) the tiles before were
/// ahead or within 0.008. The same candidates ran 0.02-0.1 behind where their last load step was
/// under 5/6 full or took four steps.
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
/// tiles (full_height_any_size_chosen). On the H100 (twenty-eighth session, docs/performance.md;
/// harness, L2 evicted, 128 MiB, two rounds, x copy, against copy_any_size): 324 x 138085
/// 0.931-0.937 against 0.887-0.888, 330 x 135573 0.936-0.937 against 0.925-0.929, 341 x 131201
/// 0.930-0.939 against 0.918-0.919, 353 x 126741 0.925-0.926 against 0.915-0.916 (256 threads
/// and four blocks within 0.02 of 384 either way). Behind copy_any_size on 352 rows (destination
/// rows on 32 bytes: 0.957-0.958 against 0.970-0.973) and from 360 to 400 rows (0.917-0.965
/// against 0.929-0.971); at 420 level. 5-byte elements in 321 to 384 rows: within 0.01 of
/// copy_any_size either way, not taken.
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

// 12-byte elements on the super-element kernel's aligned chunks from 32 rows: on the H100
// (2026-11-24, fourteenth session, 128 MiB) 32-44 rows ran at 0.89-0.98 x copy here against
// 0.89-0.90 on skinny_any_size, 0.73-0.97 on copy_any_size and 0.60-0.95 on the super-element
// kernel.
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
