// xpose._xpose: the nanobind module under the Python package. It works on addresses and sizes;
// the package (python/xpose) reads them off NumPy, PyTorch, CuPy, JAX and
// __cuda_array_interface__ arrays and checks them first. Planning and execution release the GIL.
// An xpose::error becomes the exception of xpose._errors that its status names (InvalidArgument
// is a ValueError, Unsupported a NotImplementedError, OutOfMemory a MemoryError, the others
// RuntimeErrors), carrying the library's message.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "device.hpp"
#include "dist.hpp"
#include "files.hpp"
#include "plan_handle.hpp"
#include "xpose/error.hpp"
#include "xpose/version.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace xpose_python {

namespace {

const char* error_class_name(xpose::status code) {
  switch (code) {
    case xpose::status::invalid_argument:
      return "InvalidArgumentError";
    case xpose::status::unsupported:
      return "UnsupportedError";
    case xpose::status::out_of_memory:
      return "OutOfMemoryError";
    case xpose::status::device_error:
      return "DeviceError";
    default:
      return "InternalError";
  }
}

void translate_error(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const xpose::error& e) {
    PyObject* type = PyExc_RuntimeError;
    nb::object cls;
    try {
      cls = nb::module_::import_("xpose._errors").attr(error_class_name(e.code()));
      type = cls.ptr();
    } catch (const nb::python_error&) {
      // The package is not importable (the module alone was loaded): a plain RuntimeError.
    }
    PyErr_SetString(type, e.what());
  }
}

/// A DLPack element type as the Python package passes it: (code, bits, lanes).
nb::dlpack::dtype dlpack_dtype(const std::vector<int>& code_bits_lanes) {
  if (code_bits_lanes.size() != 3)
    throw xpose::error(xpose::status::invalid_argument, "a DLPack dtype is (code, bits, lanes)");
  return {static_cast<std::uint8_t>(code_bits_lanes[0]),
          static_cast<std::uint8_t>(code_bits_lanes[1]),
          static_cast<std::uint16_t>(code_bits_lanes[2])};
}

/// The buffer as an array of `Framework` of `shape` and `dtype`, owned by the buffer's Python
/// object (kept alive as long as the array).
template <typename Framework>
nb::object export_buffer(const owned_buffer& buffer, const std::vector<std::size_t>& shape,
                         const std::vector<int>& dtype) {
  const nb::dlpack::dtype type = dlpack_dtype(dtype);
  std::size_t bytes = static_cast<std::size_t>(type.bits) / 8 * type.lanes;
  for (std::size_t extent : shape) bytes *= extent;
  if (bytes > buffer.bytes())
    throw xpose::error(xpose::status::invalid_argument, "an array of " + std::to_string(bytes) +
                                                            " bytes does not fit a buffer of " +
                                                            std::to_string(buffer.bytes()));
  const bool host = buffer.device() == host_device;
  nb::ndarray<Framework> array(
      buffer.data(), shape.size(), shape.data(), nb::find(&buffer), nullptr, type,
      host ? nb::device::cpu::value : nb::device::cuda::value, host ? 0 : buffer.device());
  return array.cast();
}

}  // namespace

}  // namespace xpose_python

NB_MODULE(_xpose, m) {
  using namespace xpose_python;
  m.doc() = "The compiled core of the xpose package: plans and execution on raw addresses.";
  nb::register_exception_translator(translate_error);
  bind_files(m);
  bind_dist(m);

  m.attr("version") = std::to_string(xpose::version_major) + "." +
                      std::to_string(xpose::version_minor) + "." +
                      std::to_string(xpose::version_patch);
  m.def("built_with_cuda", &built_with_cuda, "Whether the CUDA backend is built in.");
  m.def("device_count", &device_count, "CUDA devices present (0 without CUDA or a GPU).");
  m.def("current_device", &current_device, "The current CUDA device (0 without CUDA).");
  m.def("routes", &route_names, "The names of the routes, 'automatic' first.");
  m.def("pointer_device", &pointer_device, "address"_a,
        "The CUDA device holding `address`, or -1 for host memory.");
  m.def("synchronize", &synchronize, "device"_a, "stream"_a,
        nb::call_guard<nb::gil_scoped_release>(),
        "Waits for the work queued on `stream` of CUDA device `device` (-1: returns at once).");

  nb::class_<plan_handle>(m, "Plan", "An xpose::plan on the CPU (device -1) or a CUDA device.")
      .def(
          "__init__",
          [](plan_handle* self, bool in_place, std::int64_t batch, std::int64_t rows,
             std::int64_t cols, std::size_t elem_size, int device, std::uintptr_t stream,
             int threads, const std::string& route) {
            nb::gil_scoped_release released;
            new (self)
                plan_handle(in_place, batch, rows, cols, elem_size, device, stream, threads, route);
          },
          "in_place"_a, "batch"_a, "rows"_a, "cols"_a, "elem_size"_a, "device"_a, "stream"_a,
          "threads"_a, "route"_a)
      .def("describe", &plan_handle::describe)
      .def_prop_ro("workspace_bytes", &plan_handle::workspace_bytes)
      .def_prop_ro("predicted_passes", &plan_handle::predicted_passes)
      .def_prop_ro("route", &plan_handle::route)
      .def_prop_ro("in_place", &plan_handle::in_place)
      .def_prop_ro("device", &plan_handle::device)
      .def_prop_ro("stream", &plan_handle::stream)
      .def("execute_inplace", &plan_handle::execute_inplace, "data"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("execute_copy", &plan_handle::execute_copy, "src"_a, "dst"_a,
           nb::call_guard<nb::gil_scoped_release>());

  nb::class_<owned_buffer>(m, "Buffer", "Host (device -1) or CUDA memory owned by the extension.")
      .def(nb::init<std::size_t, int>(), "nbytes"_a, "device"_a)
      .def_prop_ro("address", &owned_buffer::address)
      .def_prop_ro("nbytes", &owned_buffer::bytes)
      .def_prop_ro("device", &owned_buffer::device)
      .def("to_numpy", &export_buffer<nb::numpy>, "shape"_a, "dtype"_a,
           "The buffer as a NumPy array of `shape` and DLPack `dtype` (code, bits, lanes).")
      .def("to_jax", &export_buffer<nb::jax>, "shape"_a, "dtype"_a,
           "The buffer as a JAX array of `shape` and DLPack `dtype` (code, bits, lanes).");

  m.def(
      "dlpack_info",
      [](nb::ndarray<nb::ro> array) {
        std::vector<std::int64_t> shape, strides;
        for (std::size_t i = 0; i < array.ndim(); ++i) {
          shape.push_back(array.shape(i));
          strides.push_back(array.stride(i));
        }
        const nb::dlpack::dtype type = array.dtype();
        return nb::make_tuple(reinterpret_cast<std::uintptr_t>(array.data()),
                              nb::tuple(nb::cast(shape)), nb::tuple(nb::cast(strides)),
                              nb::make_tuple(type.code, type.bits, type.lanes), array.device_type(),
                              array.device_id());
      },
      "array"_a.noconvert(),
      "(address, shape, strides in elements, (code, bits, lanes), DLPack device type, device id) "
      "of an array read through DLPack.");
}
