// copy_small_batch's policies (copy/small_batch_kernel.cuh): threads per block, resident blocks
// per SM asked of ptxas (a register cap), the source bytes a block aims to take per group of
// whole matrices (fewer, down to least_group_bytes, where that spreads the groups evenly over the
// resident blocks), the bytes of shared memory up to which it keeps two source buffers (the next
// group fetched while this one moves), and, for element sizes that go through a destination
// image, that image's bytes. One policy for elements of 1, 2, 4, 8 and 16 bytes (written from the
// source buffer straight to global memory), one for the other sizes; not swept yet (H200:
// median 0.921 x copy over the bench's batches, docs/performance.md).
#pragma once

namespace xpose::detail::cuda {

template <int THREADS, int MIN_BLOCKS, int GROUP_BYTES, int LEAST_GROUP_BYTES,
          int DOUBLE_BUFFER_MOST, int STAGING_BYTES>
struct small_batch_policy {
  static constexpr int threads = THREADS;
  static constexpr int min_blocks = MIN_BLOCKS;    ///< resident blocks per SM asked of ptxas
  static constexpr int group_bytes = GROUP_BYTES;  ///< source bytes aimed at per group
  static constexpr int least_group_bytes = LEAST_GROUP_BYTES;  ///< the least, spreading groups
  /// Two source buffers while they take at most this many bytes of shared memory with the
  /// destination image, else one.
  static constexpr int double_buffer_most = DOUBLE_BUFFER_MOST;
  static constexpr int staging_bytes = STAGING_BYTES;  ///< destination image (0: none)
};

/// 1-, 2-, 4-, 8- and 16-byte elements: 16 KiB groups, two buffers of up to 34 KiB in all (six
/// blocks of 256 threads per SM fit 40 registers a thread and 228 KiB of shared memory).
using small_batch_direct_policy =
    small_batch_policy<256, 6, 16 * 1024, 2 * 1024, 34 * 1024 + 512, 0>;
/// The other sizes: 12 KiB groups and a 12 KiB destination image (five blocks per SM).
using small_batch_staged_policy =
    small_batch_policy<256, 5, 12 * 1024, 2 * 1024, 38 * 1024 + 512, 12 * 1024>;

}  // namespace xpose::detail::cuda
