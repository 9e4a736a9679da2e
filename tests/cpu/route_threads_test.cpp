// The CPU planner's route choice at every thread count, without data: on a grid of shapes
// (the PPoPP'14 Table 2, primes, skinny, large) x thread counts, the automatic plan is never
// predicted at more than 1.5 x the passes of the best route whose workspace fits the budget on
// one thread (the relaxed budget: per-thread buffers are what grows with the threads), its
// workspace fits the budget wherever some route does on one thread, and a plan that runs on
// fewer threads than asked says so in describe().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "plan/planner.hpp"
#include "xpose/xpose.hpp"

namespace xpose::test {
namespace {

plan cpu_plan(std::int64_t rows, std::int64_t cols, std::size_t e, int threads, route r) {
  plan_options options;
  options.target = device::cpu;
  options.threads = threads;
  options.forced_route = r;
  return plan_inplace({rows, cols, e}, options);
}

TEST(RouteThreads, NoPlanFarSlowerThanTheBestWithinARelaxedBudget) {
  struct shape {
    std::int64_t rows, cols;
    std::size_t e;
  };
  const shape shapes[] = {{7200, 1800, 4}, {5100, 2500, 4},  {4000, 3200, 4},  {3300, 3900, 4},
                          {2500, 5100, 4}, {1800, 7200, 4},  {7919, 1800, 4},  {1800, 7919, 4},
                          {4999, 3001, 4}, {997, 1009, 8},   {7919, 10007, 4}, {20000, 5000, 4},
                          {7200, 1800, 1}, {7200, 1800, 16}, {1000000, 16, 4}, {16, 1000000, 4},
                          {100000, 3, 8}};
  for (const shape& s : shapes) {
    const double matrix = static_cast<double>(s.rows) * s.cols * s.e;
    const double budget = std::max(detail::workspace_budget_fraction * matrix,
                                   static_cast<double>(detail::workspace_floor_bytes));
    double best = std::numeric_limits<double>::infinity();
    for (route r :
         {route::three_stage, route::row_column, route::skinny_chunks, route::cycle_following}) {
      try {
        const plan one = cpu_plan(s.rows, s.cols, s.e, 1, r);
        if (static_cast<double>(one.workspace_bytes()) <= budget)
          best = std::min(best, one.predicted_passes());
      } catch (const error&) {
        // the route does not apply to this shape
      }
    }
    for (int threads : {1, 2, 4, 8, 16, 64}) {
      const plan chosen = cpu_plan(s.rows, s.cols, s.e, threads, route::automatic);
      const std::string text = chosen.describe();
      EXPECT_LE(chosen.predicted_passes(), 1.5 * best)
          << s.rows << " x " << s.cols << " x " << s.e << " on " << threads << " threads\n"
          << text;
      // Some route fits the budget on one thread: the plan fits it too, on fewer threads if it
      // must (4999 x 3001's row_column buffers on 16 threads would take 1.8 % of the matrix).
      if (best < std::numeric_limits<double>::infinity())
        EXPECT_LE(static_cast<double>(chosen.workspace_bytes()), budget)
            << s.rows << " x " << s.cols << " x " << s.e << " on " << threads << " threads\n"
            << text;
      if (text.find("threads: " + std::to_string(threads) + "\n") == std::string::npos)
        EXPECT_NE(text.find("note: "), std::string::npos) << text;
    }
  }
}

}  // namespace
}  // namespace xpose::test
