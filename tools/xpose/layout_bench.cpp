#include "layout_bench.hpp"

#include <unistd.h>

#include <cstdio>
#include <new>
#include <optional>
#include <string>

#include "cpu_timing.hpp"
#include "host_data.hpp"
#include "layout_data.hpp"
#include "report.hpp"

namespace xpose_cli {

namespace {

std::uint64_t seed_of(const bench_case& c) {
  return static_cast<std::uint64_t>(c.rows) * 1000003u + static_cast<std::uint64_t>(c.cols) * 31u +
         c.elem_size;
}

}  // namespace

std::string layout_steps_label(const xpose::layout_conversion& conversion) {
  std::string label;
  for (std::size_t k = 0; k < conversion.steps(); ++k)
    label += (k ? " + " : "") + conversion.step_label(k);
  return label.empty() ? "none" : label;
}

bench_row run_cpu_layout_case(const bench_case& c, const bench_settings& settings) {
  bench_row row;
  row.spec = c;
  const xpose::struct_array_desc desc{c.rows, c.cols, c.elem_size};
  std::optional<xpose::layout_conversion> conversion;
  try {
    xpose::plan_options options;
    options.threads = settings.threads;
    conversion.emplace(xpose::plan_layout_conversion(desc, c.from, c.to, options, c.variant));
  } catch (const xpose::error& e) {
    (e.code() == xpose::status::unsupported ? row.skipped : row.failure) =
        std::string("planning: ") + e.what();
    return row;
  }
  row.chosen_route = layout_steps_label(*conversion);
  row.workspace_bytes = conversion->workspace_bytes();
  row.predicted_passes = conversion->predicted_passes();
  // The AoS, the pristine input in `from` and the work buffer, besides the workspace.
  const std::size_t bytes = c.matrix_bytes();
  const double needed = 3.0 * static_cast<double>(bytes) + static_cast<double>(row.workspace_bytes);
  const double installed =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (installed > 0 && needed > installed) {
    row.skipped = "needs " + gib(needed) + " of host memory, " + gib(installed) + " installed";
    return row;
  }
  try {
    byte_buffer aos(bytes), input(bytes), work(bytes);
    fill_random(aos.data(), c.rows * c.cols, c.elem_size, seed_of(c));
    arrange_on_host(aos.data(), input.data(), c.rows, c.cols, c.elem_size, c.from,
                    settings.threads);
    const timed_runs runs = time_host_runs(
        settings, [&] { parallel_memcpy(work.data(), input.data(), bytes, settings.threads); },
        [&] { conversion->execute(work.data()); },
        [&] {
          return compare_on_host(work.data(), aos.data(), c.rows, c.cols, c.elem_size, c.to,
                                 settings.threads);
        });
    row.failure = runs.failure;
    row.verified = runs.failure.empty();
    if (row.verified) row.measured = rate_from_times(runs.times_ms, bytes);
    row.copy = time_host_memcpy(bytes, settings);
  } catch (const std::bad_alloc&) {
    row.skipped = "host memory: allocating the buffers of " + gib(needed) + " failed";
  }
  return row;
}

}  // namespace xpose_cli
