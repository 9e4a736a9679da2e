#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include <unistd.h>
#include <nlohmann/json.hpp>
#include <xpose/layout.hpp>

// XPOSE_GIT_COMMIT: the commit the tool is built from (cmake/git_commit.cmake, at every build).
#include "git_commit.hpp"

namespace xpose_cli {

namespace {

constexpr double no_value = std::numeric_limits<double>::quiet_NaN();

std::string elem_label(std::size_t elem_size) {
  if (elem_size == 4) return "fp32";
  if (elem_size == 8) return "fp64";
  return std::to_string(elem_size) + "B";
}

/// RxC, or BxRxC for a batch of B matrices.
std::string shape_label(const bench_case& c) {
  return (c.batch == 1 ? std::string() : std::to_string(c.batch) + "x") + std::to_string(c.rows) +
         "x" + std::to_string(c.cols);
}

/// "aos>asta(32)", for the table's route column.
std::string conversion_label(const bench_case& c) {
  return xpose::to_string(c.from) + ">" + xpose::to_string(c.to);
}

std::string route_label(const bench_row& row) {
  if (row.spec.layout)
    return conversion_label(row.spec) + " " +
           (row.spec.variant == xpose::layout_variant::automatic
                ? std::string("auto")
                : std::string(xpose::to_string(row.spec.variant)));
  if (row.spec.route != xpose::route::automatic)
    return std::string(xpose::to_string(row.spec.route));
  return "auto:" + (row.chosen_route.empty() ? std::string("?") : row.chosen_route);
}

bool ran(const bench_row& row) {
  return row.skipped.empty() && row.verified;
}

double ratio_to_copy(const bench_row& row) {
  return ran(row) && row.copy.gb_per_s > 0 ? row.measured.gb_per_s / row.copy.gb_per_s : no_value;
}

double ratio_to_peer(const bench_row& row) {
  return ran(row) && row.peer.verified && row.peer.measured.gb_per_s > 0
             ? row.measured.gb_per_s / row.peer.measured.gb_per_s
             : no_value;
}

double median_of(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  if (values.empty()) return no_value;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string human_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

std::string workspace_label(const bench_row& row) {
  if (row.chosen_route.empty()) return "-";
  char percent[32];
  std::snprintf(percent, sizeof percent, " (%.2f%%)",
                100.0 * static_cast<double>(row.workspace_bytes) /
                    static_cast<double>(row.spec.matrix_bytes()));
  return human_bytes(row.workspace_bytes) + percent;
}

std::string number(double value, const char* format) {
  if (std::isnan(value)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string check_label(const bench_row& row) {
  if (!row.skipped.empty()) return "skipped: " + row.skipped;
  if (!row.verified) return "FAILED: " + row.failure;
  if (!row.peer.name.empty() && !row.peer.verified)
    return "ok (peer FAILED: " + row.peer.failure + ")";
  return "ok";
}

struct group_summary {
  std::string group;
  int cases = 0;
  int failed = 0;
  int skipped = 0;
  double median_ratio_to_copy = no_value;
  double median_ratio_to_peer = no_value;
};

std::vector<group_summary> summarize(const std::vector<bench_row>& rows) {
  std::vector<group_summary> summaries;
  for (std::size_t begin = 0; begin < rows.size();) {
    std::size_t end = begin;
    while (end < rows.size() && rows[end].spec.group == rows[begin].spec.group) ++end;
    group_summary s;
    s.group = rows[begin].spec.group;
    std::vector<double> to_copy, to_peer;
    for (std::size_t i = begin; i < end; ++i) {
      ++s.cases;
      if (!rows[i].skipped.empty())
        ++s.skipped;
      else if (!rows[i].verified)
        ++s.failed;
      to_copy.push_back(ratio_to_copy(rows[i]));
      to_peer.push_back(ratio_to_peer(rows[i]));
    }
    s.median_ratio_to_copy = median_of(to_copy);
    s.median_ratio_to_peer = median_of(to_peer);
    summaries.push_back(s);
    begin = end;
  }
  return summaries;
}

void print_summary_line(std::FILE* out, const group_summary& s) {
  std::fprintf(
      out, "  == %s: %d cases, %d failed, %d skipped; median %s x copy, median %s x peer\n",
      s.group.c_str(), s.cases, s.failed, s.skipped, number(s.median_ratio_to_copy, "%.3f").c_str(),
      number(s.median_ratio_to_peer, "%.2f").c_str());
}

/// A measured value to 6 significant digits (more than a timing resolves), or null where there
/// is none (NaN).
nlohmann::ordered_json number_or_null(double value) {
  if (std::isnan(value)) return nullptr;
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return std::strtod(text, nullptr);
}

/// Writes `report` with one top-level key per line and each element of an array on a line of
/// its own, so that a row is one line of the file.
void write_report(std::FILE* out, const nlohmann::ordered_json& report) {
  const auto dump = [](const nlohmann::ordered_json& value) {
    // Invalid UTF-8 (in a device name, say) is replaced rather than failing the report.
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  };
  std::fprintf(out, "{");
  const char* separator = "\n";
  for (const auto& [key, value] : report.items()) {
    std::fprintf(out, "%s  %s: ", separator, dump(key).c_str());
    separator = ",\n";
    if (!value.is_array()) {
      std::fprintf(out, "%s", dump(value).c_str());
      continue;
    }
    std::fprintf(out, "[");
    for (std::size_t i = 0; i < value.size(); ++i)
      std::fprintf(out, "%s\n    %s", i ? "," : "", dump(value[i]).c_str());
    std::fprintf(out, "%s]", value.empty() ? "" : "\n  ");
  }
  std::fprintf(out, "\n}\n");
}

}  // namespace

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1u << 30));
  return text;
}

std::string case_label(const bench_case& c) {
  if (c.layout)
    return "layout " + conversion_label(c) + " " + shape_label(c) + " " + elem_label(c.elem_size) +
           " " + std::string(xpose::to_string(c.variant));
  return std::string(c.in_place ? "in-place " : "copy ") + shape_label(c) + " " +
         elem_label(c.elem_size) + " " + std::string(xpose::to_string(c.route));
}

void print_progress(std::size_t index, std::size_t total, const bench_case& c) {
  // On a terminal the line is rewritten in place; in a log, one line per case.
  const bool terminal = isatty(fileno(stderr)) != 0;
  std::fprintf(stderr, "%s[%zu/%zu] %s %s ...%s", terminal ? "\r\033[K" : "", index, total,
               std::string(xpose::to_string(c.target)).c_str(), case_label(c).c_str(),
               terminal ? "" : "\n");
  std::fflush(stderr);
}

void end_progress() {
  if (isatty(fileno(stderr)) != 0) std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

int count_failures(const std::vector<bench_row>& rows) {
  int failures = 0;
  for (const auto& row : rows)
    if (row.skipped.empty() && (!row.verified || (!row.peer.name.empty() && !row.peer.verified)))
      ++failures;
  return failures;
}

void print_table(std::FILE* out, const std::vector<device_info>& devices,
                 const std::vector<bench_row>& rows, const bench_settings& settings) {
  std::fprintf(out,
               "xpose %d.%d.%d bench: median of %d timed runs after a warm-up; GB/s = 2 x "
               "matrix bytes / time\n",
               xpose::version_major, xpose::version_minor, xpose::version_patch, settings.reps);
  for (const auto& d : devices)
    std::fprintf(out, "device %s: %s (%s)\n", std::string(xpose::to_string(d.target)).c_str(),
                 d.name.c_str(), d.detail.c_str());
  const char* header_format = "%-4s %-8s %-24s %-13s %4s %9s %8s %8s %6s %-19s %-18s %8s %6s %s\n";
  std::fprintf(out, "\n");
  std::fprintf(out, header_format, "dev", "op", "route", "shape", "elem", "ms", "GB/s", "copyGB/s",
               "xcopy", "workspace", "peer", "peerGB/s", "xpeer", "check");
  const auto summaries = summarize(rows);
  std::size_t summary = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bench_row& row = rows[i];
    const bool measured = ran(row);
    std::fprintf(out, header_format, std::string(xpose::to_string(row.spec.target)).c_str(),
                 row.spec.layout     ? "layout"
                 : row.spec.in_place ? "in-place"
                                     : "copy",
                 route_label(row).c_str(), shape_label(row.spec).c_str(),
                 std::to_string(row.spec.elem_size).c_str(),
                 number(measured ? row.measured.median_ms : no_value, "%.4g").c_str(),
                 number(measured ? row.measured.gb_per_s : no_value, "%.2f").c_str(),
                 number(row.copy.gb_per_s > 0 ? row.copy.gb_per_s : no_value, "%.2f").c_str(),
                 number(ratio_to_copy(row), "%.3f").c_str(), workspace_label(row).c_str(),
                 row.peer.name.empty() ? "-" : row.peer.name.c_str(),
                 number(row.peer.verified ? row.peer.measured.gb_per_s : no_value, "%.2f").c_str(),
                 number(ratio_to_peer(row), "%.2f").c_str(), check_label(row).c_str());
    if (measured && row.spec.in_place && row.copy.gb_per_s > 0)
      std::fprintf(out, "    passes: predicted %.2f, measured %.2f (time / copy time)\n",
                   row.predicted_passes, row.copy.gb_per_s / row.measured.gb_per_s);
    if (row.spec.layout && !row.chosen_route.empty())
      std::fprintf(out, "    steps: %s\n", row.chosen_route.c_str());
    for (const stage_time& st : row.stages)
      std::fprintf(out, "    stage %-10s %9s ms %6s x copy\n", st.label.c_str(),
                   number(st.measured.median_ms, "%.4g").c_str(),
                   number(row.copy.gb_per_s > 0 && st.measured.gb_per_s > 0
                              ? st.measured.gb_per_s / row.copy.gb_per_s
                              : no_value,
                          "%.3f")
                       .c_str());
    if (i + 1 == rows.size() || rows[i + 1].spec.group != row.spec.group)
      print_summary_line(out, summaries[summary++]);
  }
  std::fprintf(out, "\n%d of %zu cases failed\n", count_failures(rows), rows.size());
}

void print_json(std::FILE* out, const std::vector<device_info>& devices,
                const std::vector<bench_row>& rows, const bench_settings& settings) {
  using json = nlohmann::ordered_json;
  json report;
  report["xpose_version"] = std::to_string(xpose::version_major) + "." +
                            std::to_string(xpose::version_minor) + "." +
                            std::to_string(xpose::version_patch);
  report["commit"] = XPOSE_GIT_COMMIT;
  report["date"] = settings.date;
  report["reps"] = settings.reps;
  report["threads"] = settings.threads;
  json& device_list = report["devices"] = json::array();
  for (const auto& d : devices)
    device_list.push_back({{"device", std::string(xpose::to_string(d.target))},
                           {"name", d.name},
                           {"detail", d.detail}});
  json& row_list = report["rows"] = json::array();
  for (const bench_row& r : rows) {
    const bool measured = ran(r);
    json row;
    row["group"] = r.spec.group;
    row["device"] = std::string(xpose::to_string(r.spec.target));
    row["in_place"] = r.spec.in_place;
    row["route"] = std::string(xpose::to_string(r.spec.route));
    row["chosen_route"] = r.chosen_route;
    // Layout conversions: rows structures of cols fields of elem_size bytes; chosen_route lists
    // the steps and their GPU kernels.
    row["layout_from"] = r.spec.layout ? json(xpose::to_string(r.spec.from)) : json(nullptr);
    row["layout_to"] = r.spec.layout ? json(xpose::to_string(r.spec.to)) : json(nullptr);
    row["layout_variant"] =
        r.spec.layout ? json(std::string(xpose::to_string(r.spec.variant))) : json(nullptr);
    row["rows"] = r.spec.rows;
    row["cols"] = r.spec.cols;
    row["batch"] = r.spec.batch;
    row["elem_size"] = r.spec.elem_size;
    row["matrix_bytes"] = r.spec.matrix_bytes();
    row["median_ms"] = number_or_null(measured ? r.measured.median_ms : no_value);
    row["gb_per_s"] = number_or_null(measured ? r.measured.gb_per_s : no_value);
    row["copy_gb_per_s"] = number_or_null(r.copy.gb_per_s > 0 ? r.copy.gb_per_s : no_value);
    row["ratio_to_copy"] = number_or_null(ratio_to_copy(r));
    row["workspace_bytes"] = r.workspace_bytes;
    row["predicted_passes"] =
        number_or_null(r.chosen_route.empty() ? no_value : r.predicted_passes);
    row["measured_passes"] = number_or_null(
        measured && r.copy.gb_per_s > 0 ? r.copy.gb_per_s / r.measured.gb_per_s : no_value);
    row["verified"] = r.verified;
    row["failure"] = r.failure;
    row["skipped"] = r.skipped;
    row["peer"] = r.peer.name;
    row["peer_gb_per_s"] = number_or_null(r.peer.verified ? r.peer.measured.gb_per_s : no_value);
    row["peer_verified"] = r.peer.verified;
    row["peer_failure"] = r.peer.failure;
    row["ratio_to_peer"] = number_or_null(ratio_to_peer(r));
    if (!r.stages.empty()) {
      json& stage_list = row["stages"] = json::array();
      for (const stage_time& st : r.stages)
        stage_list.push_back(
            {{"label", st.label},
             {"median_ms", number_or_null(st.measured.median_ms)},
             {"ratio_to_copy", number_or_null(r.copy.gb_per_s > 0 && st.measured.gb_per_s > 0
                                                  ? st.measured.gb_per_s / r.copy.gb_per_s
                                                  : no_value)}});
    }
    row_list.push_back(std::move(row));
  }
  json& summary_list = report["summaries"] = json::array();
  for (const auto& s : summarize(rows))
    summary_list.push_back({{"group", s.group},
                            {"cases", s.cases},
                            {"failed", s.failed},
                            {"skipped", s.skipped},
                            {"median_ratio_to_copy", number_or_null(s.median_ratio_to_copy)},
                            {"median_ratio_to_peer", number_or_null(s.median_ratio_to_peer)}});
  report["failures"] = count_failures(rows);
  write_report(out, report);
}

}  // namespace xpose_cli
