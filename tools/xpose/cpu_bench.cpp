#include "cpu_bench.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <new>
#include <optional>
#include <string>

#include "cpu_peers.hpp"
#include "cpu_timing.hpp"

namespace xpose_cli {

namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1u << 30));
  return text;
}

xpose::plan make_plan(const bench_case& c, const bench_settings& settings) {
  xpose::matrix_desc desc;
  desc.rows = c.rows;
  desc.cols = c.cols;
  desc.elem_size = c.elem_size;
  desc.batch = c.batch;  // dense: batch_stride 0
  const xpose::plan_options options{xpose::device::cpu, c.route, settings.threads, nullptr};
  return c.in_place ? xpose::plan_inplace(desc, options) : xpose::plan_copy(desc, 0, 0, options);
}

}  // namespace

bench_row run_cpu_case(const bench_case& c, reference_cache& references,
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

  // The pristine input, its reference and the work buffer, besides the plan's workspace.
  const std::size_t bytes = host_matrix_bytes(c.rows, c.cols, c.elem_size, c.batch);
  const double needed = 3.0 * static_cast<double>(bytes) + static_cast<double>(row.workspace_bytes);
  const double installed =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (installed > 0 && needed > installed) {
    row.skipped = "needs " + gib(needed) + " of host memory, " + gib(installed) + " installed";
    return row;
  }
  try {
    const reference_pair& reference = references.get(c.rows, c.cols, c.elem_size, c.batch);
    byte_buffer work(bytes);  // in place: the matrix; out of place: the destination
    const timed_runs runs = time_host_runs(
        settings, [&] { prepare_run(work.data(), c.in_place, reference, settings.threads); },
        [&] {
          if (c.in_place)
            plan->execute(work.data());
          else
            plan->execute(reference.input.data(), work.data());
        },
        [&] { return check_run(work.data(), reference); });
    row.failure = runs.failure;
    row.verified = runs.failure.empty();
    if (row.verified) row.measured = rate_from_times(runs.times_ms, bytes);
    row.copy = time_host_memcpy(bytes, settings);
    row.peer = run_cpu_peer(c, reference, settings);
  } catch (const std::bad_alloc&) {
    row.skipped = "host memory: allocating the buffers of " + gib(needed) + " failed";
  }
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
