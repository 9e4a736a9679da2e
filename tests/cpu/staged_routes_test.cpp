// The 3-stage and 4-stage stage lists (PPoPP'14 sec. 4.1, 4.2), run by the CPU kernels, against a
// naive out-of-place transpose: every M, N up to 64 with every tile pair, random larger shapes and
// the paper's Table 2 shapes; and the tile choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "plan/staged_routes.hpp"
#include "test_util.hpp"

namespace xpose::detail {
namespace {

using xpose::test::random_bytes;
using xpose::test::reference_transpose;

/// Executes a stage list the way the executor does: fused pairs through tiled_transpose_fused.
void run_stages(std::vector<std::byte>& data, const std::vector<stage>& stages, int threads) {
  std::vector<std::byte> workspace;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const stage& s = stages[i];
    if (s.kind == stage_kind::square_swap) {
      // Square blocks one after another, as the executors run them.
      stage block = s;
      block.batch = 1;
      for (std::int64_t j = 0; j < s.batch; ++j)
        cpu::square_swap(
            data.data() + j * s.rows * s.lda * static_cast<std::int64_t>(s.super_bytes), block,
            threads);
      continue;
    }
    ASSERT_EQ(s.kind, stage_kind::tiled_transpose);
    if (s.fused_with_next) {
      ASSERT_LT(i + 1, stages.size());
      const stage& next = stages[i + 1];
      ASSERT_EQ(s.batch % next.batch, 0);
      workspace.assign(cpu::tiled_transpose_fused_workspace(s, next, threads), std::byte{0x5a});
      cpu::tiled_transpose_fused(data.data(), s, next, workspace.data(), threads);
      ++i;
    } else {
      workspace.assign(cpu::tiled_transpose_workspace(s, threads), std::byte{0x5a});
      cpu::tiled_transpose(data.data(), s, workspace.data(), threads);
    }
  }
}

std::vector<std::int64_t> divisors_of(std::int64_t x) {
  std::vector<std::int64_t> d;
  for (std::int64_t f = 1; f <= x; ++f)
    if (x % f == 0) d.push_back(f);
  return d;
}

void check_route(route r, std::int64_t M, std::int64_t N, std::size_t e, std::int64_t m,
                 std::int64_t n, int threads, std::mt19937_64& rng, bool force_cycles = false) {
  const std::vector<std::byte> in =
      random_bytes<std::byte>(static_cast<std::size_t>(M * N) * e, rng);
  std::vector<stage> stages = r == route::three_stage ? three_stage_stages(M, N, e, m, n)
                                                      : four_stage_stages(M, N, e, m, n);
  if (force_cycles)
    for (stage& s : stages) s.method = tiled_method::cycle_following;
  std::vector<std::byte> data = in;
  run_stages(data, stages, threads);
  ASSERT_TRUE(data == reference_transpose(in, M, N, e))
      << (r == route::three_stage ? "3-stage " : "4-stage ") << M << "x" << N << " e=" << e
      << " m=" << m << " n=" << n << " threads=" << threads << (force_cycles ? " cycles" : "");
}

TEST(StagedRoutes, EveryShapeAndTilePairUpTo64) {
  std::mt19937_64 rng(11);
  for (std::int64_t M = 1; M <= 64; ++M)
    for (std::int64_t N = 1; N <= 64; ++N)
      for (std::int64_t m : divisors_of(M))
        for (std::int64_t n : divisors_of(N)) {
          const std::size_t e = (M + N) % 3 == 0 ? 12 : 4;
          const bool cycles = (M * N + m) % 5 == 0;
          check_route(route::three_stage, M, N, e, m, n, 1, rng, cycles);
          check_route(route::four_stage, M, N, e, m, n, 1, rng, cycles);
          if (HasFatalFailure()) return;
        }
}

TEST(StagedRoutes, RandomShapesSeveralThreads) {
  std::mt19937_64 rng(12);
  const std::size_t sizes[] = {1, 2, 4, 8, 12, 16};
  for (int t = 0; t < 40; ++t) {
    const std::int64_t M = 2 + static_cast<std::int64_t>(rng() % 700);
    const std::int64_t N = 2 + static_cast<std::int64_t>(rng() % 700);
    const std::size_t e = sizes[rng() % 6];
    const std::vector<std::int64_t> dm = divisors_of(M), dn = divisors_of(N);
    const std::int64_t m = dm[rng() % dm.size()], n = dn[rng() % dn.size()];
    const int threads = 2 + static_cast<int>(rng() % 3);
    check_route(route::three_stage, M, N, e, m, n, threads, rng, t % 4 == 0);
    check_route(route::four_stage, M, N, e, m, n, threads, rng, t % 4 == 1);
    if (HasFatalFailure()) return;
  }
}

TEST(StagedRoutes, PaperTable2ShapesFp32WithChosenTiles) {
  std::mt19937_64 rng(13);
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{7200, 1800}, {5100, 2500}, {4000, 3200},
                                                          {3300, 3900}, {2500, 5100}, {1800, 7200}};
  for (const auto& [M, N] : shapes)
    for (route r : {route::three_stage, route::four_stage}) {
      const auto tiles = choose_tiles(M, N, 4, r);
      ASSERT_TRUE(tiles.has_value()) << M << "x" << N;
      check_route(r, M, N, 4, tiles->first, tiles->second, 2, rng);
      if (HasFatalFailure()) return;
    }
}

TEST(StagedRoutes, StagesFollowThePaper) {
  const std::vector<stage> three = three_stage_stages(6000, 2000, 4, 60, 40);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].label, "100");
  EXPECT_EQ(three[0].batch, 1);
  EXPECT_EQ(three[0].rows, 6000);
  EXPECT_EQ(three[0].cols, 50);
  EXPECT_EQ(three[0].super_bytes, 160u);
  EXPECT_EQ(three[1].label, "0010");
  EXPECT_EQ(three[1].batch, 50 * 100);
  EXPECT_EQ(three[1].rows, 60);
  EXPECT_EQ(three[1].cols, 40);
  EXPECT_EQ(three[1].super_bytes, 4u);
  EXPECT_EQ(three[2].label, "0100");
  EXPECT_EQ(three[2].batch, 50);
  EXPECT_EQ(three[2].rows, 100);
  EXPECT_EQ(three[2].cols, 40);
  EXPECT_EQ(three[2].super_bytes, 240u);
  const std::vector<stage> four = four_stage_stages(6000, 2000, 4, 60, 40);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[0].label, "0100");
  EXPECT_EQ(four[0].batch, 100);
  EXPECT_EQ(four[0].rows, 60);
  EXPECT_EQ(four[0].cols, 50);
  EXPECT_EQ(four[0].super_bytes, 160u);
  EXPECT_EQ(four[2].label, "1000");
  EXPECT_EQ(four[2].rows, 100);
  EXPECT_EQ(four[2].cols, 50);
  EXPECT_EQ(four[2].super_bytes, 60u * 40u * 4u);
  EXPECT_EQ(four[3].batch, 50);
  for (const stage& s : four) EXPECT_FALSE(s.fused_with_next);
}

// The GPU's 3-stage stage lists with square blocks (one side a multiple of the other), chosen
// under a cost that prices tiled stages of single elements high, as the GPU's does, and run by the
// CPU kernels: wide and tall, square edges on 16 bytes and not.
TEST(StagedRoutes, GpuThreeStageTakesSquareBlocks) {
  const stage_cost_function cost = [](const stage& s) {
    if (s.kind == stage_kind::square_swap) return s.passes;
    return s.super_bytes <= 16 ? 30.0 : 1.1;
  };
  std::mt19937_64 rng(41);
  for (const auto& [M, N, e] : {std::tuple<std::int64_t, std::int64_t, std::size_t>{96, 288, 4},
                                {288, 96, 4},
                                {65, 195, 12},
                                {260, 65, 1},
                                {64, 128, 8}}) {
    const std::vector<stage> stages = gpu_three_stage_stages(M, N, e, cost);
    ASSERT_EQ(stages.size(), 2u) << M << "x" << N;
    const stage& square = M < N ? stages[1] : stages[0];
    EXPECT_EQ(square.kind, stage_kind::square_swap) << M << "x" << N;
    EXPECT_EQ(square.rows, std::min(M, N));
    EXPECT_EQ(square.batch, std::max(M, N) / std::min(M, N));
    const std::vector<std::byte> in =
        random_bytes<std::byte>(static_cast<std::size_t>(M * N) * e, rng);
    std::vector<std::byte> data = in;
    run_stages(data, stages, 2);
    EXPECT_TRUE(data == reference_transpose(in, M, N, e)) << M << "x" << N << " e=" << e;
  }
}

TEST(StagedRoutes, ChooseTilesDividesOrDeclines) {
  for (route r : {route::three_stage, route::four_stage}) {
    for (std::int64_t M : {96, 1000, 7200, 65536, 1 << 20})
      for (std::int64_t N : {60, 128, 1800, 3900, 5100})
        for (std::size_t e : {1u, 4u, 8u, 12u, 16u}) {
          const auto tiles = choose_tiles(M, N, e, r);
          ASSERT_TRUE(tiles.has_value()) << M << "x" << N << " e=" << e;
          EXPECT_EQ(M % tiles->first, 0);
          EXPECT_EQ(N % tiles->second, 0);
        }
    EXPECT_FALSE(choose_tiles(7919, 7907, 4, r).has_value());  // both prime
    EXPECT_FALSE(choose_tiles(1, 100, 4, r).has_value());
  }
  EXPECT_FALSE(choose_tiles(100, 100, 4, route::row_column).has_value());
}

}  // namespace
}  // namespace xpose::detail
