// xpose::error and status codes shared by the C++ and the C API.
#pragma once

#include <stdexcept>
#include <string>

namespace xpose {

/// Status codes; the same values as xpose_status in xpose.h.
enum class status : int {
  success = 0,
  invalid_argument = 1,  ///< an argument is out of range (the message names it and its value)
  unsupported = 2,       ///< a valid request this build or backend cannot serve
  out_of_memory = 3,     ///< workspace allocation failed
  device_error = 4,      ///< a CUDA runtime or library call failed
  internal_error = 5,    ///< a bug in xpose
};

const char* to_string(status s) noexcept;

/// Thrown by every C++ entry point. Arguments are validated before any data is touched, so a
/// thrown error leaves the caller's data as it was.
class error : public std::runtime_error {
 public:
  error(status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  status code() const noexcept { return code_; }

 private:
  status code_;
};

}  // namespace xpose
