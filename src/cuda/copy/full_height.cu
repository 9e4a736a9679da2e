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
/// full_height_five_blocks_bytes of shared memory (five larger ones would leave L1 little and run
/// behind, as five blocks of 4-byte elements do; six blocks spill).
/// H100: 2-byte 65 x 1032417 (a 36.5 KiB tile) 0.90 -> 0.94 x copy from four blocks to five.
constexpr int full_height_five_blocks_bytes = 38 * 1024;

/// Larger 1- and 2-byte tiles take 320 threads (four resident blocks asked of ptxas: 48
/// registers, no spills) where the tile's load items (16-byte chunks of 4-row groups) take two
/// steps of 320 and three of 256 (a step's loads wait for the step before). Tiles of at most
/// 38 KiB keep five blocks of 256 (as often ahead as behind); 4- and 8-byte elements keep 256
/// threads (where 320 take three steps too they run behind, and their 4-byte tiles spill).
/// H100: 1-byte 300 x 447393 0.91 -> 0.93-0.94 x copy from 256 threads to 320.
constexpr int fewer_steps_threads = 320;

/// 1-byte elements in 505 to 512 rows (a 128-byte-wide tile: full_height_tile_width) take 512
/// threads, whose two load steps the tile's 1016 to 1024 load items fill, two blocks per SM
/// (fewer rows leave the steps part empty and mostly run behind the 64-byte tile).
/// H100: 512 rows 0.964-0.969 x copy vs 0.928-0.931 on the 64-byte tile of 256 threads.
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
      // Tiles that fill the budget take half the width (64 bytes stay), for every element size.
      // H100: 4-byte 185-192 rows 0.968-0.974 x copy at half width vs 0.901-0.905.
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
