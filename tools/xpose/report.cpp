#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <unistd.h>

namespace xpose_cli {

namespace {

constexpr double no_value = std::numeric_limits<double>::quiet_NaN();

std::string elem_label(std::size_t elem_size) {
  if (elem_size == 4) return "fp32";
  if (elem_size == 8) return "fp64";
  return std::to_string(elem_size) + "B";
}

std::string shape_label(const bench_case& c) {
  return std::to_string(c.rows) + "x" + std::to_string(c.cols);
}

std::string route_label(const bench_row& row) {
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

std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') {
      quoted += '\\';
      quoted += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", ch);
      quoted += escaped;
    } else {
      quoted += ch;
    }
  }
  return quoted + "\"";
}

std::string json_number(double value) {
  if (std::isnan(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

std::string case_label(const bench_case& c) {
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
                 row.spec.in_place ? "in-place" : "copy", route_label(row).c_str(),
                 shape_label(row.spec).c_str(), std::to_string(row.spec.elem_size).c_str(),
                 number(measured ? row.measured.median_ms : no_value, "%.4g").c_str(),
                 number(measured ? row.measured.gb_per_s : no_value, "%.2f").c_str(),
                 number(row.copy.gb_per_s > 0 ? row.copy.gb_per_s : no_value, "%.2f").c_str(),
                 number(ratio_to_copy(row), "%.3f").c_str(), workspace_label(row).c_str(),
                 row.peer.name.empty() ? "-" : row.peer.name.c_str(),
                 number(row.peer.verified ? row.peer.measured.gb_per_s : no_value, "%.2f").c_str(),
                 number(ratio_to_peer(row), "%.2f").c_str(), check_label(row).c_str());
    if (i + 1 == rows.size() || rows[i + 1].spec.group != row.spec.group)
      print_summary_line(out, summaries[summary++]);
  }
  std::fprintf(out, "\n%d of %zu cases failed\n", count_failures(rows), rows.size());
}

void print_json(std::FILE* out, const std::vector<device_info>& devices,
                const std::vector<bench_row>& rows, const bench_settings& settings) {
  std::fprintf(out, "{\n  \"xpose_version\": \"%d.%d.%d\",\n  \"reps\": %d,\n  \"threads\": %d,\n",
               xpose::version_major, xpose::version_minor, xpose::version_patch, settings.reps,
               settings.threads);
  std::fprintf(out, "  \"devices\": [");
  for (std::size_t i = 0; i < devices.size(); ++i)
    std::fprintf(out, "%s\n    {\"device\": %s, \"name\": %s, \"detail\": %s}", i ? "," : "",
                 json_string(std::string(xpose::to_string(devices[i].target))).c_str(),
                 json_string(devices[i].name).c_str(), json_string(devices[i].detail).c_str());
  std::fprintf(out, "\n  ],\n  \"rows\": [");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bench_row& r = rows[i];
    const bool measured = ran(r);
    std::fprintf(
        out,
        "%s\n    {\"group\": %s, \"device\": %s, \"in_place\": %s, \"route\": %s, "
        "\"chosen_route\": %s, \"rows\": %lld, \"cols\": %lld, \"elem_size\": %zu, "
        "\"matrix_bytes\": %zu, \"median_ms\": %s, \"gb_per_s\": %s, \"copy_gb_per_s\": %s, "
        "\"ratio_to_copy\": %s, \"workspace_bytes\": %zu, \"predicted_passes\": %s, "
        "\"verified\": %s, \"failure\": %s, \"skipped\": %s, \"peer\": %s, \"peer_gb_per_s\": %s, "
        "\"peer_verified\": %s, \"peer_failure\": %s, \"ratio_to_peer\": %s}",
        i ? "," : "", json_string(r.spec.group).c_str(),
        json_string(std::string(xpose::to_string(r.spec.target))).c_str(),
        r.spec.in_place ? "true" : "false",
        json_string(std::string(xpose::to_string(r.spec.route))).c_str(),
        json_string(r.chosen_route).c_str(), static_cast<long long>(r.spec.rows),
        static_cast<long long>(r.spec.cols), r.spec.elem_size, r.spec.matrix_bytes(),
        json_number(measured ? r.measured.median_ms : no_value).c_str(),
        json_number(measured ? r.measured.gb_per_s : no_value).c_str(),
        json_number(r.copy.gb_per_s > 0 ? r.copy.gb_per_s : no_value).c_str(),
        json_number(ratio_to_copy(r)).c_str(), r.workspace_bytes,
        json_number(r.chosen_route.empty() ? no_value : r.predicted_passes).c_str(),
        r.verified ? "true" : "false", json_string(r.failure).c_str(),
        json_string(r.skipped).c_str(), json_string(r.peer.name).c_str(),
        json_number(r.peer.verified ? r.peer.measured.gb_per_s : no_value).c_str(),
        r.peer.verified ? "true" : "false", json_string(r.peer.failure).c_str(),
        json_number(ratio_to_peer(r)).c_str());
  }
  std::fprintf(out, "\n  ],\n  \"summaries\": [");
  const auto summaries = summarize(rows);
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const auto& s = summaries[i];
    std::fprintf(out,
                 "%s\n    {\"group\": %s, \"cases\": %d, \"failed\": %d, \"skipped\": %d, "
                 "\"median_ratio_to_copy\": %s, \"median_ratio_to_peer\": %s}",
                 i ? "," : "", json_string(s.group).c_str(), s.cases, s.failed, s.skipped,
                 json_number(s.median_ratio_to_copy).c_str(),
                 json_number(s.median_ratio_to_peer).c_str());
  }
  std::fprintf(out, "\n  ],\n  \"failures\": %d\n}\n", count_failures(rows));
}

}  // namespace xpose_cli
