#include <cstdio>
#include <string>

#include "commands.hpp"

namespace xpose_cli {

int run_plan_command(const plan_command_options& options) {
  xpose::matrix_desc desc;
  desc.rows = options.shape.rows;
  desc.cols = options.shape.cols;
  desc.elem_size = options.elem_size;
  const xpose::plan_options plan_options{options.target, options.route, options.threads, nullptr};
  const xpose::plan plan = options.in_place ? xpose::plan_inplace(desc, plan_options)
                                            : xpose::plan_copy(desc, 0, 0, plan_options);
  const std::string description = plan.describe();
  std::printf("%s%s", description.c_str(),
              !description.empty() && description.back() == '\n' ? "" : "\n");
  return 0;
}

}  // namespace xpose_cli
