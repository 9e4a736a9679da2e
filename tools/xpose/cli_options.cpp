#include "cli_options.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <limits>
#include <optional>
#include <string_view>

namespace xpose_cli {

namespace {

std::optional<std::int64_t> parse_integer(std::string_view text, std::int64_t min_value,
                                          std::int64_t max_value) {
  std::int64_t value = 0;
  const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (failure != std::errc{} || end != text.data() + text.size() || value < min_value ||
      value > max_value)
    return std::nullopt;
  return value;
}

std::string range_error(std::string_view text, std::int64_t min_value, std::int64_t max_value) {
  return "must be an integer in [" + std::to_string(min_value) + ", " + std::to_string(max_value) +
         "], got '" + std::string(text) + "'";
}

/// The argument must be a decimal integer in [min_value, max_value]; CLI11 puts the option's
/// name before the message.
CLI::Validator integer_in(std::int64_t min_value, std::int64_t max_value) {
  return CLI::Validator(
      [=](std::string& text) {
        return parse_integer(text, min_value, max_value) ? std::string()
                                                         : range_error(text, min_value, max_value);
      },
      "");
}

constexpr std::int64_t max_dimension = std::numeric_limits<std::int64_t>::max() / 2;

/// "" and the shape in `shape`, or what is wrong with `text`.
std::string read_shape(std::string_view text, matrix_shape& shape) {
  const auto x = text.find_first_of("xX");
  if (x == std::string_view::npos)
    return "a shape is ROWSxCOLS (e.g. 7200x1800), got '" + std::string(text) + "'";
  const auto rows = parse_integer(text.substr(0, x), 1, max_dimension);
  if (!rows) return "shape rows " + range_error(text.substr(0, x), 1, max_dimension);
  const auto cols = parse_integer(text.substr(x + 1), 1, max_dimension);
  if (!cols) return "shape cols " + range_error(text.substr(x + 1), 1, max_dimension);
  shape = {*rows, *cols};
  return "";
}

matrix_shape to_shape(std::string_view text) {
  matrix_shape shape;
  if (const std::string error = read_shape(text, shape); !error.empty()) throw usage_error(error);
  return shape;
}

const CLI::Validator shape_validator(
    [](std::string& text) {
      matrix_shape shape;
      return read_shape(text, shape);
    },
    "");

const CLI::Validator route_validator(
    [](std::string& text) {
      return xpose::route_from_string(text)
                 ? std::string()
                 : "unknown route '" + text + "' (see 'xpose --help' for the list of routes)";
    },
    "");

const CLI::Validator layout_validator(
    [](std::string& text) {
      xpose::layout l;
      return read_layout(text, l);
    },
    "");

const CLI::Validator variant_validator(
    [](std::string& text) {
      return xpose::layout_variant_from_string(text)
                 ? std::string()
                 : "unknown layout variant '" + text +
                       "' (automatic, barrier_sync, pttwac, chains, through_scratch, pipt)";
    },
    "");

xpose::route to_route(std::string_view text) {
  if (const auto r = xpose::route_from_string(text)) return *r;
  throw usage_error("unknown route '" + std::string(text) + "'");
}

device_selection to_device_selection(std::string_view text) {
  if (text == "cpu") return device_selection::cpu;
  if (text == "cuda") return device_selection::cuda;
  return device_selection::all_present;
}

/// The routes, wrapped at 90 columns, for the help's footer.
std::string route_list() {
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
  return routes;
}

/// CLI11's formatter with a lower-case usage line; the top-level usage lists the three forms of
/// the command line (bench is the command that runs when none is given), and flags that set
/// one value show their names without CLI11's {value} suffixes ("--inplace,--copy").
class help_formatter : public CLI::Formatter {
 public:
  help_formatter() {
    label("Usage", "usage");
    label("OPTIONS", "options");
    label("SUBCOMMAND", "command");
    column_width(26);
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    if (app->get_parent() != nullptr) return CLI::Formatter::make_usage(app, std::move(name));
    return "usage: xpose [bench] [options]      time transpositions, check them, compare\n"
           "       xpose plan RxC [options]     print the plan for one shape, or with --from\n"
           "                                    and --to the layout conversion of R structures\n"
           "                                    of C fields\n"
           "       xpose transpose FILE (OUT | --in-place) [options]\n"
           "                                    transpose a matrix in a .npy or raw file\n"
           "       xpose --version | --help\n";
  }
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    for (auto open = name.find('{'); open != std::string::npos; open = name.find('{'))
      name.erase(open, name.find('}', open) + 1 - open);
    return name;
  }
};

struct parse_targets {
  // bench
  std::vector<std::string> shapes;
  std::string bench_device = "all";
  std::string bench_route = "automatic";
  std::string bench_from, bench_to, bench_variant = "automatic";
  // plan
  std::string plan_shape;
  std::string plan_device = "cpu";
  std::string plan_route = "automatic";
  std::string plan_from, plan_to, plan_variant = "automatic";
};

/// --from, --to and --variant of a layout conversion (bench's custom cases, plan).
void add_layout_options(CLI::App& app, std::string& from, std::string& to, std::string& variant) {
  app.add_option("--from", from,
                 "a layout conversion of RxC = structures x fields of --elem bytes, from LAYOUT")
      ->option_text("aos|soa|asta:T")
      ->check(layout_validator);
  app.add_option("--to", to, "the conversion's target layout (with --from)")
      ->option_text("aos|soa|asta:T")
      ->check(layout_validator);
  app.add_option("--variant", variant,
                 "the conversion's GPU kernels: automatic (default), barrier_sync, pttwac, chains, "
                 "through_scratch, pipt")
      ->option_text("NAME")
      ->check(variant_validator);
}

/// Sets `layout`, `from`, `to`, `variant` from the parsed texts; throws usage_error when only one
/// of --from and --to is given, or --variant without them.
void finish_layout_options(const char* command, const std::string& from_text,
                           const std::string& to_text, const std::string& variant_text,
                           bool& layout, xpose::layout& from, xpose::layout& to,
                           xpose::layout_variant& variant) {
  if (from_text.empty() != to_text.empty())
    throw usage_error(std::string(command) + ": a layout conversion needs both --from and --to");
  variant = *xpose::layout_variant_from_string(variant_text);
  if (from_text.empty()) {
    if (variant != xpose::layout_variant::automatic)
      throw usage_error(std::string(command) + ": --variant applies to --from/--to conversions");
    return;
  }
  layout = true;
  read_layout(from_text, from);
  read_layout(to_text, to);
}

void add_bench_options(CLI::App& bench, bench_options& options, parse_targets& targets) {
  bench.add_option("--device", targets.bench_device, "devices to measure (default: all present)")
      ->option_text("cpu|cuda|all")
      ->check(CLI::Validator(
          [](std::string& text) {
            return text == "cpu" || text == "cuda" || text == "all"
                       ? std::string()
                       : "must be cpu, cuda or all, got '" + text + "'";
          },
          ""));
  bench
      .add_option("--shape", targets.shapes,
                  "a custom case (repeatable); no --shape: the default set")
      ->option_text("RxC")
      ->check(shape_validator);
  bench.add_option("--batch", options.batch, "matrices per custom case, dense (default 1)")
      ->option_text("N")
      ->check(integer_in(1, max_dimension));
  bench.add_option("--elem", options.elem_size, "element size of custom cases (default 4)")
      ->option_text("BYTES")
      ->check(integer_in(1, static_cast<std::int64_t>(xpose::max_elem_size)));
  bench.add_option("--route", targets.bench_route, "route of custom cases (default automatic)")
      ->option_text("NAME")
      ->check(route_validator);
  bench.add_flag("--inplace{true},--copy{false}", options.in_place,
                 "custom cases in place (default) or out of place");
  bench.add_option("--reps", options.reps, "timed runs per case, median reported (default 7)")
      ->option_text("N")
      ->check(integer_in(1, 1000));
  bench.add_option("--threads", options.threads, "CPU threads (default: OpenMP default)")
      ->option_text("N")
      ->check(integer_in(0, 4096));
  bench
      .add_option("--group", options.group,
                  "run only the default cases whose group contains TEXT (e.g. 'in-place'); "
                  "'cuda layout 100x rows' runs only when named so")
      ->option_text("TEXT");
  add_layout_options(bench, targets.bench_from, targets.bench_to, targets.bench_variant);
  bench.add_flag("--quick", options.quick, "small shapes, caches not evicted (seconds; for tests)");
  bench.add_flag("--json", options.json, "machine-readable rows on stdout instead of the table");
  bench.add_option("--json-file", options.json_file, "also write the JSON rows to PATH")
      ->option_text("PATH");
}

void add_plan_options(CLI::App& plan, plan_command_options& options, parse_targets& targets) {
  plan.add_option("shape", targets.plan_shape, "the matrix, ROWSxCOLS (e.g. 7200x1800)")
      ->option_text("RxC")
      ->check(shape_validator);
  plan.add_option("--elem", options.elem_size, "element size (default 4)")
      ->option_text("BYTES")
      ->check(integer_in(1, static_cast<std::int64_t>(xpose::max_elem_size)));
  plan.add_flag("--inplace{true},--copy{false}", options.in_place,
                "in place (default) or out of place");
  plan.add_option("--device", targets.plan_device, "where the data lives (default cpu)")
      ->option_text("cpu|cuda")
      ->check(CLI::Validator(
          [](std::string& text) {
            if (text == "cpu" || text == "cuda") return std::string();
            if (text == "all") return std::string("'xpose plan' needs one device: cpu or cuda");
            return "must be cpu or cuda, got '" + text + "'";
          },
          ""));
  plan.add_option("--route", targets.plan_route, "the route (default automatic)")
      ->option_text("NAME")
      ->check(route_validator);
  plan.add_option("--threads", options.threads, "CPU threads (default: OpenMP default)")
      ->option_text("N")
      ->check(integer_in(0, 4096));
  plan.add_flag("--measure", options.measure,
                "in place: time the routes that apply on a matrix of random bytes on the device "
                "and keep the fastest (recorded as wisdom)");
  plan.add_option("--wisdom", options.wisdom_file,
                  "wisdom file: read before planning when it exists, written after")
      ->option_text("PATH");
  add_layout_options(plan, targets.plan_from, targets.plan_to, targets.plan_variant);
}

}  // namespace

std::string read_layout(std::string_view text, xpose::layout& l) {
  if (text == "aos") {
    l = xpose::layout::aos();
    return "";
  }
  if (text == "soa") {
    l = xpose::layout::soa();
    return "";
  }
  std::string_view tile;
  if (text.substr(0, 5) == "asta:") tile = text.substr(5);
  if (text.substr(0, 5) == "asta(" && text.size() > 6 && text.back() == ')')
    tile = text.substr(5, text.size() - 6);
  const auto t = parse_integer(tile, 1, max_dimension);
  if (!t) return "a layout is aos, soa or asta:T with T >= 1, got '" + std::string(text) + "'";
  l = xpose::layout::asta(*t);
  return "";
}

command_line parse_command_line(int argc, const char* const* argv) {
  command_line parsed;
  parse_targets targets;

  CLI::App app("xpose: matrix transpositions on the CPU and CUDA GPUs.", "xpose");
  app.formatter(std::make_shared<help_formatter>());
  app.set_version_flag("--version", std::string("xpose"), "print the version and exit");
  app.set_help_flag("-h,--help", "print this help and exit");
  app.require_subcommand(0, 1);
  const std::string routes = route_list();

  CLI::App* const bench =
      app.add_subcommand("bench", "time transpositions, check them, compare (the default)");
  bench->set_help_flag("-h,--help", "print this help and exit");
  bench->footer(
      "Custom cases (--shape) take --batch, --elem, --route and --inplace or --copy (the last\n"
      "one given counts); a batch of B matrices of R x C shows as BxRxC. With --from and --to\n"
      "they are in-place layout conversions of R structures of C fields (--elem bytes each).\n"
      "GB/s counts 2 x matrix bytes / median time; 'xcopy' is that over a memcpy (CPU) or a\n"
      "device-to-device cudaMemcpyAsync (GPU) of the same bytes measured in the same run.\n"
      "The exit status is non-zero if any result is wrong or any case fails.\n\n" +
      routes);
  add_bench_options(*bench, parsed.bench, targets);

  CLI::App* const plan = app.add_subcommand("plan", "print the plan for one shape");
  plan->set_help_flag("-h,--help", "print this help and exit");
  plan->footer(routes);
  add_plan_options(*plan, parsed.plan, targets);

  transpose_parse_targets transpose_targets;
  CLI::App* const transpose =
      app.add_subcommand("transpose", "transpose a matrix in a .npy or raw file");
  transpose->set_help_flag("-h,--help", "print this help and exit");
  transpose->footer("docs/files.md: the routes, the journal, memory and the limits.");
  add_transpose_options(*transpose, parsed.transpose, transpose_targets);

  app.footer(
      "Bare 'xpose' runs 'xpose bench'. 'xpose COMMAND --help' shows one command's options.\n\n"
      "GB/s counts 2 x matrix bytes / median time; 'xcopy' is that over a memcpy (CPU) or a\n"
      "device-to-device cudaMemcpyAsync (GPU) of the same bytes measured in the same run.\n"
      "The exit status is non-zero if any result is wrong or any case fails.\n\n" +
      routes);

  // `xpose help` is `xpose --help`.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);  // CLI11 pops from the back
  if (!args.empty() && args.back() == "help") args.back() = "--help";
  const std::string first = args.empty() ? std::string() : args.back();

  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    parsed.what = command_line::command::help;
    // The top-level help expands the commands' options; a command's help shows its own.
    parsed.help_text =
        app.get_subcommands().empty() ? app.help("", CLI::AppFormatMode::All) : app.help();
    return parsed;
  } catch (const CLI::CallForVersion&) {
    parsed.what = command_line::command::version;
    return parsed;
  } catch (const CLI::ExtrasError& e) {
    // A word where the command belongs: name the commands.
    const auto commands = app.get_subcommands();
    if (commands.empty() && !first.empty() && first[0] != '-')
      throw usage_error("unknown command '" + first +
                        "' (commands: bench, plan, transpose; options: --help, --version)");
    throw usage_error((commands.empty() ? "" : commands[0]->get_name() + ": ") + e.what());
  } catch (const CLI::ParseError& e) {
    throw usage_error(e.what());
  }

  if (transpose->parsed()) {
    parsed.what = command_line::command::transpose;
    finish_transpose_options(parsed.transpose, transpose_targets);
    return parsed;
  }
  if (plan->parsed()) {
    parsed.what = command_line::command::plan;
    if (targets.plan_shape.empty())
      throw usage_error("'xpose plan' needs a shape, e.g. 'xpose plan 7200x1800'");
    parsed.plan.shape = to_shape(targets.plan_shape);
    parsed.plan.target = targets.plan_device == "cuda" ? xpose::device::cuda : xpose::device::cpu;
    parsed.plan.route = to_route(targets.plan_route);
    finish_layout_options("plan", targets.plan_from, targets.plan_to, targets.plan_variant,
                          parsed.plan.layout, parsed.plan.from, parsed.plan.to,
                          parsed.plan.variant);
    return parsed;
  }
  parsed.what = command_line::command::bench;
  parsed.bench.devices = to_device_selection(targets.bench_device);
  parsed.bench.route = to_route(targets.bench_route);
  for (const std::string& text : targets.shapes) parsed.bench.shapes.push_back(to_shape(text));
  finish_layout_options("bench", targets.bench_from, targets.bench_to, targets.bench_variant,
                        parsed.bench.layout, parsed.bench.from, parsed.bench.to,
                        parsed.bench.variant);
  if (parsed.bench.layout && parsed.bench.shapes.empty())
    throw usage_error("bench: --from/--to apply to custom cases: give --shape STRUCTSxFIELDS");
  return parsed;
}

}  // namespace xpose_cli
