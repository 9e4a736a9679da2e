// Memory the extension allocates for an array that a framework without a usable allocator of
// its own receives (JAX, whose arrays are immutable): filled first, then handed over through
// DLPack, with this buffer as the owner that frees it when the framework lets go.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpose_python {

class owned_buffer {
 public:
  /// `bytes` of memory on `device` (-1 = the host).
  owned_buffer(std::size_t bytes, int device);
  ~owned_buffer();
  owned_buffer(const owned_buffer&) = delete;
  owned_buffer& operator=(const owned_buffer&) = delete;

  std::uintptr_t address() const noexcept { return reinterpret_cast<std::uintptr_t>(memory_); }
  void* data() const noexcept { return memory_; }
  std::size_t bytes() const noexcept { return bytes_; }
  int device() const noexcept { return device_; }

 private:
  void* memory_;
  std::size_t bytes_;
  int device_;
};

}  // namespace xpose_python
