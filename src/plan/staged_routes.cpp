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

namespace {

/// A stage of the GPU's routes: one pass whatever its path (on chip, through the scratch in L2,
/// chains), unlike the CPU's cycle following on small super-elements.
stage gpu_stage(const char* label, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                std::size_t super_bytes) {
  stage s = tiled_transpose_stage(label, batch, rows, cols, super_bytes);
  s.passes = 1.0;
  return s;
}

}  // namespace

std::vector<stage> gpu_three_stage_stages(std::int64_t M, std::int64_t N, std::size_t e) {
  if (static_cast<std::size_t>(M * N) * e <= gpu_slab_limit_bytes)
    return {gpu_stage("010", 1, M, N, e)};
  constexpr std::size_t smallest = 32, largest = 2048;
  // The best divisor of `split` (the dimension cut) with `other` rows per slab: the largest
  // super-element up to `largest` bytes, then one of whole 16-byte words; 0 when none.
  const auto best_divisor = [&](std::int64_t split, std::int64_t other) {
    std::int64_t best = 0;
    std::size_t best_bytes = 0;
    for (std::int64_t d : divisors(split)) {
      const std::size_t bytes = static_cast<std::size_t>(d) * e;
      if (d == split || bytes < smallest || bytes > largest ||
          static_cast<std::size_t>(other) * bytes > gpu_slab_limit_bytes)
        continue;
      const auto rank = [](std::size_t b) { return 2 * b + (b % 16 == 0 ? 1 : 0); };
      if (best == 0 || rank(bytes) > rank(best_bytes)) {
        best = d;
        best_bytes = bytes;
      }
    }
    return best;
  };
  const std::int64_t n = best_divisor(N, M);
  const std::int64_t m = best_divisor(M, N);
  if (n == 0 && m == 0) return {};
  if (m == 0 || (n != 0 && n * e >= m * e)) {
    const std::int64_t N1 = N / n;
    return {gpu_stage("100", 1, M, N1, n * e), gpu_stage("010", N1, M, n, e)};
  }
  const std::int64_t M1 = M / m;
  return {gpu_stage("010", M1, m, N, e), gpu_stage("100", 1, M1, N, m * e)};
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
