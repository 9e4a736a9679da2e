// What the tuning knows of the current device's memory: whether it is the H100 80GB's, whose
// stride resonance (tile_regions.cu) and large tiles (copy_transpose_policy.hpp) were measured,
// or the H200's (6016-bit interface), which ran the large tiles behind the standard ones and
// showed no resonance at the periods tried (twenty-fourth session, docs/performance.md) and has
// whole tiles of its own (thirty-first session).
#include <array>
#include <atomic>

#include "cuda/copy_transpose_launch.hpp"

namespace xpose::detail::cuda {

namespace {

/// The memory interface width of the current device in bits (0 when unknown), looked up once
/// per device.
int memory_bus_bits() {
  constexpr int most_devices = 64;
  static std::array<std::atomic<int>, most_devices> bits{};  // 0: not looked up; -1: unknown
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // take back the error this query left pending
    return 0;
  }
  if (device < 0 || device >= most_devices) return 0;
  int known = bits[device].load(std::memory_order_relaxed);
  if (known == 0) {
    int width = 0;
    if (cudaDeviceGetAttribute(&width, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
      static_cast<void>(cudaGetLastError());
    known = width > 0 ? width : -1;
    bits[device].store(known, std::memory_order_relaxed);
  }
  return known > 0 ? known : 0;
}

/// The H100 80GB's memory interface: five stacks of 1024 bits.
constexpr int h100_memory_bus_bits = 5120;
/// The H200's, as its runtime reports it (docs/performance.md, twenty-fourth session).
constexpr int h200_memory_bus_bits = 6016;

}  // namespace

device_memory current_device_memory() {
  switch (memory_bus_bits()) {
    case h100_memory_bus_bits:
      return device_memory::h100;
    case h200_memory_bus_bits:
      return device_memory::h200;
    default:
      return device_memory::other;
  }
}

bool h100_memory_interface() {
  return current_device_memory() == device_memory::h100;
}

}  // namespace xpose::detail::cuda
