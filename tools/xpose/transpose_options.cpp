#include "transpose_options.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <charconv>
#include <cmath>

#include "cli_options.hpp"
#include "io/npy_format.hpp"
#include "xpose/error.hpp"

namespace xpose_cli {

namespace {

std::int64_t parse_dimension(std::string_view text, const std::string& whole) {
  std::int64_t value = 0;
  const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (failure != std::errc{} || end != text.data() + text.size() || value < 1)
    throw usage_error("--shape is ROWS,COLS (or ROWSxCOLS) of positive integers, got '" + whole +
                      "'");
  return value;
}

}  // namespace

std::uint64_t parse_byte_size(const std::string& text, const char* option) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  if (unit == "K") scale = 1024.0;
  if (unit == "M") scale = 1024.0 * 1024;
  if (unit == "G") scale = 1024.0 * 1024 * 1024;
  if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  double value = -1;
  try {
    if (digits > 0) value = std::stod(text.substr(0, digits));
  } catch (const std::exception&) {
  }
  if (scale == 0 || value <= 0 || value * scale > 9.0e18)
    throw usage_error(std::string(option) +
                      " is a size in bytes such as 512M, 4G or 1048576, got '" + text + "'");
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

void add_transpose_options(CLI::App& command, transpose_command_options& options,
                           transpose_parse_targets& targets) {
  command.add_option("input", options.input, "the matrix: a .npy file, or raw with --shape")
      ->option_text("FILE")
      ->required();
  command
      .add_option("output", options.output, "write the transpose here (replaced only with --force)")
      ->option_text("OUT");
  command.add_flag("--in-place", options.in_place, "transpose FILE itself (no OUT)");
  command.add_option("--shape", targets.shape, "raw files: rows and columns")->option_text("R,C");
  command
      .add_option("--dtype", targets.dtype,
                  "raw files: element type (f4, <f8, u1, c16, V12, float32...)")
      ->option_text("TYPE");
  command.add_option("--elem", options.elem_size, "raw files: element size in bytes")
      ->option_text("BYTES")
      ->check(CLI::Range(1, 1 << 30));
  command.add_option("--format", options.format, "file format (default: .npy by its magic string)")
      ->option_text("auto|npy|raw")
      ->check(CLI::IsMember({"auto", "npy", "raw"}));
  command.add_flag("--flip-order,--fortran-order", options.flip_order,
                   ".npy: swap the shape and flip fortran_order; no data moves");
  command.add_flag("!--no-journal", options.journal,
                   "in place without the crash-safe journal (faster; an interrupted run loses "
                   "the data)");
  command
      .add_option("--memory", targets.memory,
                  "memory the run may use (default: a quarter of RAM, at most 4G, within "
                  "ulimit -v)")
      ->option_text("SIZE");
  command.add_option("--threads", options.threads, "CPU threads (default: OpenMP default)")
      ->option_text("N")
      ->check(CLI::Range(0, 4096));
  command.add_flag("--progress", options.progress,
                   "progress bar on stderr even when not a terminal");
  command.add_flag("--no-progress", options.no_progress, "no progress bar");
  command.add_flag("--force", options.force, "replace an existing OUT");
  command.add_flag("-v,--verbose", options.verbose, "print the route and its steps");
  command
      .add_option("--gpu", options.gpu,
                  "the in-memory method (--no-journal) through the GPU: by the cost model "
                  "(auto, the default), never or always")
      ->option_text("auto|never|always")
      ->check(CLI::IsMember({"auto", "never", "always"}));
}

void finish_transpose_options(transpose_command_options& options,
                              const transpose_parse_targets& targets) {
  if (options.in_place && !options.output.empty())
    throw usage_error("transpose: give OUT or --in-place, not both");
  if (!options.in_place && options.output.empty())
    throw usage_error("transpose: give OUT, or --in-place to transpose " + options.input +
                      " itself");
  if (options.progress && options.no_progress)
    throw usage_error("transpose: --progress and --no-progress together");
  if (!targets.shape.empty()) {
    const auto separator = targets.shape.find_first_of(",xX");
    if (separator == std::string::npos)
      throw usage_error("--shape is ROWS,COLS (or ROWSxCOLS), got '" + targets.shape + "'");
    const std::string_view text(targets.shape);
    options.rows = parse_dimension(text.substr(0, separator), targets.shape);
    options.cols = parse_dimension(text.substr(separator + 1), targets.shape);
  }
  if (!targets.dtype.empty()) {
    std::size_t bytes = 0;
    try {
      bytes = xpose::detail::io::dtype_name_size(targets.dtype);
    } catch (const xpose::error& e) {
      throw usage_error(e.what());
    }
    if (options.elem_size != 0 && options.elem_size != bytes)
      throw usage_error("--dtype " + targets.dtype + " has " + std::to_string(bytes) +
                        "-byte elements, but --elem says " + std::to_string(options.elem_size));
    options.elem_size = bytes;
  }
  if (!targets.memory.empty()) options.memory = parse_byte_size(targets.memory, "--memory");
}

}  // namespace xpose_cli
