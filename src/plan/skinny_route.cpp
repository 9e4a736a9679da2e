// Stage list and chunk width of the skinny_chunks route (see skinny_route.hpp): elementary 100
// and 010 transpositions of PPoPP'14 sec. 4 on chunks of the long dimension, the leftover
// columns kept aside in the workspace.
#include "plan/skinny_route.hpp"

#include <algorithm>

#include "plan/planner.hpp"
#include "plan/staged_routes.hpp"

namespace xpose::detail {
namespace {

/// Chunks at least this large move whole cache lines, several per step, in the 100 stage.
constexpr std::size_t chunk_min_bytes = 256;
/// Largest chunk taken when it divides n; m * w * e stays within the 010 stage's in-cache limit.
constexpr std::size_t chunk_max_bytes = 1024;
/// Never under one cache line, whatever the workspace budget.
constexpr std::size_t chunk_floor_bytes = 64;
/// The 010 stage holds one m x w tile per thread: with up to this many threads, the tiles take
/// at most half of the planner's workspace budget.
constexpr double tile_threads = 16;

stage remainder_stage(stage_kind kind, const char* label, std::int64_t m, std::int64_t n,
                      std::size_t e, std::int64_t w, double passes) {
  stage s;
  s.kind = kind;
  s.label = label;
  s.rows = m;
  s.cols = n;
  s.tile = w;
  s.super_bytes = e;
  s.passes = passes;
  return s;
}

void add_unless_identity(std::vector<stage>& stages, stage s) {
  if (s.rows > 1 && s.cols > 1) stages.push_back(std::move(s));
}

}  // namespace

std::int64_t skinny_chunk_width(std::int64_t m, std::int64_t n, std::size_t e) {
  const double matrix_bytes = static_cast<double>(m) * static_cast<double>(n) * e;
  const double budget = std::max(workspace_budget_fraction * matrix_bytes,
                                 static_cast<double>(workspace_floor_bytes));
  const double tile_cap = budget / (2 * tile_threads * static_cast<double>(m));
  const auto bytes_to_width = [e](double bytes) {
    return std::max<std::int64_t>(1,
                                  static_cast<std::int64_t>(bytes) / static_cast<std::int64_t>(e));
  };
  const std::int64_t w_floor = bytes_to_width(chunk_floor_bytes);
  const std::int64_t w_cap = std::max(w_floor, bytes_to_width(tile_cap));
  const std::int64_t w_min = std::min(bytes_to_width(chunk_min_bytes), w_cap);
  const std::int64_t w_max = std::min(bytes_to_width(chunk_max_bytes), w_cap);
  for (std::int64_t w = std::min(w_max, n); w >= w_min; --w)
    if (n % w == 0) return w;
  return std::min(w_min, n);
}

std::vector<stage> skinny_chunks_stages_with_width(std::int64_t M, std::int64_t N, std::size_t e,
                                                   std::int64_t w) {
  const bool wide = M <= N;
  const std::int64_t m = wide ? M : N, n = wide ? N : M;
  const std::int64_t q = n / w, r = n % w;
  const double remainder_share = static_cast<double>(r) / static_cast<double>(n);
  std::vector<stage> stages;
  if (wide) {
    if (r > 0)
      stages.push_back(
          remainder_stage(stage_kind::skinny_remainder_split, "split remainder", m, n, e, w, 1.0));
    add_unless_identity(stages, tiled_transpose_stage("100", 1, m, q, w * e));
    add_unless_identity(stages, tiled_transpose_stage("010", q, m, w, e));
    if (r > 0)
      stages.push_back(remainder_stage(stage_kind::skinny_remainder_place, "place remainder", m, n,
                                       e, w, remainder_share));
  } else {
    if (r > 0)
      stages.push_back(remainder_stage(stage_kind::skinny_remainder_take, "take remainder", m, n, e,
                                       w, remainder_share));
    add_unless_identity(stages, tiled_transpose_stage("010", q, w, m, e));
    add_unless_identity(stages, tiled_transpose_stage("100", 1, q, m, w * e));
    if (r > 0)
      stages.push_back(remainder_stage(stage_kind::skinny_remainder_spread, "spread remainder", m,
                                       n, e, w, 1.0));
  }
  return stages;
}

std::vector<stage> skinny_chunks_stages(std::int64_t M, std::int64_t N, std::size_t e) {
  const bool wide = M >= 2 && M <= skinny_max_short && N > skinny_max_short;
  const bool tall = N >= 2 && N <= skinny_max_short && M > skinny_max_short;
  if (!wide && !tall) return {};
  return skinny_chunks_stages_with_width(M, N, e,
                                         skinny_chunk_width(wide ? M : N, wide ? N : M, e));
}

}  // namespace xpose::detail
