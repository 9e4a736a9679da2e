#include "host/host_plan.hpp"
#include "plan/bytes_text.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "cuda/backend/cuda_backend.hpp"
#include "host/bandwidths.hpp"
#include "host/cost_model.hpp"
#include "host/host_schedule.hpp"
#include "host/staging.hpp"
#include "plan/planner.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail {

/// Everything a host plan's execute() needs, made at plan time.
struct host_plan {
  host::host_schedule schedule;
  std::int64_t batch = 1;
  int cpu_threads = 1;
  host_pinning pinning = host_pinning::automatic;
  std::vector<cudaStream_t> streams;
  std::vector<std::shared_ptr<void>> buffers;
  std::vector<std::vector<std::optional<plan>>> gpu_plans;  ///< [shape][stream]
  std::vector<std::optional<plan>> cpu_plans;               ///< [shape]
  host::pageable_access pageable = host::pageable_access::staged;
  std::unique_ptr<host::staging_pipeline> staging;  ///< null with register_memory
  std::uint64_t workspace_bytes = 0;                ///< device: the GPU plans' workspaces
  std::uint64_t cpu_workspace_bytes = 0;            ///< host: the CPU plans' workspaces
  std::string cost_text;
  mutable std::mutex lock;
  mutable std::string last_access;  ///< how the last execute reached the host memory

  host_plan() = default;
  host_plan(const host_plan&) = delete;
  host_plan& operator=(const host_plan&) = delete;
  ~host_plan() {
    staging.reset();
    for (cudaStream_t s : streams) cudaStreamDestroy(s);
  }
};

namespace host {

namespace {

void check_cuda(cudaError_t result, const char* what) {
  if (result != cudaSuccess)
    throw error(result == cudaErrorMemoryAllocation ? status::out_of_memory : status::device_error,
                std::string(what) + " failed: " + cudaGetErrorString(result));
}

constexpr std::uint64_t device_margin_bytes = std::uint64_t{256} << 20;
constexpr int default_streams = 3;
constexpr int max_streams = 64;

/// The planner's bound on a GPU in-place plan's workspace (plan/planner.hpp).
std::uint64_t gpu_workspace_bound(const piece_shape& shape) {
  const double bytes = static_cast<double>(shape.rows) * static_cast<double>(shape.cols) *
                       static_cast<double>(shape.elem);
  return static_cast<std::uint64_t>(gpu_workspace_budget_fraction * bytes) +
         gpu_workspace_floor_bytes;
}

matrix_desc desc_of(const piece_shape& shape) {
  matrix_desc d;
  d.rows = shape.rows;
  d.cols = shape.cols;
  d.elem_size = shape.elem;
  return d;
}

/// How execute() reaches the caller's memory; undoes a registration on destruction.
class host_access {
 public:
  host_access(const host_plan& p, void* data, std::uint64_t bytes) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, data) == cudaSuccess &&
        attributes.type == cudaMemoryTypeHost) {
      how_ = "pinned";
      direct_ = true;
      return;
    }
    cudaGetLastError();
    if (p.pageable == pageable_access::registered) {
      const cudaError_t result = cudaHostRegister(data, bytes, cudaHostRegisterDefault);
      if (result == cudaSuccess) {
        registered_ = data;
        how_ = "registered";
        direct_ = true;
        return;
      }
      cudaGetLastError();
      if (p.pinning == host_pinning::register_memory || !p.staging)
        throw error(status::device_error,
                    "cannot register the host memory (" + std::to_string(bytes) +
                        " bytes): " + cudaGetErrorString(result) +
                        (p.staging ? "" : ", and the plan has no staging chunks") +
                        "; the host data is unchanged");
    }
    how_ = "staged";
  }
  ~host_access() {
    if (registered_ != nullptr) cudaHostUnregister(registered_);
  }
  host_access(const host_access&) = delete;
  host_access& operator=(const host_access&) = delete;
  bool direct() const { return direct_; }
  const char* how() const { return how_; }

 private:
  void* registered_ = nullptr;
  const char* how_ = "";
  bool direct_ = false;
};

/// The streams on which a shape's transpositions run.
std::set<int> streams_of(const host_schedule& s, int shape, op_kind kind) {
  std::set<int> used;
  for (const schedule_op& o : s.ops)
    if (o.kind == kind && o.shape == shape) used.insert(o.stream);
  return used;
}

}  // namespace

std::shared_ptr<host_plan> make_host_plan(plan_data& cpu) {
  const plan_options& o = cpu.options;
  const bool always = o.host_via_gpu == host_gpu_policy::always;
  const auto cpu_runs_it = [&](const std::string& why) -> std::shared_ptr<host_plan> {
    if (always) throw error(status::unsupported, "host_via_gpu is always but " + why);
    cpu.notes.push_back("host_via_gpu: " + why + ": the CPU runs it");
    return nullptr;
  };
  if (o.gpu_streams < 0 || o.gpu_streams > max_streams)
    throw error(status::invalid_argument, "options.gpu_streams must be 0 (default) or 1.." +
                                              std::to_string(max_streams) + ", got " +
                                              std::to_string(o.gpu_streams));
  if (cpu.rows < 2 || cpu.cols < 2) return nullptr;  // nothing moves
  const std::int64_t batch = cpu.desc.batch;
  if (cpu.ld != cpu.cols || (batch > 1 && cpu.batch_stride != cpu.rows * cpu.cols))
    return cpu_runs_it("the matrix is strided (the GPU takes dense matrices and batches)");
  const bandwidths& bw = measured_bandwidths(cpu.threads);
  if (!bw.have_device) return cpu_runs_it("there is no CUDA device");

  std::uint64_t budget = o.gpu_memory_budget;
  if (budget == 0) {
    std::size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    budget = free > device_margin_bytes ? free - device_margin_bytes : 0;
  }
  schedule_request request;
  request.rows = cpu.rows;
  request.cols = cpu.cols;
  request.elem = cpu.desc.elem_size;
  request.gpu_budget = budget;
  request.streams = o.gpu_streams > 0 ? o.gpu_streams : default_streams;
  request.overlap = o.overlap_copies;
  request.workspace = gpu_workspace_bound;
  auto p = std::make_shared<host_plan>();
  try {
    p->schedule = make_schedule(request);
  } catch (const error& e) {
    if (e.code() != status::unsupported) throw;
    return cpu_runs_it(e.what());
  }
  const host_schedule& s = p->schedule;
  p->batch = batch;
  p->cpu_threads = cpu.threads;
  p->pinning = o.pinning;

  // Streams, and a plan per shape and stream (GPU) or per shape (host CPU).
  for (int q = 0; q < s.streams; ++q) {
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    p->streams.push_back(stream);
  }
  p->gpu_plans.resize(s.shapes.size());
  p->cpu_plans.resize(s.shapes.size());
  double kernel_seconds = 0, host_stage_seconds = 0;
  try {
    for (std::size_t k = 0; k < s.shapes.size(); ++k) {
      const piece_shape& shape = s.shapes[k];
      plan_options sub;
      sub.threads = cpu.threads;
      if (!shape.on_gpu) {
        const plan host_stage = plan_inplace(desc_of(shape), sub);
        p->cpu_workspace_bytes += host_stage.workspace_bytes();
        host_stage_seconds += host_stage.predicted_passes() * 2.0 *
                              static_cast<double>(s.matrix_bytes()) / bw.cpu_copy;
        p->cpu_plans[k] = host_stage;
        continue;
      }
      sub.target = device::cuda;
      p->gpu_plans[k].resize(static_cast<std::size_t>(s.streams));
      for (int q : streams_of(s, static_cast<int>(k), op_kind::transpose)) {
        sub.stream = p->streams[static_cast<std::size_t>(q)];
        const plan piece = plan_inplace(desc_of(shape), sub);
        p->workspace_bytes += piece.workspace_bytes();
        p->gpu_plans[k][static_cast<std::size_t>(q)] = piece;
      }
    }
    for (const schedule_op& op : s.ops)
      if (op.kind == op_kind::transpose) {
        const piece_shape& shape = s.shapes[static_cast<std::size_t>(op.shape)];
        const plan& piece =
            *p->gpu_plans[static_cast<std::size_t>(op.shape)][static_cast<std::size_t>(op.stream)];
        kernel_seconds += piece.predicted_passes() * 2.0 * static_cast<double>(shape.rows) *
                          static_cast<double>(shape.cols) * static_cast<double>(shape.elem) /
                          bw.gpu_copy;
      }
  } catch (const error& e) {
    if (always) throw;
    return cpu_runs_it(std::string("the GPU's plans cannot be made (") + e.what() + ")");
  }

  // The cost model: seconds for the whole batch.
  cost_inputs in;
  in.bytes = static_cast<double>(s.matrix_bytes()) * static_cast<double>(batch);
  in.in_core = s.in_core;
  in.cpu_passes = cpu.predicted_passes;
  in.kernel_seconds = kernel_seconds * static_cast<double>(batch);
  in.host_stage_seconds = host_stage_seconds * static_cast<double>(batch);
  in.pinning = o.pinning;
  in.always = always;
  const cost_estimate cost = estimate_costs(bw, in);
  cpu.notes.push_back(cost.describe(bw));
  if (!cost.gpu) return nullptr;
  p->cost_text = cpu.notes.back();
  p->pageable = cost.pageable;

  try {
    for (std::uint64_t bytes : s.buffer_bytes)
      p->buffers.push_back(cuda::allocate_workspace(static_cast<std::size_t>(bytes)));
  } catch (const error& e) {
    if (always) throw;
    cpu.notes.back() +=
        std::string("; but the device buffers cannot be had (") + e.what() + "): the CPU runs it";
    return nullptr;
  }
  // Staging chunks for pageable memory, also with automatic's registration as the fallback
  // where registration fails; automatic without them registers.
  if (o.pinning != host_pinning::register_memory) {
    try {
      p->staging = std::make_unique<staging_pipeline>(
          choose_staging(s.matrix_bytes() * static_cast<std::uint64_t>(batch), cpu.threads,
                         o.staging_chunk_bytes));
    } catch (const error& e) {
      if (o.pinning == host_pinning::staged) {
        if (always) throw;
        cpu.notes.back() += std::string("; but the staging chunks cannot be had (") + e.what() +
                            "): the CPU runs it";
        return nullptr;
      }
      p->pageable = pageable_access::registered;
      cpu.notes.back() += std::string("; no staging chunks (") + e.what() + "): registers";
    }
  }
  return p;
}

void execute(const host_plan& p, void* data) {
  const std::lock_guard<std::mutex> serialized(p.lock);
  const host_schedule& s = p.schedule;
  const std::uint64_t matrix = s.matrix_bytes();
  const host_access access(p, data, matrix * static_cast<std::uint64_t>(p.batch));
  p.last_access = access.how();
  staging_pipeline* staged = access.direct() ? nullptr : p.staging.get();
  bool host_written = false;
  try {
    for (std::int64_t b = 0; b < p.batch; ++b) {
      char* host = static_cast<char*>(data) + static_cast<std::uint64_t>(b) * matrix;
      for (const schedule_op& op : s.ops) {
        cudaStream_t stream = p.streams[static_cast<std::size_t>(op.stream)];
        char* buffer = static_cast<char*>(p.buffers[static_cast<std::size_t>(op.buffer)].get());
        switch (op.kind) {
          case op_kind::copy_in:
            if (access.direct()) {
              check_cuda(cudaMemcpyAsync(buffer + op.device_offset, host + op.host_offset, op.bytes,
                                         cudaMemcpyHostToDevice, stream),
                         "copy to the GPU");
            } else {
              staged->to_device(buffer + op.device_offset, host + op.host_offset, op.bytes, stream);
            }
            break;
          case op_kind::transpose:
            p.gpu_plans[static_cast<std::size_t>(op.shape)][static_cast<std::size_t>(op.stream)]
                ->execute(buffer + op.device_offset);
            break;
          case op_kind::copy_out:
            host_written = true;
            if (access.direct()) {
              check_cuda(cudaMemcpyAsync(host + op.host_offset, buffer + op.device_offset, op.bytes,
                                         cudaMemcpyDeviceToHost, stream),
                         "copy from the GPU");
            } else {
              staged->to_host(host + op.host_offset, buffer + op.device_offset, op.bytes, stream);
            }
            break;
          case op_kind::barrier:
            for (cudaStream_t each : p.streams)
              check_cuda(cudaStreamSynchronize(each), "host plan through the GPU");
            if (staged != nullptr) staged->finish();
            break;
          case op_kind::cpu_transpose:
            host_written = true;
            p.cpu_plans[static_cast<std::size_t>(op.shape)]->execute(host + op.host_offset);
            break;
        }
      }
    }
    if (staged != nullptr) staged->finish();
  } catch (const error& e) {
    for (cudaStream_t each : p.streams) cudaStreamSynchronize(each);
    if (staged != nullptr) {
      try {
        staged->finish();
      } catch (const error&) {
        // The first error is the one reported.
      }
    }
    cudaGetLastError();
    throw error(e.code(),
                std::string(e.what()) + (host_written ? "; the host data may be left between stages"
                                                      : "; the host data is unchanged"));
  }
}

std::string describe(const host_plan& p) {
  const host_schedule& s = p.schedule;
  std::ostringstream out;
  out << s.describe();
  out << "  device memory held: " << bytes_text(static_cast<double>(p.workspace_bytes))
      << " of GPU plan workspaces besides the buffers\n";
  out << "  host memory: ";
  const staging_pipeline* staging = p.staging.get();
  if (staging != nullptr)
    out << bytes_text(static_cast<double>(staging->geometry().pinned_bytes()))
        << " of pinned staging chunks";
  if (p.cpu_workspace_bytes > 0)
    out << (staging != nullptr ? ", " : "") << "the host 100 stage's workspace "
        << bytes_text(static_cast<double>(p.cpu_workspace_bytes));
  if (staging == nullptr && p.cpu_workspace_bytes == 0) out << "none";
  out << "\n  pinning: pinned memory as it is; pageable memory ";
  if (p.pageable == pageable_access::registered) {
    out << "registered for each execute (cudaHostRegister, undone after)";
    if (p.pinning == host_pinning::automatic)
      out << (staging != nullptr ? ", staged where that fails (the cost model's choice)"
                                 : " (no staging chunks)");
  } else {
    out << "staged: " << staging->geometry().threads << " threads, each packing or unpacking "
        << "its own pinned chunks (2 x " << bytes_text(staging->geometry().chunk_bytes)
        << ") beside the other threads' copies"
        << (p.pinning == host_pinning::automatic ? " (the cost model's choice)" : "");
  }
  {
    const std::lock_guard<std::mutex> guard(p.lock);
    if (!p.last_access.empty()) out << "; the last execute: " << p.last_access;
  }
  out << "\n";
  return out.str();
}

}  // namespace host
}  // namespace xpose::detail
