// Plans: plan once, execute many times (the FFTW/cuFFT split). A plan is data — the list of
// elementary stages with their tile sizes, workspace bytes and predicted passes over memory —
// and owns its workspace, so execute() never allocates. Plans (and their copies) share that
// workspace, so concurrent execute() calls on one plan run one after another; make one plan per
// thread to transpose several matrices at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "xpose/route.hpp"
#include "xpose/shape.hpp"

namespace xpose {

/// How an in-place plan picks its route: by the planner's cost model (estimate), or by timing
/// the routes that apply on the caller's data (measure, in the manner of FFTW_MEASURE).
enum class tuning { estimate, measure };

struct plan_options {
  device target = device::cpu;  ///< where the data lives and the work runs
  route forced_route = route::automatic;
  int threads = 0;                 ///< CPU threads; 0 = OpenMP default
  void* stream = nullptr;          ///< CUDA: a cudaStream_t; nullptr = the default stream
  tuning tune = tuning::estimate;  ///< plan_inplace(desc, data, options) only
};

namespace detail {
struct plan_data;
}

class plan {
 public:
  /// Human-readable: route, shape, each stage with its tile sizes, workspace, predicted passes.
  std::string describe() const;
  /// In-place plans: transposes the batch at `data` in place.
  void execute(void* data) const;
  /// Out-of-place plans: writes the transpose of `src` to `dst`. Their byte ranges, from the
  /// first element to the last, must not overlap, even where strided rows or matrices would
  /// interleave without touching.
  void execute(const void* src, void* dst) const;

  bool in_place() const noexcept;
  route chosen_route() const noexcept;
  const matrix_desc& desc() const noexcept;
  /// Bytes of scratch the plan holds (flags, row buffers, tiles), allocated at plan time.
  std::size_t workspace_bytes() const noexcept;
  /// Predicted passes over the matrix (1 = read and write every element once).
  double predicted_passes() const noexcept;
  /// The stages describe() lists, in order.
  std::size_t stage_count() const noexcept;
  /// The label describe() gives stage i ("100", "0010", "row_shuffle", ...).
  std::string stage_label(std::size_t i) const;
  /// In-place plans, for profiling: runs stage i alone on the batch at `data`, which is left
  /// between two stages of the route (not transposed). A stage the CPU fuses with the next one
  /// runs unfused. Throws xpose::error{invalid_argument} for i >= stage_count().
  void execute_stage(std::size_t i, void* data) const;

  explicit plan(std::shared_ptr<detail::plan_data> data);

 private:
  std::shared_ptr<detail::plan_data> data_;
};

/// Plans an in-place transposition of `desc` (ld must be dense unless rows == cols).
plan plan_inplace(const matrix_desc& desc, const plan_options& options = {});
/// Plans an in-place transposition of the batch at `data` (a host or device pointer, per
/// options.target). With options.tune == measure and no forced route, times each route that
/// applies within the planner's workspace budget on `data`, each one there and back (`data`
/// holds the same bytes afterwards; on the GPU the planning synchronizes options.stream), keeps
/// the fastest and records it as wisdom; describe() lists the times. Should a timed run fail (a
/// device error), the error says so and the data is undefined. With estimate, the same as
/// plan_inplace(desc, options).
plan plan_inplace(const matrix_desc& desc, void* data, const plan_options& options);

/// Wisdom: the route a measured plan chose, per device (the GPU's name, or the CPU thread count)
/// and matrix (shape, element size, order, leading dimension, batch). plan_inplace with an
/// automatic route takes the recorded route for a matrix it has wisdom for. export_wisdom gives
/// it as text (one entry per line), import_wisdom adds such text (entries replace those with the
/// same key; xpose::error{invalid_argument} on a malformed line, nothing imported then),
/// forget_wisdom clears it. Thread-safe.
std::string export_wisdom();
void import_wisdom(const std::string& text);
void forget_wisdom();

/// Plans an out-of-place transposition: dst is cols x rows in the same storage order, with
/// leading dimension `dst_ld` (0 = dense) and batch stride `dst_batch_stride` (0 = dense).
plan plan_copy(const matrix_desc& src, std::int64_t dst_ld = 0, std::int64_t dst_batch_stride = 0,
               const plan_options& options = {});

}  // namespace xpose
