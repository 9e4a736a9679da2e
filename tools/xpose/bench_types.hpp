// The data `xpose bench` passes between its parts: what to measure (bench_case), how
// (bench_settings), and what was measured (bench_row, device_info).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <xpose/layout.hpp>
#include <xpose/xpose.hpp>

namespace xpose_cli {

/// One transposition to time: a dense batch of `batch` row-major rows x cols matrices of
/// elem_size-byte elements (batch_stride = rows * cols); or, when `layout` is set, an in-place
/// layout conversion of `rows` structures of `cols` fields of elem_size bytes.
struct bench_case {
  std::string group;  ///< cases of one group share a summary line
  xpose::device target = xpose::device::cpu;
  bool in_place = true;
  xpose::route route = xpose::route::automatic;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::size_t elem_size = 4;
  std::int64_t batch = 1;
  bool layout = false;  ///< a layout conversion from `from` to `to` on `variant`
  xpose::layout from = xpose::layout::aos(), to = xpose::layout::aos();
  xpose::layout_variant variant = xpose::layout_variant::automatic;
  bool on_request = false;  ///< in the default set only when --group names its group

  /// Bytes of the whole batch.
  std::size_t matrix_bytes() const {
    return static_cast<std::size_t>(batch) * static_cast<std::size_t>(rows) *
           static_cast<std::size_t>(cols) * elem_size;
  }
};

struct bench_settings {
  int reps = 7;     ///< timed runs per measurement (the median is reported)
  int threads = 1;  ///< CPU threads for xpose, the memcpy baseline and OpenBLAS (resolved, >= 1)
  bool evict_caches = true;  ///< start every timed run with the data out of the caches
  std::string date;          ///< when the run started, UTC, ISO 8601 (YYYY-MM-DDTHH:MM:SSZ)
};

/// A measured throughput: median time of the timed runs and 2 x bytes / time.
struct rate {
  double median_ms = 0;
  double gb_per_s = 0;
};

/// A peer library measured on the same case in the same run (OpenBLAS, cuBLAS).
struct peer_result {
  std::string name;  ///< empty when the case has no peer
  rate measured;
  bool verified = false;
  std::string failure;  ///< why the peer run failed or its result was wrong
};

/// One stage of an in-place GPU plan timed alone (plan::execute_stage) on the same matrix.
struct stage_time {
  std::string label;
  rate measured;
};

struct bench_row {
  bench_case spec;
  std::string chosen_route;  ///< the route the plan took (differs from spec.route if automatic)
  rate measured;
  rate copy;  ///< memcpy (CPU) or device-to-device cudaMemcpyAsync (GPU) of the same bytes
  std::size_t workspace_bytes = 0;
  double predicted_passes = 0;
  bool verified = false;
  std::string failure;  ///< planning/execution error or the first wrong element
  std::string skipped;  ///< why the case was not run (too large for this device), not a failure
  peer_result peer;
  std::vector<stage_time> stages;  ///< in-place GPU plans of two stages or more
};

/// A device the run measured, for the table's header and the JSON output.
struct device_info {
  xpose::device target = xpose::device::cpu;
  std::string name;
  std::string detail;  ///< threads (CPU) or memory and compute capability (GPU)
};

}  // namespace xpose_cli
