// Plans made and executed on the device of the arrays they serve.
#include "plan_handle.hpp"

#include "device.hpp"
#include "xpose/error.hpp"
#include "xpose/route.hpp"

namespace xpose_python {

namespace {

xpose::route parse_route(const std::string& name) {
  if (const std::optional<xpose::route> r = xpose::route_from_string(name)) return *r;
  std::string names;
  for (const std::string& known : route_names()) names += (names.empty() ? "" : ", ") + known;
  throw xpose::error(xpose::status::invalid_argument,
                     "route '" + name + "' is not a route of xpose; the routes are: " + names);
}

}  // namespace

std::vector<std::string> route_names() {
  // The enumerators run from 0 (automatic) without gaps; to_string names each one.
  std::vector<std::string> names;
  for (int r = 0;; ++r) {
    const std::string_view name = xpose::to_string(static_cast<xpose::route>(r));
    if (name == "unknown") return names;
    names.emplace_back(name);
  }
}

plan_handle::plan_handle(bool in_place, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                         std::size_t elem_size, int device, std::uintptr_t stream, int threads,
                         const std::string& route)
    : device_(device), stream_(stream) {
  xpose::matrix_desc desc;
  desc.rows = rows;
  desc.cols = cols;
  desc.elem_size = elem_size;
  desc.batch = batch;
  xpose::plan_options options;
  options.target = device == host_device ? xpose::device::cpu : xpose::device::cuda;
  options.forced_route = parse_route(route);
  options.threads = threads;
  options.stream = reinterpret_cast<void*>(stream);
  const device_guard on(device);
  plan_.emplace(in_place ? xpose::plan_inplace(desc, options)
                         : xpose::plan_copy(desc, 0, 0, options));
}

plan_handle::~plan_handle() {
  if (device_ == host_device || !plan_) return;
  try {
    const device_guard on(device_);
    plan_.reset();
  } catch (const xpose::error&) {
    plan_.reset();  // the device cannot be made current: free from the current one
  }
}

std::string plan_handle::route() const {
  return std::string(xpose::to_string(plan_->chosen_route()));
}

void plan_handle::execute_inplace(std::uintptr_t data) const {
  const device_guard on(device_);
  plan_->execute(reinterpret_cast<void*>(data));
}

void plan_handle::execute_copy(std::uintptr_t src, std::uintptr_t dst) const {
  const device_guard on(device_);
  plan_->execute(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst));
}

}  // namespace xpose_python
