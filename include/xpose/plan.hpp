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

/// Whether an in-place plan of host data (target cpu) may run on the GPU: copy in, transpose
/// there, copy back into the same host memory (docs/host.md). automatic: when a device is present
/// and the cost model (bandwidths measured once per process) predicts it faster than the CPU.
enum class host_gpu_policy { never, automatic, always };

/// How a host plan through the GPU reaches the caller's memory: pinned memory as it is, otherwise
/// registered for each execute (cudaHostRegister) or staged: copied through pinned chunks by the
/// plan's CPU threads beside the DMA transfers. automatic: what the cost model predicts faster
/// (staged where the threads copy faster than registration; the other where one fails).
enum class host_pinning { automatic, register_memory, staged };

struct plan_options {
  device target = device::cpu;  ///< where the data lives and the work runs
  route forced_route = route::automatic;
  int threads = 0;                 ///< CPU threads; 0 = OpenMP default
  void* stream = nullptr;          ///< CUDA: a cudaStream_t; nullptr = the default stream
  tuning tune = tuning::estimate;  ///< plan_inplace(desc, data, options) only
  /// target cpu, in place: may the GPU do it (plans of dense matrices only).
  host_gpu_policy host_via_gpu = host_gpu_policy::never;
  host_pinning pinning = host_pinning::automatic;
  /// Device memory a host plan through the GPU may hold, in bytes; 0 = the device's free memory
  /// less a margin. A matrix larger than it goes through the GPU in pieces (out of core).
  std::size_t gpu_memory_budget = 0;
  /// Host plans through the GPU, staged pageable memory: bytes of each pinned staging chunk (each
  /// thread owns two); 0 = 2 MiB. Smaller for small matrices.
  std::size_t staging_chunk_bytes = 0;
  /// Streams a host plan through the GPU spreads its independent pieces over; 0 = 3.
  int gpu_streams = 0;
  /// Host plans through the GPU: overlap the copies with the transposition of independent slabs
  /// (the default), or copy in, transpose, copy out one after another (for comparison).
  bool overlap_copies = true;
};

namespace detail {
struct plan_data;
struct host_plan;
}  // namespace detail

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
  /// A plan of host data that runs through the GPU (`host`); `data` is its CPU plan, which
  /// stage_count(), stage_label() and execute_stage() describe and run.
  plan(std::shared_ptr<detail::plan_data> data, std::shared_ptr<detail::host_plan> host);

  /// Host plans through the GPU: whether execute() runs on the GPU (host_via_gpu chose it).
  bool runs_through_gpu() const noexcept;

 private:
  std::shared_ptr<detail::plan_data> data_;
  std::shared_ptr<detail::host_plan> host_;
};

/// Plans an in-place transposition of `desc` (ld must be dense unless rows == cols). With
/// target cpu and host_via_gpu other than never, the plan may run through the GPU: execute()
/// then copies the matrix to the device (whole, or in pieces that fit gpu_memory_budget),
/// transposes it there and copies it back, and returns when the host memory holds the result;
/// describe() says how, with the cost model's prediction for the CPU and the GPU.
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
