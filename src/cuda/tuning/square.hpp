// square_tile_swap's tiles (in place, tile (i, j) swapped with tile (j, i)), per element size.
#pragma once

#include "cuda/tuning/tile_policy.hpp"

namespace xpose::detail::cuda {

template <int E>
struct square_tile_policy;
template <>
struct square_tile_policy<1> : tile_policy<128, 128, 256, 2> {};
template <>
struct square_tile_policy<2> : tile_policy<64, 128, 256, 3> {};
template <>
struct square_tile_policy<4> : tile_policy<64, 256, 256, 3> {};
template <>
struct square_tile_policy<8> : tile_policy<32, 256, 256, 3> {};
template <>
struct square_tile_policy<16> : tile_policy<32, 512, 256, 3> {};

}  // namespace xpose::detail::cuda
