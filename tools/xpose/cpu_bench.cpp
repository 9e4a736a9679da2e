#include "cpu_bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "cpu/copy_policy.hpp"
#include "cpu_peers.hpp"
#include "cpu_timing.hpp"
#include "report.hpp"

namespace xpose_cli {

namespace {

xpose::plan make_plan(const bench_case& c, const bench_settings& settings) {
  xpose::matrix_desc desc;
  desc.rows = c.rows;
  desc.cols = c.cols;
  desc.elem_size = c.elem_size;
  desc.batch = c.batch;  // dense: batch_stride 0
  const xpose::plan_options options{xpose::device::cpu, c.route, settings.threads, nullptr};
  return c.in_place ? xpose::plan_inplace(desc, options) : xpose::plan_copy(desc, 0, 0, options);
}

/// The out-of-place policies named in XPOSE_CPU_COPY_POLICIES, separated by ';' (none when it
/// is unset), each over the policy the library chooses.
std::vector<std::string> copy_policies_to_try() {
  std::vector<std::string> policies;
  const char* const text = std::getenv("XPOSE_CPU_COPY_POLICIES");
  for (std::string rest = text != nullptr ? text : ""; !rest.empty();) {
    const std::size_t end = std::min(rest.find(';'), rest.size());
    if (rest.find_first_not_of(' ') < end) policies.push_back(rest.substr(0, end));
    rest.erase(0, end < rest.size() ? end + 1 : end);
  }
  return policies;
}

/// Each policy of XPOSE_CPU_COPY_POLICIES on the out-of-place case `c`, timed and checked like
/// the plan, as one line per policy (the label is the policy, its words completed).
void time_copy_policies(const bench_case& c, const reference_pair& reference, byte_buffer& work,
                        const bench_settings& settings, bench_row& row) {
  namespace cpu = xpose::detail::cpu;
  xpose::detail::stage s;
  s.kind = xpose::detail::stage_kind::copy_transpose;
  s.batch = c.batch;
  s.rows = c.rows;
  s.cols = c.cols;
  s.super_bytes = c.elem_size;
  s.lda = c.cols;
  s.ldb = c.rows;
  s.src_batch_stride = s.dst_batch_stride = c.rows * c.cols;
  const cpu::copy_policy chosen = cpu::choose_copy_policy(s, work.data(), settings.threads);
  for (const std::string& text : copy_policies_to_try()) {
    cpu::copy_policy policy;
    try {
      policy = cpu::parse_copy_policy(text, chosen);
    } catch (const std::exception& e) {
      row.failure = std::string("XPOSE_CPU_COPY_POLICIES: ") + e.what();
      row.verified = false;
      return;
    }
    const timed_runs runs = time_host_runs(
        settings, [&] { prepare_run(work.data(), false, reference, settings.threads); },
        [&] {
          cpu::copy_transpose_with_policy(reference.input.data(), work.data(), s, policy,
                                          settings.threads);
        },
        [&] { return check_run(work.data(), reference); });
    if (!runs.failure.empty()) {
      row.failure = "policy '" + text + "': " + runs.failure;
      row.verified = false;
      return;
    }
    row.stages.push_back(
        {cpu::to_string(policy), rate_from_times(runs.times_ms, reference.input.size())});
  }
}

/// Each stage of an in-place plan of two stages or more alone on the matrix, which is left
/// between stages (only the times are read).
void time_stages(const xpose::plan& plan, byte_buffer& work, std::size_t bytes,
                 const bench_settings& settings, bench_row& row) {
  for (std::size_t i = 0; i < plan.stage_count(); ++i) {
    const timed_runs runs = time_host_runs(
        settings, [] {}, [&] { plan.execute_stage(i, work.data()); }, [] { return std::string(); });
    if (!runs.failure.empty()) return;
    row.stages.push_back({plan.stage_label(i), rate_from_times(runs.times_ms, bytes)});
  }
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
    if (row.verified && c.in_place && plan->stage_count() > 1)
      time_stages(*plan, work, bytes, settings, row);
    const bool policies = !c.in_place && !copy_policies_to_try().empty();
    if (row.verified && policies) time_copy_policies(c, reference, work, settings, row);
    if (!policies) row.peer = run_cpu_peer(c, reference, settings);
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
  // The memory's copy bandwidth at this thread count, over buffers of twice the last-level cache
  // or more (at most an eighth of the memory each); --quick takes 16 MiB.
  const double installed =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  const std::size_t last_level =
      static_cast<std::size_t>(std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)));
  std::size_t copy_bytes = std::max(std::size_t{256} << 20, 2 * last_level);
  if (installed > 0) copy_bytes = std::min(copy_bytes, static_cast<std::size_t>(installed / 8));
  if (!settings.evict_caches) copy_bytes = std::size_t{16} << 20;
  const rate copy = time_host_memcpy(copy_bytes, settings);
  char bandwidth[96];
  std::snprintf(bandwidth, sizeof bandwidth, ", memcpy %.1f GB/s (%zu MiB)", copy.gb_per_s,
                copy_bytes >> 20);
  const char* const bind = std::getenv("OMP_PROC_BIND");
  const char* const places = std::getenv("OMP_PLACES");
  info.detail = std::to_string(settings.threads) + " threads" + bandwidth +
                (bind != nullptr ? std::string(", OMP_PROC_BIND=") + bind : "") +
                (places != nullptr ? std::string(", OMP_PLACES=") + places : "");
  if (!copy_policies_to_try().empty())
    info.detail += ", out-of-place policies from XPOSE_CPU_COPY_POLICIES";
  return info;
}

}  // namespace xpose_cli
