#include "cli_options.hpp"

#include <charconv>
#include <limits>
#include <string_view>

namespace xpose_cli {

namespace {

/// Walks argv; `value_of` takes the argument after an option that needs one.
class argument_cursor {
 public:
  argument_cursor(int argc, const char* const* argv) : argc_(argc), argv_(argv) {}
  bool done() const { return next_ >= argc_; }
  std::string_view take() { return argv_[next_++]; }
  std::string_view value_of(std::string_view option) {
    if (done()) throw usage_error("option " + std::string(option) + " needs a value");
    return take();
  }

 private:
  int argc_;
  const char* const* argv_;
  int next_ = 1;
};

std::int64_t parse_integer(std::string_view text, std::string_view what, std::int64_t min_value,
                           std::int64_t max_value) {
  std::int64_t value = 0;
  const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (failure != std::errc{} || end != text.data() + text.size() || value < min_value ||
      value > max_value)
    throw usage_error(std::string(what) + " must be an integer in [" + std::to_string(min_value) +
                      ", " + std::to_string(max_value) + "], got '" + std::string(text) + "'");
  return value;
}

matrix_shape parse_shape(std::string_view text) {
  const auto x = text.find_first_of("xX");
  if (x == std::string_view::npos)
    throw usage_error("a shape is ROWSxCOLS (e.g. 7200x1800), got '" + std::string(text) + "'");
  constexpr auto max_dim = std::numeric_limits<std::int64_t>::max() / 2;
  return {parse_integer(text.substr(0, x), "shape rows", 1, max_dim),
          parse_integer(text.substr(x + 1), "shape cols", 1, max_dim)};
}

std::size_t parse_elem_size(std::string_view text) {
  return static_cast<std::size_t>(
      parse_integer(text, "--elem", 1, static_cast<std::int64_t>(xpose::max_elem_size)));
}

xpose::route parse_route(std::string_view text) {
  if (const auto r = xpose::route_from_string(text)) return *r;
  throw usage_error("unknown route '" + std::string(text) +
                    "' (see 'xpose --help' for the list of routes)");
}

device_selection parse_device_selection(std::string_view text) {
  if (text == "all") return device_selection::all_present;
  if (text == "cpu") return device_selection::cpu;
  if (text == "cuda") return device_selection::cuda;
  throw usage_error("--device must be cpu, cuda or all, got '" + std::string(text) + "'");
}

int parse_threads(std::string_view text) {
  return static_cast<int>(parse_integer(text, "--threads", 0, 4096));
}

bench_options parse_bench(argument_cursor& args) {
  bench_options options;
  while (!args.done()) {
    const std::string_view arg = args.take();
    if (arg == "--json") {
      options.json = true;
    } else if (arg == "--json-file") {
      options.json_file = std::string(args.value_of(arg));
    } else if (arg == "--device") {
      options.devices = parse_device_selection(args.value_of(arg));
    } else if (arg == "--shape") {
      options.shapes.push_back(parse_shape(args.value_of(arg)));
    } else if (arg == "--elem") {
      options.elem_size = parse_elem_size(args.value_of(arg));
    } else if (arg == "--route") {
      options.route = parse_route(args.value_of(arg));
    } else if (arg == "--inplace") {
      options.in_place = true;
    } else if (arg == "--copy") {
      options.in_place = false;
    } else if (arg == "--reps") {
      options.reps = static_cast<int>(parse_integer(args.value_of(arg), "--reps", 1, 1000));
    } else if (arg == "--threads") {
      options.threads = parse_threads(args.value_of(arg));
    } else if (arg == "--quick") {
      options.quick = true;
    } else {
      throw usage_error("unknown option '" + std::string(arg) + "' for 'xpose bench'");
    }
  }
  return options;
}

plan_command_options parse_plan(argument_cursor& args) {
  plan_command_options options;
  bool have_shape = false;
  while (!args.done()) {
    const std::string_view arg = args.take();
    if (arg == "--elem") {
      options.elem_size = parse_elem_size(args.value_of(arg));
    } else if (arg == "--inplace") {
      options.in_place = true;
    } else if (arg == "--copy") {
      options.in_place = false;
    } else if (arg == "--device") {
      const device_selection d = parse_device_selection(args.value_of(arg));
      if (d == device_selection::all_present)
        throw usage_error("'xpose plan' needs one device: --device cpu or --device cuda");
      options.target = d == device_selection::cuda ? xpose::device::cuda : xpose::device::cpu;
    } else if (arg == "--route") {
      options.route = parse_route(args.value_of(arg));
    } else if (arg == "--threads") {
      options.threads = parse_threads(args.value_of(arg));
    } else if (!arg.empty() && arg[0] != '-' && !have_shape) {
      options.shape = parse_shape(arg);
      have_shape = true;
    } else {
      throw usage_error("unknown argument '" + std::string(arg) + "' for 'xpose plan'");
    }
  }
  if (!have_shape) throw usage_error("'xpose plan' needs a shape, e.g. 'xpose plan 7200x1800'");
  return options;
}

}  // namespace

command_line parse_command_line(int argc, const char* const* argv) {
  argument_cursor args(argc, argv);
  command_line parsed;
  if (args.done()) return parsed;  // bare `xpose` runs the default benchmark
  const std::string_view first = args.take();
  if (first == "--help" || first == "-h" || first == "help") {
    parsed.what = command_line::command::help;
  } else if (first == "--version") {
    parsed.what = command_line::command::version;
  } else if (first == "bench") {
    parsed.bench = parse_bench(args);
  } else if (first == "plan") {
    parsed.what = command_line::command::plan;
    parsed.plan = parse_plan(args);
  } else {
    throw usage_error("unknown command '" + std::string(first) +
                      "' (commands: bench, plan; options: --help, --version)");
  }
  return parsed;
}

std::string usage_text() {
  std::string routes = "routes:";
  std::size_t line_length = routes.size();
  for (int r = static_cast<int>(xpose::route::automatic);
       r <= static_cast<int>(xpose::route::copy_tuned); ++r) {
    const std::string name(xpose::to_string(static_cast<xpose::route>(r)));
    if (line_length + 1 + name.size() > 90) {
      routes += "\n       ";
      line_length = 7;
    }
    routes += " " + name;
    line_length += 1 + name.size();
  }
  return "usage: xpose [bench] [options]      time transpositions, check them, compare\n"
         "       xpose plan RxC [options]     print the plan for one shape\n"
         "       xpose --version | --help\n"
         "\n"
         "bench options (no --shape: the default set of cases):\n"
         "  --device cpu|cuda|all  devices to measure (default: all present)\n"
         "  --shape RxC            a custom case (repeatable); uses --elem, --route, --inplace\n"
         "  --elem BYTES           element size of custom cases (default 4)\n"
         "  --route NAME           route of custom cases (default automatic)\n"
         "  --inplace | --copy     custom cases in place (default) or out of place\n"
         "  --reps N               timed runs per case, median reported (default 7)\n"
         "  --threads N            CPU threads (default: OpenMP default)\n"
         "  --quick                small shapes, caches not evicted (seconds; for tests)\n"
         "  --json                 machine-readable rows on stdout instead of the table\n"
         "  --json-file PATH       also write the JSON rows to PATH\n"
         "\n"
         "plan options: --elem BYTES, --inplace | --copy, --device cpu|cuda, --route NAME,\n"
         "              --threads N\n"
         "\n" +
         routes +
         "\n"
         "\n"
         "GB/s counts 2 x matrix bytes / median time; 'xcopy' is that over a memcpy (CPU) or a\n"
         "device-to-device cudaMemcpyAsync (GPU) of the same bytes measured in the same run.\n"
         "The exit status is non-zero if any result is wrong or any case fails.\n";
}

}  // namespace xpose_cli
