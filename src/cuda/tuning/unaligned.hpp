// copy_unaligned's tiles (1-8 byte words, rows of any alignment): B row blocks of 16 / E rows,
// W bytes per tile row, THREADS per block, MIN_BLOCKS resident blocks per SM asked of ptxas; the
// tile lives in dynamic shared memory. Tiles whose threads take four or five load steps run
// 0.70-0.79 x copy on the H100 (each step waits for its loads), so each policy loads its tile in
// one or two steps.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/tuning/device_class.hpp"
#include "cuda/tuning/tuned.hpp"

namespace xpose::detail::cuda {

template <int B, int W, int THREADS, int MIN_BLOCKS>
struct unaligned_policy {
  static constexpr int row_blocks = B, tile_bytes = W, threads = THREADS, min_blocks = MIN_BLOCKS;
};
/// H100: 512-byte tile rows of 512 threads, two blocks per SM, 0.01-0.025 x copy ahead of
/// 256-byte rows for 4- and 8-byte words.
template <int E>
struct copy_unaligned_policy;
template <>
struct copy_unaligned_policy<1> : unaligned_policy<14, 128, 256, 4> {};
template <>
struct copy_unaligned_policy<2> : unaligned_policy<14, 256, 256, 4> {};
template <>
struct copy_unaligned_policy<4> : unaligned_policy<14, 512, 512, 2> {};
template <>
struct copy_unaligned_policy<8> : unaligned_policy<30, 512, 512, 2> {};

/// Large tiles for matrices of at least copy_unaligned_large_bytes and copy_tuned_large_rows rows
/// (takes_large_tiles; for 1- and 2-byte elements on the H100 only): a halo of 1/15 of the tile
/// instead of 1/7. H100: 1-byte 16383 x 16385 0.941-0.944 x copy vs 0.921-0.928.
constexpr std::int64_t copy_unaligned_large_bytes = std::int64_t{3} << 26;
template <int E>
struct copy_unaligned_large {
  using policy = copy_unaligned_policy<E>;
};
template <>
struct copy_unaligned_large<1> {
  using policy = unaligned_policy<30, 128, 512, 2>;
};
template <>
struct copy_unaligned_large<2> {
  using policy = unaligned_policy<30, 128, 256, 4>;
};
/// H100: 4-byte 16383 x 8193 0.947-0.949 x copy vs 0.918-0.920 for the standard tiles.
template <>
struct copy_unaligned_large<4> {
  using policy = unaligned_policy<30, 256, 512, 2>;
};

/// The blocks copy_unaligned runs Policy's tiles in, per device class: on the H200, 4- and 8-byte
/// words take half the threads at twice the blocks per SM (the H100 keeps Policy: 0.01-0.02
/// behind there). H200: 4-byte 8191 x 8193 0.941-0.950 x copy vs 0.883-0.894 at 512 threads.
template <device_class D, int E, class Policy>
struct copy_unaligned_blocks {
  using policy = Policy;
};
template <int E, class Policy>
struct copy_unaligned_blocks<device_class::h200, E, Policy> {
  using policy = std::conditional_t<(E >= 4),
                                    unaligned_policy<Policy::row_blocks, Policy::tile_bytes,
                                                     Policy::threads / 2, Policy::min_blocks * 2>,
                                    Policy>;
};

/// 1-byte tall tiles (352 rows of 256 bytes) for short, wide matrices of at least
/// copy_unaligned_large_bytes whose rows they fill at least 1/5 better than the standard tiles
/// (copy_unaligned_takes_tall: 673 to 704 rows). H100: 700 x 436912 0.916-0.921 x copy vs
/// 0.898-0.902.
using copy_unaligned_tall_policy = unaligned_policy<22, 256, 512, 2>;
/// The rows one copy_unaligned tile owns (row blocks of 16 / E rows): standard, large, and the
/// 1-byte tall tiles.
template <int E>
constexpr int copy_unaligned_tile_rows = copy_unaligned_policy<E>::row_blocks*(16 / E);
template <int E>
constexpr int copy_unaligned_large_tile_rows = copy_unaligned_large<E>::policy::row_blocks*(16 / E);
constexpr int copy_unaligned_tall_tile_rows = copy_unaligned_tall_policy::row_blocks * 16;
/// The least bytes from which 4-byte matrices below the large rule take copy_unaligned_large's
/// tiles where those fill the rows better (copy_unaligned_takes_large).
constexpr std::int64_t copy_unaligned_short_large_bytes = std::int64_t{1} << 27;

}  // namespace xpose::detail::cuda
