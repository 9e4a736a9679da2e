// layout_conversion: plans a route (layout_route.hpp), makes its workspaces, work lists and
// full transposition plans at plan time, and runs the steps on the CPU (cpu::tiled_transpose) or
// enqueues them on the GPU (layout_gpu.hpp) on the options' stream.
#include <omp.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <sstream>

#include "cpu/cpu_kernels.hpp"
#include "layout/layout_gpu.hpp"
#include "layout/layout_route.hpp"

namespace xpose {
namespace detail {

struct layout_conversion_data {
  struct_array_desc desc;
  layout from, to;
  layout_variant variant = layout_variant::automatic;
  plan_options options;
  int threads = 1;
  std::vector<layout_step> steps;
  std::vector<std::optional<plan>> full_plans;        ///< per step: the full transposition's plan
  std::vector<std::shared_ptr<void>> gpu_workspaces;  ///< per tiled step (CUDA target)
  /// CUDA target: the block a remainder step holds for the next one, then the remainder steps'
  /// scratch (at gpu_remainder_scratch_offset).
  std::shared_ptr<void> gpu_remainder;
  std::size_t gpu_remainder_scratch_offset = 0;
  /// CPU target: the block a remainder step holds for the next one, then the scratch every step
  /// may overwrite.
  std::shared_ptr<std::byte> cpu_workspace;
  std::size_t cpu_scratch_offset = 0;
  /// CPU target, per tiled step: the work list made at plan time where its threads share an
  /// instance (cpu::build_tiled_transpose_table), else null.
  std::vector<std::shared_ptr<std::byte>> cpu_tables;
  std::size_t workspace_bytes = 0;
  double passes = 0;
  std::shared_ptr<std::mutex> execute_lock = std::make_shared<std::mutex>();
};

}  // namespace detail

namespace {

/// soa <-> asta with a partial tile on the GPU, automatic variant: arrays up to this size go
/// through aos, whose full transposition runs in the L2 there (H200, the DL paper's Table 1:
/// 11948 x 40 fp32 0.44-0.54 x copy through aos, 0.30-0.34 by the remainder steps; 90449 x 59,
/// 21 MB: 0.37 against 0.31-0.33); larger ones by the remainder steps (35588 x 197, 28 MB:
/// 0.29-0.31 against 0.25-0.27; 100 x the rows: 0.22-0.31 against 0.19-0.25).
constexpr std::size_t gpu_through_aos_max_bytes = std::size_t{24} << 20;

void validate_options(const plan_options& options) {
  if (options.target != device::cpu && options.target != device::cuda)
    throw error(status::invalid_argument, "options.target must be cpu or cuda, got " +
                                              std::to_string(static_cast<int>(options.target)));
  if (options.threads < 0)
    throw error(status::invalid_argument,
                "options.threads must be >= 0, got " + std::to_string(options.threads));
#ifndef XPOSE_HAVE_CUDA
  if (options.target == device::cuda)
    throw error(status::unsupported, "layout conversions on device::cuda need a build with CUDA");
#endif
}

void validate_variant(layout_variant variant) {
  switch (variant) {
    case layout_variant::automatic:
    case layout_variant::barrier_sync:
    case layout_variant::pttwac:
    case layout_variant::chains:
    case layout_variant::through_scratch:
    case layout_variant::pipt:
      return;
  }
  throw error(status::invalid_argument,
              "variant: unknown layout variant " + std::to_string(static_cast<int>(variant)));
}

/// Refuses a forced variant that the route cannot take: every step must be a tiled
/// transposition (on the GPU, whose paths the variants name) that the variant's path can run.
void check_forced_variant(layout from, layout to, layout_variant variant,
                          const plan_options& options,
                          const std::vector<detail::layout_step>& steps) {
  if (variant == layout_variant::automatic) return;
  const std::string what = "variant " + std::string(to_string(variant)) + " for " +
                           to_string(from) + " -> " + to_string(to) + ": ";
  if (options.target != device::cuda)
    throw error(status::unsupported,
                what +
                    "the variants name GPU kernels; the CPU chooses its own (in cache or cycle "
                    "following)");
  for (const detail::layout_step& step : steps) {
    if (step.what == detail::layout_step::kind::full_transpose)
      throw error(status::unsupported, what + "the route has a full in-place transposition (" +
                                           step.note + "), which the variants do not apply to");
    // The remainder steps move the partial tile the same way under every variant.
    if (step.what == detail::layout_step::kind::remainder) continue;
#ifdef XPOSE_HAVE_CUDA
    const std::string why = detail::layout_gpu::tiled_refusal(step.tiled, variant);
    if (!why.empty()) throw error(status::unsupported, what + step.note + ": " + why);
#endif
  }
}

std::string describe_stage(const detail::stage& s) {
  std::ostringstream out;
  out << s.label << ": " << s.batch << " x (" << s.rows << " x " << s.cols << ") of "
      << s.super_bytes << " B";
  return out.str();
}

}  // namespace

std::string to_string(layout l) {
  switch (l.kind) {
    case layout_kind::aos:
      return "aos";
    case layout_kind::soa:
      return "soa";
    case layout_kind::asta:
      return "asta(" + std::to_string(l.tile) + ")";
  }
  return "unknown";
}

std::string_view to_string(layout_variant v) {
  switch (v) {
    case layout_variant::automatic:
      return "automatic";
    case layout_variant::barrier_sync:
      return "barrier_sync";
    case layout_variant::pttwac:
      return "pttwac";
    case layout_variant::chains:
      return "chains";
    case layout_variant::through_scratch:
      return "through_scratch";
    case layout_variant::pipt:
      return "pipt";
  }
  return "unknown";
}

std::optional<layout_variant> layout_variant_from_string(std::string_view name) {
  for (const layout_variant v :
       {layout_variant::automatic, layout_variant::barrier_sync, layout_variant::pttwac,
        layout_variant::chains, layout_variant::through_scratch, layout_variant::pipt})
    if (name == to_string(v)) return v;
  return std::nullopt;
}

layout_conversion plan_layout_conversion(const struct_array_desc& desc, layout from, layout to,
                                         const plan_options& options, layout_variant variant) {
  detail::validate_struct_array(desc);
  detail::validate_layout(from, "from");
  detail::validate_layout(to, "to");
  validate_variant(variant);
  validate_options(options);
  auto d = std::make_shared<detail::layout_conversion_data>();
  d->desc = desc;
  d->from = from;
  d->to = to;
  d->variant = variant;
  d->options = options;
  d->options.forced_route = route::automatic;
  d->threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  // The GPU takes soa <-> asta's partial tile through aos (a full transposition) on arrays
  // within gpu_through_aos_max_bytes, and by the skinny route's remainder steps above it.
  const double array_bytes = static_cast<double>(desc.structs) * static_cast<double>(desc.fields) *
                             static_cast<double>(desc.field_bytes);
  const bool remainder_steps = options.target == device::cpu ||
                               variant != layout_variant::automatic ||
                               array_bytes > static_cast<double>(gpu_through_aos_max_bytes);
  d->steps = detail::layout_route(desc, from, to, remainder_steps);
  check_forced_variant(from, to, variant, options, d->steps);
  d->full_plans.resize(d->steps.size());
  d->gpu_workspaces.resize(d->steps.size());
  d->cpu_tables.resize(d->steps.size());
  std::size_t cpu_held = 0, cpu_scratch = 0, gpu_held = 0, gpu_scratch = 0;
  for (std::size_t k = 0; k < d->steps.size(); ++k) {
    const detail::layout_step& step = d->steps[k];
    if (step.what == detail::layout_step::kind::full_transpose) {
      plan_options full_options = d->options;
      full_options.threads = d->threads;
      d->full_plans[k] =
          plan_inplace(matrix_desc{step.rows, step.cols, desc.field_bytes}, full_options);
      d->workspace_bytes += d->full_plans[k]->workspace_bytes();
      d->passes += d->full_plans[k]->predicted_passes();
      continue;
    }
    if (step.what == detail::layout_step::kind::tiled) {
      // A stage's passes are over its own instances: scaled to the share of the array they cover.
      const double covered =
          static_cast<double>(step.tiled.batch * step.tiled.rows * step.tiled.cols) *
          static_cast<double>(step.tiled.super_bytes);
      d->passes += step.tiled.passes * covered / array_bytes;
    } else {
      d->passes += step.tiled.passes;
    }
    if (step.what == detail::layout_step::kind::remainder && options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
      gpu_held = std::max(gpu_held, detail::layout_gpu::remainder_held_bytes(step.tiled));
      gpu_scratch = std::max(gpu_scratch, detail::layout_gpu::remainder_scratch_bytes(step.tiled));
#endif
    } else if (step.what == detail::layout_step::kind::remainder) {
      cpu_held = std::max(cpu_held, detail::cpu::skinny_remainder_held_bytes(step.tiled));
      cpu_scratch = std::max(cpu_scratch,
                             detail::cpu::skinny_remainder_scratch_bytes(step.tiled, d->threads));
    } else if (options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
      std::size_t bytes = 0;
      d->gpu_workspaces[k] = detail::layout_gpu::prepare_tiled(step.tiled, variant, bytes);
      d->workspace_bytes += bytes;
#endif
    } else {
      cpu_scratch =
          std::max(cpu_scratch, detail::cpu::tiled_transpose_workspace(step.tiled, d->threads));
      const std::size_t table = detail::cpu::tiled_transpose_table_bytes(step.tiled, d->threads);
      if (table > 0) {
        d->cpu_tables[k] =
            std::shared_ptr<std::byte>(new std::byte[table], std::default_delete<std::byte[]>());
        detail::cpu::build_tiled_transpose_table(step.tiled, d->threads, d->cpu_tables[k].get());
        d->workspace_bytes += table;
      }
    }
  }
  if (gpu_held + gpu_scratch > 0) {
#ifdef XPOSE_HAVE_CUDA
    d->gpu_remainder_scratch_offset = (gpu_held + 255) / 256 * 256;
    const std::size_t bytes = d->gpu_remainder_scratch_offset + gpu_scratch;
    d->gpu_remainder = detail::layout_gpu::allocate(bytes);
    d->workspace_bytes += bytes;
#endif
  }
  d->cpu_scratch_offset = (cpu_held + 63) / 64 * 64;
  const std::size_t cpu_bytes = d->cpu_scratch_offset + cpu_scratch;
  if (cpu_bytes > 0) {
    d->cpu_workspace =
        std::shared_ptr<std::byte>(new std::byte[cpu_bytes], std::default_delete<std::byte[]>());
    d->workspace_bytes += cpu_bytes;
  }
  return layout_conversion(std::move(d));
}

layout_conversion::layout_conversion(std::shared_ptr<detail::layout_conversion_data> data)
    : data_(std::move(data)) {}

void layout_conversion::execute(void* data) const {
  const detail::layout_conversion_data& d = *data_;
  if (d.steps.empty()) return;
  if (data == nullptr) throw error(status::invalid_argument, "data must not be null");
  const std::lock_guard<std::mutex> lock(*d.execute_lock);
  auto* bytes = static_cast<std::byte*>(data);
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    const detail::layout_step& step = d.steps[k];
    std::byte* scratch = d.cpu_workspace.get() + d.cpu_scratch_offset;
    if (step.what == detail::layout_step::kind::full_transpose) {
      d.full_plans[k]->execute(data);
    } else if (step.what == detail::layout_step::kind::remainder &&
               d.options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
      auto* held = static_cast<std::byte*>(d.gpu_remainder.get());
      detail::layout_gpu::launch_remainder(bytes, step.tiled, held,
                                           held + d.gpu_remainder_scratch_offset, d.options.stream);
#endif
    } else if (step.what == detail::layout_step::kind::remainder) {
      detail::cpu::skinny_remainder(bytes, step.tiled, d.cpu_workspace.get(), scratch, d.threads);
    } else if (d.options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
      detail::layout_gpu::launch_tiled(bytes + step.offset_bytes, step.tiled, d.variant,
                                       d.gpu_workspaces[k].get(), d.options.stream);
#endif
    } else {
      detail::cpu::tiled_transpose(bytes + step.offset_bytes, step.tiled, scratch, d.threads,
                                   d.cpu_tables[k].get());
    }
  }
}

std::string layout_conversion::describe() const {
  const detail::layout_conversion_data& d = *data_;
  std::ostringstream out;
  out << "layout conversion " << to_string(d.from) << " -> " << to_string(d.to) << ": "
      << d.desc.structs << " structs x " << d.desc.fields << " fields x " << d.desc.field_bytes
      << " B on " << (d.options.target == device::cuda ? "cuda" : "cpu") << ", variant "
      << to_string(d.variant) << "\n";
  if (d.steps.empty()) out << "  no step: both layouts store every field in the same place\n";
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    const detail::layout_step& step = d.steps[k];
    out << "  step " << k + 1 << ": " << step.note << "\n    ";
    if (step.what == detail::layout_step::kind::full_transpose)
      out << "in-place transposition " << step.rows << " x " << step.cols << ", route "
          << to_string(d.full_plans[k]->chosen_route()) << "\n";
    else if (step.what == detail::layout_step::kind::remainder)
      out << "skinny remainder step: S " << step.tiled.rows << ", n " << step.tiled.cols
          << ", tile " << step.tiled.tile << "\n";
    else {
      out << "tiled transposition " << describe_stage(step.tiled) << " at byte "
          << step.offset_bytes;
#ifdef XPOSE_HAVE_CUDA
      if (d.options.target == device::cuda)
        out << ", kernel " << detail::layout_gpu::tiled_path_name(step.tiled, d.variant);
#endif
      out << "\n";
    }
  }
  out << "  workspace: " << d.workspace_bytes << " B\n";
  out << "  predicted passes: " << d.passes
      << (d.variant == layout_variant::automatic ? "" : " (of the automatic kernels)") << "\n";
  return out.str();
}

layout layout_conversion::from() const noexcept {
  return data_->from;
}
layout layout_conversion::to() const noexcept {
  return data_->to;
}
const struct_array_desc& layout_conversion::desc() const noexcept {
  return data_->desc;
}
std::size_t layout_conversion::steps() const noexcept {
  return data_->steps.size();
}
std::size_t layout_conversion::workspace_bytes() const noexcept {
  return data_->workspace_bytes;
}
double layout_conversion::predicted_passes() const noexcept {
  return data_->passes;
}
layout_variant layout_conversion::variant() const noexcept {
  return data_->variant;
}

std::string layout_conversion::step_label(std::size_t k) const {
  const detail::layout_conversion_data& d = *data_;
  if (k >= d.steps.size())
    throw error(status::invalid_argument,
                "step_label: step " + std::to_string(k) + " of " + std::to_string(d.steps.size()));
  const detail::layout_step& step = d.steps[k];
  switch (step.what) {
    case detail::layout_step::kind::full_transpose:
      return "full " + std::string(to_string(d.full_plans[k]->chosen_route()));
    case detail::layout_step::kind::remainder: {
      switch (step.tiled.kind) {
        case detail::stage_kind::skinny_remainder_split:
          return "remainder split";
        case detail::stage_kind::skinny_remainder_place:
          return "remainder place";
        case detail::stage_kind::skinny_remainder_take:
          return "remainder take";
        default:
          return "remainder spread";  // stage_kind::skinny_remainder_spread
      }
    }
    case detail::layout_step::kind::tiled:
      break;
  }
#ifdef XPOSE_HAVE_CUDA
  if (d.options.target == device::cuda)
    return step.tiled.label + " " + detail::layout_gpu::tiled_path_name(step.tiled, d.variant);
#endif
  return step.tiled.label;
}

void convert_layout(void* data, layout from, layout to, std::int64_t structs, std::int64_t fields,
                    std::size_t field_bytes, const plan_options& options) {
  const struct_array_desc desc{structs, fields, field_bytes};
  if (data == nullptr) {
    // Refused before planning, which may allocate or ask the device; null is fine when nothing
    // moves.
    detail::validate_struct_array(desc);
    detail::validate_layout(from, "from");
    detail::validate_layout(to, "to");
    if (detail::canonical_layout(from, desc) != detail::canonical_layout(to, desc))
      throw error(status::invalid_argument, "data must not be null");
  }
  plan_layout_conversion(desc, from, to, options).execute(data);
}

}  // namespace xpose
