// The plan object: validation, planning, workspace allocation and dispatch to a backend.
#include "xpose/plan.hpp"
#include "plan/bytes_text.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <optional>
#include <sstream>

#include "api/shared_scratch.hpp"
#include "api/validate.hpp"
#include "api/wisdom.hpp"
#include "cpu/cpu_executor.hpp"
#include "plan/planner.hpp"
#include "xpose/error.hpp"
#include "xpose/version.hpp"
#ifdef XPOSE_HAVE_CUDA
#include "cuda/backend/cuda_backend.hpp"
#include "host/host_plan.hpp"
#endif

namespace xpose {

namespace {

using detail::bytes_text;
using detail::plan_data;

constexpr int max_threads = 4096;

void resolve_options(const plan_options& options, plan_data& p) {
  if (options.target != device::cpu && options.target != device::cuda)
    throw error(status::invalid_argument, "options.target must be cpu or cuda, got " +
                                              std::to_string(static_cast<int>(options.target)));
  if (options.threads < 0 || options.threads > max_threads)
    throw error(status::invalid_argument, "options.threads must be 0 (default) or 1.." +
                                              std::to_string(max_threads) + ", got " +
                                              std::to_string(options.threads));
  if (options.target == device::cuda && !built_with_cuda())
    throw error(status::unsupported,
                "options.target is cuda but this xpose was built without CUDA (no nvcc found)");
  if (options.target == device::cuda && options.host_via_gpu != host_gpu_policy::never)
    throw error(status::invalid_argument,
                "options.host_via_gpu applies to host data (target cpu); the target is cuda");
  p.options = options;
  p.threads = options.threads > 0 ? options.threads : omp_get_max_threads();
}

std::shared_ptr<void> allocate_host(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* memory = ::operator new(bytes, std::nothrow);
  if (memory == nullptr)
    throw error(status::out_of_memory,
                "cannot allocate " + std::to_string(bytes) + " bytes of plan workspace");
  return std::shared_ptr<void>(memory, [](void* q) { ::operator delete(q); });
}

void prepare_backend(plan_data& p) {
  if (p.options.target == device::cpu) {
    p.workspace_bytes = detail::cpu::workspace_bytes(p);
    p.workspace = allocate_host(p.workspace_bytes);
    detail::cpu::prepare_workspace(p);
    return;
  }
#ifdef XPOSE_HAVE_CUDA
  p.workspace_bytes = detail::cuda::prepare(p);
  if (p.caller_scratch) {
    // The tables stay in the plan's own workspace; the scratch after them is the caller's.
    p.scratch_bytes = p.workspace_bytes - p.scratch_offset;
    p.workspace_bytes = p.scratch_offset;
  }
  p.workspace = detail::cuda::allocate_workspace(p.workspace_bytes);
  detail::cuda::prepare_workspace(p);
#endif
}

std::string passes_text(double passes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f pass%s", passes, passes == 1.0 ? "" : "es");
  return text;
}

const char* kind_text(const detail::stage& s, device target) {
  switch (s.kind) {
    case detail::stage_kind::tiled_transpose:
      // On the GPU the kernel line below names the path.
      if (target == device::cuda) return "tiled transpose";
      return s.method == detail::tiled_method::in_cache ? "tiled transpose, in cache"
                                                        : "tiled transpose, cycle following";
    case detail::stage_kind::square_swap:
      return "square swap";
    case detail::stage_kind::copy_transpose:
      return "out-of-place transpose";
    case detail::stage_kind::skinny_remainder_split:
    case detail::stage_kind::skinny_remainder_place:
    case detail::stage_kind::skinny_remainder_take:
    case detail::stage_kind::skinny_remainder_spread:
      return "skinny remainder";
    case detail::stage_kind::row_column_pre_rotate:
    case detail::stage_kind::row_column_row_shuffle:
    case detail::stage_kind::row_column_column_shuffle:
      return "row/column decomposition phase";
  }
  return "unknown stage";
}

}  // namespace

plan::plan(std::shared_ptr<detail::plan_data> data) : data_(std::move(data)) {}
plan::plan(std::shared_ptr<detail::plan_data> data, std::shared_ptr<detail::host_plan> host)
    : data_(std::move(data)), host_(std::move(host)) {}

bool plan::runs_through_gpu() const noexcept {
  return host_ != nullptr;
}

bool plan::in_place() const noexcept {
  return data_->in_place;
}
route plan::chosen_route() const noexcept {
  return data_->chosen;
}
const matrix_desc& plan::desc() const noexcept {
  return data_->desc;
}
std::size_t plan::workspace_bytes() const noexcept {
  return data_->workspace_bytes;
}
double plan::predicted_passes() const noexcept {
  return data_->predicted_passes;
}

std::string plan::describe() const {
  const plan_data& p = *data_;
  const matrix_desc& d = p.desc;
  const double matrix_bytes =
      static_cast<double>(p.rows) * p.cols * d.elem_size * static_cast<double>(d.batch);
  std::ostringstream out;
  out << "xpose plan: " << (p.in_place ? "in-place" : "out-of-place") << " transposition on the "
      << (p.options.target == device::cpu ? "CPU" : "GPU (CUDA)") << "\n";
  out << "  matrix: " << d.rows << " x " << d.cols << " "
      << (d.order == storage_order::row_major ? "row-major" : "column-major") << ", " << d.elem_size
      << "-byte elements, ld " << p.ld << ", batch " << d.batch << " (" << bytes_text(matrix_bytes)
      << ")\n";
  if (!p.in_place) out << "  destination: ld " << p.dst_ld << "\n";
  out << "  route: " << to_string(p.chosen) << "\n";
  for (std::size_t i = 0; i < p.stages.size(); ++i) {
    const detail::stage& s = p.stages[i];
    out << "  stage " << i + 1 << ": " << s.label << " — " << kind_text(s, p.options.target) << ": "
        << s.batch << " x [" << s.rows << " x " << s.cols << "] of " << s.super_bytes
        << "-byte units";
    if (s.tile > 0) out << ", tile " << s.tile;
    if (s.fused_with_next) out << ", fused with the next stage slab by slab";
    out << ", " << passes_text(s.passes) << "\n";
#ifdef XPOSE_HAVE_CUDA
    if (p.options.target == device::cuda)
      out << "    kernel: " << detail::cuda::kernel_text(s) << "\n";
#endif
  }
  out << "  workspace: " << bytes_text(static_cast<double>(p.workspace_bytes));
  if (matrix_bytes > 0) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.3f", 100.0 * p.workspace_bytes / matrix_bytes);
    out << " (" << percent << "% of the matrix)";
  }
  out << "\n  predicted: " << passes_text(p.predicted_passes) << " over memory\n";
  if (p.options.target == device::cpu) out << "  threads: " << p.threads << "\n";
  for (const std::string& note : p.notes) out << "  note: " << note << "\n";
#ifdef XPOSE_HAVE_CUDA
  if (host_)
    out << "  execute() runs through the GPU (the stages above are the CPU's):\n"
        << detail::host::describe(*host_);
#endif
  return out.str();
}

void plan::execute(void* data) const {
  const plan_data& p = *data_;
  if (!p.in_place)
    throw error(status::invalid_argument,
                "this plan is out of place: call execute(src, dst), not execute(data)");
  detail::require_pointer(data, "data");
#ifdef XPOSE_HAVE_CUDA
  if (host_) {
    detail::host::execute(*host_, data);
    return;
  }
#endif
  const std::lock_guard<std::mutex> serialized(*p.execute_lock);
  if (p.options.target == device::cpu) {
    detail::cpu::execute_inplace(p, data);
    return;
  }
#ifdef XPOSE_HAVE_CUDA
  detail::cuda::execute_inplace(p, data);
#endif
}

std::size_t plan::stage_count() const noexcept {
  return data_->stages.size();
}

std::string plan::stage_label(std::size_t i) const {
  if (i >= data_->stages.size())
    throw error(status::invalid_argument, "stage " + std::to_string(i) + " of a plan of " +
                                              std::to_string(data_->stages.size()) + " stages");
  return data_->stages[i].label;
}

void plan::execute_stage(std::size_t i, void* data) const {
  const plan_data& p = *data_;
  if (!p.in_place)
    throw error(status::invalid_argument, "execute_stage runs the stages of in-place plans");
  if (i >= p.stages.size())
    throw error(status::invalid_argument, "stage " + std::to_string(i) + " of a plan of " +
                                              std::to_string(p.stages.size()) + " stages");
  detail::require_pointer(data, "data");
  const std::lock_guard<std::mutex> serialized(*p.execute_lock);
  if (p.options.target == device::cpu) {
    detail::cpu::execute_inplace(p, data, i, i + 1);
    return;
  }
#ifdef XPOSE_HAVE_CUDA
  detail::cuda::execute_inplace(p, data, i, i + 1);
#endif
}

void plan::execute(const void* src, void* dst) const {
  const plan_data& p = *data_;
  if (p.in_place)
    throw error(status::invalid_argument,
                "this plan is in place: call execute(data), not execute(src, dst)");
  detail::require_pointer(src, "src");
  detail::require_pointer(dst, "dst");
  const auto* s = static_cast<const std::byte*>(src);
  const auto* t = static_cast<const std::byte*>(dst);
  const std::uint64_t src_span =
      detail::span_bytes(p.rows, p.cols, p.ld, p.desc.batch, p.batch_stride, p.desc.elem_size);
  const std::uint64_t dst_span = detail::span_bytes(p.cols, p.rows, p.dst_ld, p.desc.batch,
                                                    p.dst_batch_stride, p.desc.elem_size);
  if (s < t + dst_span && t < s + src_span)
    throw error(status::invalid_argument,
                "the byte ranges of src and dst overlap (from the first element to the last "
                "of each): out-of-place transposition needs separate buffers (use plan_inplace "
                "to transpose in place)");
  const std::lock_guard<std::mutex> serialized(*p.execute_lock);
  if (p.options.target == device::cpu) {
    detail::cpu::execute_copy(p, src, dst);
    return;
  }
#ifdef XPOSE_HAVE_CUDA
  detail::cuda::execute_copy(p, src, dst);
#endif
}

namespace {

/// An in-place plan's data; with `use_wisdom`, an automatic route becomes the one wisdom records
/// for this device and matrix (if it still applies).
std::shared_ptr<plan_data> make_inplace(const matrix_desc& desc, const plan_options& options,
                                        bool use_wisdom,
                                        std::shared_ptr<void*> caller_scratch = nullptr) {
  auto p = std::make_shared<plan_data>();
  p->in_place = true;
  p->caller_scratch = std::move(caller_scratch);
  resolve_options(options, *p);
  detail::validate_and_normalize(desc, true, *p);
  const auto plan_stages = [](plan_data& q) {
#ifdef XPOSE_HAVE_CUDA
    if (q.options.target == device::cuda)
      return detail::plan_inplace_stages(q, detail::cuda::inplace_workspace_bytes,
                                         detail::cuda::stage_passes);
#endif
    detail::plan_inplace_stages(q, detail::cpu::workspace_bytes);
  };
  std::optional<route> wise;
  if (use_wisdom && options.forced_route == route::automatic && detail::have_wisdom())
    wise = detail::wisdom_route(detail::wisdom_key(*p));
  if (wise) {
    plan_data trial = *p;
    trial.options.forced_route = *wise;
    try {
      plan_stages(trial);
      trial.options.forced_route = route::automatic;
      trial.notes.push_back("route " + std::string(to_string(*wise)) +
                            " from wisdom (a measured plan of this matrix on this device)");
      *p = std::move(trial);
    } catch (const error&) {
      plan_stages(*p);  // the recorded route no longer applies
    }
  } else {
    plan_stages(*p);
  }
  prepare_backend(*p);
  return p;
}

/// The plan, through the GPU where options.host_via_gpu asks for it and the GPU can run it.
plan with_host_plan(std::shared_ptr<plan_data> p) {
  if (p->options.target != device::cpu || p->options.host_via_gpu == host_gpu_policy::never)
    return plan(std::move(p));
#ifdef XPOSE_HAVE_CUDA
  std::shared_ptr<detail::host_plan> host = detail::host::make_host_plan(*p);
  return plan(std::move(p), std::move(host));
#else
  if (p->options.host_via_gpu == host_gpu_policy::always)
    throw error(status::unsupported,
                "options.host_via_gpu is always but this xpose was built without CUDA");
  p->notes.push_back("host_via_gpu: this xpose was built without CUDA: the CPU runs it");
  return plan(std::move(p));
#endif
}

void wait_for(const plan_data& p) {
#ifdef XPOSE_HAVE_CUDA
  if (p.options.target == device::cuda) detail::cuda::synchronize(p);
#else
  static_cast<void>(p);
#endif
}

}  // namespace

plan plan_inplace(const matrix_desc& desc, const plan_options& options) {
  return with_host_plan(make_inplace(desc, options, true));
}

namespace detail {

plan plan_inplace_sharing_scratch(const matrix_desc& desc, const plan_options& options,
                                  std::shared_ptr<void*> scratch, std::size_t& scratch_bytes) {
  if (options.target != device::cuda || !scratch)
    throw error(status::internal_error,
                "plan_inplace_sharing_scratch: GPU plans with a scratch cell only");
  const std::shared_ptr<plan_data> p = make_inplace(desc, options, true, std::move(scratch));
  scratch_bytes = p->scratch_bytes;
  return plan(p);
}

}  // namespace detail

plan plan_inplace(const matrix_desc& desc, void* data, const plan_options& options) {
  if (options.tune == tuning::estimate || options.forced_route != route::automatic)
    return plan_inplace(desc, options);
  detail::require_pointer(data, "data");
  plan_options estimate = options;
  estimate.tune = tuning::estimate;
  const std::shared_ptr<plan_data> automatic = make_inplace(desc, estimate, false);
  const plan_data& a = *automatic;
  if (a.stages.empty()) return plan(automatic);  // nothing moves: nothing to time
  // The way back: the transposed matrix transposed again, by the planner's own choice.
  matrix_desc back_desc = desc;
  back_desc.rows = desc.cols;
  back_desc.cols = desc.rows;
  if (a.rows != a.cols) back_desc.ld = 0;
  const plan back(make_inplace(back_desc, estimate, false));
  const double budget =
      std::max(detail::inplace_workspace_budget(a), static_cast<double>(a.workspace_bytes));

  std::shared_ptr<plan_data> best;
  double best_ms = 0;
  std::string timings;
  std::vector<route> timed;
  for (route r : {a.chosen, route::three_stage, route::four_stage, route::row_column,
                  route::skinny_chunks, route::cycle_following, route::square_tile_swap}) {
    if (std::find(timed.begin(), timed.end(), r) != timed.end()) continue;
    timed.push_back(r);
    std::shared_ptr<plan_data> candidate;
    if (r == a.chosen) {
      candidate = automatic;
    } else {
      plan_options forced = estimate;
      forced.forced_route = r;
      try {
        candidate = make_inplace(desc, forced, false);
      } catch (const error&) {
        continue;  // the route does not apply here, or runs on the other device only
      }
      if (static_cast<double>(candidate->workspace_bytes) > budget ||
          candidate->predicted_passes > 8 * a.predicted_passes)
        continue;
    }
    const plan forward(candidate);
    double fastest = 0;
    try {
      for (int run = 0; run < 3; ++run) {  // the first one warms up
        const auto start = std::chrono::steady_clock::now();
        forward.execute(data);
        wait_for(*candidate);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        back.execute(data);
        wait_for(*candidate);
        if (run == 1 || (run > 1 && ms < fastest)) fastest = ms;
      }
    } catch (const error& e) {
      throw error(e.code(), "measured planning: timing route " + std::string(to_string(r)) +
                                " on the caller's data failed, and the data may be left "
                                "between its stages: " +
                                e.what());
    }
    char text[96];
    std::snprintf(text, sizeof text, "%s%s %.4g ms", timings.empty() ? "" : ", ",
                  std::string(to_string(r)).c_str(), fastest);
    timings += text;
    if (!best || fastest < best_ms) {
      best = candidate;
      best_ms = fastest;
    }
  }
  detail::record_wisdom(detail::wisdom_key(*best), best->chosen);
  best->notes.push_back("measured on the caller's data (there and back): " + timings);
  return with_host_plan(best);
}

plan plan_copy(const matrix_desc& src, std::int64_t dst_ld, std::int64_t dst_batch_stride,
               const plan_options& options) {
  auto p = std::make_shared<plan_data>();
  p->in_place = false;
  resolve_options(options, *p);
  detail::validate_and_normalize(src, false, *p);
  detail::validate_destination(dst_ld, dst_batch_stride, *p);
  detail::plan_copy_stages(*p);
  prepare_backend(*p);
  return plan(std::move(p));
}

}  // namespace xpose
