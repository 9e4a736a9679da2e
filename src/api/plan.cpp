// The plan object: validation, planning, workspace allocation and dispatch to a backend.
#include "xpose/plan.hpp"

#include <omp.h>

#include <cstdio>
#include <new>
#include <sstream>

#include "api/validate.hpp"
#include "cpu/cpu_executor.hpp"
#include "plan/planner.hpp"
#include "xpose/error.hpp"
#include "xpose/version.hpp"
#ifdef XPOSE_HAVE_CUDA
#include "cuda/backend/cuda_backend.hpp"
#endif

namespace xpose {

namespace {

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
    return;
  }
#ifdef XPOSE_HAVE_CUDA
  p.workspace_bytes = detail::cuda::prepare(p);
  p.workspace = detail::cuda::allocate_workspace(p.workspace_bytes);
  detail::cuda::prepare_workspace(p);
#endif
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
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
      << "-byte elements, ld " << p.ld << ", batch " << d.batch << " (" << human_bytes(matrix_bytes)
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
  out << "  workspace: " << human_bytes(static_cast<double>(p.workspace_bytes));
  if (matrix_bytes > 0) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.3f", 100.0 * p.workspace_bytes / matrix_bytes);
    out << " (" << percent << "% of the matrix)";
  }
  out << "\n  predicted: " << passes_text(p.predicted_passes) << " over memory\n";
  if (p.options.target == device::cpu) out << "  threads: " << p.threads << "\n";
  for (const std::string& note : p.notes) out << "  note: " << note << "\n";
  return out.str();
}

void plan::execute(void* data) const {
  const plan_data& p = *data_;
  if (!p.in_place)
    throw error(status::invalid_argument,
                "this plan is out of place: call execute(src, dst), not execute(data)");
  detail::require_pointer(data, "data");
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

plan plan_inplace(const matrix_desc& desc, const plan_options& options) {
  auto p = std::make_shared<plan_data>();
  p->in_place = true;
  resolve_options(options, *p);
  detail::validate_and_normalize(desc, true, *p);
#ifdef XPOSE_HAVE_CUDA
  if (p->options.target == device::cuda)
    detail::plan_inplace_stages(*p, detail::cuda::inplace_workspace_bytes,
                                detail::cuda::stage_passes);
  else
#endif
    detail::plan_inplace_stages(*p, detail::cpu::workspace_bytes);
  prepare_backend(*p);
  return plan(std::move(p));
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
