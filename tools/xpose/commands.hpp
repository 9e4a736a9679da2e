// The xpose tool's commands; each returns the process exit status.
#pragma once

#include "cli_options.hpp"

namespace xpose_cli {

/// `xpose bench`: runs, checks and reports the cases; non-zero if any case failed.
int run_bench_command(const bench_options& options);

/// `xpose plan RxC ...`: prints the plan's describe().
int run_plan_command(const plan_command_options& options);

/// `xpose transpose FILE (OUT | --in-place) ...`: transposes a matrix in a file.
int run_transpose_command(const transpose_command_options& options);

}  // namespace xpose_cli
