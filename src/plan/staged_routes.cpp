// Stage lists of the 3-stage and 4-stage routes (PPoPP'14 sec. 4.1, 4.2) and their tile choice
// (sec. 7.4, retuned for CPU caches). The M x N matrix is the 4-D array (M', m, N', n).
#include "plan/staged_routes.hpp"

#include <cmath>
#include <limits>

namespace xpose::detail {
namespace {

/// Instances up to this size are transposed through a per-thread scratch (in_cache).
constexpr std::size_t in_cache_limit_bytes = 64 * 1024;
/// The 0010 + 0100 pair is fused when a slab (M*n*e bytes) fits in this much cache.
constexpr std::size_t fused_slab_limit_bytes = 2 * 1024 * 1024;
/// Instances up to this size are cache resident while cycles are followed in them.
constexpr std::size_t cache_resident_bytes = 1024 * 1024;
constexpr std::size_t cache_line_bytes = 64;
/// Target bytes of m*e and n*e.
constexpr double tile_edge_bytes = 256.0;

std::vector<stage> without_identities(std::vector<stage> stages) {
  std::vector<stage> kept;
  for (stage& s : stages)
    if (s.rows > 1 && s.cols > 1) kept.push_back(std::move(s));
  return kept;
}

std::vector<std::int64_t> divisors(std::int64_t x) {
  std::vector<std::int64_t> small, large;
  for (std::int64_t d = 1; d * d <= x; ++d) {
    if (x % d) continue;
    small.push_back(d);
    if (d != x / d) large.push_back(x / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

/// The divisor of `dim` (other than 1) whose byte size f*e is closest to target_bytes on a log
/// scale; 0 when dim < 2.
std::int64_t closest_divisor(std::int64_t dim, std::size_t e, double target_bytes) {
  std::int64_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::int64_t f : divisors(dim)) {
    if (f < 2) continue;
    const double bytes = static_cast<double>(f) * static_cast<double>(e);
    const double distance = std::fabs(std::log(bytes / target_bytes));
    if (distance < best_distance) {
      best_distance = distance;
      best = f;
    }
  }
  return best;
}

}  // namespace

stage tiled_transpose_stage(const char* label, std::int64_t batch, std::int64_t rows,
                            std::int64_t cols, std::size_t super_bytes) {
  stage s;
  s.kind = stage_kind::tiled_transpose;
  s.label = label;
  s.batch = batch;
  s.rows = rows;
  s.cols = cols;
  s.super_bytes = super_bytes;
  const std::size_t instance = static_cast<std::size_t>(rows * cols) * super_bytes;
  s.method =
      instance <= in_cache_limit_bytes ? tiled_method::in_cache : tiled_method::cycle_following;
  // Cycle following outside the cache moves whole cache lines for small super-elements.
  s.passes = 1.0;
  if (s.method == tiled_method::cycle_following && instance > cache_resident_bytes &&
      super_bytes < cache_line_bytes)
    s.passes = static_cast<double>(cache_line_bytes) / static_cast<double>(super_bytes);
  return s;
}

stage square_blocks_stage(std::int64_t count, std::int64_t n, std::size_t e) {
  stage s;
  s.kind = stage_kind::square_swap;
  s.label = "square blocks";
  s.variant = route::square_tile_swap;
  s.batch = count;
  s.rows = s.cols = n;
  s.lda = s.ldb = n;
  s.super_bytes = e;
  // H200, `cuda in-place square any size`: 0.84-0.87 x copy with rows on 16 bytes, 0.63-0.73
  // without.
  s.passes = (static_cast<std::size_t>(n) * e) % 16 == 0 ? 1.2 : 1.5;
  return s;
}

std::vector<stage> square_blocks_stages(std::int64_t M, std::int64_t N, std::size_t e) {
  if (N % M == 0 && N > M && M >= square_block_min_edge)
    return {tiled_transpose_stage("100", 1, M, N / M, M * e), square_blocks_stage(N / M, M, e)};
  if (M % N == 0 && M > N && N >= square_block_min_edge)
    return {square_blocks_stage(M / N, N, e), tiled_transpose_stage("100", 1, M / N, N, N * e)};
  return {};
}

std::vector<stage> three_stage_stages(std::int64_t M, std::int64_t N, std::size_t e, std::int64_t m,
                                      std::int64_t n) {
  const std::int64_t M1 = M / m, N1 = N / n;
  std::vector<stage> stages = without_identities({
      tiled_transpose_stage("100", 1, M, N1, n * e),
      tiled_transpose_stage("0010", N1 * M1, m, n, e),
      tiled_transpose_stage("0100", N1, M1, n, m * e),
  });
  const std::size_t slab = static_cast<std::size_t>(M * n) * e;
  if (stages.size() >= 2 && stages[stages.size() - 2].label == "0010" &&
      slab <= fused_slab_limit_bytes) {
    stage& first = stages[stages.size() - 2];
    stage& second = stages.back();
    first.fused_with_next = true;
    first.passes = 1.0;
    second.passes = 0.0;  // done while the slab is still in cache
  }
  return stages;
}

std::vector<stage> four_stage_stages(std::int64_t M, std::int64_t N, std::size_t e, std::int64_t m,
                                     std::int64_t n) {
  const std::int64_t M1 = M / m, N1 = N / n;
  return without_identities({
      tiled_transpose_stage("0100", M1, m, N1, n * e),
      tiled_transpose_stage("0010", M1 * N1, m, n, e),
      tiled_transpose_stage("1000", 1, M1, N1, n * m * e),
      tiled_transpose_stage("0100", N1, M1, n, m * e),
  });
}

std::vector<stage> gpu_three_stage_stages(std::int64_t M, std::int64_t N, std::size_t e,
                                          const stage_cost_function& cost) {
  std::vector<stage> best;
  double best_cost = 0;
  const auto consider = [&](std::vector<stage> stages) {
    stages = without_identities(std::move(stages));
    double total = 0;
    for (stage& s : stages) total += s.passes = cost(s);
    if (best.empty() || total < best_cost - 1e-9 ||
        (total < best_cost + 1e-9 && stages.size() < best.size())) {
      best = std::move(stages);
      best_cost = total;
    }
  };
  if (static_cast<std::size_t>(M * N) * e <= gpu_slab_limit_bytes)
    consider({tiled_transpose_stage("010", 1, M, N, e)});
  const std::vector<std::int64_t> m_choices = divisors(M), n_choices = divisors(N);
  for (std::int64_t n : n_choices) {
    if (n == 1 || n == N) continue;
    consider({tiled_transpose_stage("100", 1, M, N / n, n * e),
              tiled_transpose_stage("010", N / n, M, n, e)});
  }
  for (std::int64_t m : m_choices) {
    if (m == 1 || m == M) continue;
    consider({tiled_transpose_stage("010", M / m, m, N, e),
              tiled_transpose_stage("100", 1, M / m, N, m * e)});
  }
  // One side a multiple k of the other: the matrix is k square blocks side by side (wide) or one
  // above another (tall). A 100 of the blocks' rows makes the side-by-side blocks contiguous, or
  // puts the transposed stacked ones side by side, and each square is transposed by the square
  // tile swap: the 100 + 010 pair above with the 010's square instances at the square route's
  // speed instead of a tiled transposition's.
  if (std::vector<stage> blocks = square_blocks_stages(M, N, e); !blocks.empty())
    consider(std::move(blocks));
  // The paper's three stages, tiles of at most 64 KiB (on chip).
  for (std::int64_t m : m_choices)
    for (std::int64_t n : n_choices) {
      if (m == M || n == N || static_cast<std::size_t>(m * n) * e > 64 * 1024) continue;
      consider(three_stage_stages(M, N, e, m, n));
    }
  return best;
}

std::optional<std::pair<std::int64_t, std::int64_t>> choose_tiles(std::int64_t M, std::int64_t N,
                                                                  std::size_t e, route r) {
  if (M < 2 || N < 2 || (r != route::three_stage && r != route::four_stage)) return std::nullopt;
  // Super-elements of about 256 bytes: 100 / 1000 and 0100 move whole cache lines (several
  // in flight per step) and 0010 tiles of m x n elements stay in L1.
  const std::int64_t n = closest_divisor(N, e, tile_edge_bytes);
  const std::int64_t m = closest_divisor(M, e, tile_edge_bytes);
  // Whole dimensions on both sides (both prime, say) degenerate to one transposition of single
  // elements: fine in cache, pointless outside it.
  const bool whole = m == M && n == N;
  if (whole && static_cast<std::size_t>(M * N) * e > in_cache_limit_bytes) return std::nullopt;
  return std::make_pair(m, n);
}

}  // namespace xpose::detail
