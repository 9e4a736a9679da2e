// Matrices in files (include/xpose/file.hpp) for the package's transpose_file and recover_file:
// the arguments as plain values, the report as a dict. The GIL is released while the file is
// transposed.
#include "files.hpp"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "xpose/error.hpp"
#include "xpose/file.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace xpose_python {

namespace {

xpose::file_format format_named(const std::string& name) {
  if (name == "automatic") return xpose::file_format::automatic;
  if (name == "npy") return xpose::file_format::npy;
  if (name == "raw") return xpose::file_format::raw;
  throw xpose::error(xpose::status::invalid_argument,
                     "format must be 'automatic', 'npy' or 'raw', got '" + name + "'");
}

nb::dict matrix_dict(const xpose::file_matrix& m) {
  nb::dict d;
  d["format"] = m.format == xpose::file_format::npy ? "npy" : "raw";
  d["shape"] = nb::make_tuple(m.rows, m.cols);
  d["itemsize"] = m.elem_size;
  d["fortran_order"] = m.fortran_order;
  d["dtype"] = m.dtype;
  return d;
}

}  // namespace

void bind_files(nb::module_& m) {
  m.def(
      "transpose_file",
      [](const std::string& src, const std::string& dst, const std::string& format,
         std::int64_t rows, std::int64_t cols, std::size_t elem_size, bool journal,
         std::uint64_t memory_budget, bool flip_order_only, int threads) {
        xpose::file_options options;
        options.format = format_named(format);
        options.rows = rows;
        options.cols = cols;
        options.elem_size = elem_size;
        options.journal = journal;
        options.memory_budget = memory_budget;
        options.flip_order_only = flip_order_only;
        options.plan.threads = threads;
        xpose::file_report report;
        {
          nb::gil_scoped_release released;
          report = dst.empty() ? xpose::transpose_file_inplace(src, options)
                               : xpose::transpose_file(src, dst, options);
        }
        nb::dict d;
        d["before"] = matrix_dict(report.before);
        d["after"] = matrix_dict(report.after);
        d["method"] = report.method;
        d["details"] = report.details;
        d["resumed"] = report.resumed;
        d["memory_budget"] = report.memory_budget;
        return d;
      },
      "src"_a, "dst"_a, "format"_a, "rows"_a, "cols"_a, "elem_size"_a, "journal"_a,
      "memory_budget"_a, "flip_order_only"_a, "threads"_a,
      "Transposes the matrix in file `src` in place (dst empty) or into file `dst`; returns the "
      "report as a dict.");
  m.def(
      "recover_file",
      [](const std::string& path) {
        nb::gil_scoped_release released;
        return xpose::recover_file(path);
      },
      "path"_a,
      "Completes an interrupted in-place transposition of `path` from its journal; False when "
      "there is none.");
}

}  // namespace xpose_python
