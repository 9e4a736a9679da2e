// The C API (xpose.h): every call catches, records the message per thread, returns a status.
#include "xpose/xpose.h"

#include <cstring>
#include <new>
#include <string>

#include "xpose/xpose.hpp"

struct xpose_plan_s {
  xpose::plan plan;
};

namespace {

thread_local std::string last_error_message;

template <typename Body>
xpose_status guarded(Body&& body) {
  try {
    last_error_message.clear();
    body();
    return XPOSE_SUCCESS;
  } catch (const xpose::error& e) {
    last_error_message = e.what();
    return static_cast<xpose_status>(e.code());
  } catch (const std::bad_alloc&) {
    last_error_message = "out of memory";
    return XPOSE_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error_message = e.what();
    return XPOSE_INTERNAL_ERROR;
  }
}

void require(const void* p, const char* name) {
  if (p == nullptr)
    throw xpose::error(xpose::status::invalid_argument, std::string(name) + " is null");
}

xpose::plan_options options_for(xpose_device device) {
  if (device != XPOSE_DEVICE_CPU && device != XPOSE_DEVICE_CUDA)
    throw xpose::error(xpose::status::invalid_argument,
                       "device must be XPOSE_DEVICE_CPU or XPOSE_DEVICE_CUDA, got " +
                           std::to_string(static_cast<int>(device)));
  xpose::plan_options options;
  options.target = device == XPOSE_DEVICE_CPU ? xpose::device::cpu : xpose::device::cuda;
  return options;
}

xpose::matrix_desc desc_for(int64_t rows, int64_t cols, size_t elem_size, int64_t batch) {
  xpose::matrix_desc desc;
  desc.rows = rows;
  desc.cols = cols;
  desc.elem_size = elem_size;
  desc.batch = batch;
  return desc;
}

}  // namespace

extern "C" {

const char* xpose_last_error(void) {
  return last_error_message.c_str();
}

const char* xpose_status_string(xpose_status status) {
  return xpose::to_string(static_cast<xpose::status>(status));
}

xpose_status xpose_transpose_inplace(void* data, int64_t rows, int64_t cols, size_t elem_size) {
  return guarded([&] { xpose::transpose_inplace(data, rows, cols, elem_size); });
}

xpose_status xpose_transpose(const void* src, void* dst, int64_t rows, int64_t cols,
                             size_t elem_size) {
  return guarded([&] { xpose::transpose(src, dst, rows, cols, elem_size); });
}

xpose_status xpose_plan_inplace(xpose_plan* plan, int64_t rows, int64_t cols, size_t elem_size,
                                int64_t batch, xpose_device device) {
  return guarded([&] {
    require(plan, "plan");
    *plan = new xpose_plan_s{
        xpose::plan_inplace(desc_for(rows, cols, elem_size, batch), options_for(device))};
  });
}

xpose_status xpose_plan_copy(xpose_plan* plan, int64_t rows, int64_t cols, size_t elem_size,
                             int64_t batch, xpose_device device) {
  return guarded([&] {
    require(plan, "plan");
    *plan = new xpose_plan_s{
        xpose::plan_copy(desc_for(rows, cols, elem_size, batch), 0, 0, options_for(device))};
  });
}

xpose_status xpose_plan_execute_inplace(xpose_plan plan, void* data) {
  return guarded([&] {
    require(plan, "plan");
    plan->plan.execute(data);
  });
}

xpose_status xpose_plan_execute_copy(xpose_plan plan, const void* src, void* dst) {
  return guarded([&] {
    require(plan, "plan");
    plan->plan.execute(src, dst);
  });
}

xpose_status xpose_plan_describe(xpose_plan plan, char* buffer, size_t size) {
  return guarded([&] {
    require(plan, "plan");
    require(buffer, "buffer");
    if (size == 0)
      throw xpose::error(xpose::status::invalid_argument, "size must be positive, got 0");
    const std::string text = plan->plan.describe();
    const size_t n = text.size() < size - 1 ? text.size() : size - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  });
}

xpose_status xpose_plan_workspace_bytes(xpose_plan plan, size_t* bytes) {
  return guarded([&] {
    require(plan, "plan");
    require(bytes, "bytes");
    *bytes = plan->plan.workspace_bytes();
  });
}

xpose_status xpose_plan_destroy(xpose_plan plan) {
  return guarded([&] { delete plan; });
}

}  // extern "C"
