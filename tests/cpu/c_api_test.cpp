// The C API: status codes, per-thread messages, plans; a failed call leaves data untouched.
#include "xpose/xpose.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

TEST(CApi, OneCallTranspositions) {
  const auto original = xpose::test::random_bytes(30 * 17 * 8, 2);
  auto data = original;
  std::vector<unsigned char> dst(data.size());
  ASSERT_EQ(xpose_transpose(data.data(), dst.data(), 30, 17, 8), XPOSE_SUCCESS);
  ASSERT_EQ(xpose_transpose_inplace(data.data(), 30, 17, 8), XPOSE_SUCCESS);
  const auto expected = xpose::test::reference_transpose(original, 30, 17, 8);
  EXPECT_TRUE(data == expected);
  EXPECT_TRUE(dst == expected);
  EXPECT_STREQ(xpose_last_error(), "");
}

TEST(CApi, ErrorsReturnStatusAndMessage) {
  const auto original = xpose::test::random_bytes(30 * 17 * 4, 3);
  auto data = original;
  EXPECT_EQ(xpose_transpose_inplace(data.data(), 30, 0, 4), XPOSE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("cols must be positive, got 0"), std::string::npos)
      << xpose_last_error();
  EXPECT_EQ(xpose_transpose_inplace(nullptr, 30, 17, 4), XPOSE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("data is null"), std::string::npos);
  EXPECT_EQ(xpose_transpose_inplace(data.data(), 30, 17, 100000), XPOSE_UNSUPPORTED);
  EXPECT_TRUE(data == original);
  EXPECT_STREQ(xpose_status_string(XPOSE_UNSUPPORTED), "unsupported");
  xpose_plan plan = nullptr;
  EXPECT_EQ(xpose_plan_inplace(&plan, 30, 17, 4, 1, static_cast<xpose_device>(7)),
            XPOSE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpose_last_error()).find("device"), std::string::npos);
  EXPECT_EQ(plan, nullptr);
  EXPECT_EQ(xpose_plan_execute_inplace(nullptr, data.data()), XPOSE_INVALID_ARGUMENT);
}

TEST(CApi, PlansDescribeExecuteDestroy) {
  const int64_t rows = 64, cols = 48, batch = 2;
  const auto original = xpose::test::random_bytes(rows * cols * batch * 2, 4);
  auto data = original;
  xpose_plan plan = nullptr;
  ASSERT_EQ(xpose_plan_inplace(&plan, rows, cols, 2, batch, XPOSE_DEVICE_CPU), XPOSE_SUCCESS);
  char text[4096];
  ASSERT_EQ(xpose_plan_describe(plan, text, sizeof text), XPOSE_SUCCESS);
  EXPECT_NE(std::string(text).find("route"), std::string::npos);
  size_t workspace = 0;
  ASSERT_EQ(xpose_plan_workspace_bytes(plan, &workspace), XPOSE_SUCCESS);
  ASSERT_EQ(xpose_plan_execute_inplace(plan, data.data()), XPOSE_SUCCESS);
  EXPECT_EQ(xpose_plan_execute_copy(plan, data.data(), text), XPOSE_INVALID_ARGUMENT);
  EXPECT_EQ(xpose_plan_destroy(plan), XPOSE_SUCCESS);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<unsigned char> one(original.begin() + b * rows * cols * 2,
                                   original.begin() + (b + 1) * rows * cols * 2);
    const auto expected = xpose::test::reference_transpose(one, rows, cols, 2);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), data.begin() + b * rows * cols * 2));
  }
  std::vector<unsigned char> dst(rows * cols * 2);
  ASSERT_EQ(xpose_plan_copy(&plan, rows, cols, 2, 1, XPOSE_DEVICE_CPU), XPOSE_SUCCESS);
  ASSERT_EQ(xpose_plan_execute_copy(plan, original.data(), dst.data()), XPOSE_SUCCESS);
  EXPECT_EQ(xpose_plan_destroy(plan), XPOSE_SUCCESS);
  std::vector<unsigned char> first(original.begin(), original.begin() + rows * cols * 2);
  EXPECT_TRUE(dst == xpose::test::reference_transpose(first, rows, cols, 2));
}

}  // namespace
