// square_tile_swap's tiles (in place, tile (i, j) swapped with tile (j, i)), per element size:
// square_tile_policy for rows on 16 bytes, square_tile_unaligned_policy for the others.
#pragma once

#include "cuda/tuning/tile_policy.hpp"

namespace xpose::detail::cuda {

// Four blocks an SM where the registers allow it without spilling: the swap keeps two tiles
// in flight per block, and more resident blocks hide more latency. H200, x copy, three blocks
// -> four: 2-byte 10000^2 0.723 -> 0.786, 20000^2 0.670 -> 0.739, 10001^2 0.526 -> 0.570;
// 8-byte rows off 16 bytes 10001^2 0.636 -> 0.703, 20001^2 0.623 -> 0.689, 8-byte rows on 16
// bytes and 16-byte elements level (within 0.012). 4-byte tiles spill at four (64 registers);
// 512 threads in two blocks (0.64-0.66) and 32 x 32 tiles (0.61-0.67) lose to three blocks
// (0.70-0.73) there.
template <int E>
struct square_tile_policy;
template <>
struct square_tile_policy<1> : tile_policy<128, 128, 256, 2> {};
template <>
struct square_tile_policy<2> : tile_policy<64, 128, 256, 4> {};
template <>
struct square_tile_policy<4> : tile_policy<64, 256, 256, 3> {};
template <>
struct square_tile_policy<8> : tile_policy<32, 256, 256, 3> {};
template <>
struct square_tile_policy<16> : tile_policy<32, 512, 256, 3> {};

/// The same tiles for rows that do not start on 16 bytes (the funnel-shifting paths).
template <int E>
struct square_tile_unaligned_policy : square_tile_policy<E> {};
template <>
struct square_tile_unaligned_policy<8> : tile_policy<32, 256, 256, 4> {};

}  // namespace xpose::detail::cuda
