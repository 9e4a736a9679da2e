// xpose transpose: a matrix in a .npy or raw file transposed in place or into a new file
// (include/xpose/file.hpp), with a progress bar on stderr.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "plan/bytes_text.hpp"
#include "transpose_options.hpp"
#include "xpose/file.hpp"

namespace xpose_cli {

namespace {

using xpose::detail::bytes_text;

using clock_type = std::chrono::steady_clock;

/// One line on stderr, redrawn at most ten times a second: a bar, the percentage, bytes done,
/// the rate and the time left.
class progress_bar {
 public:
  explicit progress_bar(std::string label) : label_(std::move(label)), start_(clock_type::now()) {}

  void update(std::uint64_t done, std::uint64_t total) {
    const auto now = clock_type::now();
    if (done < total && drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / total;
    constexpr int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(width - filled), '.');
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    char eta[32] = "";
    if (rate > 0 && done < total)
      std::snprintf(eta, sizeof eta, ", %.0f s left", static_cast<double>(total - done) / rate);
    std::fprintf(stderr, "\r%s [%s] %5.1f%%  %s / %s  %s/s%s   ", label_.c_str(), bar.c_str(),
                 100 * fraction, bytes_text(static_cast<double>(done)).c_str(),
                 bytes_text(static_cast<double>(total)).c_str(), bytes_text(rate).c_str(), eta);
    std::fflush(stderr);
  }

  void finish() {
    if (drawn_) std::fprintf(stderr, "\n");
  }

 private:
  std::string label_;
  clock_type::time_point start_, last_;
  bool drawn_ = false;
};

std::string matrix_text(const xpose::file_matrix& m) {
  std::string text = std::to_string(m.rows) + " x " + std::to_string(m.cols);
  if (m.format == xpose::file_format::npy) {
    text += " " + m.dtype;
    if (m.fortran_order) text += " (Fortran order)";
  } else {
    text += " of " + std::to_string(m.elem_size) + "-byte elements";
  }
  return text;
}

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

}  // namespace

int run_transpose_command(const transpose_command_options& options) {
  xpose::file_options file;
  file.format = options.format == "npy"   ? xpose::file_format::npy
                : options.format == "raw" ? xpose::file_format::raw
                                          : xpose::file_format::automatic;
  file.rows = options.rows;
  file.cols = options.cols;
  file.elem_size = options.elem_size;
  file.journal = options.journal;
  file.memory_budget = options.memory;
  file.flip_order_only = options.flip_order;
  file.plan.threads = options.threads;
  file.plan.host_via_gpu = options.gpu == "always"  ? xpose::host_gpu_policy::always
                           : options.gpu == "never" ? xpose::host_gpu_policy::never
                                                    : xpose::host_gpu_policy::automatic;
  const bool show = !options.no_progress && (options.progress || ::isatty(STDERR_FILENO) == 1);
  progress_bar bar("xpose: " + options.input);
  if (show)
    file.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); };

  if (!options.in_place && !options.force && exists(options.output)) {
    std::fprintf(stderr, "xpose: %s exists (--force replaces it)\n", options.output.c_str());
    return 1;
  }
  const auto start = clock_type::now();
  const xpose::file_report report =
      options.in_place ? xpose::transpose_file_inplace(options.input, file)
                       : xpose::transpose_file(options.input, options.output, file);
  bar.finish();
  const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  const double bytes = static_cast<double>(report.before.rows) * report.before.cols *
                       static_cast<double>(report.before.elem_size);
  if (report.resumed) {
    std::printf(
        "%s: completed an interrupted in-place transposition (from its journal); it now "
        "holds %s\n",
        options.input.c_str(), matrix_text(report.after).c_str());
  } else {
    std::printf("%s: %s -> %s%s, %s, %.3g s", options.input.c_str(),
                matrix_text(report.before).c_str(), matrix_text(report.after).c_str(),
                options.in_place ? " in place" : (" in " + options.output).c_str(),
                report.method.c_str(), seconds);
    if (report.method != "metadata" && report.method != "identity" && seconds > 0)
      std::printf(", %s/s", bytes_text(2 * bytes / seconds).c_str());
    std::printf("\n");
  }
  if (options.verbose) {
    std::printf("memory budget: %s\n",
                bytes_text(static_cast<double>(report.memory_budget)).c_str());
    if (!report.details.empty()) std::printf("%s", report.details.c_str());
    if (!report.details.empty() && report.details.back() != '\n') std::printf("\n");
  }
  return 0;
}

}  // namespace xpose_cli
