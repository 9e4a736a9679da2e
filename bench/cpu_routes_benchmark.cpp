// Micro-benchmarks of whole CPU transpositions through the public API (plan once, execute per
// iteration): every in-place route on the rectangular shapes, the square variants, and the
// out-of-place copy for element sizes 1..16, next to a memcpy of the same bytes.
// In place, the plan is executed again on its own output each iteration: that is a different
// permutation of the same bytes with the same memory traffic, so the timing is unchanged.
#include <benchmark/benchmark.h>
#include <xpose/xpose.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "bench_shapes.hpp"

namespace {

using xpose_bench::shape_name;

xpose::matrix_desc dense(std::int64_t rows, std::int64_t cols, std::size_t elem_size) {
  xpose::matrix_desc desc;
  desc.rows = rows;
  desc.cols = cols;
  desc.elem_size = elem_size;
  return desc;
}

void set_bytes(benchmark::State& state, std::size_t matrix_bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(matrix_bytes));
}

void in_place(benchmark::State& state, std::int64_t rows, std::int64_t cols, std::size_t elem_size,
              xpose::route route) {
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * elem_size;
  std::vector<std::byte> data(bytes);
  xpose_bench::fill_non_zero(data.data(), bytes);
  try {
    const xpose::plan plan =
        xpose::plan_inplace(dense(rows, cols, elem_size), {xpose::device::cpu, route, 0, nullptr});
    state.SetLabel(std::string(xpose::to_string(plan.chosen_route())) + ", workspace " +
                   std::to_string(plan.workspace_bytes()) + " B");
    for (auto _ : state) {
      plan.execute(data.data());
      benchmark::ClobberMemory();
    }
  } catch (const xpose::error& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_bytes(state, bytes);
}

void copy(benchmark::State& state, std::int64_t rows, std::int64_t cols, std::size_t elem_size,
          xpose::route route) {
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * elem_size;
  std::vector<std::byte> src(bytes), dst(bytes);
  xpose_bench::fill_non_zero(src.data(), bytes);
  try {
    const xpose::plan plan = xpose::plan_copy(dense(rows, cols, elem_size), 0, 0,
                                              {xpose::device::cpu, route, 0, nullptr});
    state.SetLabel(std::string(xpose::to_string(plan.chosen_route())));
    for (auto _ : state) {
      plan.execute(src.data(), dst.data());
      benchmark::ClobberMemory();
    }
  } catch (const xpose::error& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_bytes(state, bytes);
}

void single_thread_memcpy(benchmark::State& state, std::size_t bytes) {
  std::vector<std::byte> src(bytes), dst(bytes);
  xpose_bench::fill_non_zero(src.data(), bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::ClobberMemory();
  }
  set_bytes(state, bytes);
}

const bool registered = [] {
  using xpose::route;
  for (const auto& s : xpose_bench::rectangular_shapes) {
    const std::string name = shape_name(s.rows, s.cols, 4);
    for (const route r : {route::automatic, route::three_stage, route::four_stage,
                          route::row_column, route::cycle_following})
      benchmark::RegisterBenchmark(
          ("inplace/" + std::string(xpose::to_string(r)) + "/" + name).c_str(), in_place, s.rows,
          s.cols, std::size_t{4}, r)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    benchmark::RegisterBenchmark(("memcpy_1thread/" + name).c_str(), single_thread_memcpy,
                                 static_cast<std::size_t>(s.rows * s.cols) * 4)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const route r : {route::square_tile_swap, route::square_naive, route::square_prefetch,
                        route::square_recursive})
    benchmark::RegisterBenchmark(
        ("inplace/" + std::string(xpose::to_string(r)) + "/" + shape_name(4096, 4096, 4)).c_str(),
        in_place, std::int64_t{4096}, std::int64_t{4096}, std::size_t{4}, r)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  for (const std::size_t elem : {1, 2, 4, 8, 16})
    benchmark::RegisterBenchmark(("copy/copy_blocked/" + shape_name(4000, 3200, elem)).c_str(),
                                 copy, std::int64_t{4000}, std::int64_t{3200}, elem,
                                 route::copy_blocked)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return true;
}();

}  // namespace
