// Command-line parsing for the xpose tool (CLI11): `xpose bench ...`, `xpose plan ...`,
// `--help`, `--version`. Parsing never runs anything; a bad argument throws usage_error naming
// it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <xpose/layout.hpp>
#include <xpose/xpose.hpp>

#include "transpose_options.hpp"

namespace xpose_cli {

class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class device_selection { all_present, cpu, cuda };

struct matrix_shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

struct bench_options {
  bool json = false;
  std::string json_file;  ///< also write the JSON here (the table still goes to stdout)
  device_selection devices = device_selection::all_present;
  std::vector<matrix_shape> shapes;  ///< custom cases; empty = the default set
  std::int64_t batch = 1;            ///< matrices per custom case (dense batches)
  std::size_t elem_size = 4;
  xpose::route route = xpose::route::automatic;
  bool in_place = true;
  int reps = 7;
  int threads = 0;  ///< 0 = OpenMP default
  bool quick = false;
  std::string group;  ///< run only the default cases whose group contains this text
  /// Custom cases are layout conversions (--from, --to, --variant) of RxC = structures x fields.
  bool layout = false;
  xpose::layout from, to;
  xpose::layout_variant variant = xpose::layout_variant::automatic;
};

struct plan_command_options {
  matrix_shape shape;
  std::size_t elem_size = 4;
  bool in_place = true;
  xpose::device target = xpose::device::cpu;
  xpose::route route = xpose::route::automatic;
  int threads = 0;
  bool measure = false;     ///< in place: time the routes on a matrix of random bytes
  std::string wisdom_file;  ///< read before planning (when it exists), written after
  /// A layout conversion (--from, --to, --variant) of RxC = structures x fields instead.
  bool layout = false;
  xpose::layout from, to;
  xpose::layout_variant variant = xpose::layout_variant::automatic;
};

struct command_line {
  enum class command { help, version, bench, plan, transpose } what = command::bench;
  bench_options bench;
  plan_command_options plan;
  transpose_command_options transpose;
  std::string help_text;  ///< command::help: the help of the command asked about
};

/// "aos", "soa", "asta:T" or "asta(T)" (T >= 1); "" and the layout in `l`, or what is wrong.
std::string read_layout(std::string_view text, xpose::layout& l);

/// Parses argv; throws usage_error with a message that names the offending argument.
command_line parse_command_line(int argc, const char* const* argv);

}  // namespace xpose_cli
