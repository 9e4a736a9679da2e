// What the tuning knows of the current device's memory: whether it is the H100 80GB's, whose
// stride resonance (dispatch/tile_regions.cu) and large tiles (tuning/copy_policies.hpp) were measured,
// or the H200's, which ran the large tiles behind the standard ones and showed no resonance at
// the periods tried (twenty-fourth session, docs/performance.md) and has whole tiles of its own
// (thirty-first session). Told apart by the memory interface's width and, for the H200, the
// memory's size: other parts with a 6016-bit interface (the H100 NVL's 94 GB, by some accounts)
// were not measured and take the untuned path.
#include <array>
#include <atomic>
#include <cstddef>

#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

/// The H100 80GB's memory interface: five stacks of 1024 bits.
constexpr int h100_memory_bus_bits = 5120;
/// The H200's, as its runtime reports it (docs/performance.md, twenty-fourth session), and the
/// least memory an H200 has (141 GB, reported as 140.4 GiB).
constexpr int h200_memory_bus_bits = 6016;
constexpr std::size_t h200_least_memory_bytes = std::size_t{128} << 30;

/// The memory of device `device` from its properties (other when they cannot be read).
device_memory memory_of(int device) {
  int bus_bits = 0;
  if (cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // take back the error this query left pending
    return device_memory::other;
  }
  if (bus_bits == h100_memory_bus_bits) return device_memory::h100;
  if (bus_bits != h200_memory_bus_bits) return device_memory::other;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return device_memory::other;
  }
  return properties.totalGlobalMem >= h200_least_memory_bytes ? device_memory::h200
                                                              : device_memory::other;
}

}  // namespace

device_memory current_device_memory() {
  constexpr int most_devices = 64;
  // Per device: 0 not looked up yet, else 1 + the device_memory value.
  static std::array<std::atomic<int>, most_devices> known{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return device_memory::other;
  }
  if (device < 0 || device >= most_devices) return memory_of(device);
  int entry = known[device].load(std::memory_order_relaxed);
  if (entry == 0) {
    entry = 1 + static_cast<int>(memory_of(device));
    known[device].store(entry, std::memory_order_relaxed);
  }
  return static_cast<device_memory>(entry - 1);
}

bool h100_memory_interface() {
  return current_device_memory() == device_memory::h100;
}

}  // namespace xpose::detail::cuda
