// An xpose::plan as the extension holds it: the plan, the device it was made on (its workspace
// lives there, and it runs there), and pointer-level execution. The Python package checks the
// arrays (shape, element size, device, contiguity) before it hands their addresses here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xpose/plan.hpp"

namespace xpose_python {

class plan_handle {
 public:
  /// Plans a dense row-major batch of `batch` matrices of rows x cols elements of `elem_size`
  /// bytes, in place or out of place, on the CPU (device -1) or on CUDA device `device`, whose
  /// kernels go to `stream` (a cudaStream_t as an integer). `route` is a route's name
  /// ("automatic" lets the planner choose); `threads` the CPU threads (0 = OpenMP's default).
  plan_handle(bool in_place, std::int64_t batch, std::int64_t rows, std::int64_t cols,
              std::size_t elem_size, int device, std::uintptr_t stream, int threads,
              const std::string& route);
  /// Frees the workspace on the plan's device.
  ~plan_handle();
  plan_handle(const plan_handle&) = delete;
  plan_handle& operator=(const plan_handle&) = delete;

  std::string describe() const { return plan_->describe(); }
  std::size_t workspace_bytes() const noexcept { return plan_->workspace_bytes(); }
  double predicted_passes() const noexcept { return plan_->predicted_passes(); }
  std::string route() const;
  bool in_place() const noexcept { return plan_->in_place(); }
  int device() const noexcept { return device_; }
  std::uintptr_t stream() const noexcept { return stream_; }

  /// In-place plans: transposes the batch at address `data`.
  void execute_inplace(std::uintptr_t data) const;
  /// Out-of-place plans: writes the transpose of the batch at `src` to `dst`.
  void execute_copy(std::uintptr_t src, std::uintptr_t dst) const;

 private:
  std::optional<xpose::plan> plan_;
  int device_;
  std::uintptr_t stream_;
};

/// The names of every route, "automatic" first.
std::vector<std::string> route_names();

}  // namespace xpose_python
