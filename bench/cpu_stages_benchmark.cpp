// Micro-benchmarks of the elementary stages (PPoPP'14 sec. 4) of the 3-stage and 4-stage routes,
// one stage at a time through the CPU kernels, on the rectangular shapes with the planner's
// tile choice: which stage costs what, for tuning. Fused pairs are also timed together.
// Each iteration applies the stage to the previous iteration's output (same traffic).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <string>
#include <vector>

#include "bench_shapes.hpp"
#include "cpu/cpu_kernels.hpp"
#include "plan/staged_routes.hpp"

namespace {

using xpose::detail::stage;

std::string stage_name(const stage& s) {
  return s.label + "[" + std::to_string(s.batch) + "x" + std::to_string(s.rows) + "x" +
         std::to_string(s.cols) + "x" + std::to_string(s.super_bytes) + "B," +
         (s.method == xpose::detail::tiled_method::in_cache ? "in_cache" : "cycles") + "]";
}

void one_stage(benchmark::State& state, std::int64_t rows, std::int64_t cols, stage s) {
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 4;
  const int threads = omp_get_max_threads();
  std::vector<std::byte> data(bytes);
  std::vector<std::byte> workspace(xpose::detail::cpu::tiled_transpose_workspace(s, threads));
  xpose_bench::fill_non_zero(data.data(), bytes);
  for (auto _ : state) {
    xpose::detail::cpu::tiled_transpose(data.data(), s, workspace.data(), threads);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(bytes));
}

void fused_pair(benchmark::State& state, std::int64_t rows, std::int64_t cols, stage first,
                stage second) {
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 4;
  const int threads = omp_get_max_threads();
  std::vector<std::byte> data(bytes);
  std::vector<std::byte> workspace(
      xpose::detail::cpu::tiled_transpose_fused_workspace(first, second, threads));
  xpose_bench::fill_non_zero(data.data(), bytes);
  for (auto _ : state) {
    xpose::detail::cpu::tiled_transpose_fused(data.data(), first, second, workspace.data(),
                                              threads);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(bytes));
}

void register_route(const xpose_bench::shape& s, xpose::route route) {
  const auto tiles = xpose::detail::choose_tiles(s.rows, s.cols, 4, route);
  if (!tiles) return;  // no useful factors (a prime dimension): the route does not apply
  const auto stages =
      route == xpose::route::three_stage
          ? xpose::detail::three_stage_stages(s.rows, s.cols, 4, tiles->first, tiles->second)
          : xpose::detail::four_stage_stages(s.rows, s.cols, 4, tiles->first, tiles->second);
  const std::string prefix = "stage/" + std::string(xpose::to_string(route)) + "/" +
                             xpose_bench::shape_name(s.rows, s.cols, 4) + "/";
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].kind != xpose::detail::stage_kind::tiled_transpose) continue;
    benchmark::RegisterBenchmark((prefix + stage_name(stages[i])).c_str(), one_stage, s.rows,
                                 s.cols, stages[i])
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    if (stages[i].fused_with_next && i + 1 < stages.size())
      benchmark::RegisterBenchmark(
          (prefix + "fused:" + stage_name(stages[i]) + "+" + stage_name(stages[i + 1])).c_str(),
          fused_pair, s.rows, s.cols, stages[i], stages[i + 1])
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
}

const bool registered = [] {
  for (const auto& s : xpose_bench::rectangular_shapes) {
    register_route(s, xpose::route::three_stage);
    register_route(s, xpose::route::four_stage);
  }
  return true;
}();

}  // namespace
