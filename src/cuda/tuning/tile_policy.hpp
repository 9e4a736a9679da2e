// The policy struct shared by the tile kernels: a tile of tile_rows source rows x tile_bytes,
// `threads` per block, and `min_blocks` resident blocks per SM asked of ptxas (a register cap).
#pragma once

namespace xpose::detail::cuda {

template <int TILE_ROWS, int TILE_BYTES, int THREADS, int MIN_BLOCKS = 1>
struct tile_policy {
  static constexpr int tile_rows = TILE_ROWS;
  static constexpr int tile_bytes = TILE_BYTES;  ///< bytes of one tile row (source side)
  static constexpr int threads = THREADS;
  static constexpr int min_blocks = MIN_BLOCKS;  ///< resident blocks per SM asked of ptxas
};

}  // namespace xpose::detail::cuda
