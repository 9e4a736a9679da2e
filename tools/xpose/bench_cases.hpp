// The cases `xpose bench` runs: the default set (PPoPP'14 Table 2 shapes, prime dimensions,
// squares, the seed variants, out-of-place element sizes, layout conversions on the DL paper's
// Table 1 arrays; on CUDA devices also batches of small matrices and skinny 12-byte shapes; cases
// marked on_request only when --group names them), the --quick set, or custom --shape cases (with
// --batch, or --from and --to for a layout conversion).
#pragma once

#include <vector>

#include "bench_types.hpp"
#include "cli_options.hpp"

namespace xpose_cli {

/// Cases for `target`, in the order they run (cases of one shape are adjacent, so the host
/// reference is computed once per shape).
std::vector<bench_case> cases_for_device(const bench_options& options, xpose::device target);

}  // namespace xpose_cli
