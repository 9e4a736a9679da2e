// Copies between pageable host memory and the device through pinned staging chunks, on the host
// plan's CPU threads (OpenMP). Each thread owns two pinned chunks; the chunks of a copy are dealt
// to the threads in turn. To the device, a thread packs its chunk (memcpy from the caller's
// memory into its pinned chunk) and queues the chunk's DMA; from the device, it queues the DMA
// and unpacks the chunk once it has landed. While one thread copies, the other threads' chunks
// are on the copy engine, so the memcpys hide behind the transfers as long as the threads
// together copy faster than the link (16 threads of a Xeon: 110-160 GB/s against 55 GB/s).
//
// A copy returns once every DMA it needs is queued on its stream (later work on that stream comes
// after them); a copy from the device may still have up to two chunks per thread to unpack, which
// the next use of their slots, a copy touching their bytes, or finish() completes. Everything is
// allocated at construction (plan time); execute never allocates.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xpose::detail::host {

/// The chunk size and thread count a staging pipeline uses for `matrix_bytes` on `threads`
/// threads with chunks of at most `chunk_bytes` (0 = default_staging_chunk): chunks shrink, to
/// no less than 64 KiB, so that a small matrix does not hold much more pinned memory than
/// itself. Backend-free, for the tests.
struct staging_geometry {
  int threads = 1;
  std::size_t chunk_bytes = 0;
  std::uint64_t pinned_bytes() const {
    return 2 * static_cast<std::uint64_t>(threads) * chunk_bytes;
  }
};
staging_geometry choose_staging(std::uint64_t matrix_bytes, int threads, std::size_t chunk_bytes);

/// H200 host, 16 threads: 2 MiB chunks keep a 1-2 us DMA setup under 5% of a chunk's transfer,
/// and 64 MiB of chunks in all.
constexpr std::size_t default_staging_chunk = std::size_t{2} << 20;

class staging_pipeline {
 public:
  /// Allocates 2 x threads pinned chunks and their events; throws xpose::error.
  explicit staging_pipeline(const staging_geometry& geometry);
  ~staging_pipeline();
  staging_pipeline(const staging_pipeline&) = delete;
  staging_pipeline& operator=(const staging_pipeline&) = delete;

  /// Queues host [host, +bytes) -> device `dev` on `stream`, packing chunks on the threads.
  void to_device(char* dev, const char* host, std::uint64_t bytes, cudaStream_t stream);
  /// Queues device `dev` -> host [host, +bytes) on `stream`; the last chunks may still be
  /// unpacking when it returns.
  void to_host(char* host, const char* dev, std::uint64_t bytes, cudaStream_t stream);
  /// Waits for every queued chunk and unpacks what is left: the host memory holds every copy.
  void finish();

  const staging_geometry& geometry() const { return geometry_; }

 private:
  struct slot {
    char* pinned = nullptr;
    cudaEvent_t done = nullptr;
    bool busy = false;          ///< a DMA of this chunk was queued and not waited for
    char* unpack_to = nullptr;  ///< a copy from the device left to unpack here
    std::size_t unpack_bytes = 0;
  };

  /// Waits for the slot's DMA and unpacks it if it came from the device.
  cudaError_t settle(slot& s);
  /// The next of thread t's two slots, settled.
  slot& take(int t, cudaError_t& result);
  /// finish() first when a chunk left to unpack overlaps [host, +bytes).
  void settle_overlapping(const char* host, std::uint64_t bytes);
  template <class Work>
  void on_threads(std::uint64_t bytes, const char* what, Work work);

  staging_geometry geometry_;
  int device_ = 0;
  void* pinned_ = nullptr;
  std::vector<slot> slots_;  ///< 2 per thread: 2t, 2t + 1
  std::vector<int> next_;    ///< per thread, which of its slots comes next
};

}  // namespace xpose::detail::host
