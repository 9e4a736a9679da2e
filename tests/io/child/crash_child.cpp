// The process the crash tests kill: transposes a file in place (completing an interrupted run
// when the file has a journal) and, when told to, raises SIGKILL at the k-th fault point of the
// run (io/fault_hook.hpp). Prints "points N" (the fault points passed) when it finishes.
//   xpose_io_crash_child PATH KILL_AT BUDGET JOURNAL [ROWS COLS ELEM]
// KILL_AT -1: never; JOURNAL 0 or 1; ROWS COLS ELEM for a raw file.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/fault_hook.hpp"
#include "xpose/error.hpp"
#include "xpose/file.hpp"

int main(int argc, char** argv) {
  if (argc != 5 && argc != 8) {
    std::fprintf(stderr, "usage: %s PATH KILL_AT BUDGET JOURNAL [ROWS COLS ELEM]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const long long kill_at = std::atoll(argv[2]);
  xpose::file_options options;
  options.memory_budget = std::strtoull(argv[3], nullptr, 10);
  options.journal = std::atoi(argv[4]) != 0;
  options.plan.threads = 1;  // no idle OpenMP threads spinning beside other tests
  if (argc == 8) {
    options.format = xpose::file_format::raw;
    options.rows = std::atoll(argv[5]);
    options.cols = std::atoll(argv[6]);
    options.elem_size = std::strtoull(argv[7], nullptr, 10);
  }
  long long points = 0;
  xpose::detail::io::set_fault_hook([&](const char*, std::int64_t) {
    if (points++ == kill_at) std::raise(SIGKILL);
  });
  try {
    xpose::transpose_file_inplace(path, options);
  } catch (const xpose::error& e) {
    std::fprintf(stderr, "crash child: %s\n", e.what());
    return 1;
  }
  std::printf("points %lld\n", points);
  return 0;
}
