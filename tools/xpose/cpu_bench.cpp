#include "cpu_bench.hpp"

#include <fstream>
#include <optional>
#include <string>

#include "cpu_peers.hpp"
#include "cpu_timing.hpp"

namespace xpose_cli {

namespace {

xpose::plan make_plan(const bench_case& c, const bench_settings& settings) {
  xpose::matrix_desc desc;
  desc.rows = c.rows;
  desc.cols = c.cols;
  desc.elem_size = c.elem_size;
  const xpose::plan_options options{xpose::device::cpu, c.route, settings.threads, nullptr};
  return c.in_place ? xpose::plan_inplace(desc, options) : xpose::plan_copy(desc, 0, 0, options);
}

}  // namespace

bench_row run_cpu_case(const bench_case& c, const reference_pair& reference,
                       const bench_settings& settings) {
  bench_row row;
  row.spec = c;
  std::optional<xpose::plan> plan;
  try {
    plan.emplace(make_plan(c, settings));
  } catch (const std::exception& e) {
    row.failure = std::string("planning failed: ") + e.what();
    return row;
  }
  row.chosen_route = std::string(xpose::to_string(plan->chosen_route()));
  row.workspace_bytes = plan->workspace_bytes();
  row.predicted_passes = plan->predicted_passes();

  const std::size_t bytes = c.matrix_bytes();
  byte_buffer work(bytes);  // in place: the matrix; out of place: the destination
  const timed_runs runs = time_host_runs(
      settings,
      [&] {
        if (c.in_place)
          parallel_memcpy(work.data(), reference.input.data(), bytes, settings.threads);
        else
          poison(work.data(), bytes, settings.threads);
      },
      [&] {
        if (c.in_place)
          plan->execute(work.data());
        else
          plan->execute(reference.input.data(), work.data());
      },
      [&] {
        return compare_with_reference(work.data(), reference.expected.data(), c.rows, c.cols,
                                      c.elem_size);
      });
  row.failure = runs.failure;
  row.verified = runs.failure.empty();
  if (row.verified) row.measured = rate_from_times(runs.times_ms, bytes);
  row.copy = time_host_memcpy(bytes, settings);
  row.peer = run_cpu_peer(c, reference, settings);
  return row;
}

device_info describe_cpu(const bench_settings& settings) {
  device_info info;
  info.target = xpose::device::cpu;
  info.name = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size())
        info.name = line.substr(colon + 2);
      break;
    }
  }
  info.detail = std::to_string(settings.threads) + " threads";
  return info;
}

}  // namespace xpose_cli
