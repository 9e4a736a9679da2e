// Measured planning and wisdom (xpose/plan.hpp): a measured plan leaves the caller's data as it
// was, transposes correctly, names the times in describe() and records its route; wisdom
// exports, imports (malformed text refused, nothing imported), steers later plans of the same
// matrix and device, and is forgotten on request.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace xpose::test {
namespace {

TEST(Tuning, MeasuredPlanLeavesDataAndTransposes) {
  forget_wisdom();
  for (const auto& [rows, cols, e] :
       {std::tuple<std::int64_t, std::int64_t, std::size_t>{720, 180, 4},
        {97, 89, 8},
        {10000, 5, 4},
        {300, 300, 2}}) {
    std::vector<unsigned char> data = random_bytes(static_cast<std::size_t>(rows * cols) * e, 11);
    const std::vector<unsigned char> original = data;
    plan_options options;
    options.tune = tuning::measure;
    options.threads = 2;
    const plan p = plan_inplace({rows, cols, e}, data.data(), options);
    EXPECT_EQ(data, original) << "planning changed the data\n" << p.describe();
    EXPECT_NE(p.describe().find("measured on the caller's data"), std::string::npos)
        << p.describe();
    p.execute(data.data());
    EXPECT_EQ(data, reference_transpose(original, rows, cols, e)) << p.describe();
    // The wisdom now holds this matrix: an estimated plan takes the measured route.
    const plan again = plan_inplace({rows, cols, e}, options);
    EXPECT_EQ(again.chosen_route(), p.chosen_route());
  }
  EXPECT_NE(export_wisdom().find("720x180"), std::string::npos) << export_wisdom();
  forget_wisdom();
}

TEST(Tuning, WisdomSteersExportsAndImports) {
  forget_wisdom();
  plan_options options;
  options.threads = 2;
  const plan planned = plan_inplace({720, 180, 4}, options);
  ASSERT_NE(planned.chosen_route(), route::four_stage);
  // Wisdom naming another route for this matrix and thread count.
  std::string text = export_wisdom();
  EXPECT_EQ(text.find("720x180"), std::string::npos);
  std::vector<unsigned char> data(720 * 180 * 4, 1);
  options.tune = tuning::measure;
  const plan measured = plan_inplace({720, 180, 4}, data.data(), options);
  text = export_wisdom();
  const std::size_t tab = text.rfind('\t');
  ASSERT_NE(tab, std::string::npos) << text;
  const std::string edited = text.substr(0, tab + 1) + "four_stage\n";
  forget_wisdom();
  EXPECT_EQ(export_wisdom().find("720x180"), std::string::npos);
  import_wisdom(edited);
  options.tune = tuning::estimate;
  const plan steered = plan_inplace({720, 180, 4}, options);
  EXPECT_EQ(steered.chosen_route(), route::four_stage) << steered.describe();
  EXPECT_NE(steered.describe().find("from wisdom"), std::string::npos) << steered.describe();
  // Another thread count is another key.
  options.threads = 1;
  EXPECT_EQ(plan_inplace({720, 180, 4}, options).chosen_route(), planned.chosen_route());
  // Malformed text: refused, nothing imported.
  forget_wisdom();
  EXPECT_THROW(import_wisdom(edited + "no tab here\n"), error);
  EXPECT_THROW(import_wisdom("key\tno_such_route\n"), error);
  EXPECT_EQ(export_wisdom().find("720x180"), std::string::npos);
  forget_wisdom();
}

TEST(Tuning, MeasureNeedsData) {
  plan_options options;
  options.tune = tuning::measure;
  EXPECT_THROW(plan_inplace({100, 60, 4}, nullptr, options), error);
}

}  // namespace
}  // namespace xpose::test
