// The current device's class (tuning/device_class.hpp): the H100 80GB, whose stride resonance
// (dispatch/tile_regions.cu) and large tiles (tuning/tuned.hpp, tuning/unaligned.hpp) are tuned,
// the H200, which runs the large tiles behind the standard ones, shows no resonance at the periods
// tried and has whole tiles of its own (tuning/tuned.hpp), or any other device. Told apart by the
// memory interface's width and, for the H200, the memory's size: other parts with a 6016-bit
// interface (the H100 NVL's 94 GB, by some accounts) take the untuned path.
#include <array>
#include <atomic>
#include <cstddef>

#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

/// The H100 80GB's memory interface: five stacks of 1024 bits.
constexpr int h100_memory_bus_bits = 5120;
/// The H200's, as its runtime reports it, and the least memory an H200 has (141 GB, reported as
/// 140.4 GiB).
constexpr int h200_memory_bus_bits = 6016;
constexpr std::size_t h200_least_memory_bytes = std::size_t{128} << 30;

/// The class of device `device` from its properties (other when they cannot be read).
device_class memory_of(int device) {
  int bus_bits = 0;
  if (cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // take back the error this query left pending
    return device_class::other;
  }
  if (bus_bits == h100_memory_bus_bits) return device_class::h100;
  if (bus_bits != h200_memory_bus_bits) return device_class::other;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return device_class::other;
  }
  return properties.totalGlobalMem >= h200_least_memory_bytes ? device_class::h200
                                                              : device_class::other;
}

}  // namespace

device_class current_device_class() {
  constexpr int most_devices = 64;
  // Per device: 0 not looked up yet, else 1 + the device_class value.
  static std::array<std::atomic<int>, most_devices> known{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return device_class::other;
  }
  if (device < 0 || device >= most_devices) return memory_of(device);
  int entry = known[device].load(std::memory_order_relaxed);
  if (entry == 0) {
    entry = 1 + static_cast<int>(memory_of(device));
    known[device].store(entry, std::memory_order_relaxed);
  }
  return static_cast<device_class>(entry - 1);
}

bool h100_memory_interface() {
  return current_device_class() == device_class::h100;
}

}  // namespace xpose::detail::cuda
