// xpose plan: prints a plan's description; --measure times the routes on a matrix of random
// bytes where the data would live; --wisdom reads and writes the wisdom file. With --from and
// --to, prints the route of an in-place layout conversion of R structures of C fields instead.
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "xpose/layout.hpp"

#ifdef XPOSE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace xpose_cli {

namespace {

std::vector<unsigned char> random_matrix(std::size_t bytes) {
  std::vector<unsigned char> data(bytes);
  std::mt19937_64 rng(1);
  for (auto& b : data) b = static_cast<unsigned char>(rng());
  return data;
}

xpose::plan measured_plan(const xpose::matrix_desc& desc, const xpose::plan_options& options) {
  const std::size_t bytes =
      static_cast<std::size_t>(desc.rows) * static_cast<std::size_t>(desc.cols) * desc.elem_size;
  std::vector<unsigned char> host = random_matrix(bytes);
  if (options.target == xpose::device::cpu) return xpose::plan_inplace(desc, host.data(), options);
#ifdef XPOSE_HAVE_CUDA
  void* device = nullptr;
  if (cudaMalloc(&device, bytes) != cudaSuccess)
    throw std::runtime_error("cannot allocate " + std::to_string(bytes) +
                             " bytes on the GPU for --measure");
  try {
    if (cudaMemcpy(device, host.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("cudaMemcpy to the GPU failed");
    xpose::plan p = xpose::plan_inplace(desc, device, options);
    cudaFree(device);
    return p;
  } catch (...) {
    cudaFree(device);
    throw;
  }
#else
  throw std::runtime_error("this xpose was built without CUDA");
#endif
}

}  // namespace

int run_plan_command(const plan_command_options& options) {
  if (options.layout) {
    if (options.measure || !options.wisdom_file.empty() || !options.in_place ||
        options.route != xpose::route::automatic)
      throw std::runtime_error(
          "--from/--to: a layout conversion takes --elem, --device, --threads and --variant only");
    xpose::plan_options plan_options;
    plan_options.target = options.target;
    plan_options.threads = options.threads;
    const xpose::layout_conversion conversion =
        xpose::plan_layout_conversion({options.shape.rows, options.shape.cols, options.elem_size},
                                      options.from, options.to, plan_options, options.variant);
    std::printf("%s", conversion.describe().c_str());
    return 0;
  }
  xpose::matrix_desc desc;
  desc.rows = options.shape.rows;
  desc.cols = options.shape.cols;
  desc.elem_size = options.elem_size;
  if (!options.wisdom_file.empty()) {
    std::ifstream in(options.wisdom_file);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      xpose::import_wisdom(text.str());
    }
  }
  xpose::plan_options plan_options;
  plan_options.target = options.target;
  plan_options.forced_route = options.route;
  plan_options.threads = options.threads;
  plan_options.tune = options.measure ? xpose::tuning::measure : xpose::tuning::estimate;
  if (options.measure && !options.in_place)
    throw std::runtime_error("--measure applies to in-place plans");
  const xpose::plan plan = !options.in_place ? xpose::plan_copy(desc, 0, 0, plan_options)
                           : options.measure ? measured_plan(desc, plan_options)
                                             : xpose::plan_inplace(desc, plan_options);
  const std::string description = plan.describe();
  std::printf("%s%s", description.c_str(),
              !description.empty() && description.back() == '\n' ? "" : "\n");
  if (!options.wisdom_file.empty()) {
    std::ofstream out(options.wisdom_file);
    out << xpose::export_wisdom();
    if (!out) throw std::runtime_error("cannot write the wisdom file " + options.wisdom_file);
  }
  return 0;
}

}  // namespace xpose_cli
