// copy_small_batch (copy/small_batch.cu): which batches it takes and how it groups them (no
// device needed), and, on a device, every element size from 1 to 16 bytes on dense batches of
// small matrices against the host reference: random data, the destination poisoned (the bytes
// before and after the batch must stay so), pointers on and off their alignment, last groups cut
// by the batch's end, blocks that loop over several groups.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/copy/small_batch.hpp"
#include "cuda/tuning/small_batch.hpp"
#include "gpu_test_util.hpp"

namespace xpose::test {
namespace {

using detail::cuda::copy_args;
using detail::cuda::small_batch_layout;
using detail::cuda::small_batch_layout_for;
using detail::cuda::small_batch_takes;

/// A dense batch of `batch` rows x cols matrices at null pointers (aligned on everything).
copy_args dense_batch(std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  copy_args a;
  a.batch = batch;
  a.rows = rows;
  a.cols = cols;
  a.lda = cols;
  a.ldb = rows;
  a.src_stride = a.dst_stride = rows * cols;
  return a;
}

struct batch_case {
  std::int64_t rows, cols;
  std::size_t e;
  std::int64_t batch;
  std::size_t src_offset = 0, dst_offset = 0;  // bytes past a 256-byte aligned allocation
};

constexpr std::size_t margin = 64;  // poisoned bytes checked after the destination

/// Runs one case on `stream` and compares the whole destination allocation with the reference.
void check_small_batch(const batch_case& c, std::uint64_t seed, cudaStream_t stream = nullptr) {
  const std::size_t bytes = static_cast<std::size_t>(c.batch * c.rows * c.cols) * c.e;
  device_buffer src(bytes + c.src_offset), dst(c.dst_offset + bytes + margin);
  const std::vector<unsigned char> host_src = random_bytes(bytes, seed);
  src.upload(host_src, c.src_offset);
  dst.poison();
  copy_args a = dense_batch(c.batch, c.rows, c.cols);
  a.src = src.get() + c.src_offset;
  a.dst = dst.get() + c.dst_offset;
  ASSERT_TRUE(small_batch_takes(a, c.e));
  detail::cuda::launch_copy_small_batch(a, c.e, stream);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

  std::vector<unsigned char> expected(c.dst_offset + bytes + margin, poison_byte);
  reference_batched(host_src.data(), expected.data() + c.dst_offset, c.batch, c.rows, c.cols, c.e,
                    c.cols, c.rows, c.rows * c.cols, c.rows * c.cols);
  const std::vector<unsigned char> got = dst.download(expected.size());
  const std::int64_t at = first_difference(got, expected);
  ASSERT_EQ(at, -1) << c.batch << " x " << c.rows << " x " << c.cols << " of " << c.e
                    << " bytes, offsets " << c.src_offset << "/" << c.dst_offset
                    << ": first wrong byte " << at << " (the batch starts at " << c.dst_offset
                    << ")";
}

constexpr std::int64_t shapes[][2] = {{1, 1},   {1, 64},  {64, 1},  {16, 16}, {32, 32},
                                      {64, 64}, {16, 64}, {24, 40}, {7, 13}};

TEST(SmallBatchTakes, DenseBatchesOfSmallMatrices) {
  for (std::size_t e = 1; e <= 16; ++e) {
    EXPECT_TRUE(small_batch_takes(dense_batch(2, 1, 1), e));
    EXPECT_TRUE(small_batch_takes(dense_batch(2, 64, 64), e));
    EXPECT_TRUE(small_batch_takes(dense_batch(100000, 24, 40), e));
    EXPECT_TRUE(small_batch_takes(dense_batch(3, 1, 64), e));
    EXPECT_TRUE(small_batch_takes(dense_batch(3, 64, 1), e));
  }
  EXPECT_FALSE(small_batch_takes(dense_batch(1, 32, 32), 4));  // one matrix
  EXPECT_FALSE(small_batch_takes(dense_batch(0, 32, 32), 4));
  EXPECT_FALSE(small_batch_takes(dense_batch(10, 65, 32), 4));
  EXPECT_FALSE(small_batch_takes(dense_batch(10, 32, 65), 4));
  EXPECT_FALSE(small_batch_takes(dense_batch(10, 0, 32), 4));
  EXPECT_FALSE(small_batch_takes(dense_batch(10, 32, 32), 0));
  EXPECT_FALSE(small_batch_takes(dense_batch(10, 32, 32), 17));
  EXPECT_FALSE(small_batch_takes(dense_batch(10, 32, 32), 32));
  copy_args padded = dense_batch(10, 16, 24);
  padded.lda = 25;
  padded.src_stride = 16 * 25;
  EXPECT_FALSE(small_batch_takes(padded, 4));
  padded = dense_batch(10, 16, 24);
  padded.ldb = 17;
  padded.dst_stride = 24 * 17;
  EXPECT_FALSE(small_batch_takes(padded, 4));
  padded = dense_batch(10, 16, 24);
  padded.src_stride += 1;
  EXPECT_FALSE(small_batch_takes(padded, 4));
  padded = dense_batch(10, 16, 24);
  padded.dst_stride += 8;
  EXPECT_FALSE(small_batch_takes(padded, 4));
}

// The launcher refuses before it touches the device (so this holds without one too).
TEST(SmallBatchTakes, LauncherRefusesWhatItDoesNotTake) {
  copy_args one = dense_batch(1, 8, 8);
  expect_refused([&] { detail::cuda::launch_copy_small_batch(one, 4, nullptr); });
  copy_args wide = dense_batch(4, 8, 65);
  expect_refused([&] { detail::cuda::launch_copy_small_batch(wide, 4, nullptr); });
  copy_args padded = dense_batch(4, 8, 8);
  padded.src_stride = 80;
  expect_refused([&] { detail::cuda::launch_copy_small_batch(padded, 4, nullptr); });
  copy_args fine = dense_batch(4, 8, 8);
  expect_refused([&] { detail::cuda::launch_copy_small_batch(fine, 17, nullptr); });
}

// Groups are whole matrices in a whole number of 16-byte chunks (where such groups stay within
// twice the policy's bytes), fit the shared memory of an sm_90 block, and, given the resident
// blocks, make no more rounds of them than the policy's groups do; one row or one column is a
// copy.
TEST(SmallBatchLayout, GroupsOfWholeChunksWithinSharedMemory) {
  using detail::cuda::small_batch_direct_policy, detail::cuda::small_batch_staged_policy;
  constexpr std::int64_t layout_shapes[][2] = {{2, 2},   {2, 3},   {7, 13},  {16, 16}, {24, 40},
                                               {33, 33}, {63, 63}, {64, 63}, {64, 64}};
  for (std::size_t e = 1; e <= 16; ++e) {
    const bool direct = (e & (e - 1)) == 0;
    const std::int64_t target =
        direct ? small_batch_direct_policy::group_bytes : small_batch_staged_policy::group_bytes;
    for (const auto& shape : layout_shapes)
      for (const std::int64_t batch : {2, 37, 1000, 100000, 3000000})
        for (const std::int64_t resident : {0, 1, 5, 132 * 6}) {
          const copy_args a = dense_batch(batch, shape[0], shape[1]);
          const std::int64_t matrix = shape[0] * shape[1] * static_cast<std::int64_t>(e);
          const small_batch_layout l = small_batch_layout_for(a, e, resident);
          SCOPED_TRACE(testing::Message()
                       << batch << " x " << shape[0] << " x " << shape[1] << " of " << e
                       << " bytes, " << resident << " resident blocks");
          ASSERT_FALSE(l.copy);
          ASSERT_GE(l.group, 1);
          ASSERT_LE(l.group, batch);
          EXPECT_EQ(l.groups, (batch + l.group - 1) / l.group);
          EXPECT_EQ(l.group_bytes, l.group * matrix);
          EXPECT_LE(l.group_bytes, 64 * 1024);
          EXPECT_EQ(l.buffer_bytes % 128, 0);
          EXPECT_GE(l.buffer_bytes, l.group_bytes + 31);
          EXPECT_TRUE(l.buffers == 1 || l.buffers == 2);
          EXPECT_EQ(l.shared_bytes, l.buffers * l.buffer_bytes + l.image_bytes);
          EXPECT_LE(l.shared_bytes, 227 * 1024);
          EXPECT_EQ(l.image_bytes == 0, direct);
          if (!direct) {
            EXPECT_GE(l.piece_units, 1);
          }
          std::int64_t per_chunk = 16;
          while (matrix % per_chunk != 0) per_chunk /= 2;
          per_chunk = 16 / per_chunk;
          if (l.group < batch && per_chunk * matrix <= 2 * target) {
            EXPECT_EQ(l.group_bytes % 16, 0);
          }
          if (resident > 0) {
            const small_batch_layout widest = small_batch_layout_for(a, e);
            EXPECT_LE(l.group, widest.group);
            EXPECT_LE(l.shared_bytes, widest.shared_bytes);
            const std::int64_t rounds = (widest.groups + resident - 1) / resident;
            EXPECT_LE(l.groups, rounds * resident);
          }
        }
    for (const auto& line : {dense_batch(5, 1, 64), dense_batch(5, 64, 1), dense_batch(5, 1, 1)})
      EXPECT_TRUE(small_batch_layout_for(line, e).copy);
  }
}

// Every element size on each shape, batches of 2 and more (most leave the last group cut short),
// pointers aligned and one element off.
TEST(GpuSmallBatch, EveryElementSizeOnEachShape) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 1;
  for (std::size_t e = 1; e <= 16; ++e) {
    int cut_groups = 0;
    for (const auto& shape : shapes)
      for (const std::int64_t wanted : {2, 37, 1001, 4099}) {
        const std::int64_t matrix = shape[0] * shape[1] * static_cast<std::int64_t>(e);
        const std::int64_t most = (std::int64_t{4} << 20) / matrix;  // 4 MiB at most
        const std::int64_t batch = wanted < most ? wanted : (most > 2 ? most | 1 : 2);
        copy_args a = dense_batch(batch, shape[0], shape[1]);
        const small_batch_layout l = detail::cuda::small_batch_launch_layout(a, e);
        if (!l.copy && l.groups * l.group != batch) ++cut_groups;
        for (const std::size_t offset : {std::size_t{0}, e})
          check_small_batch({shape[0], shape[1], e, batch, offset, offset}, ++seed);
      }
    EXPECT_GT(cut_groups, 0) << e << " bytes: no batch left its last group cut short";
  }
}

// Pointers off their alignment by odd byte counts, on either side or both.
TEST(GpuSmallBatch, PointersOffTheirAlignment) {
  XPOSE_REQUIRE_GPU();
  constexpr std::size_t offsets[][2] = {{1, 0}, {0, 3}, {5, 9}, {15, 1}, {8, 4}, {2, 14}};
  constexpr std::int64_t odd_shapes[][2] = {{16, 16}, {64, 64}, {24, 40}, {7, 13}, {2, 3}};
  std::uint64_t seed = 1000;
  for (std::size_t e = 1; e <= 16; ++e)
    for (const auto& shape : odd_shapes)
      for (const auto& offset : offsets)
        check_small_batch({shape[0], shape[1], e, 37, offset[0], offset[1]}, ++seed);
}

// Batches of many groups per resident block (two source buffers, one for 64 x 64 matrices of 16
// bytes, a destination image written in several pieces for 64 x 64 matrices of 15 bytes), on a
// stream of their own.
TEST(GpuSmallBatch, BlocksLoopOverManyGroups) {
  XPOSE_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const batch_case cases[] = {
      {32, 32, 1, 40001},       {16, 16, 4, 50000},     {24, 40, 3, 20001}, {16, 64, 2, 30000},
      {7, 13, 5, 60001},        {64, 64, 16, 1001},     {64, 64, 15, 701},  {32, 32, 8, 5003, 8, 8},
      {24, 40, 12, 4001, 4, 0}, {64, 16, 6, 9001, 2, 6}};
  std::uint64_t seed = 2000;
  for (const batch_case& c : cases) check_small_batch(c, ++seed, stream);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Few launches, small shapes: the filter compute-sanitizer runs (scripts/device_check.sh).
TEST(GpuSmallBatch, SmallBatchSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 3000;
  for (const std::size_t e : {1, 2, 3, 4, 6, 8, 12, 16}) {
    check_small_batch({7, 13, e, 37}, ++seed);
    check_small_batch({24, 40, e, 5, e, 1}, ++seed);
  }
  check_small_batch({64, 64, 5, 3}, ++seed);   // a destination image in two pieces
  check_small_batch({64, 64, 16, 3}, ++seed);  // one source buffer
  check_small_batch({1, 64, 4, 3}, ++seed);    // a copy
}

}  // namespace
}  // namespace xpose::test
