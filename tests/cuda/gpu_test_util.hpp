// Helpers of the GPU tests: skip without a device, device buffers, host reference.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "test_util.hpp"
#include "xpose/error.hpp"

namespace xpose::test {

inline bool have_cuda_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

#define XPOSE_REQUIRE_GPU()                                                   \
  do {                                                                        \
    if (!::xpose::test::have_cuda_device()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

/// The width of the current device's memory interface in bits: asked of the runtime here, apart
/// from the library's own current_device_class.
inline int memory_bus_bits() {
  int device = 0, bus_bits = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device),
            cudaSuccess);
  return bus_bits;
}

/// The current device's memory in bytes, asked of the runtime here.
inline std::size_t device_memory_bytes() {
  int device = 0;
  cudaDeviceProp properties{};
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaGetDeviceProperties(&properties, device), cudaSuccess);
  return properties.totalGlobalMem;
}

/// Whether the current device's memory interface is 5120 bits wide, as the H100 80GB's.
inline bool has_h100_memory_interface() {
  return memory_bus_bits() == 5120;
}

/// Expects `launch` to throw xpose::error with status::internal_error: a launcher refusing a shape
/// before it touches the device (so this holds without one too, not through a failed launch).
template <class Launch>
void expect_refused(Launch&& launch) {
  try {
    launch();
    ADD_FAILURE() << "expected the launcher to refuse the shape";
  } catch (const error& refused) {
    EXPECT_EQ(refused.code(), status::internal_error) << refused.what();
  }
}

constexpr unsigned char poison_byte = 0xA5;

/// A device buffer of `bytes` bytes, freed on scope exit.
class device_buffer {
 public:
  explicit device_buffer(std::size_t bytes) : bytes_(bytes) {
    EXPECT_EQ(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), cudaSuccess);
  }
  ~device_buffer() { cudaFree(ptr_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }
  void upload(const std::vector<unsigned char>& host, std::size_t offset = 0) const {
    ASSERT_EQ(cudaMemcpy(get() + offset, host.data(), host.size(), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  std::vector<unsigned char> download(std::size_t bytes, std::size_t offset = 0) const {
    std::vector<unsigned char> host(bytes);
    EXPECT_EQ(cudaMemcpy(host.data(), get() + offset, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  void poison() const { EXPECT_EQ(cudaMemset(ptr_, poison_byte, bytes_), cudaSuccess); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

/// Row-major batched reference: dst (cols x rows, ldb, dst_stride) = transpose of src.
inline void reference_batched(const unsigned char* src, unsigned char* dst, std::int64_t batch,
                              std::int64_t rows, std::int64_t cols, std::size_t e, std::int64_t lda,
                              std::int64_t ldb, std::int64_t src_stride, std::int64_t dst_stride) {
  for (std::int64_t b = 0; b < batch; ++b)
    reference_transpose(src + b * src_stride * e, dst + b * dst_stride * e, rows, cols, e, lda,
                        ldb);
}

/// Index of the first differing byte, or -1.
inline std::int64_t first_difference(const std::vector<unsigned char>& a,
                                     const std::vector<unsigned char>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<std::int64_t>(i);
  return -1;
}

}  // namespace xpose::test
