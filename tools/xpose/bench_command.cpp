#include <omp.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "commands.hpp"
#include "cpu_bench.hpp"
#include "gpu_bench.hpp"
#include "layout_bench.hpp"
#include "report.hpp"

namespace xpose_cli {

namespace {

struct device_plan {
  bool cpu = false;
  bool cuda = false;
};

/// Which devices to measure; throws usage_error if CUDA is asked for but absent.
device_plan choose_devices(device_selection selection) {
  const bool cuda_present = usable_cuda_devices() > 0;
  if (selection == device_selection::cuda && !cuda_present)
    throw usage_error(xpose::built_with_cuda()
                          ? "--device cuda: no CUDA device is present"
                          : "--device cuda: this xpose was built without CUDA");
  return {selection != device_selection::cuda, selection != device_selection::cpu && cuda_present};
}

/// The current time, UTC, in ISO 8601: YYYY-MM-DDTHH:MM:SSZ.
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

int run_bench_command(const bench_options& options) {
  const device_plan devices = choose_devices(options.devices);
  bench_settings settings;
  settings.reps = options.reps;
  settings.threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  settings.evict_caches = !options.quick;  // --quick checks results; its timings mean little
  settings.date = utc_now();

  std::vector<bench_case> cases;
  std::vector<device_info> infos;
  if (devices.cpu) {
    const auto cpu_cases = cases_for_device(options, xpose::device::cpu);
    cases.insert(cases.end(), cpu_cases.begin(), cpu_cases.end());
    infos.push_back(describe_cpu(settings));
  }
#ifdef XPOSE_HAVE_CUDA
  if (devices.cuda) {
    const auto cuda_cases = cases_for_device(options, xpose::device::cuda);
    cases.insert(cases.end(), cuda_cases.begin(), cuda_cases.end());
    infos.push_back(describe_gpu());
  }
#endif

  std::vector<bench_row> rows;
  reference_cache references;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const bench_case& c = cases[i];
    print_progress(i + 1, cases.size(), c);
#ifdef XPOSE_HAVE_CUDA
    if (c.target == xpose::device::cuda) {
      rows.push_back(c.layout ? run_gpu_layout_case(c, settings)
                              : run_gpu_case(c, references, settings));
      continue;
    }
#endif
    rows.push_back(c.layout ? run_cpu_layout_case(c, settings)
                            : run_cpu_case(c, references, settings));
  }
  end_progress();

  if (options.json)
    print_json(stdout, infos, rows, settings);
  else
    print_table(stdout, infos, rows, settings);
  if (!options.json_file.empty()) {
    std::FILE* const file = std::fopen(options.json_file.c_str(), "w");
    if (file == nullptr) {
      std::fprintf(stderr, "xpose: cannot write --json-file '%s'\n", options.json_file.c_str());
      return 1;
    }
    print_json(file, infos, rows, settings);
    std::fclose(file);
  }
  return count_failures(rows) == 0 ? 0 : 1;
}

}  // namespace xpose_cli
