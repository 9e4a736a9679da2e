// Out-of-place CPU transposition (cpu::copy_transpose, and copy_transpose_with_policy for the
// paths a policy selects) against an element-by-element reference on random data. Destinations
// are poisoned first and compared whole, so gaps between rows and between matrices of a batch
// must come back untouched. Policies that stream every destination (stream=0) run the
// non-temporal stores, their heads, tails and carried lines, on small shapes at every alignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/copy_policy.hpp"
#include "cpu/cpu_kernels.hpp"
#include "test_util.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
namespace {

using xpose::test::random_bytes;
using xpose::test::reference_transpose;

struct copy_case {
  std::int64_t rows, cols;
  std::size_t elem;
  std::int64_t lda = 0, ldb = 0;  // 0: dense
  std::int64_t batch = 1;
  std::int64_t src_stride = 0, dst_stride = 0;  // 0: dense
  std::int64_t tile = 0;
  std::size_t dst_offset_bytes = 0;  // misaligns the destination
};

/// Runs copy_transpose (or copy_transpose_with_policy with `policy`) on case c and checks that
/// the whole destination buffer equals the reference.
void check_copy(copy_case c, int threads = 2, const copy_policy* policy = nullptr) {
  if (c.lda == 0) c.lda = c.cols;
  if (c.ldb == 0) c.ldb = c.rows;
  if (c.src_stride == 0) c.src_stride = c.rows * c.lda;
  if (c.dst_stride == 0) c.dst_stride = c.cols * c.ldb;
  const auto e = static_cast<std::int64_t>(c.elem);
  const std::size_t src_bytes =
      static_cast<std::size_t>((c.batch - 1) * c.src_stride + (c.rows - 1) * c.lda + c.cols) *
      c.elem;
  const std::size_t dst_bytes =
      static_cast<std::size_t>((c.batch - 1) * c.dst_stride + (c.cols - 1) * c.ldb + c.rows) *
      c.elem;
  const std::vector<std::byte> src = random_bytes<std::byte>(src_bytes, 1 + c.rows * 131 + c.cols);
  std::vector<std::byte> dst_buffer =
      random_bytes<std::byte>(dst_bytes + c.dst_offset_bytes, 7 + c.cols);
  std::vector<std::byte> expected = dst_buffer;
  std::byte* const want = expected.data() + c.dst_offset_bytes;
  for (std::int64_t b = 0; b < c.batch; ++b)
    reference_transpose(src.data() + b * c.src_stride * e, want + b * c.dst_stride * e, c.rows,
                        c.cols, c.elem, c.lda, c.ldb);

  stage s;
  s.kind = stage_kind::copy_transpose;
  s.variant = route::copy_blocked;
  s.batch = c.batch;
  s.rows = c.rows;
  s.cols = c.cols;
  s.super_bytes = c.elem;
  s.tile = c.tile;
  s.lda = c.lda;
  s.ldb = c.ldb;
  s.src_batch_stride = c.src_stride;
  s.dst_batch_stride = c.dst_stride;
  std::byte* const dst = dst_buffer.data() + c.dst_offset_bytes;
  if (policy != nullptr)
    copy_transpose_with_policy(src.data(), dst, s, *policy, threads);
  else
    copy_transpose(src.data(), dst, s, threads);
  ASSERT_TRUE(dst_buffer == expected)
      << c.rows << " x " << c.cols << ", " << c.elem << "-byte elements, lda " << c.lda << ", ldb "
      << c.ldb << ", batch " << c.batch << ", tile " << c.tile << ", destination offset "
      << c.dst_offset_bytes << ", threads " << threads
      << (policy != nullptr ? ", policy " + to_string(*policy) : std::string());
}

const std::size_t element_sizes[] = {1, 2, 4, 8, 16, 12};

TEST(CopyTranspose, EveryShapeUpTo64) {
  for (std::size_t e : element_sizes)
    for (std::int64_t rows = 1; rows <= 64; ++rows)
      for (std::int64_t cols = 1; cols <= 64; ++cols) {
        check_copy({rows, cols, e}, 1);
        if (HasFatalFailure()) return;
      }
}

TEST(CopyTranspose, SmallShapesWithGapsAndSmallTiles) {
  for (std::size_t e : element_sizes)
    for (std::int64_t rows : {1, 5, 17, 33, 64})
      for (std::int64_t cols : {1, 3, 16, 31, 64}) {
        copy_case c{rows, cols, e, cols + 3, rows + 5};
        c.tile = 16;
        check_copy(c, 2);
        if (HasFatalFailure()) return;
      }
}

TEST(CopyTranspose, RandomShapesUpTo1600) {
  std::mt19937_64 gen(42);
  for (std::size_t e : element_sizes)
    for (int k = 0; k < 3; ++k) {
      const auto rows = static_cast<std::int64_t>(100 + gen() % 1500);
      const auto cols = static_cast<std::int64_t>(100 + gen() % 1500);
      check_copy({rows, cols, e});
      if (HasFatalFailure()) return;
    }
}

TEST(CopyTranspose, PrimeShapes) {
  for (std::size_t e : element_sizes) {
    check_copy({997, 1009, e});
    check_copy({2053, 131, e});
    check_copy({7, 4099, e});
    if (HasFatalFailure()) return;
  }
}

// Destinations of at least 8 MiB take non-temporal stores, aligned or not.
TEST(CopyTranspose, DestinationsOf8MiBAlignedAndMisaligned) {
  check_copy({2048, 1024, 4});
  check_copy({1024, 2048, 8});
  check_copy({1031, 4096, 2});
  check_copy({2048, 1024, 4, 0, 0, 1, 0, 0, 0, 4});
  check_copy({1024, 2048, 8, 0, 0, 1, 0, 0, 0, 8});
  check_copy({700, 600, 16, 0, 0, 1, 0, 0, 0, 16});
  check_copy({4096, 2051, 1});
}

TEST(CopyTranspose, SkinnyAndTall) {
  for (std::int64_t narrow : {2, 3, 5, 8, 17, 32, 64})
    for (std::int64_t wide : {100000, 1000003}) {
      if (narrow * wide > 8000000) continue;
      for (std::size_t e : {std::size_t{1}, std::size_t{4}, std::size_t{16}, std::size_t{12}}) {
        if (e > 4 && narrow * wide > 2000000) continue;
        check_copy({narrow, wide, e});
        check_copy({wide, narrow, e});
        if (HasFatalFailure()) return;
      }
    }
}

TEST(CopyTranspose, LeadingDimensionsWiderThanDense) {
  for (std::size_t e : element_sizes) {
    check_copy({300, 200, e, 211, 333});
    check_copy({513, 1025, e, 1100, 600});
    check_copy({64, 64, e, 1024, 1024});
    if (HasFatalFailure()) return;
  }
}

TEST(CopyTranspose, BatchedWithStrides) {
  for (std::size_t e : element_sizes) {
    check_copy({37, 53, e, 0, 0, 5});
    check_copy({100, 70, e, 75, 110, 3, 100 * 75 + 13, 70 * 110 + 29});
    check_copy({256, 512, e, 0, 0, 4, 0, 0, 100});
    if (HasFatalFailure()) return;
  }
}

TEST(CopyTranspose, ExplicitTileEdges) {
  for (std::int64_t tile : {1, 3, 8, 40, 64, 1000})
    for (std::size_t e : element_sizes) {
      copy_case c{531, 389, e};
      c.tile = tile;
      check_copy(c);
      if (HasFatalFailure()) return;
    }
}

TEST(CopyTranspose, OneThreadAndManyThreads) {
  for (int threads : {1, 3, 8}) {
    check_copy({777, 555, 4}, threads);
    check_copy({555, 777, 8}, threads);
  }
}

/// A policy over the defaults, streaming every destination unless the text says otherwise.
copy_policy streaming_policy(const std::string& text) {
  copy_policy defaults;
  defaults.streaming_min_bytes = 0;
  defaults.isa = copy_isa::avx2;  // SSE2 where the CPU has no AVX2
  return parse_copy_policy(text, defaults);
}

// Every element size from 1 to 16 bytes has its own instantiation; some larger ones share one.
TEST(CopyTranspose, EveryElementSizeUpTo16AndLarger) {
  const copy_policy streaming = streaming_policy("");
  for (std::size_t e = 1; e <= 40; e += e < 16 ? 1 : 7) {
    check_copy({67, 45, e});
    check_copy({131, 70, e, 140, 133}, 3, &streaming);
    if (HasFatalFailure()) return;
  }
  for (std::size_t e : {std::size_t{100}, std::size_t{1024}}) {
    check_copy({37, 29, e});
    check_copy({37, 29, e, 0, 0, 2}, 2, &streaming);
    if (HasFatalFailure()) return;
  }
}

// Non-temporal stores at every destination alignment: the head of each piece up to a line
// boundary, the whole lines, and the tail, carried into the next piece of the row or written.
TEST(CopyTranspose, StreamingAtEveryDestinationOffset) {
  const copy_policy streaming = streaming_policy("");
  for (std::size_t offset = 0; offset < 64; offset += 5)
    for (std::size_t e : {std::size_t{1}, std::size_t{4}, std::size_t{8}, std::size_t{12}}) {
      copy_case c{333, 187, e};
      c.dst_offset_bytes = offset;
      check_copy(c, 2, &streaming);
      c.ldb = c.rows + 3;  // every destination row at another offset
      check_copy(c, 3, &streaming);
      if (HasFatalFailure()) return;
    }
}

// Short, dense destination rows are written as one run per tile, lines across row ends; a
// batch whose matrices lie back to back continues the run from one matrix to the next.
TEST(CopyTranspose, ShortDestinationRowsAsOneRun) {
  const copy_policy streaming = streaming_policy("");
  for (std::size_t e : element_sizes)
    for (std::int64_t rows : {1, 3, 16, 255}) {
      for (std::size_t offset : {std::size_t{0}, std::size_t{24}}) {
        copy_case c{rows, 1500, e};
        c.dst_offset_bytes = offset;
        check_copy(c, 2, &streaming);
        c.batch = 3;
        check_copy(c, 2, &streaming);
        c.dst_stride = 1500 * rows + 7;  // gaps between the matrices
        check_copy(c, 2, &streaming);
        if (HasFatalFailure()) return;
      }
    }
}

// Every policy knob on one misaligned and one aligned shape, each element size.
TEST(CopyTranspose, EveryPolicy) {
  for (const char* text : {"src=64 dst=64", "src=256 dst=256", "src=256 dst=1024",
                           "src=1024 dst=4096", "src=100 dst=300", "down", "down src=1024 dst=256",
                           "nta", "noprefetch", "sse2", "avx2 down nta", "stream=1000"})
    for (std::size_t e : element_sizes) {
      const copy_policy policy = streaming_policy(text);
      copy_case misaligned{700, 333, e, 0, 0, 2};
      misaligned.dst_offset_bytes = 8;
      check_copy(misaligned, 3, &policy);
      check_copy({512, 256, e}, 2, &policy);
      if (HasFatalFailure()) return;
    }
}

TEST(CopyPolicy, TextRoundTripsAndBadWordsAreNamed) {
  copy_policy p = parse_copy_policy("src=512, dst=2048 down nta stream=4 sse2", copy_policy{});
  EXPECT_EQ(p.src_segment_bytes, 512);
  EXPECT_EQ(p.dst_segment_bytes, 2048);
  EXPECT_EQ(p.order, copy_order::down);
  EXPECT_EQ(p.prefetch, copy_prefetch::non_temporal);
  EXPECT_EQ(p.streaming_min_bytes, std::int64_t{4} << 20);
  EXPECT_EQ(p.isa, copy_isa::sse2);
  const copy_policy again = parse_copy_policy(to_string(p), copy_policy{});
  EXPECT_EQ(to_string(again), to_string(p));
  for (const char* bad : {"tile=4", "src=", "src=-1", "dst=0", "fast"}) {
    try {
      parse_copy_policy(bad, copy_policy{});
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const xpose::error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(bad).substr(0, 3)), std::string::npos)
          << e.what();
    }
  }
}

// The chosen policy: short tiles where destination rows start on lines, long ones elsewhere.
TEST(CopyPolicy, ChosenTilesFollowTheDestinationRows) {
  alignas(64) std::byte line[128];
  stage s;
  s.kind = stage_kind::copy_transpose;
  s.rows = 1000;
  s.cols = 500;
  s.super_bytes = 4;
  s.lda = 500;
  s.ldb = 1024;
  EXPECT_EQ(choose_copy_policy(s, line, 2).dst_segment_bytes, 256);
  EXPECT_GT(choose_copy_policy(s, line + 4, 2).dst_segment_bytes, 256);
  s.ldb = 1001;
  EXPECT_GT(choose_copy_policy(s, line, 2).dst_segment_bytes, 256);
}

// More than 2^31 elements: 64-bit index math. The source holds a pattern computed from (r, c), so
// the check needs no second copy.
TEST(CopyTransposeLarge, MoreThan2To31Elements) {
  const std::int64_t rows = 65537, cols = 32771;  // 2,147,713,027 > 2^31 one-byte elements
  ASSERT_GT(rows * cols, std::int64_t{1} << 31);
  const auto pattern = [](std::int64_t r, std::int64_t c) {
    return static_cast<std::byte>((r * 7 + c * 13 + (r >> 8) * 3) & 0xff);
  };
  std::vector<std::byte> src(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) src[r * cols + c] = pattern(r, c);
  std::vector<std::byte> dst(src.size(), std::byte{0x5a});
  stage s;
  s.kind = stage_kind::copy_transpose;
  s.rows = rows;
  s.cols = cols;
  s.super_bytes = 1;
  s.lda = cols;
  s.ldb = rows;
  s.src_batch_stride = s.dst_batch_stride = rows * cols;
  copy_transpose(src.data(), dst.data(), s, 2);
  std::int64_t wrong = 0;
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) wrong += dst[c * rows + r] != pattern(r, c);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace xpose::detail::cpu
