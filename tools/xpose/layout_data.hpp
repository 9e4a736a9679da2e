// Test data of the layout conversions in `xpose bench`: an array of structures made in AoS, laid
// out in any layout by xpose::layout_index, and a result compared field by field with the AoS it
// came from. Host versions here; device versions (CUDA builds) make, arrange and check the data
// on the GPU, so that arrays of several GiB are checked in milliseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <xpose/layout.hpp>

#ifdef XPOSE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace xpose_cli {

/// The fields of `aos` (n structures of S fields of e bytes, in AoS) written into `out` in layout
/// `l`, with `threads` threads.
void arrange_on_host(const std::byte* aos, std::byte* out, std::int64_t n, std::int64_t S,
                     std::size_t e, xpose::layout l, int threads);

/// "" when `result` holds the fields of `aos` in layout `l`, else the first wrong field.
std::string compare_on_host(const std::byte* result, const std::byte* aos, std::int64_t n,
                            std::int64_t S, std::size_t e, xpose::layout l, int threads);

/// "wrong field F of structure I of the LAYOUT result".
std::string wrong_field_message(std::int64_t field_index, std::int64_t S, xpose::layout l);

#ifdef XPOSE_HAVE_CUDA

/// Fills `bytes` bytes of device memory with bytes in 1..255 from a hash of `seed` and their
/// position (no field is all zero bytes), on `stream`.
void fill_on_device(std::byte* data, std::size_t bytes, std::uint64_t seed, cudaStream_t stream);

/// arrange_on_host on the device, on `stream`.
void arrange_on_device(const std::byte* aos, std::byte* out, std::int64_t n, std::int64_t S,
                       std::size_t e, xpose::layout l, cudaStream_t stream);

/// compare_on_host on the device: synchronizes `stream`, returns "" or the first wrong field.
std::string compare_on_device(const std::byte* result, const std::byte* aos, std::int64_t n,
                              std::int64_t S, std::size_t e, xpose::layout l, cudaStream_t stream);

#endif

}  // namespace xpose_cli
