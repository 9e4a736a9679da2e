// The GPU rows of the layout conversions (layout_bench.hpp): the AoS made on the device, the
// input arranged from it, restored before each timed run by a device-to-device copy outside the
// events, and every result checked on the device.
#ifdef XPOSE_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstdio>
#include <optional>
#include <string>

#include "gpu_timing.hpp"
#include "layout_bench.hpp"
#include "layout_data.hpp"
#include "report.hpp"

namespace xpose_cli {

namespace {

void measure(bench_row& row, const bench_settings& settings, cudaStream_t stream) {
  const bench_case& c = row.spec;
  std::optional<xpose::layout_conversion> conversion;
  try {
    xpose::plan_options options;
    options.target = xpose::device::cuda;
    options.stream = stream;
    conversion.emplace(xpose::plan_layout_conversion({c.rows, c.cols, c.elem_size}, c.from, c.to,
                                                     options, c.variant));
  } catch (const xpose::error& e) {
    (e.code() == xpose::status::unsupported ? row.skipped : row.failure) =
        std::string("planning: ") + e.what();
    return;
  }
  row.chosen_route = layout_steps_label(*conversion);
  row.workspace_bytes = conversion->workspace_bytes();
  row.predicted_passes = conversion->predicted_passes();
  const std::size_t bytes = c.matrix_bytes();
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t needed = 3 * bytes + (64u << 20);
  if (needed > free_bytes) {
    row.skipped = "needs " + gib(needed) + ", " + gib(free_bytes) + " free";
    return;
  }
  const device_buffer d_aos(bytes), d_input(bytes), d_work(bytes);
  fill_on_device(d_aos.data(), bytes,
                 static_cast<std::uint64_t>(c.rows) * 1000003u + static_cast<std::uint64_t>(c.cols),
                 stream);
  arrange_on_device(d_aos.data(), d_input.data(), c.rows, c.cols, c.elem_size, c.from, stream);
  const timed_runs runs = time_device_runs(
      stream, settings,
      [&] {
        check_cuda(
            cudaMemcpyAsync(d_work.data(), d_input.data(), bytes, cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync");
      },
      [&] { conversion->execute(d_work.data()); },
      [&] {
        return compare_on_device(d_work.data(), d_aos.data(), c.rows, c.cols, c.elem_size, c.to,
                                 stream);
      });
  row.failure = runs.failure;
  row.verified = runs.failure.empty();
  if (row.verified) row.measured = rate_from_times(runs.times_ms, bytes);
  row.copy = time_device_memcpy(stream, d_work.data(), d_input.data(), bytes, settings);
}

}  // namespace

bench_row run_gpu_layout_case(const bench_case& c, const bench_settings& settings) {
  bench_row row;
  row.spec = c;
  cudaStream_t stream = nullptr;
  try {
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    measure(row, settings, stream);
  } catch (const std::exception& e) {
    row.verified = false;
    row.failure = e.what();
  }
  if (stream != nullptr) cudaStreamDestroy(stream);
  return row;
}

}  // namespace xpose_cli

#endif
