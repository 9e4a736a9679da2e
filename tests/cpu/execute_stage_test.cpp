// plan::execute_stage: the stages of an in-place plan run one at a time, in order, give the
// whole transposition (fused pairs run unfused, the skinny route's held block and row_column's
// phases pass from stage to stage); bad stage numbers and out-of-place plans are refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace xpose::test {
namespace {

void check_stage_by_stage(std::int64_t rows, std::int64_t cols, std::size_t e, route r,
                          std::uint64_t seed) {
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * e;
  std::vector<unsigned char> data = random_bytes(bytes, seed);
  const std::vector<unsigned char> expected = reference_transpose(data, rows, cols, e);
  plan_options options;
  options.forced_route = r;
  const plan p = plan_inplace({rows, cols, e}, options);
  ASSERT_GE(p.stage_count(), 1u) << p.describe();
  for (std::size_t i = 0; i < p.stage_count(); ++i) p.execute_stage(i, data.data());
  EXPECT_TRUE(data == expected) << p.describe();
}

TEST(ExecuteStage, StagesInOrderGiveTheTransposition) {
  check_stage_by_stage(720, 180, 4, route::three_stage, 1);
  check_stage_by_stage(360, 250, 8, route::four_stage, 2);
  check_stage_by_stage(97, 89, 4, route::row_column, 3);
  check_stage_by_stage(10000, 7, 4, route::skinny_chunks, 4);
  check_stage_by_stage(7, 10001, 2, route::skinny_chunks, 5);
  check_stage_by_stage(300, 300, 4, route::automatic, 6);
}

TEST(ExecuteStage, RefusesBadStagesAndOutOfPlacePlans) {
  std::vector<unsigned char> data(100 * 60 * 4, 7);
  const std::vector<unsigned char> before = data;
  const plan p = plan_inplace({100, 60, 4});
  EXPECT_THROW(p.execute_stage(p.stage_count(), data.data()), error);
  EXPECT_THROW(static_cast<void>(p.stage_label(p.stage_count())), error);
  EXPECT_THROW(p.execute_stage(0, nullptr), error);
  const plan copy = plan_copy({100, 60, 4});
  EXPECT_EQ(copy.stage_count(), 1u);
  EXPECT_THROW(copy.execute_stage(0, data.data()), error);
  EXPECT_EQ(data, before);
}

}  // namespace
}  // namespace xpose::test
