// `xpose transpose`: its options and their parsing (CLI11), kept apart from the other commands'.
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace xpose_cli {

struct transpose_command_options {
  std::string input, output;  ///< output empty: in place
  bool in_place = false;
  std::int64_t rows = 0, cols = 0;  ///< --shape (raw files; checked against a .npy header)
  std::size_t elem_size = 0;        ///< --dtype or --elem
  std::string format = "auto";      ///< auto, npy or raw
  bool flip_order = false;          ///< .npy: swap the shape, flip fortran_order, move no data
  bool journal = true;
  std::uint64_t memory = 0;  ///< bytes; 0 = the library's default
  int threads = 0;
  bool progress = false;     ///< a progress bar even when stderr is not a terminal
  bool no_progress = false;  ///< none even when it is
  bool force = false;        ///< replace an existing output file
  bool verbose = false;      ///< print the plan or blocked route
  std::string gpu = "auto";  ///< in memory: host_via_gpu never, auto or always
};

/// What CLI11 fills before transpose_command_options is complete.
struct transpose_parse_targets {
  std::string shape, dtype;
  std::string memory;
};

/// Adds the command's arguments and options to `command`.
void add_transpose_options(CLI::App& command, transpose_command_options& options,
                           transpose_parse_targets& targets);
/// Checks the combination and converts the texts; throws usage_error naming what is wrong.
void finish_transpose_options(transpose_command_options& options,
                              const transpose_parse_targets& targets);

/// "1048576", "64K", "512M", "1.5G", "2GiB": bytes; throws usage_error.
std::uint64_t parse_byte_size(const std::string& text, const char* option);

}  // namespace xpose_cli
