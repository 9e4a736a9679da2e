// copy_sectors' tiles (16-byte elements, destination rows of any alignment) per device class:
// R source rows x C columns, THREADS per block, MIN_BLOCKS resident blocks per SM asked of ptxas.
// 32 x 32 tiles; 64 x 32 and 32 x 64 ran 0.64-0.82 x copy on the H100.
#pragma once

#include "cuda/tuning/device_class.hpp"

namespace xpose::detail::cuda {

template <int R, int C, int THREADS, int MIN_BLOCKS>
struct sectors_policy {
  static constexpr int tile_rows = R, tile_cols = C, threads = THREADS, min_blocks = MIN_BLOCKS;
};
template <device_class D>
struct copy_sectors_policy : sectors_policy<32, 32, 256, 2> {};
/// Four blocks per SM. H200: 4095 x 4097 0.964-0.969 x copy vs 0.940-0.954 at two.
template <>
struct copy_sectors_policy<device_class::h200> : sectors_policy<32, 32, 256, 4> {};

}  // namespace xpose::detail::cuda
