// The file functions of the module (files.cpp).
#pragma once

#include <nanobind/nanobind.h>

namespace xpose_python {

/// Adds transpose_file and recover_file to the module.
void bind_files(nanobind::module_& m);

}  // namespace xpose_python
