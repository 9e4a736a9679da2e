// Stage lists of the 3-stage (Sung et al., PPoPP'14 sec. 4.2) and 4-stage (Gustavson/Karlsson,
// sec. 4.1) in-place transpositions of an M x N row-major matrix viewed as (M', m, N', n), and the
// tile choice (sec. 7.4). Backend-free: the planner calls these and fills workspace_bytes from
// the backend.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// Slabs of the GPU's 3-stage route up to this size are transposed through a scratch in L2 (the
/// CUDA backend's tiled_scratch_max_bytes).
inline constexpr std::size_t gpu_slab_limit_bytes = std::size_t{24} << 20;

/// The 3-stage route as the GPU runs it, with its last two stages (0010, 0100) as one 010 over
/// slabs of M x n elements: 100 (super n*e) then 010 (N' slabs, M x n, super e); or, mirrored,
/// 010 (M' slabs, m x N) then 100 (super m*e). The tile makes super-elements of 32 bytes or more,
/// as large as gpu_slab_limit_bytes allows up to 2 KiB (the 100 stage moves one per step of a
/// chain); a matrix within that limit is one 010 stage. Empty when no divisor gives that.
std::vector<stage> gpu_three_stage_stages(std::int64_t M, std::int64_t N, std::size_t e);

/// Tile sizes (m, n), m | M and n | N, for route::three_stage or route::four_stage; nullopt when
/// the dimensions have no useful factors (a prime dimension, say) or for another route.
std::optional<std::pair<std::int64_t, std::int64_t>> choose_tiles(std::int64_t M, std::int64_t N,
                                                                  std::size_t e, route r);

}  // namespace xpose::detail
