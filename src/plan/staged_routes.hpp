// Stage lists of the 3-stage (Sung et al., PPoPP'14 sec. 4.2) and 4-stage (Gustavson/Karlsson,
// sec. 4.1) in-place transpositions of an M x N row-major matrix viewed as (M', m, N', n), and the
// tile choice (sec. 7.4). Backend-free: the planner calls these and fills workspace_bytes from
// the backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "plan/plan_data.hpp"

namespace xpose::detail {

/// One elementary tiled transposition: `batch` instances of rows x cols super-elements of
/// super_bytes bytes; the method (in cache or cycle following) and predicted passes follow from
/// the instance size.
stage tiled_transpose_stage(const char* label, std::int64_t batch, std::int64_t rows,
                            std::int64_t cols, std::size_t super_bytes);
/// 100 (super n*e), 0010 (m x n tiles), 0100 (super m*e); the last two fused slab by slab when a
/// slab of M*n*e bytes fits in cache. Requires m | M and n | N. Stages that would be identities
/// (a dimension of 1) are left out.
std::vector<stage> three_stage_stages(std::int64_t M, std::int64_t N, std::size_t e, std::int64_t m,
                                      std::int64_t n);

/// 0100 (super n*e), 0010 (m x n tiles), 1000 (super m*n*e), 0100 (super m*e). Requires m | M
/// and n | N. Stages that would be identities are left out.
std::vector<stage> four_stage_stages(std::int64_t M, std::int64_t N, std::size_t e, std::int64_t m,
                                     std::int64_t n);

/// `count` consecutive n x n matrices of e-byte elements, each transposed in place by the square
/// tile swap (a square_swap stage whose batch is its blocks within one matrix).
stage square_blocks_stage(std::int64_t count, std::int64_t n, std::size_t e);
/// The 3-stage route takes square blocks of at least this edge.
inline constexpr std::int64_t square_block_min_edge = 64;
/// One side a multiple k > 1 of the other, at least square_block_min_edge: the k square blocks
/// side by side (M x kM: a 100 of the blocks' rows makes each contiguous, then the squares) or
/// stacked (kN x N: the squares, then a 100 puts them side by side). Empty otherwise.
std::vector<stage> square_blocks_stages(std::int64_t M, std::int64_t N, std::size_t e);

/// Instances up to this size fit the CUDA backend's scratch (its tiled_scratch_max_bytes).
inline constexpr std::size_t gpu_slab_limit_bytes = std::size_t{24} << 20;

/// Predicted passes of a stage on a backend (its path's speed relative to a copy).
using stage_cost_function = std::function<double(const stage&)>;

/// The 3-stage route as the GPU runs it, the tiles chosen by the GPU's stage costs: the
/// paper's 100, 0010, 0100 (tiles of at most 64 KiB), or two passes with the 0010 + 0100 pair as
/// one 010 over slabs of M x n elements (100 then 010, or, mirrored, 010 over m x N slabs then
/// 100), with square slabs (one side a multiple of the other) as square blocks, or one 010 for a
/// matrix within gpu_slab_limit_bytes; whichever costs least (on a tie, fewer stages). Each
/// stage's passes are its cost. Empty when M or N is below 2.
std::vector<stage> gpu_three_stage_stages(std::int64_t M, std::int64_t N, std::size_t e,
                                          const stage_cost_function& cost);

/// Tile sizes (m, n), m | M and n | N, for route::three_stage or route::four_stage; nullopt when
/// the dimensions have no useful factors (a prime dimension, say) or for another route.
std::optional<std::pair<std::int64_t, std::int64_t>> choose_tiles(std::int64_t M, std::int64_t N,
                                                                  std::size_t e, route r);

}  // namespace xpose::detail
