#include "gpu_bench.hpp"

#ifdef XPOSE_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstdio>
#include <optional>
#include <string>

#include "gpu_peers.hpp"
#include "gpu_timing.hpp"
#include "report.hpp"

namespace xpose_cli {

int usable_cuda_devices() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

namespace {

/// A non-blocking CUDA stream, destroyed with the object.
class owned_stream {
 public:
  owned_stream() {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~owned_stream() { cudaStreamDestroy(stream_); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

xpose::plan make_plan(const bench_case& c, cudaStream_t stream) {
  xpose::matrix_desc desc;
  desc.rows = c.rows;
  desc.cols = c.cols;
  desc.elem_size = c.elem_size;
  desc.batch = c.batch;  // dense: batch_stride 0
  const xpose::plan_options options{xpose::device::cuda, c.route, 0, stream};
  return c.in_place ? xpose::plan_inplace(desc, options) : xpose::plan_copy(desc, 0, 0, options);
}

void measure(bench_row& row, reference_cache& references, const bench_settings& settings,
             cudaStream_t stream) {
  const bench_case& c = row.spec;
  const std::size_t bytes = c.matrix_bytes();
  std::optional<xpose::plan> plan;
  try {
    plan.emplace(make_plan(c, stream));
  } catch (const std::exception& e) {
    row.failure = std::string("planning failed: ") + e.what();
    return;
  }
  row.chosen_route = std::string(xpose::to_string(plan->chosen_route()));
  row.workspace_bytes = plan->workspace_bytes();
  row.predicted_passes = plan->predicted_passes();

  // The pristine input and the work buffer (the matrix in place, the destination otherwise).
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t needed = 2 * bytes + (64u << 20);
  if (needed > free_bytes) {
    row.skipped = "needs " + gib(needed) + ", " + gib(free_bytes) + " free";
    return;
  }
  const reference_pair& reference = references.get(c.rows, c.cols, c.elem_size, c.batch);
  const device_buffer d_input(bytes), d_work(bytes);
  check_cuda(cudaMemcpy(d_input.data(), reference.input.data(), bytes, cudaMemcpyHostToDevice),
             "cudaMemcpy");
  byte_buffer readback(bytes);
  const timed_runs runs = time_device_runs(
      stream, settings,
      [&] {
        if (c.in_place)
          check_cuda(cudaMemcpyAsync(d_work.data(), d_input.data(), bytes, cudaMemcpyDeviceToDevice,
                                     stream),
                     "cudaMemcpyAsync");
        else
          check_cuda(cudaMemsetAsync(d_work.data(), 0, bytes, stream), "cudaMemsetAsync");
      },
      [&] {
        if (c.in_place)
          plan->execute(d_work.data());
        else
          plan->execute(d_input.data(), d_work.data());
      },
      [&] {
        check_cuda(cudaMemcpy(readback.data(), d_work.data(), bytes, cudaMemcpyDeviceToHost),
                   "cudaMemcpy");
        return check_run(readback.data(), reference);
      });
  row.failure = runs.failure;
  row.verified = runs.failure.empty();
  if (row.verified) row.measured = rate_from_times(runs.times_ms, bytes);
  row.copy = time_device_memcpy(stream, d_work.data(), d_input.data(), bytes, settings);
  // Each stage alone on the same matrix (left between stages: only the times are read).
  if (c.in_place && row.verified && plan->stage_count() > 1)
    for (std::size_t i = 0; i < plan->stage_count(); ++i) {
      const timed_runs stage_runs = time_device_runs(
          stream, settings, [] {}, [&] { plan->execute_stage(i, d_work.data()); },
          [] { return std::string(); });
      if (!stage_runs.failure.empty()) break;
      row.stages.push_back({plan->stage_label(i), rate_from_times(stage_runs.times_ms, bytes)});
    }
  row.peer =
      run_gpu_peer(c, reference, settings, stream, d_input.data(), d_work.data(), readback.data());
}

}  // namespace

bench_row run_gpu_case(const bench_case& c, reference_cache& references,
                       const bench_settings& settings) {
  bench_row row;
  row.spec = c;
  try {
    const owned_stream stream;
    measure(row, references, settings, stream.get());
  } catch (const std::exception& e) {
    row.verified = false;
    row.failure = e.what();
  }
  return row;
}

device_info describe_gpu() {
  device_info info;
  info.target = xpose::device::cuda;
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&props, device) != cudaSuccess) {
    info.name = "unknown GPU";
    return info;
  }
  info.name = props.name;
  info.detail = gib(props.totalGlobalMem) + ", sm_" + std::to_string(props.major) +
                std::to_string(props.minor);
  return info;
}

}  // namespace xpose_cli

#else

namespace xpose_cli {

int usable_cuda_devices() {
  return 0;
}

}  // namespace xpose_cli

#endif
