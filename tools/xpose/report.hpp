// Output of `xpose bench`: the progress line (stderr), the table with one summary line per
// group, and the same rows as JSON.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "bench_types.hpp"

namespace xpose_cli {

/// Bytes as GiB with one decimal, "1.5 GiB" — for skip reasons and device details.
std::string gib(double bytes);

/// "in-place 7200x1800 fp32 three_stage" — for the progress line.
std::string case_label(const bench_case& c);

/// Rewrites the progress line on stderr: "\r[3/24] cpu in-place 7200x1800 fp32 ...".
void print_progress(std::size_t index, std::size_t total, const bench_case& c);
/// Clears the progress line.
void end_progress();

/// The table: a header per device, one line per row, a summary line after each group.
void print_table(std::FILE* out, const std::vector<device_info>& devices,
                 const std::vector<bench_row>& rows, const bench_settings& settings);

/// One JSON object (nlohmann/json): version, commit, date, settings, devices, rows, group
/// summaries, failure count; one row per line.
void print_json(std::FILE* out, const std::vector<device_info>& devices,
                const std::vector<bench_row>& rows, const bench_settings& settings);

/// Rows whose result was wrong or whose case failed (skipped rows do not count).
int count_failures(const std::vector<bench_row>& rows);

}  // namespace xpose_cli
