// Owned host or device memory for arrays handed out through DLPack.
#include "buffer.hpp"

#include "device.hpp"

namespace xpose_python {

owned_buffer::owned_buffer(std::size_t bytes, int device)
    : memory_(allocate(bytes, device)), bytes_(bytes), device_(device) {}

owned_buffer::~owned_buffer() {
  release(memory_, device_);
}

}  // namespace xpose_python
