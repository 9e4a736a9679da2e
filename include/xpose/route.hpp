// Routes: the algorithms a plan can use. `automatic` lets the planner choose; any other value
// forces that route (benchmarks, tests), and planning fails with a clear error if it cannot apply.
#pragma once

#include <optional>
#include <string_view>

namespace xpose {

enum class device { cpu, cuda };

enum class route {
  automatic,
  // In place, any shape.
  identity,         ///< one row or one column: the transpose has the same bytes
  cycle_following,  ///< reference: follow the cycles of eq. 1 with one bit flag per element
  four_stage,       ///< Gustavson/Karlsson: 0100, 0010, 1000, 0100 (PPoPP'14 sec. 4.1)
  three_stage,      ///< Sung et al.: 100, 0010, 0100 (PPoPP'14 sec. 4.2)
  row_column,       ///< Catanzaro, Keller, Garland decomposition: any dimensions, primes too
  skinny_chunks,    ///< one dimension <= 64: chunks of the long one, 100 + 010, remainder aside
  // In place, square (rows == cols). The naive, prefetch and recursive variants are those of
  // C. Dalvit's course report on in-place transposition (CPU and GPU); naive also of the blog
  // post "GPU Matrix Transpose".
  square_tile_swap,  ///< swap tile (i,j) with tile (j,i), one pass
  square_naive,      ///< swap element (i,j) with (j,i), i < j
  square_prefetch,   ///< naive with software prefetch of the next column (CPU)
  square_recursive,  ///< cache-oblivious recursive halving with a cut-off (CPU)
  // Out of place. copy_naive .. copy_multi_element are the progression of the lecture slides
  // "Matrix Transpose — get 90% bandwidth".
  copy_blocked,        ///< CPU: cache-blocked, vectorizable
  copy_naive,          ///< GPU: one element per thread, uncoalesced writes
  copy_shared_tiles,   ///< GPU: shared-memory tiles, coalesced both ways
  copy_padded_tiles,   ///< GPU: padded tiles, no bank conflicts
  copy_multi_element,  ///< GPU: padded tiles, several elements per thread
  copy_tuned,          ///< GPU: Hopper-tuned policy per element size (and matrix size)
};

std::string_view to_string(route r) noexcept;
std::optional<route> route_from_string(std::string_view name) noexcept;
std::string_view to_string(device d) noexcept;

}  // namespace xpose
