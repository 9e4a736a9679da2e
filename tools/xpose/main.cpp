// The xpose command-line tool: `xpose bench` (the default) times, checks and compares
// transpositions; `xpose plan` prints a plan; `--help`, `--version`.
#include <cstdio>
#include <exception>

#include "cli_options.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  using xpose_cli::command_line;
  try {
    const command_line parsed = xpose_cli::parse_command_line(argc, argv);
    switch (parsed.what) {
      case command_line::command::help:
        std::printf("%s", parsed.help_text.c_str());
        return 0;
      case command_line::command::version:
        std::printf("xpose %d.%d.%d (CUDA backend: %s)\n", xpose::version_major,
                    xpose::version_minor, xpose::version_patch,
                    xpose::built_with_cuda() ? "yes" : "no");
        return 0;
      case command_line::command::bench:
        return xpose_cli::run_bench_command(parsed.bench);
      case command_line::command::plan:
        return xpose_cli::run_plan_command(parsed.plan);
      case command_line::command::transpose:
        return xpose_cli::run_transpose_command(parsed.transpose);
    }
  } catch (const xpose_cli::usage_error& e) {
    std::fprintf(stderr, "xpose: %s\nRun 'xpose --help' for usage.\n", e.what());
    return 2;
  } catch (const xpose::error& e) {
    std::fprintf(stderr, "xpose: %s: %s\n", xpose::to_string(e.code()), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xpose: %s\n", e.what());
    return 1;
  }
  return 1;
}
