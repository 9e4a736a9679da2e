// copy_skinny_narrow (copy/skinny_narrow.cu): which shapes it takes and how it lays out a launch
// (no device needed); its blocks run thread by thread on the host (the kernel's pieces are
// host-callable; no device needed); and on a device every element size from 1 to 16 bytes and
// every short side from 1 to 16 against the host reference: random data, the destination
// poisoned (the bytes between strided rows, between matrices and after the batch must stay so),
// long sides around the stretch length (the last stretch cut short, whole, one index long) and a
// long one, both directions, batches with padded rows and matrices, pointers off their alignment.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/copy/skinny_narrow.hpp"
#include "cuda/copy/skinny_narrow_kernel.cuh"
#include "gpu_test_util.hpp"

namespace xpose::test {
namespace {

using detail::cuda::copy_args;
using detail::cuda::skinny_narrow_layout;
using detail::cuda::skinny_narrow_layout_for;
using detail::cuda::skinny_narrow_takes;

/// One case: `batch` matrices, tall (long_side x short_side) or wide (short_side x long_side).
struct narrow_case {
  std::int64_t long_side, short_side;
  std::size_t e;
  bool tall;
  std::int64_t batch = 1;
  std::int64_t strided_pad = 0;                // elements after each strided-side row
  std::int64_t src_gap = 0, dst_gap = 0;       // elements between matrices after their rows
  std::size_t src_offset = 0, dst_offset = 0;  // bytes past a 256-byte aligned allocation
  int stretch_bytes = 0;                       // 0: the launcher's
};

constexpr std::size_t margin = 64;  // poisoned bytes checked after the destination

/// The case's arguments (in elements), at `src` and `dst`.
copy_args args_of(const narrow_case& c, const void* src, void* dst) {
  copy_args a;
  a.src = src;
  a.dst = dst;
  a.batch = c.batch;
  a.rows = c.tall ? c.long_side : c.short_side;
  a.cols = c.tall ? c.short_side : c.long_side;
  a.lda = c.tall ? a.cols : a.cols + c.strided_pad;
  a.ldb = c.tall ? a.rows + c.strided_pad : a.rows;
  a.src_stride = a.rows * a.lda + c.src_gap;
  a.dst_stride = a.cols * a.ldb + c.dst_gap;
  return a;
}

/// Bytes from the first matrix's first element to the last one's last.
std::size_t span_bytes(std::int64_t batch, std::int64_t stride, std::int64_t lines, std::int64_t ld,
                       std::int64_t line, std::size_t e) {
  return static_cast<std::size_t>((batch - 1) * stride + (lines - 1) * ld + line) * e;
}
std::size_t source_bytes(const copy_args& a, std::size_t e) {
  return span_bytes(a.batch, a.src_stride, a.rows, a.lda, a.cols, e);
}
std::size_t destination_bytes(const copy_args& a, std::size_t e) {
  return span_bytes(a.batch, a.dst_stride, a.cols, a.ldb, a.rows, e);
}

/// A pointer value off a 256-byte boundary by `offset` bytes (the layout depends on alignment
/// only).
void* at_offset(std::size_t offset) {
  return reinterpret_cast<void*>(std::uintptr_t{256} + offset);
}

/// The stretch length the launcher picks for a case's element size, short side, direction,
/// alignment and stretch bytes (on a long side longer than a stretch).
std::int64_t stretch_of(const narrow_case& c) {
  narrow_case longer = c;
  longer.long_side = std::int64_t{1} << 20;
  return skinny_narrow_layout_for(args_of(longer, at_offset(c.src_offset), at_offset(c.dst_offset)),
                                  c.e, c.stretch_bytes)
      .params.length;
}

/// The host reference of a case: the destination bytes from dst_offset on, and `margin` more, of a
/// poisoned destination.
std::vector<unsigned char> expected_of(const narrow_case& c, const copy_args& a,
                                       const std::vector<unsigned char>& src) {
  std::vector<unsigned char> expected(c.dst_offset + destination_bytes(a, c.e) + margin,
                                      poison_byte);
  reference_batched(src.data(), expected.data() + c.dst_offset, a.batch, a.rows, a.cols, c.e, a.lda,
                    a.ldb, a.src_stride, a.dst_stride);
  return expected;
}

std::string describe(const narrow_case& c) {
  return std::to_string(c.batch) + " x " + (c.tall ? "tall " : "wide ") +
         std::to_string(c.long_side) + " x " + std::to_string(c.short_side) + " of " +
         std::to_string(c.e) + " bytes, strided pad " + std::to_string(c.strided_pad) + ", gaps " +
         std::to_string(c.src_gap) + "/" + std::to_string(c.dst_gap) + ", offsets " +
         std::to_string(c.src_offset) + "/" + std::to_string(c.dst_offset) + ", stretch bytes " +
         std::to_string(c.stretch_bytes);
}

/// Runs one case on the device and compares the destination allocation with the reference.
void check_on_device(const narrow_case& c, std::uint64_t seed) {
  const copy_args shape = args_of(c, nullptr, nullptr);
  const std::size_t src_bytes = source_bytes(shape, c.e), dst_bytes = destination_bytes(shape, c.e);
  device_buffer src(c.src_offset + src_bytes), dst(c.dst_offset + dst_bytes + margin);
  const std::vector<unsigned char> host_src = random_bytes(src_bytes, seed);
  src.upload(host_src, c.src_offset);
  dst.poison();
  const copy_args a = args_of(c, src.get() + c.src_offset, dst.get() + c.dst_offset);
  detail::cuda::launch_copy_skinny_narrow(a, c.e, nullptr, c.stretch_bytes);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << describe(c);
  const std::vector<unsigned char> expected = expected_of(c, a, host_src);
  const std::int64_t at = first_difference(dst.download(expected.size()), expected);
  ASSERT_EQ(at, -1) << describe(c) << ": first wrong byte " << at << " (the batch starts at "
                    << c.dst_offset << ")";
}

/// Bytes of host memory with a 256-byte aligned start.
class host_buffer {
 public:
  explicit host_buffer(std::size_t bytes) : storage_(bytes + 256) {}
  unsigned char* get() {
    const auto at = reinterpret_cast<std::uintptr_t>(storage_.data());
    return storage_.data() + ((256 - at % 256) % 256);
  }

 private:
  std::vector<unsigned char> storage_;
};

/// The kernel's blocks on the host: `blocks` blocks, each a thread part per thread, looping over
/// the stretches as the kernel does, every thread's step 1 before any thread's step 2.
template <int W>
void run_blocks_on_host(const skinny_narrow_layout& l, int blocks) {
  using part = detail::cuda::skinny_narrow_thread<W>;
  std::vector<uint4> shared_chunks(static_cast<std::size_t>(l.shared_bytes) / 16 + 1);
  auto* shared = reinterpret_cast<typename part::word*>(shared_chunks.data());
  for (int b = 0; b < blocks; ++b) {
    std::vector<part> threads;
    for (int t = 0; t < detail::cuda::skinny_narrow_threads; ++t) threads.emplace_back(l.params, t);
    if (b < l.params.total_stretches)
      for (part& t : threads) t.fetch(b);
    for (std::int64_t s = b; s < l.params.total_stretches; s += blocks) {
      std::memset(shared_chunks.data(), 0x5a, shared_chunks.size() * sizeof(uint4));
      for (part& t : threads) {
        t.enter(s);
        t.to_shared(shared);
      }
      for (part& t : threads) {
        if (s + blocks < l.params.total_stretches) t.fetch(s + blocks);
        t.from_shared(shared);
      }
    }
  }
}

/// Runs one case's blocks on the host and compares the destination with the reference.
void check_on_host(const narrow_case& c, int blocks, std::uint64_t seed) {
  const copy_args shape = args_of(c, nullptr, nullptr);
  const std::size_t src_bytes = source_bytes(shape, c.e), dst_bytes = destination_bytes(shape, c.e);
  host_buffer src(c.src_offset + src_bytes), dst(c.dst_offset + dst_bytes + margin);
  const std::vector<unsigned char> host_src = random_bytes(src_bytes, seed);
  std::memcpy(src.get() + c.src_offset, host_src.data(), src_bytes);
  std::memset(dst.get(), poison_byte, c.dst_offset + dst_bytes + margin);
  const copy_args a = args_of(c, src.get() + c.src_offset, dst.get() + c.dst_offset);
  const skinny_narrow_layout l = skinny_narrow_layout_for(a, c.e, c.stretch_bytes);
  detail::cuda::with_word(l.word_bytes, "host blocks",
                          [&](auto w) { run_blocks_on_host<decltype(w)::value>(l, blocks); });
  const std::vector<unsigned char> expected = expected_of(c, a, host_src);
  const std::vector<unsigned char> got(dst.get(), dst.get() + expected.size());
  const std::int64_t at = first_difference(got, expected);
  ASSERT_EQ(at, -1) << describe(c) << ", " << blocks << " blocks: first wrong byte " << at;
}

/// Long sides around the stretch length L of a case: L - 1, L, L + 1 and 3L + 5 (one stretch cut
/// short, whole, a second of one index, a last one cut short), those longer than the short side.
std::vector<std::int64_t> long_sides_around(const narrow_case& c) {
  const std::int64_t length = stretch_of(c);
  std::vector<std::int64_t> sides;
  for (const std::int64_t n : {length - 1, length, length + 1, 3 * length + 5})
    if (n > c.short_side) sides.push_back(n);
  return sides;
}

// ---- which shapes it takes, and the layout (no device) ----------------------------------------

TEST(SkinnyNarrowTakes, ShortSidesOfTwoToSixteenOnALongSide) {
  for (std::size_t e = 3; e <= 16; ++e)
    for (std::int64_t c = 2; c <= 16; ++c)
      for (const bool tall : {true, false})
        for (const std::int64_t n : {std::int64_t{4096}, std::int64_t{1000000}}) {
          EXPECT_TRUE(skinny_narrow_takes(args_of({n, c, e, tall}, nullptr, nullptr), e));
          narrow_case strided{n, c, e, tall, 3, 5, 7, 9};
          EXPECT_TRUE(skinny_narrow_takes(args_of(strided, at_offset(1), at_offset(3)), e));
        }
  for (const bool tall : {true, false}) {
    const narrow_case fine{1000000, 4, 12, tall};
    EXPECT_FALSE(skinny_narrow_takes(args_of(fine, nullptr, nullptr), 1));
    EXPECT_FALSE(skinny_narrow_takes(args_of(fine, nullptr, nullptr), 2));
    EXPECT_FALSE(skinny_narrow_takes(args_of(fine, nullptr, nullptr), 17));
    EXPECT_FALSE(skinny_narrow_takes(args_of({1000000, 1, 12, tall}, nullptr, nullptr), 12));
    EXPECT_FALSE(skinny_narrow_takes(args_of({1000000, 17, 12, tall}, nullptr, nullptr), 12));
    EXPECT_FALSE(skinny_narrow_takes(args_of({4095, 4, 12, tall}, nullptr, nullptr), 12));
    copy_args empty = args_of(fine, nullptr, nullptr);
    empty.batch = 0;
    EXPECT_FALSE(skinny_narrow_takes(empty, 12));
    copy_args padded = args_of(fine, nullptr, nullptr);  // the packed side's rows padded
    (tall ? padded.lda : padded.ldb) += 1;
    EXPECT_FALSE(skinny_narrow_takes(padded, 12));
    copy_args overlapping = args_of(fine, nullptr, nullptr);  // strided rows overlap
    (tall ? overlapping.ldb : overlapping.lda) -= 1;
    EXPECT_FALSE(skinny_narrow_takes(overlapping, 12));
  }
}

// The launcher refuses before it touches the device (so this holds without one too).
TEST(SkinnyNarrowTakes, LauncherRefusesWhatTheKernelDoesNotTake) {
  using detail::cuda::launch_copy_skinny_narrow;
  const copy_args fine = args_of({100000, 4, 12, true}, nullptr, nullptr);
  expect_refused([&] { launch_copy_skinny_narrow(fine, 0, nullptr); });
  expect_refused([&] { launch_copy_skinny_narrow(fine, 17, nullptr); });
  expect_refused([&] { launch_copy_skinny_narrow(fine, 12, nullptr, -1); });
  expect_refused([&] {
    launch_copy_skinny_narrow(fine, 12, nullptr,
                              detail::cuda::skinny_narrow_most_stretch_bytes + 1);
  });
  const copy_args wide17 = args_of({100000, 17, 12, false}, nullptr, nullptr);
  expect_refused([&] { launch_copy_skinny_narrow(wide17, 12, nullptr); });
  copy_args padded = fine;
  padded.lda = 5;
  expect_refused([&] { launch_copy_skinny_narrow(padded, 12, nullptr); });
  copy_args overlapping = args_of({100000, 4, 12, false}, nullptr, nullptr);
  overlapping.lda = 99999;
  expect_refused([&] { launch_copy_skinny_narrow(overlapping, 12, nullptr); });
  copy_args empty = fine;
  empty.rows = 0;
  expect_refused([&] { launch_copy_skinny_narrow(empty, 12, nullptr); });
}

// Stretches of a multiple of 16 indices (of 32 for odd element sizes where one fits) within the
// stretch bytes, or the whole long side; packed threads whose chunks make whole packed rows;
// strided runs a whole number of chunks apart with room for a run at any misalignment; words of
// the widest power of two dividing the element size and the pointers.
TEST(SkinnyNarrowLayout, StretchesPitchesAndThreads) {
  constexpr std::size_t offsets[][2] = {{0, 0}, {4, 8}, {2, 6}, {1, 0}, {8, 8}};
  for (std::size_t e = 1; e <= 16; ++e)
    for (std::int64_t c = 1; c <= 16; ++c)
      for (const bool tall : {true, false})
        for (const auto& offset : offsets)
          for (const int stretch : {0, 4096, detail::cuda::skinny_narrow_most_stretch_bytes}) {
            const narrow_case nc{1000000, c, e, tall, 1, 0, 0, 0, offset[0], offset[1], stretch};
            const skinny_narrow_layout l = skinny_narrow_layout_for(
                args_of(nc, at_offset(offset[0]), at_offset(offset[1])), e, stretch);
            const auto& p = l.params;
            SCOPED_TRACE(describe(nc));
            int w = 16;
            while ((e | offset[0] | offset[1]) % w != 0) w /= 2;
            ASSERT_EQ(l.word_bytes, w);
            const int v = 16 / w, k = static_cast<int>(e) / w;
            const int bytes = stretch ? stretch : detail::cuda::skinny_narrow_stretch_bytes;
            EXPECT_EQ(p.words, k);
            EXPECT_EQ(p.tall, tall);
            EXPECT_EQ(p.length % 16, 0);
            EXPECT_GE(p.length, 16);
            if (p.length > 16) {
              EXPECT_LE(p.length * c * static_cast<std::int64_t>(e), bytes);
            }
            if (e % 2 == 1 && bytes / (c * static_cast<std::int64_t>(e)) >= 64) {
              EXPECT_EQ(p.length % 32, 0);
            }
            EXPECT_EQ(p.stretches_per_matrix, (1000000 + p.length - 1) / p.length);
            EXPECT_GT(p.packed_threads, detail::cuda::skinny_narrow_threads / 2);
            EXPECT_LE(p.packed_threads, detail::cuda::skinny_narrow_threads);
            EXPECT_EQ(p.packed_threads * v % (c * k), 0);
            EXPECT_EQ(p.packed_step, p.packed_threads * v / c);
            EXPECT_EQ(p.pitch % v, 0);
            EXPECT_GE(p.pitch, p.length * k + v - 1);
            EXPECT_LT(p.pitch, p.length * k + 2 * v - 2 + 8 * v);
            EXPECT_EQ(l.shared_bytes, c * p.pitch * w);
            EXPECT_LT(c * p.pitch, 65536 - v);  // positions of 16 bits
          }
  // A long side shorter than a stretch is one stretch.
  const skinny_narrow_layout short_one =
      skinny_narrow_layout_for(args_of({100, 3, 12, true}, nullptr, nullptr), 12);
  EXPECT_EQ(short_one.params.length, 100);
  EXPECT_EQ(short_one.params.stretches_per_matrix, 1);
}

// ---- the blocks on the host (no device) -------------------------------------------------------

// Every element size and a spread of short sides, long sides around small stretches (so that
// blocks loop over many, and threads take several chunks), both directions, pointers on and off
// their alignment, batches with padded rows and matrices whose misalignments differ, blocks that
// cross from one matrix to the next.
TEST(SkinnyNarrowOnTheHost, BlocksMatchTheReference) {
  constexpr std::size_t offsets[][2] = {{0, 0}, {4, 12}, {3, 9}, {8, 0}};
  std::uint64_t seed = 100;
  for (std::size_t e = 1; e <= 16; ++e)
    for (const std::int64_t c : {1, 2, 3, 5, 8, 13, 16})
      for (const bool tall : {true, false})
        for (const auto& offset : offsets)
          for (const int stretch : {2048, 20000}) {
            narrow_case nc{0, c, e, tall, 1, 0, 0, 0, offset[0], offset[1], stretch};
            for (const std::int64_t n : long_sides_around(nc)) {
              nc.long_side = n;
              nc.batch = 1;
              nc.strided_pad = nc.src_gap = nc.dst_gap = 0;
              ++seed;
              check_on_host(nc, 1 + static_cast<int>(seed % 4), seed);
              nc.batch = 3;
              nc.strided_pad = 3;
              nc.src_gap = 5;
              nc.dst_gap = 2;
              ++seed;
              check_on_host(nc, 1 + static_cast<int>(seed % 4), seed);
            }
          }
}

// ---- on a device ------------------------------------------------------------------------------

// Every element size from 1 to 16 bytes and every short side from 1 to 16, both directions, long
// sides around the stretch length, the launcher's stretches.
TEST(GpuSkinnyNarrow, EveryElementSizeAndShortSideAroundTheStretch) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 1000;
  for (std::size_t e = 1; e <= 16; ++e)
    for (std::int64_t c = 1; c <= 16; ++c)
      for (const bool tall : {true, false}) {
        narrow_case nc{0, c, e, tall};
        for (const std::int64_t n : long_sides_around(nc)) {
          nc.long_side = n;
          check_on_device(nc, ++seed);
        }
      }
}

// A long side of 100003 (many stretches, the last one cut short) for every element size, short
// sides of 2, 3, 9 and 16, both directions, pointers on and one element off their alignment.
TEST(GpuSkinnyNarrow, LongSideOf100003) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 2000;
  for (std::size_t e = 1; e <= 16; ++e)
    for (const std::int64_t c : {2, 3, 9, 16})
      for (const bool tall : {true, false}) {
        check_on_device({100003, c, e, tall}, ++seed);
        check_on_device({100003, c, e, tall, 1, 0, 0, 0, e % 16, (2 * e) % 16}, ++seed);
      }
}

// Batches of three with padded strided rows and padded matrices (so that the matrices' runs
// start at different misalignments), pointers off their alignment by odd byte counts and by
// whole elements, both directions.
TEST(GpuSkinnyNarrow, BatchesWithStridesAndPointersOffTheirAlignment) {
  XPOSE_REQUIRE_GPU();
  constexpr std::size_t offsets[][2] = {{0, 0}, {1, 0}, {0, 3}, {5, 9}, {15, 1}, {8, 4}, {4, 12}};
  std::uint64_t seed = 3000;
  for (std::size_t e = 1; e <= 16; ++e)
    for (const std::int64_t c : {2, 3, 7, 16})
      for (const bool tall : {true, false})
        for (const auto& offset : offsets) {
          narrow_case nc{0, c, e, tall, 3, 1 + c % 3, 3, 5, offset[0], offset[1]};
          nc.long_side = 3 * stretch_of(nc) + 5;
          check_on_device(nc, ++seed);
        }
}

// Stretches other than the launcher's (as a sweep passes them): several rounds of chunks per
// thread, and stretches shorter than a round.
TEST(GpuSkinnyNarrow, StretchBytesOfASweep) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 4000;
  for (const int stretch :
       {1024, 8192, 24576, 32768, detail::cuda::skinny_narrow_most_stretch_bytes})
    for (const std::size_t e : {3, 6, 12, 16})
      for (const std::int64_t c : {2, 5, 16})
        for (const bool tall : {true, false}) {
          narrow_case nc{0, c, e, tall, 3, 2, 1, 7, 0, 0, stretch};
          nc.long_side = 2 * stretch_of(nc) + 3;
          check_on_device(nc, ++seed);
        }
}

// Few launches, small shapes: the filter compute-sanitizer runs (scripts/device_check.sh). Both
// directions, words of 1, 4 and 16 bytes, cut chunks at both ends of the runs, a batch whose
// matrices loop in one block.
TEST(GpuSkinnyNarrow, SkinnyNarrowSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 5000;
  for (const bool tall : {true, false}) {
    check_on_device({1500, 2, 12, tall}, ++seed);
    check_on_device({700, 16, 12, tall, 1, 0, 0, 0, 4, 8}, ++seed);
    check_on_device({900, 3, 16, tall}, ++seed);
    check_on_device({1000, 5, 3, tall, 1, 0, 0, 0, 1, 2}, ++seed);
    check_on_device({300, 4, 12, tall, 3, 3, 1, 2, 0, 0, 2048}, ++seed);
  }
}

}  // namespace
}  // namespace xpose::test
