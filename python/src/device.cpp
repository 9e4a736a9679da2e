// CUDA runtime calls of the extension, and their refusals in a build without CUDA.
#include "device.hpp"

#include <cstdlib>
#include <string>

#include "xpose/error.hpp"
#ifdef XPOSE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace xpose_python {

namespace {

constexpr std::size_t host_alignment = 64;

#ifdef XPOSE_HAVE_CUDA
void check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  cudaGetLastError();  // clear the error so later calls do not report it
  throw xpose::error(result == cudaErrorMemoryAllocation ? xpose::status::out_of_memory
                                                         : xpose::status::device_error,
                     std::string(what) + ": " + cudaGetErrorString(result));
}
#else
[[noreturn]] void no_cuda() {
  throw xpose::error(xpose::status::unsupported,
                     "a CUDA device array was given but this xpose was built without CUDA (no "
                     "nvcc was found when it was built)");
}
#endif

}  // namespace

bool built_with_cuda() noexcept {
#ifdef XPOSE_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

device_guard::device_guard(int device) {
  if (device == host_device) return;
#ifdef XPOSE_HAVE_CUDA
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) {
    check(cudaSetDevice(device), ("cudaSetDevice(" + std::to_string(device) + ")").c_str());
    previous_ = current;
  }
#else
  no_cuda();
#endif
}

device_guard::~device_guard() {
#ifdef XPOSE_HAVE_CUDA
  if (previous_ != host_device) cudaSetDevice(previous_);
#endif
}

int device_count() noexcept {
#ifdef XPOSE_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

int current_device() {
#ifdef XPOSE_HAVE_CUDA
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
#else
  return 0;
#endif
}

int pointer_device(std::uintptr_t address) {
#ifdef XPOSE_HAVE_CUDA
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(address)),
        "cudaPointerGetAttributes");
  if (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged)
    return attributes.device;
  return host_device;
#else
  (void)address;
  return host_device;
#endif
}

void synchronize(int device, std::uintptr_t stream) {
  if (device == host_device) return;
#ifdef XPOSE_HAVE_CUDA
  const device_guard on(device);
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
#else
  (void)stream;
  no_cuda();
#endif
}

void* allocate(std::size_t bytes, int device) {
  if (bytes == 0) bytes = 1;
  if (device == host_device) {
    const std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
    void* memory = std::aligned_alloc(host_alignment, rounded);
    if (memory == nullptr)
      throw xpose::error(xpose::status::out_of_memory,
                         "cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    return memory;
  }
#ifdef XPOSE_HAVE_CUDA
  const device_guard on(device);
  void* memory = nullptr;
  check(cudaMalloc(&memory, bytes), ("cannot allocate " + std::to_string(bytes) +
                                     " bytes on CUDA device " + std::to_string(device))
                                        .c_str());
  return memory;
#else
  no_cuda();
#endif
}

void release(void* memory, int device) noexcept {
  if (device == host_device) {
    std::free(memory);
    return;
  }
#ifdef XPOSE_HAVE_CUDA
  int current = 0;
  if (cudaGetDevice(&current) == cudaSuccess && current != device) cudaSetDevice(device);
  cudaFree(memory);
  if (current != device) cudaSetDevice(current);
#endif
}

}  // namespace xpose_python
