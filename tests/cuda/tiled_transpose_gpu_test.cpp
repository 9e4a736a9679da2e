// The GPU elementary tiled transposition (cuda/inplace/tiled_transpose.hpp) against the CPU one
// (cpu::tiled_transpose, the executable specification) on the same stage and random bytes,
// byte for byte: every small shape on each path (automatic, on_chip, pttwac, cycle_following
// forced; pttwac on every 4-byte shape up to 40 x 40),
// pointers of every alignment, super-elements of odd and large sizes (lane groups, column
// chunks, waves), the larger shapes cycle following exists for, and round trips. Bytes around
// the matrix are checked untouched, and the workspace is poisoned before each run (the launcher
// clears what it needs). The workspace sizes and the refusals run without a device.
#include "cuda/inplace/tiled_transpose.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "gpu_test_util.hpp"
#include "xpose/error.hpp"

namespace xpose::test {
namespace {

using detail::stage;
using detail::stage_kind;
using detail::cuda::choose_tiled_path;
using detail::cuda::launch_tiled_transpose;
using detail::cuda::launch_tiled_transpose_path;
using detail::cuda::tiled_path;
using detail::cuda::tiled_transpose_workspace;
using detail::cuda::tiled_transpose_workspace_for_path;

constexpr tiled_path every_path[] = {tiled_path::automatic,       tiled_path::on_chip,
                                     tiled_path::through_scratch, tiled_path::chains,
                                     tiled_path::cycle_following, tiled_path::pttwac,
                                     tiled_path::whole_cycles};
constexpr std::size_t small_super_bytes[] = {1, 2, 3, 4, 8, 12, 16};
/// Byte offsets of the matrix from a 256-byte aligned allocation, cycled through by the shape
/// loops so that every kernel also meets pointers aligned to less than its widest word.
constexpr std::size_t cycled_offsets[] = {0, 1, 2, 4, 8, 12, 3};
constexpr std::size_t guard_bytes = 64;

stage tiled_stage(std::int64_t batch, std::int64_t rows, std::int64_t cols, std::size_t bytes) {
  stage s;
  s.kind = stage_kind::tiled_transpose;
  s.label = "test";
  s.batch = batch;
  s.rows = rows;
  s.cols = cols;
  s.super_bytes = bytes;
  // Either CPU method gives the same bytes; in_cache needs a scratch of one instance per thread.
  const std::size_t instance = static_cast<std::size_t>(rows * cols) * bytes;
  s.method = instance <= (std::size_t{1} << 20) ? detail::tiled_method::in_cache
                                                : detail::tiled_method::cycle_following;
  return s;
}

std::string describe(const stage& s, tiled_path path, std::size_t offset) {
  return std::string(detail::cuda::tiled_path_name(path)) + ": batch " + std::to_string(s.batch) +
         ", " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " x " +
         std::to_string(s.super_bytes) + " bytes, offset " + std::to_string(offset);
}

int cpu_threads() {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
}

/// The CPU transposition of `bytes` (one whole stage) in place.
void cpu_transpose(std::vector<unsigned char>& bytes, const stage& s) {
  const int threads = cpu_threads();
  std::vector<std::byte> workspace(detail::cpu::tiled_transpose_workspace(s, threads));
  detail::cpu::tiled_transpose(reinterpret_cast<std::byte*>(bytes.data()), s, workspace.data(),
                               threads);
}

/// Device buffers reused from case to case (grown when a case needs more).
class gpu_scratch {
 public:
  const device_buffer& data(std::size_t bytes) { return grow(data_, data_bytes_, bytes); }
  const device_buffer& workspace(std::size_t bytes) {
    return grow(workspace_, workspace_bytes_, bytes);
  }

 private:
  static const device_buffer& grow(std::unique_ptr<device_buffer>& buffer, std::size_t& have,
                                   std::size_t bytes) {
    if (!buffer || have < bytes) {
      buffer.reset();
      have = std::max<std::size_t>(bytes, 256);
      buffer = std::make_unique<device_buffer>(have);
    }
    return *buffer;
  }
  std::unique_ptr<device_buffer> data_, workspace_;
  std::size_t data_bytes_ = 0, workspace_bytes_ = 0;
};

/// Runs `s` on `path` over `host` (offset bytes into the device buffer, guard bytes after) and
/// returns the device buffer's bytes [0, offset + matrix + guard).
std::vector<unsigned char> run_on_device(const std::vector<unsigned char>& host, const stage& s,
                                         tiled_path path, std::size_t offset,
                                         gpu_scratch& scratch) {
  const device_buffer& data = scratch.data(host.size());
  data.upload(host);
  const std::size_t workspace_bytes = tiled_transpose_workspace_for_path(s, path);
  const device_buffer& workspace = scratch.workspace(workspace_bytes);
  workspace.poison();
  detail::cuda::prepare_tiled_workspace(s, path, workspace.get());
  if (path == tiled_path::automatic)
    launch_tiled_transpose(data.get() + offset, s, workspace.get(), nullptr);
  else
    launch_tiled_transpose_path(data.get() + offset, s, workspace.get(), nullptr, path);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << describe(s, path, offset);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << describe(s, path, offset);
  return data.download(host.size());
}

/// Random bytes: `offset` bytes, the matrix of stage `s`, guard_bytes.
std::vector<unsigned char> random_case(const stage& s, std::size_t offset, std::uint64_t seed) {
  const std::size_t matrix = static_cast<std::size_t>(s.batch * s.rows * s.cols) * s.super_bytes;
  return random_bytes(offset + matrix + guard_bytes, seed);
}

/// The expected device bytes for `host`: the matrix transposed by the CPU, the rest as it was.
std::vector<unsigned char> expected_bytes(const std::vector<unsigned char>& host, const stage& s,
                                          std::size_t offset) {
  std::vector<unsigned char> matrix(host.begin() + static_cast<std::ptrdiff_t>(offset),
                                    host.end() - static_cast<std::ptrdiff_t>(guard_bytes));
  cpu_transpose(matrix, s);
  std::vector<unsigned char> expected = host;
  std::copy(matrix.begin(), matrix.end(), expected.begin() + static_cast<std::ptrdiff_t>(offset));
  return expected;
}

void check_tiled(const stage& s, tiled_path path, std::size_t offset, std::uint64_t seed,
                 gpu_scratch& scratch) {
  const std::vector<unsigned char> host = random_case(s, offset, seed);
  const std::vector<unsigned char> expected = expected_bytes(host, s, offset);
  const std::int64_t at = first_difference(run_on_device(host, s, path, offset, scratch), expected);
  ASSERT_EQ(at, -1) << describe(s, path, offset) << ": first wrong byte " << at
                    << " (the matrix starts at byte " << offset << ")";
}

void check_tiled(const stage& s, tiled_path path, std::size_t offset, std::uint64_t seed) {
  gpu_scratch scratch;
  check_tiled(s, path, offset, seed, scratch);
}

/// Whether `path` can take `s` when forced (the on-chip path needs the instance to fit, pttwac
/// its flags, the chains path super-elements of chain_min_super_bytes or more).
bool path_takes(const stage& s, tiled_path path) {
  if (path == tiled_path::on_chip)
    return detail::cuda::tiled_on_chip_instance_bytes(s) <= detail::cuda::tiled_on_chip_max_bytes;
  if (path == tiled_path::pttwac) return detail::cuda::tiled_pttwac_fits(s);
  if (path == tiled_path::chains || path == tiled_path::whole_cycles)
    return s.super_bytes >= detail::cuda::chain_min_super_bytes;
  return true;
}

/// rows, cols in 1..24 for each super-element size of `sizes` and batches 1, 3, 7 on `path`.
template <class Sizes>
void check_every_small_shape(tiled_path path, const Sizes& sizes) {
  static_assert(sizeof(sizes[0]) == sizeof(std::size_t));
  gpu_scratch scratch;
  std::uint64_t seed = 1;
  for (std::size_t bytes : sizes)
    for (std::int64_t batch : {1, 3, 7})
      for (std::int64_t rows = 1; rows <= 24; ++rows)
        for (std::int64_t cols = 1; cols <= 24; ++cols, ++seed) {
          const std::size_t offset = cycled_offsets[seed % std::size(cycled_offsets)];
          check_tiled(tiled_stage(batch, rows, cols, bytes), path, offset, seed, scratch);
          if (::testing::Test::HasFatalFailure()) return;
        }
}

// A few small cases of each path and kind of chain (single lanes, lane groups, column chunks,
// waves), quick enough for compute-sanitizer (memcheck, racecheck, synccheck).
TEST(GpuTiledTranspose, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  check_tiled(tiled_stage(2, 5, 7, 4), tiled_path::on_chip, 0, 1);
  check_tiled(tiled_stage(3, 17, 9, 3), tiled_path::on_chip, 1, 2);
  check_tiled(tiled_stage(4, 8, 8, 16), tiled_path::on_chip, 0, 3);
  check_tiled(tiled_stage(5, 6, 10, 1), tiled_path::on_chip, 2, 4);
  check_tiled(tiled_stage(1, 2, 3, 100), tiled_path::on_chip, 4, 5);
  check_tiled(tiled_stage(1, 33, 17, 4), tiled_path::cycle_following, 0, 6);
  check_tiled(tiled_stage(2, 19, 23, 12), tiled_path::cycle_following, 2, 7);
  check_tiled(tiled_stage(1, 9, 11, 200), tiled_path::cycle_following, 0, 8);
  check_tiled(tiled_stage(1, 13, 11, 33), tiled_path::cycle_following, 0, 9);
  check_tiled(tiled_stage(1, 5, 6, 4100), tiled_path::cycle_following, 0, 10);
  check_tiled(tiled_stage(2, 7, 9, 4096), tiled_path::cycle_following, 1, 11);
  check_tiled(tiled_stage(3, 13, 21, 12), tiled_path::through_scratch, 1, 12);
  check_tiled(tiled_stage(2, 23, 19, 48), tiled_path::chains, 0, 13);
  check_tiled(tiled_stage(1, 31, 29, 33), tiled_path::chains, 1, 14);
  check_tiled(tiled_stage(1, 17, 12, 1040), tiled_path::chains, 0, 15);
  // PTTWAC with shared flags: single lanes with several chains each, lane groups (12, 64 and
  // 200-byte super-elements), column chunks (4100 bytes), many tiny instances per block, an
  // AoS -> ASTA tile batch and an SoA -> ASTA tile stage.
  check_tiled(tiled_stage(2, 5, 7, 4), tiled_path::pttwac, 0, 16);
  check_tiled(tiled_stage(3, 17, 9, 1), tiled_path::pttwac, 1, 17);
  check_tiled(tiled_stage(2, 19, 23, 12), tiled_path::pttwac, 2, 18);
  check_tiled(tiled_stage(1, 9, 11, 200), tiled_path::pttwac, 0, 19);
  check_tiled(tiled_stage(1, 5, 6, 4100), tiled_path::pttwac, 0, 20);
  check_tiled(tiled_stage(300, 4, 3, 2), tiled_path::pttwac, 0, 21);
  check_tiled(tiled_stage(6, 32, 40, 4), tiled_path::pttwac, 0, 22);
  check_tiled(tiled_stage(1, 8, 24, 64), tiled_path::pttwac, 0, 23);
  check_tiled(tiled_stage(2, 16, 7, 16), tiled_path::pttwac, 3, 24);
}

TEST(GpuTiledTranspose, EveryShapeUpTo24Automatic) {
  XPOSE_REQUIRE_GPU();
  check_every_small_shape(tiled_path::automatic, small_super_bytes);
}

TEST(GpuTiledTranspose, EveryShapeUpTo24OnChip) {
  XPOSE_REQUIRE_GPU();
  check_every_small_shape(tiled_path::on_chip, small_super_bytes);
}

TEST(GpuTiledTranspose, EveryShapeUpTo24ThroughScratch) {
  XPOSE_REQUIRE_GPU();
  check_every_small_shape(tiled_path::through_scratch, small_super_bytes);
}

// Super-elements of 1 to 1040 bytes, words of 1 to 16 bytes, groups of 1 to 64 threads and column
// chunks; long cycles cut into chains.
TEST(GpuTiledTranspose, EveryShapeUpTo24Chains) {
  XPOSE_REQUIRE_GPU();
  constexpr std::size_t sizes[] = {1, 4, 12, 32, 33, 48, 64, 100, 1040};
  check_every_small_shape(tiled_path::chains, sizes);
}

// P-IPT: the chains' kernel on whole cycles (no cut, no heads), super-elements of 1 to 1040 bytes.
TEST(GpuTiledTranspose, EveryShapeUpTo24WholeCycles) {
  XPOSE_REQUIRE_GPU();
  constexpr std::size_t sizes[] = {1, 4, 12, 33, 64, 1040};
  check_every_small_shape(tiled_path::whole_cycles, sizes);
}

TEST(GpuTiledTranspose, EveryShapeUpTo24CycleFollowing) {
  XPOSE_REQUIRE_GPU();
  check_every_small_shape(tiled_path::cycle_following, small_super_bytes);
}

// PTTWAC with shared flags on every 4-byte shape up to 40 x 40 (the AoS -> ASTA tiles of up to
// 40 fields), one instance and batches grouped several per block.
TEST(GpuTiledTranspose, EveryShapeUpTo40Pttwac) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  std::uint64_t seed = 600;
  for (std::int64_t batch : {1, 5})
    for (std::int64_t rows = 1; rows <= 40; ++rows)
      for (std::int64_t cols = 1; cols <= 40; ++cols, ++seed) {
        const std::size_t offset = cycled_offsets[seed % std::size(cycled_offsets)];
        check_tiled(tiled_stage(batch, rows, cols, 4), tiled_path::pttwac, offset, seed, scratch);
        if (HasFatalFailure()) return;
      }
}

// PTTWAC on the other word sizes and on 3, 12, 24 and 64-byte super-elements (lane groups).
TEST(GpuTiledTranspose, PttwacOtherSizes) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  std::uint64_t seed = 4000;
  for (std::size_t bytes : {1, 2, 3, 8, 12, 16, 24, 64})
    for (std::int64_t rows : {1, 2, 3, 7, 16, 17, 32, 33, 40})
      for (std::int64_t cols : {2, 5, 16, 31, 40, 64}) {
        const std::size_t offset = cycled_offsets[seed % std::size(cycled_offsets)];
        check_tiled(tiled_stage(3, rows, cols, bytes), tiled_path::pttwac, offset, ++seed, scratch);
        if (HasFatalFailure()) return;
      }
}

// PTTWAC on large batches (groups of instances over every resident block, a partial last
// group), the DL paper's AoS -> ASTA tiles, and instances up to its flags' limit.
TEST(GpuTiledTranspose, PttwacBatchesAndLimits) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  const stage shapes[] = {tiled_stage(5000, 32, 40, 4), tiled_stage(1000, 16, 62, 4),
                          tiled_stage(200, 64, 215, 4), tiled_stage(20000, 3, 5, 4),
                          tiled_stage(1057, 8, 8, 8),   tiled_stage(300, 64, 197, 1),
                          tiled_stage(3, 600, 600, 4),  tiled_stage(2, 300, 257, 48),
                          tiled_stage(1, 2, 190000, 2), tiled_stage(4, 7, 9, 1040)};
  std::uint64_t seed = 700;
  for (const stage& s : shapes) {
    ASSERT_TRUE(detail::cuda::tiled_pttwac_fits(s)) << describe(s, tiled_path::pttwac, 0);
    for (std::size_t offset : {0, 4}) check_tiled(s, tiled_path::pttwac, offset, ++seed, scratch);
  }
}

// Every offset from 16-byte alignment: the kernels' words and the on-chip loads' head and tail.
TEST(GpuTiledTranspose, AnyAlignment) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  std::uint64_t seed = 100;
  for (tiled_path path : every_path)
    for (std::size_t offset = 0; offset < 16; ++offset)
      for (const stage& s :
           {tiled_stage(3, 13, 21, 1), tiled_stage(2, 16, 16, 4), tiled_stage(5, 7, 9, 16),
            tiled_stage(1, 31, 17, 12), tiled_stage(2, 23, 19, 48)}) {
        if (!path_takes(s, path)) continue;
        check_tiled(s, path, offset, ++seed, scratch);
        if (HasFatalFailure()) return;
      }
}

// Super-elements of odd and large sizes: lane groups of 2..32 lanes, column chunks, and (on a
// pointer less aligned than the super-element) more chunks run in waves through the same states.
TEST(GpuTiledTranspose, LargeAndOddSuperElements) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  std::uint64_t seed = 200;
  for (tiled_path path : every_path)
    for (std::size_t bytes : {5, 24, 33, 48, 100, 200, 257, 4096, 4100, 7200, 7201})
      for (std::size_t offset : {0, 1, 4})
        for (const stage& s : {tiled_stage(2, 7, 9, bytes), tiled_stage(1, 3, 2, bytes)}) {
          if (!path_takes(s, path)) continue;
          check_tiled(s, path, offset, ++seed, scratch);
          if (::testing::Test::HasFatalFailure()) return;
        }
}

// Instances up to the on-chip limit, many instances per block, tall and skinny ones.
TEST(GpuTiledTranspose, LargerOnChipShapes) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  const stage shapes[] = {tiled_stage(1, 150, 160, 4), tiled_stage(1000, 32, 48, 4),
                          tiled_stage(50, 33, 31, 1),  tiled_stage(20, 100, 3, 2),
                          tiled_stage(5, 2, 3, 7200),  tiled_stage(1, 30000, 2, 1),
                          tiled_stage(4096, 8, 8, 4),  tiled_stage(300, 40, 24, 8)};
  std::uint64_t seed = 300;
  for (const stage& s : shapes) {
    EXPECT_EQ(choose_tiled_path(s), tiled_path::on_chip) << describe(s, tiled_path::on_chip, 0);
    for (std::size_t offset : {0, 3})
      check_tiled(s, tiled_path::automatic, offset, ++seed, scratch);
  }
}

// Instances far larger than shared memory, each on the path automatic takes for it: chains for
// super-elements of 64 bytes and more (stage 100, 7200-byte super-elements; cut cycles,
// batches), through the scratch up to tiled_scratch_max_bytes for smaller ones, chains above
// that (4-byte elements of 52 MB, 2-byte ones), prime dimensions; then the chains, the scratch
// and cycle following forced on some.
TEST(GpuTiledTranspose, LargeShapes) {
  XPOSE_REQUIRE_GPU();
  gpu_scratch scratch;
  struct large_case {
    stage s;
    tiled_path expected;
  };
  const large_case cases[] = {
      {tiled_stage(1, 7200, 1800, 4), tiled_path::chains},
      {tiled_stage(1, 4000, 3999, 2), tiled_path::chains},
      {tiled_stage(1, 100, 72, 7200), tiled_path::chains},
      {tiled_stage(3, 1000, 999, 4), tiled_path::through_scratch},
      {tiled_stage(1, 997, 1009, 4), tiled_path::through_scratch},
      {tiled_stage(1, 1000, 1000, 12), tiled_path::through_scratch},
      {tiled_stage(2, 300, 257, 48), tiled_path::through_scratch},
      {tiled_stage(1, 30, 1800, 960), tiled_path::chains},
      {tiled_stage(3, 1009, 997, 64), tiled_path::chains},
      {tiled_stage(1, 4001, 3000, 36), tiled_path::chains},
  };
  std::uint64_t seed = 400;
  for (const large_case& c : cases) {
    EXPECT_EQ(choose_tiled_path(c.s), c.expected) << describe(c.s, c.expected, 0);
    check_tiled(c.s, tiled_path::automatic, 0, ++seed, scratch);
  }
  check_tiled(tiled_stage(1, 997, 1009, 4), tiled_path::cycle_following, 2, ++seed, scratch);
  check_tiled(tiled_stage(1, 100, 72, 7200), tiled_path::cycle_following, 4, ++seed, scratch);
  check_tiled(tiled_stage(2, 997, 1009, 32), tiled_path::chains, 4, ++seed, scratch);
  check_tiled(tiled_stage(1, 1000, 999, 4), tiled_path::through_scratch, 1, ++seed, scratch);
}

// A x B then B x A gives the input back, on each path.
TEST(GpuTiledTranspose, RoundTrip) {
  XPOSE_REQUIRE_GPU();
  struct shape {
    std::int64_t batch, rows, cols;
    std::size_t bytes;
  };
  const shape shapes[] = {
      {1, 600, 700, 8}, {50, 20, 30, 12}, {1, 1000, 999, 4}, {3, 64, 96, 48}, {1, 301, 203, 64}};
  std::uint64_t seed = 500;
  for (const shape& sh : shapes)
    for (tiled_path path : every_path) {
      const stage forward = tiled_stage(sh.batch, sh.rows, sh.cols, sh.bytes);
      const stage back = tiled_stage(sh.batch, sh.cols, sh.rows, sh.bytes);
      if (!path_takes(forward, path)) continue;
      const std::vector<unsigned char> host = random_case(forward, 0, ++seed);
      device_buffer data(host.size());
      data.upload(host);
      device_buffer workspace(std::max(tiled_transpose_workspace_for_path(forward, path),
                                       tiled_transpose_workspace_for_path(back, path)));
      workspace.poison();
      detail::cuda::prepare_tiled_workspace(forward, path, workspace.get());
      launch_tiled_transpose_path(data.get(), forward, workspace.get(), nullptr, path);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      detail::cuda::prepare_tiled_workspace(back, path, workspace.get());
      launch_tiled_transpose_path(data.get(), back, workspace.get(), nullptr, path);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      ASSERT_EQ(first_difference(data.download(host.size()), host), -1)
          << describe(forward, path, 0) << ": round trip";
    }
}

// ---- without a device --------------------------------------------------------------------------

TEST(GpuTiledTranspose, WorkspaceOfStagesThatMoveNothingOrFitOnChipIsZero) {
  EXPECT_EQ(tiled_transpose_workspace(tiled_stage(1, 1, 100, 4)), 0u);
  EXPECT_EQ(tiled_transpose_workspace(tiled_stage(5, 100, 1, 4)), 0u);
  EXPECT_EQ(tiled_transpose_workspace(tiled_stage(0, 100, 100, 4)), 0u);
  EXPECT_EQ(tiled_transpose_workspace(tiled_stage(3, 24, 24, 4)), 0u);
  EXPECT_EQ(tiled_transpose_workspace_for_path(tiled_stage(3, 24, 24, 4), tiled_path::on_chip), 0u);
  EXPECT_EQ(
      tiled_transpose_workspace_for_path(tiled_stage(1, 1, 100, 4), tiled_path::cycle_following),
      0u);
}

// 2 bits per super-element in 32-bit words, per instance and column chunk, one wave's worth.
TEST(GpuTiledTranspose, WorkspaceOfCycleFollowing) {
  // 3 instances of 576 super-elements: 36 state words each.
  EXPECT_EQ(
      tiled_transpose_workspace_for_path(tiled_stage(3, 24, 24, 4), tiled_path::cycle_following),
      3u * 36 * 4);
  EXPECT_EQ(tiled_transpose_workspace_for_path(tiled_stage(1, 7200, 1800, 4),
                                               tiled_path::cycle_following),
            7200u * 1800 / 16 * 4);
  // 7200-byte super-elements: 450 words of 16 bytes, 2 chunks.
  EXPECT_EQ(detail::cuda::tiled_cycle_chunks(tiled_stage(1, 100, 72, 7200)), 2);
  EXPECT_EQ(tiled_transpose_workspace_for_path(tiled_stage(1, 100, 72, 7200),
                                               tiled_path::cycle_following),
            2u * 450 * 4);
  // Up to 256 words one chunk; 4097 bytes are 4097 single bytes.
  EXPECT_EQ(detail::cuda::tiled_cycle_chunks(tiled_stage(1, 10, 10, 4096)), 1);
  EXPECT_EQ(detail::cuda::tiled_cycle_chunks(tiled_stage(1, 10, 10, 12)), 1);
  EXPECT_EQ(detail::cuda::tiled_cycle_chunks(tiled_stage(1, 10, 10, 4097)), 17);
  // Waves: 1,000,000 bytes of states per instance, 33 instances per wave.
  EXPECT_EQ(tiled_transpose_workspace_for_path(tiled_stage(100, 2000, 2000, 4),
                                               tiled_path::cycle_following),
            33u * 1000000);
  // One instance is a wave however large its states.
  EXPECT_EQ(tiled_transpose_workspace(tiled_stage(2, 20000, 20000, 1)), 100000000u);
}

TEST(GpuTiledTranspose, OnChipPitchAndChoice) {
  using detail::cuda::tiled_on_chip_pitch;
  EXPECT_EQ(tiled_on_chip_pitch(3, 1), 3u);
  EXPECT_EQ(tiled_on_chip_pitch(4, 4), 4u);
  EXPECT_EQ(tiled_on_chip_pitch(5, 1), 12u);
  EXPECT_EQ(tiled_on_chip_pitch(100, 2), 100u);
  EXPECT_EQ(tiled_on_chip_pitch(128, 4), 132u);
  EXPECT_EQ(tiled_on_chip_pitch(132, 4), 132u);
  EXPECT_EQ(tiled_on_chip_pitch(64, 8), 72u);
  EXPECT_EQ(tiled_on_chip_pitch(48, 16), 48u);
  EXPECT_EQ(tiled_on_chip_pitch(128, 16), 144u);
  // 150 rows of 644 bytes fit 96 KiB; 160 rows do not.
  EXPECT_EQ(detail::cuda::tiled_on_chip_instance_bytes(tiled_stage(1, 150, 160, 4)), 150u * 644);
  EXPECT_EQ(choose_tiled_path(tiled_stage(1, 150, 160, 4)), tiled_path::on_chip);
  EXPECT_EQ(choose_tiled_path(tiled_stage(1, 160, 160, 4)), tiled_path::through_scratch);
  EXPECT_EQ(choose_tiled_path(tiled_stage(1, 7200, 1800, 4)), tiled_path::chains);
  EXPECT_EQ(choose_tiled_path(tiled_stage(2, 20000, 20000, 1)), tiled_path::cycle_following);
  EXPECT_EQ(choose_tiled_path(tiled_stage(1, 7200, 1800, 32)), tiled_path::chains);
}

// PTTWAC: flags in shared memory (no workspace) where an instance's bits fit 48 KiB; on shared
// flags where the batch fills the GPU or the instances are small, else on global claims.
TEST(GpuTiledTranspose, PttwacFitAndChoice) {
  using detail::cuda::choose_pttwac_path;
  EXPECT_EQ(tiled_transpose_workspace_for_path(tiled_stage(373, 32, 40, 4), tiled_path::pttwac),
            0u);
  EXPECT_TRUE(detail::cuda::tiled_pttwac_fits(tiled_stage(1, 600, 600, 4)));
  EXPECT_FALSE(detail::cuda::tiled_pttwac_fits(tiled_stage(1, 700, 600, 4)));
  EXPECT_EQ(choose_pttwac_path(tiled_stage(373, 32, 40, 4)), tiled_path::pttwac);
  EXPECT_EQ(choose_pttwac_path(tiled_stage(1, 5, 40, 4)), tiled_path::pttwac);
  EXPECT_EQ(choose_pttwac_path(tiled_stage(1, 40, 744, 64)), tiled_path::cycle_following);
  EXPECT_EQ(choose_pttwac_path(tiled_stage(500, 700, 600, 4)), tiled_path::cycle_following);
  EXPECT_GT(detail::cuda::tiled_path_passes(tiled_stage(373, 32, 40, 4), tiled_path::pttwac),
            detail::cuda::tiled_path_passes(tiled_stage(373, 32, 40, 4), tiled_path::on_chip));
}

TEST(GpuTiledTranspose, RefusesBadStagesBeforeTouchingTheDevice) {
  unsigned char host[16];
  expect_refused([] { tiled_transpose_workspace(tiled_stage(1, 10, 10, 0)); });
  expect_refused([] { tiled_transpose_workspace(tiled_stage(1, -3, 10, 4)); });
  expect_refused([&] {
    stage s = tiled_stage(1, 10, 10, 4);
    s.kind = stage_kind::copy_transpose;
    launch_tiled_transpose(host, s, host, nullptr);
  });
  expect_refused([&] {
    launch_tiled_transpose_path(host, tiled_stage(1, 160, 160, 4), nullptr, nullptr,
                                tiled_path::on_chip);
  });
  expect_refused([&] {
    launch_tiled_transpose_path(host, tiled_stage(1, 10, 10, 4), nullptr, nullptr,
                                tiled_path::cycle_following);
  });
  expect_refused([&] {
    launch_tiled_transpose_path(host, tiled_stage(1, 700, 600, 4), nullptr, nullptr,
                                tiled_path::pttwac);
  });
  expect_refused(
      [] { launch_tiled_transpose(nullptr, tiled_stage(1, 10, 10, 4), nullptr, nullptr); });
}

}  // namespace
}  // namespace xpose::test
