// copy_full_height: out-of-place transposition of short, wide matrices of 1-, 2-, 4- and 8-byte
// elements whose tile covers every row (see copy/full_height_kernel.cuh), with the
// tile width of the matrix's height (full_height_tile_width).
#include <string>

#include "cuda/copy/full_height_kernel.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

/// Five resident blocks per SM asked of ptxas for 1- and 2-byte elements (48 registers a thread
/// instead of 52, so five blocks fit instead of four; no spills) where the tile has at most
/// full_height_five_blocks_bytes of shared memory (five larger ones would leave L1 little; not
/// profiled). On the H100 (twelfth session, runs 17-18): 1-byte 100 x 1342177 0.890 -> 0.915,
/// 200 x 671073 0.87 -> 0.90, 2-byte 41 x 1636801 0.89 -> 0.93, 65 x 1032417 (a 36.5 KiB tile)
/// 0.90 -> 0.94; with larger tiles five blocks ran behind (1-byte 300 x 447393, 38.2 KiB, 0.91 ->
/// 0.79; 160 x 1000000, 40.3 KiB, 0.96 -> 0.93), as did 4-byte elements (81 x 414001 0.97 ->
/// 0.95; 8-byte level); six blocks spilled and ran 0.68-0.85.
constexpr int full_height_five_blocks_bytes = 38 * 1024;

/// Larger 1- and 2-byte tiles take 320 threads (four resident blocks asked of ptxas: 48
/// registers, no spills) where the tile's load items (16-byte chunks of 4-row groups) take two
/// steps of 320 and three of 256 (a step's loads wait for the step before). On the H100
/// (thirteenth session, docs/performance.md): 1-byte 300 x 447393 0.91 -> 0.93-0.94, 319 x 420743
/// 0.91-0.92 -> 0.92-0.93, 2-byte 300 x 223697 0.93 -> 0.95. Against five blocks on tiles of at
/// most 38 KiB it was ahead on some (1-byte 290 x 462819 0.93-0.94 -> 0.95, 2-byte 140 x 479349
/// 0.94 -> 0.95) and behind on others (1-byte 129 x 1040417 0.95 -> 0.93-0.94, 65 x 2064833
/// 0.94 -> 0.93-0.94): five blocks keep those. Where 320 threads take three steps too they ran
/// behind (4-byte 81 x 414001 0.97 -> 0.95); 4- and 8-byte elements keep 256 threads (not
/// measured with 320 on two steps: their 4-byte tiles spill).
constexpr int fewer_steps_threads = 320;

/// 1-byte elements in 505 to 512 rows (a 128-byte-wide tile: full_height_tile_width) take 512
/// threads, whose two load steps the tile's 1016 to 1024 load items fill, two blocks per SM. On the
/// H100 (twenty-eighth session, docs/performance.md; harness, L2 evicted, 128 MiB, one or two
/// rounds, x copy), against the 64-byte tile of 256 threads and five blocks: 512 rows 0.964-0.969
/// against 0.928-0.931, 505 and 509 rows 0.905-0.910 against 0.868-0.874; but 504 rows behind
/// (0.927-0.930 against 0.936-0.938), 480 rows ahead by 0.004-0.017 in two runs, 417 and 450 rows
/// behind (0.841-0.865 and 0.892 against 0.900-0.908 and 0.921): hence 505 to 512 rows only.
constexpr std::int64_t two_full_steps_least_rows = 505, two_full_steps_most_rows = 512;
constexpr int two_full_steps_threads = 512;

template <int E, int W>
void launch_width(const copy_args& a, cudaStream_t stream, unsigned regions) {
  using five_blocks = full_height_policy<W, 256, 5>;
  if constexpr (E == 1 && W == 128) {
    if (a.rows >= two_full_steps_least_rows)
      return launch_full_height_with<E, full_height_policy<W, two_full_steps_threads, 2>>(a, stream,
                                                                                          regions);
  }
  if constexpr (E <= 2) {
    if (full_height_tile<E, five_blocks>::shared_bytes(static_cast<int>(a.rows)) <=
        full_height_five_blocks_bytes)
      return launch_full_height_with<E, five_blocks>(a, stream, regions);
    if (loads_in_two_steps_of(a.rows, W, fewer_steps_threads))
      return launch_full_height_with<E, full_height_policy<W, fewer_steps_threads, 4>>(a, stream,
                                                                                       regions);
  }
  launch_full_height_with<E, full_height_policy<W, 256>>(a, stream, regions);
}

}  // namespace

int full_height_tile_width(std::int64_t rows, int word_bytes) {
  if (word_bytes == 1 && rows >= two_full_steps_least_rows && rows <= two_full_steps_most_rows)
    return 128;
  const std::int64_t padded = (rows + 7) / 8 * 8;
  for (int width = 512; width >= 64; width /= 2)
    if (width * padded <= full_height_tile_budget) {
      // Tiles that fill the budget take half the width (64 bytes stay): 1-byte tiles of 512 bytes
      // (89 to 96 rows; thirteenth session, docs/performance.md: 96 x 1400000 0.940-0.948 x copy
      // against 0.946-0.969 (five blocks), 95 x 1412819 0.905-0.909 against 0.908-0.932, 89 x
      // 1508065 level; at 88 rows 512 bytes stay ahead, 0.925-0.932 against 0.890-0.893), and from
      // 2 bytes every wider one (twenty-second session, H100, harness, about 160 MB, two rounds,
      // half width against the full one: 4-byte 89-96 rows 0.964-0.978 against 0.947-0.963, 185-192
      // rows 0.968-0.974 against 0.901-0.905; 8-byte 89-96 rows 0.964-0.975 against 0.954-0.961,
      // 190 rows 0.976 against 0.906-0.910; 2-byte 185-192 rows 0.890-0.967 against 0.867-0.896).
      // 1-byte tiles of 256 and 128 bytes too (185 to 192 and 377 to 384 rows; twenty-eighth
      // session, harness, 128 MiB, x copy: 185 x 725501 0.928-0.930 against 0.866-0.871, 192 x
      // 699051 0.968-0.969 against 0.890-0.895 (two rounds), 384 x 349525 0.947 against 0.836).
      const bool fills_budget = width * padded == full_height_tile_budget;
      if (fills_budget && width > 64) return width / 2;
      return width;
    }
  return 0;
}

bool full_height_fits(std::int64_t rows, int word_bytes) {
  return rows * word_bytes >= 16 && full_height_tile_width(rows, word_bytes) != 0;
}

void launch_copy_full_height(const copy_args& a, int word_bytes, cudaStream_t stream, int regions) {
  if (!full_height_fits(a.rows, word_bytes))
    throw error(status::internal_error, "copy_full_height: " + std::to_string(a.rows) +
                                            " rows of " + std::to_string(word_bytes) +
                                            "-byte words do not fit one tile");
  const int width = full_height_tile_width(a.rows, word_bytes);
  if (word_bytes != 1 && word_bytes != 2 && word_bytes != 4 && word_bytes != 8)
    throw error(status::internal_error, "copy_full_height: word size " +
                                            std::to_string(word_bytes) + " is not 1, 2, 4 or 8");
  const unsigned strip_regions =
      chosen_regions(regions, full_height_regions(a, word_bytes), "copy_full_height");
  with_word(word_bytes, "copy_full_height", [&](auto e) {
    constexpr int E = decltype(e)::value;
    if constexpr (E <= 8)
      with_full_height_width(
          width, [&](auto w) { launch_width<E, decltype(w)::value>(a, stream, strip_regions); });
  });
}

}  // namespace xpose::detail::cuda
