// Each elementary tiled transposition of PPoPP'14 sec. 4 (100, 010, 1000, 0100, 0010) built as a
// stage and run by cpu::tiled_transpose, both methods, against a naive permutation of the axes of
// a 3-D / 4-D array; the fused 0010 + 0100 pair against the two stages run one after the other.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "test_util.hpp"

namespace xpose::detail {
namespace {

using xpose::test::random_bytes;

constexpr std::size_t guard_bytes = 256;
constexpr std::byte guard_value{0xa5};

/// Naive reference: out[perm-ordered index] = in[index] for an array of `dims` (row-major) of
/// e-byte elements; axis a of the output is axis order[a] of the input.
template <std::size_t D>
std::vector<std::byte> permute_axes(const std::vector<std::byte>& in,
                                    const std::array<std::int64_t, D>& dims,
                                    const std::array<int, D>& order, std::size_t e) {
  std::vector<std::byte> out(in.size());
  std::array<std::int64_t, D> out_dims{};
  for (std::size_t a = 0; a < D; ++a) out_dims[a] = dims[order[a]];
  std::array<std::int64_t, D> idx{};
  const std::size_t count = in.size() / e;
  for (std::size_t linear = 0; linear < count; ++linear) {
    std::size_t rest = linear;
    for (std::size_t a = D; a-- > 0;) {
      idx[a] = static_cast<std::int64_t>(rest % dims[a]);
      rest /= dims[a];
    }
    std::size_t target = 0;
    for (std::size_t a = 0; a < D; ++a) target = target * out_dims[a] + idx[order[a]];
    std::memcpy(&out[target * e], &in[linear * e], e);
  }
  return out;
}

/// Runs the stage with exactly the workspace it asks for, poisoned, with a guard behind it;
/// `with_table`: with the work list made ahead (build_tiled_transpose_table), where it takes one.
void run_stage(std::vector<std::byte>& data, const stage& s, int threads, std::mt19937_64& rng,
               bool with_table = false) {
  const std::size_t bytes = cpu::tiled_transpose_workspace(s, threads);
  std::vector<std::byte> workspace = random_bytes<std::byte>(bytes, rng);
  workspace.resize(bytes + guard_bytes, guard_value);
  const std::size_t table_bytes = with_table ? cpu::tiled_transpose_table_bytes(s, threads) : 0;
  std::vector<std::byte> table = random_bytes<std::byte>(table_bytes, rng);
  table.resize(table_bytes + guard_bytes, guard_value);
  if (table_bytes > 0) cpu::build_tiled_transpose_table(s, threads, table.data());
  const std::vector<std::byte> made = table;
  cpu::tiled_transpose(data.data(), s, workspace.data(), threads,
                       table_bytes > 0 ? table.data() : nullptr);
  for (std::size_t i = bytes; i < workspace.size(); ++i)
    ASSERT_EQ(workspace[i], guard_value) << "workspace overrun in stage " << s.label;
  ASSERT_EQ(table, made) << "the work list changed or overran in stage " << s.label;
}

stage tiled_stage(const char* label, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                  std::size_t super_bytes, tiled_method method) {
  stage s;
  s.label = label;
  s.batch = batch;
  s.rows = rows;
  s.cols = cols;
  s.super_bytes = super_bytes;
  s.method = method;
  return s;
}

constexpr tiled_method both_methods[] = {tiled_method::in_cache, tiled_method::cycle_following};
constexpr std::size_t element_sizes[] = {1, 2, 4, 8, 12, 16};
constexpr int thread_counts[] = {1, 2, 3};

TEST(Elementary, Transposition100And010) {
  std::mt19937_64 rng(1);
  const std::array<std::int64_t, 3> shapes[] = {{5, 3, 4},   {13, 7, 3}, {1, 9, 2},  {8, 8, 5},
                                                {31, 17, 1}, {4, 1, 6},  {64, 48, 3}};
  for (const auto& dims : shapes)
    for (std::size_t e : element_sizes)
      for (tiled_method method : both_methods)
        for (int threads : thread_counts) {
          const auto [A, B, C] = dims;
          const std::vector<std::byte> in = random_bytes<std::byte>(A * B * C * e, rng);
          std::vector<std::byte> data = in;
          run_stage(data, tiled_stage("100", 1, A, B, C * e, method), threads, rng);
          ASSERT_EQ(data, permute_axes<3>(in, dims, {1, 0, 2}, e))
              << "100 " << A << "x" << B << "x" << C << " e=" << e << " threads=" << threads;
          data = in;
          run_stage(data, tiled_stage("010", A, B, C, e, method), threads, rng);
          ASSERT_EQ(data, permute_axes<3>(in, dims, {0, 2, 1}, e))
              << "010 " << A << "x" << B << "x" << C << " e=" << e << " threads=" << threads;
        }
}

TEST(Elementary, Transpositions1000And0100And0010) {
  std::mt19937_64 rng(2);
  const std::array<std::int64_t, 4> shapes[] = {{3, 5, 2, 4}, {7, 6, 5, 3}, {2, 9, 4, 1},
                                                {1, 4, 6, 5}, {6, 1, 3, 2}, {11, 13, 3, 2}};
  for (const auto& dims : shapes)
    for (std::size_t e : element_sizes)
      for (tiled_method method : both_methods)
        for (int threads : thread_counts) {
          const auto [A, B, C, D] = dims;
          const std::vector<std::byte> in = random_bytes<std::byte>(A * B * C * D * e, rng);
          std::vector<std::byte> data = in;
          run_stage(data, tiled_stage("1000", 1, A, B, C * D * e, method), threads, rng);
          ASSERT_EQ(data, permute_axes<4>(in, dims, {1, 0, 2, 3}, e)) << "1000 e=" << e;
          data = in;
          run_stage(data, tiled_stage("0100", A, B, C, D * e, method), threads, rng);
          ASSERT_EQ(data, permute_axes<4>(in, dims, {0, 2, 1, 3}, e)) << "0100 e=" << e;
          data = in;
          run_stage(data, tiled_stage("0010", A * B, C, D, e, method), threads, rng);
          ASSERT_EQ(data, permute_axes<4>(in, dims, {0, 1, 3, 2}, e)) << "0010 e=" << e;
        }
}

// One large instance shared by all threads: cycles longer than a chunk (1024 positions), short
// cycles from the leader bitmap, and super-elements cut into byte slices.
TEST(Elementary, SharedInstanceChunksAndSlices) {
  std::mt19937_64 rng(3);
  struct shape {
    std::int64_t A, B, C;
    std::size_t e;
  };
  const shape shapes[] = {{97, 61, 1, 4},    {211, 97, 3, 1},   {128, 64, 2, 8},  {45, 77, 1, 12},
                          {37, 41, 1024, 4}, {33, 35, 600, 12}, {50, 48, 2048, 2}};
  for (const shape& sh : shapes)
    for (int threads : {2, 3, 4})
      for (bool with_table : {false, true}) {
        const stage s =
            tiled_stage("100", 1, sh.A, sh.B, sh.C * sh.e, tiled_method::cycle_following);
        if (with_table) ASSERT_GT(cpu::tiled_transpose_table_bytes(s, threads), 0u);
        const std::vector<std::byte> in = random_bytes<std::byte>(sh.A * sh.B * sh.C * sh.e, rng);
        std::vector<std::byte> data = in;
        run_stage(data, s, threads, rng, with_table);
        ASSERT_EQ(data, permute_axes<3>(in, {sh.A, sh.B, sh.C}, {1, 0, 2}, sh.e))
            << sh.A << "x" << sh.B << "x" << sh.C << " e=" << sh.e << " threads=" << threads
            << (with_table ? " with the work list" : "");
      }
}

TEST(Elementary, WorkListOnlyWhereThreadsShareAnInstance) {
  // One thread, or as many instances as threads: each thread takes whole instances, no list.
  EXPECT_EQ(cpu::tiled_transpose_table_bytes(
                tiled_stage("100", 1, 211, 97, 4, tiled_method::cycle_following), 1),
            0u);
  EXPECT_EQ(cpu::tiled_transpose_table_bytes(
                tiled_stage("010", 64, 211, 97, 4, tiled_method::cycle_following), 4),
            0u);
  EXPECT_EQ(cpu::tiled_transpose_table_bytes(
                tiled_stage("100", 1, 211, 97, 4, tiled_method::in_cache), 4),
            0u);
}

TEST(Elementary, BatchOfTwoSharedInstances) {
  std::mt19937_64 rng(4);
  const std::int64_t A = 2, B = 89, C = 47;
  const std::size_t e = 8;
  const std::vector<std::byte> in = random_bytes<std::byte>(A * B * C * e, rng);
  for (bool with_table : {false, true}) {
    std::vector<std::byte> data = in;
    run_stage(data, tiled_stage("010", A, B, C, e, tiled_method::cycle_following), 4, rng,
              with_table);
    ASSERT_EQ(data, permute_axes<3>(in, {A, B, C}, {0, 2, 1}, e));
  }
}

TEST(Elementary, FusedPairEqualsStagesInSequence) {
  std::mt19937_64 rng(5);
  struct shape {
    std::int64_t N1, M1, m, n;
  };
  const shape shapes[] = {{3, 4, 5, 6}, {7, 9, 8, 4}, {1, 5, 3, 7}, {4, 1, 6, 6}, {5, 30, 16, 8}};
  for (const shape& sh : shapes)
    for (std::size_t e : element_sizes)
      for (tiled_method first_method : both_methods)
        for (tiled_method second_method : both_methods)
          for (int threads : {1, 2}) {
            stage first = tiled_stage("0010", sh.N1 * sh.M1, sh.m, sh.n, e, first_method);
            first.fused_with_next = true;
            const stage second = tiled_stage("0100", sh.N1, sh.M1, sh.n, sh.m * e, second_method);
            const std::vector<std::byte> in =
                random_bytes<std::byte>(sh.N1 * sh.M1 * sh.m * sh.n * e, rng);
            std::vector<std::byte> expected = in;
            run_stage(expected, first, 1, rng);
            run_stage(expected, second, 1, rng);
            ASSERT_EQ(expected, permute_axes<4>(in, {sh.N1, sh.M1, sh.m, sh.n}, {0, 3, 1, 2}, e));
            std::vector<std::byte> data = in;
            const std::size_t bytes = cpu::tiled_transpose_fused_workspace(first, second, threads);
            std::vector<std::byte> workspace = random_bytes<std::byte>(bytes, rng);
            workspace.resize(bytes + guard_bytes, guard_value);
            cpu::tiled_transpose_fused(data.data(), first, second, workspace.data(), threads);
            for (std::size_t i = bytes; i < workspace.size(); ++i)
              ASSERT_EQ(workspace[i], guard_value) << "fused workspace overrun";
            ASSERT_EQ(data, expected) << sh.N1 << " " << sh.M1 << " " << sh.m << " " << sh.n
                                      << " e=" << e << " threads=" << threads;
          }
}

}  // namespace
}  // namespace xpose::detail
