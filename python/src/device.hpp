// The CUDA side of the extension: which device holds a pointer, a guard that makes an array's
// device current while xpose plans and runs on it (plans query the current device and allocate
// their workspace there), stream synchronization, and memory for arrays the extension creates.
// Device -1 is the host: every function serves it without CUDA. In a build without CUDA, a
// request for a GPU throws xpose::error with status::unsupported before any data is touched.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpose_python {

/// The device id of host memory.
inline constexpr int host_device = -1;

/// Makes CUDA device `device` current for the guard's lifetime and restores the previous one
/// after; does nothing for host_device.
class device_guard {
 public:
  explicit device_guard(int device);
  ~device_guard();
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = host_device;
};

/// Whether this extension was built with the CUDA backend.
bool built_with_cuda() noexcept;

/// CUDA devices present (0 without CUDA, a driver or a GPU).
int device_count() noexcept;

/// The current CUDA device (0 without CUDA).
int current_device();

/// The CUDA device whose memory (device or managed) holds `address`; host_device for host
/// memory, pinned or pageable.
int pointer_device(std::uintptr_t address);

/// Waits until the work queued on `stream` (a cudaStream_t as an integer; 0 = the default
/// stream) of `device` is done.
void synchronize(int device, std::uintptr_t stream);

/// `bytes` (at least 1) of memory on `device`: 64-byte aligned on the host, cudaMalloc on a GPU.
/// Throws xpose::error (status::out_of_memory) when there is not enough.
void* allocate(std::size_t bytes, int device);
/// Frees what allocate(bytes, device) returned.
void release(void* memory, int device) noexcept;

}  // namespace xpose_python
