// The device classes the tuning tables tell apart, and the one function that classifies the
// current device (backend/device_class.cu). A class is a memory system: the H100 80GB (5120-bit
// interface), the H200 (6016-bit interface, 128 GiB or more), and any other device, which takes
// the untuned defaults (the tables' `other` entries).
#pragma once

namespace xpose::detail::cuda {

enum class device_class { h100, h200, other };

/// The current device's class (`other` without a device), looked up once per device.
device_class current_device_class();
/// Whether the current device's memory is the H100 80GB's.
bool h100_memory_interface();

}  // namespace xpose::detail::cuda
