// Out-of-place transposition on the GPU through the public API, every variant, against the
// host reference on random data, with poisoned destinations (gaps between strided rows and
// matrices must stay poisoned).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda/copy/launchers.hpp"
#include "cuda/dispatch/copy_dispatch.hpp"
#include "cuda/tuning/copy_policies.hpp"
#include "gpu_test_util.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace xpose::test {
namespace {

struct copy_case {
  std::int64_t rows, cols;
  std::size_t e;
  std::int64_t lda = 0, ldb = 0;  // 0 = dense
  std::int64_t batch = 1, src_stride = 0, dst_stride = 0;
  std::size_t src_offset = 0, dst_offset = 0;  // bytes past a 256-byte aligned allocation
  storage_order order = storage_order::row_major;
};

constexpr route gpu_copy_variants[] = {route::copy_tuned, route::copy_naive,
                                       route::copy_shared_tiles, route::copy_padded_tiles,
                                       route::copy_multi_element};
constexpr std::size_t element_sizes[] = {1, 2, 4, 8, 16, 12};

std::int64_t span_elements(std::int64_t batch, std::int64_t stride, std::int64_t lines,
                           std::int64_t ld, std::int64_t line_length) {
  return (batch - 1) * stride + (lines - 1) * ld + line_length;
}

/// Launch arguments of one dense matrix, null pointers (aligned on everything).
detail::cuda::copy_args dense_args(std::int64_t rows, std::int64_t cols) {
  detail::cuda::copy_args a;
  a.rows = rows;
  a.cols = cols;
  a.lda = cols;
  a.ldb = rows;
  a.src_stride = a.dst_stride = rows * cols;
  return a;
}

/// Runs one case with buffers large enough for it (allocated here unless given).
void check_copy(const copy_case& c, route variant, std::uint64_t seed,
                const device_buffer* src_buffer = nullptr,
                const device_buffer* dst_buffer = nullptr, void* stream = nullptr) {
  // Row-major view of the case (a column-major rows x cols matrix is row-major cols x rows).
  const bool row_major = c.order == storage_order::row_major;
  const std::int64_t r = row_major ? c.rows : c.cols, k = row_major ? c.cols : c.rows;
  const std::int64_t lda = c.lda ? c.lda : k, ldb = c.ldb ? c.ldb : r;
  const std::int64_t src_stride = c.src_stride ? c.src_stride : r * lda;
  const std::int64_t dst_stride = c.dst_stride ? c.dst_stride : k * ldb;
  const std::size_t src_bytes = span_elements(c.batch, src_stride, r, lda, k) * c.e;
  const std::size_t dst_bytes = span_elements(c.batch, dst_stride, k, ldb, r) * c.e;

  std::unique_ptr<device_buffer> own_src, own_dst;
  if (!src_buffer) {
    own_src = std::make_unique<device_buffer>(src_bytes + c.src_offset);
    src_buffer = own_src.get();
  }
  if (!dst_buffer) {
    own_dst = std::make_unique<device_buffer>(dst_bytes + c.dst_offset);
    dst_buffer = own_dst.get();
  }
  const std::vector<unsigned char> host_src = random_bytes(src_bytes, seed);
  src_buffer->upload(host_src, c.src_offset);
  dst_buffer->poison();

  matrix_desc desc{c.rows, c.cols, c.e, c.order, c.lda, c.batch, c.src_stride};
  plan_options options;
  options.target = device::cuda;
  options.forced_route = variant;
  options.stream = stream;
  const plan p = plan_copy(desc, c.ldb, c.dst_stride, options);
  p.execute(src_buffer->get() + c.src_offset, dst_buffer->get() + c.dst_offset);
  ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), cudaSuccess);

  std::vector<unsigned char> expected(dst_bytes, poison_byte);
  reference_batched(host_src.data(), expected.data(), c.batch, r, k, c.e, lda, ldb, src_stride,
                    dst_stride);
  const std::vector<unsigned char> got = dst_buffer->download(dst_bytes, c.dst_offset);
  const std::int64_t at = first_difference(got, expected);
  ASSERT_EQ(at, -1) << to_string(variant) << ": " << c.rows << " x " << c.cols << " x " << c.e
                    << " bytes, lda " << lda << ", ldb " << ldb << ", batch " << c.batch
                    << ", offsets " << c.src_offset << "/" << c.dst_offset << ": first wrong byte "
                    << at;
}

TEST(GpuCopyTranspose, ExhaustiveShapesUpTo64EveryElementSize) {
  XPOSE_REQUIRE_GPU();
  for (std::size_t e : element_sizes) {
    device_buffer src(64 * 64 * e), dst(64 * 64 * e);
    for (std::int64_t rows = 1; rows <= 64; ++rows)
      for (std::int64_t cols = 1; cols <= 64; ++cols)
        check_copy({rows, cols, e}, route::copy_tuned, rows * 131 + cols, &src, &dst);
  }
}

TEST(GpuCopyTranspose, DenseSampleOfSmallShapesEveryVariant) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t sides[] = {1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65};
  for (route variant : gpu_copy_variants)
    for (std::size_t e : element_sizes) {
      device_buffer src(65 * 65 * e), dst(65 * 65 * e);
      for (std::int64_t rows : sides)
        for (std::int64_t cols : sides)
          check_copy({rows, cols, e}, variant, rows * 7 + cols + e, &src, &dst);
    }
}

// An error an earlier CUDA call of the caller's left pending (a failed allocation) is not taken
// for a failed launch: the transposition runs, is right, and leaves no error pending.
TEST(GpuCopyTranspose, ErrorLeftPendingByAnEarlierCallIsNotTakenForALaunchFailure) {
  XPOSE_REQUIRE_GPU();
  for (const copy_case& c : {copy_case{300, 200, 4}, copy_case{129, 70, 12}}) {
    void* too_large = nullptr;
    const cudaError_t failed = cudaMalloc(&too_large, std::size_t{1} << 62);
    ASSERT_NE(failed, cudaSuccess);
    ASSERT_EQ(cudaPeekAtLastError(), failed);
    check_copy(c, route::copy_tuned, c.rows + c.e);
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  }
}

// Few launches, small shapes: the filter compute-sanitizer runs (scripts/device_check.sh).
TEST(GpuCopyTranspose, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (route variant : gpu_copy_variants)
    for (std::size_t e : element_sizes) {
      check_copy({130, 260, e}, variant, 1 + e);
      check_copy({67, 45, e, 50, 70, 2, 67 * 50 + 3, 45 * 70 + 5, e, 2 * e}, variant, 2 + e);
    }
}

// Rows on 16 bytes and destination rows on 32 (copy_tuned's own tiles), with tiles cut by the
// last row and column, padded strides, a batch.
TEST(GpuCopyTranspose, AlignedTilesCutByTheEdgesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (std::size_t e : {1, 2, 4, 8, 16}) {
    // The next multiple of 32 bytes above n elements.
    const auto pad = [e](std::int64_t n) {
      const std::int64_t per_32 = 32 / static_cast<std::int64_t>(e);
      return (n / per_32 + 1) * per_32;
    };
    const std::int64_t long_side = 2560 / static_cast<std::int64_t>(e);
    check_copy({160, long_side, e}, route::copy_tuned, 91 + e);
    check_copy({long_side, 160, e}, route::copy_tuned, 92 + e);
    check_copy({200, 300, e, pad(300), pad(200), 2}, route::copy_tuned, 93 + e);
    check_copy({130, 600, e, pad(600), pad(130)}, route::copy_tuned, 94 + e);
  }
}

// Matrices of 1- and 2-byte elements of at least copy_tuned_large_bytes and copy_tuned_large_rows
// rows take copy_tuned_large's tiles on the H100 (8-byte ones the standard tiles): cut by the
// last row and column (rows and columns left that fill part of a 16-byte vector), padded strides,
// a batch of two; 1-, 2- and 4-byte ones with rows off 16 bytes copy_unaligned_large's policy.
TEST(GpuCopyTranspose, LargeMatrixTilesCutByTheEdges) {
  XPOSE_REQUIRE_GPU();
  using detail::cuda::copy_tuned_large_bytes, detail::cuda::copy_tuned_large_rows;
  static_assert(std::int64_t{16417} * 16401 >= copy_tuned_large_bytes);
  static_assert(std::int64_t{16416} * 16400 >= copy_tuned_large_bytes);
  static_assert(std::int64_t{11585} * 11593 * 2 >= copy_tuned_large_bytes);
  static_assert(std::int64_t{8193} * 4105 * 8 >= copy_tuned_large_bytes);
  static_assert(copy_tuned_large_rows <= 8193);
  check_copy({16417, 16401, 1, 16416, 16448}, route::copy_tuned, 95);
  check_copy({16416, 16400, 1, 0, 0, 2}, route::copy_tuned, 96);
  check_copy({11585, 11593, 2, 11600, 11616}, route::copy_tuned, 97);
  check_copy({8193, 4105, 8, 4106, 8196}, route::copy_tuned, 98);
  // Rows off 16 bytes: copy_unaligned with copy_unaligned_large's policy (1-, 2- and 4-byte
  // elements).
  static_assert(std::int64_t{16383} * 16385 >= detail::cuda::copy_unaligned_large_bytes);
  static_assert(std::int64_t{16383} * 8193 * 2 >= detail::cuda::copy_unaligned_large_bytes);
  static_assert(std::int64_t{12001} * 4201 * 4 >= detail::cuda::copy_unaligned_large_bytes);
  check_copy({16383, 16385, 1}, route::copy_tuned, 99);
  check_copy({16383, 8193, 2}, route::copy_tuned, 100);
  check_copy({12001, 4201, 4, 4203, 12007}, route::copy_tuned, 101);
}

// Below the large rule, 4-byte matrices of at least copy_unaligned_short_large_bytes take
// copy_unaligned_large's 120-row tiles where those fill the rows at least 1/16 better than the
// standard 56-row ones: rows 225-240 and 337-360. Both sides of each line and of the bytes; 1-
// and 2-byte elements never; the dispatch gives 4-byte shapes of up to 250 rows to
// copy_full_height first, so 240 rows do not reach copy_unaligned; then a padded shape of 353
// rows against the reference.
TEST(GpuCopyTranspose, ShortUnalignedMatricesTakeLargeTilesThatFillTheRows) {
  XPOSE_REQUIRE_GPU();
  using detail::cuda::copy_unaligned_takes_large;
  static_assert(std::int64_t{224} * 150001 * 4 >= detail::cuda::copy_unaligned_short_large_bytes);
  static_assert(std::int64_t{336} * 100001 * 4 >= detail::cuda::copy_unaligned_short_large_bytes);
  for (const std::int64_t rows : {225, 240, 337, 352, 360})
    EXPECT_TRUE(copy_unaligned_takes_large(dense_args(rows, rows < 300 ? 150001 : 100001), 4))
        << rows;
  for (const std::int64_t rows : {224, 241, 336, 361, 480, 704})
    EXPECT_FALSE(copy_unaligned_takes_large(dense_args(rows, rows < 300 ? 150001 : 100001), 4))
        << rows;
  EXPECT_FALSE(copy_unaligned_takes_large(dense_args(240, 139810), 4));  // 8 bytes short
  EXPECT_TRUE(copy_unaligned_takes_large(dense_args(240, 139811), 4));
  EXPECT_FALSE(copy_unaligned_takes_large(dense_args(240, 279621), 2));
  EXPECT_FALSE(copy_unaligned_takes_large(dense_args(240, 559241), 1));
  EXPECT_TRUE(copy_unaligned_takes_large(dense_args(16383, 8193), 4));  // the large rule
  EXPECT_EQ(detail::cuda::choose_copy_kernel(dense_args(240, 139811), 4),
            detail::cuda::copy_kernel::full_height);
  EXPECT_EQ(detail::cuda::choose_copy_kernel(dense_args(353, 95100), 4),
            detail::cuda::copy_kernel::unaligned);
  check_copy({353, 95100, 4, 95103, 360}, route::copy_tuned, 103);
}

// On the H100's memory, 1-byte matrices of at least copy_unaligned_large_bytes take
// copy_unaligned_tall_policy's 352-row tiles where those fill the rows at least 1/5 better than
// the standard 224-row ones: rows 673-704. Both sides of the rows and of the bytes; 2- and 4-byte
// elements never; the large rule first. Then the rule's shape through the dispatch against the
// reference.
TEST(GpuCopyTranspose, ShortOneByteUnalignedMatricesTakeTallTilesThatFillTheRows) {
  XPOSE_REQUIRE_GPU();
  using namespace detail::cuda;
  const bool h100_memory = xpose::test::has_h100_memory_interface();
  static_assert(copy_unaligned_large_bytes == std::int64_t{3} << 26);
  for (const std::int64_t rows : {673, 680, 700, 704})
    EXPECT_EQ(copy_unaligned_takes_tall(dense_args(rows, 300001), 1), h100_memory) << rows;
  for (const std::int64_t rows : {600, 650, 672, 705, 720, 900, 1001})
    EXPECT_FALSE(copy_unaligned_takes_tall(dense_args(rows, 300001), 1)) << rows;
  EXPECT_FALSE(copy_unaligned_takes_tall(dense_args(700, 287609), 1));  // 292 bytes short
  EXPECT_EQ(copy_unaligned_takes_tall(dense_args(700, 287610), 1), h100_memory);
  EXPECT_FALSE(copy_unaligned_takes_tall(dense_args(700, 300001), 2));
  EXPECT_FALSE(copy_unaligned_takes_tall(dense_args(700, 300001), 4));
  EXPECT_EQ(choose_unaligned_tiles(dense_args(700, 436912), 1),
            h100_memory ? unaligned_tiles::tall : unaligned_tiles::standard);
  EXPECT_EQ(choose_unaligned_tiles(dense_args(16383, 16385), 1),
            h100_memory ? unaligned_tiles::large : unaligned_tiles::standard);
  EXPECT_EQ(choose_unaligned_tiles(dense_args(1001, 300001), 1), unaligned_tiles::standard);
  EXPECT_EQ(unaligned_tiles_text(dense_args(700, 436912), 1),
            h100_memory ? "tiles of 352 rows x 256 bytes and a halo of 32 rows"
                        : "tiles of 224 rows x 128 bytes and a halo of 32 rows");
  EXPECT_EQ(choose_copy_kernel(dense_args(700, 287611), 1), copy_kernel::unaligned);
  check_copy({700, 287611, 1}, route::copy_tuned, 106);
}

// The large tiles of copy_tuned (1- and 2-byte elements; 4- and 8-byte ones never) and
// copy_unaligned (1- and 2-byte ones) only where the device has the H100's memory interface;
// copy_unaligned's 4-byte large tiles on any device. The library's memory is the one the runtime
// reports. Then both tile sizes through the dispatch against the reference.
TEST(GpuCopyTranspose, LargeTilesOnlyWhereMeasuredAhead) {
  XPOSE_REQUIRE_GPU();
  using namespace detail::cuda;
  const bool h100_memory = xpose::test::has_h100_memory_interface();
  EXPECT_EQ(h100_memory_interface(), h100_memory);
  const int bus_bits = xpose::test::memory_bus_bits();
  const bool h200_size = xpose::test::device_memory_bytes() >= std::size_t{128} << 30;
  EXPECT_EQ(current_device_class(), bus_bits == 5120                ? device_class::h100
                                    : bus_bits == 6016 && h200_size ? device_class::h200
                                                                    : device_class::other);
  EXPECT_EQ(choose_tuned_tiles(dense_args(16384, 16384), 1),
            h100_memory ? tuned_tiles::large : tuned_tiles::standard);
  const auto tiles = [](std::int64_t rows, std::int64_t cols, int e, device_class memory) {
    return choose_tuned_tiles(dense_args(rows, cols), e, memory);
  };
  EXPECT_EQ(tiles(16384, 16384, 1, device_class::h100), tuned_tiles::large);
  EXPECT_EQ(tiles(16384, 8192, 2, device_class::h100), tuned_tiles::large);
  EXPECT_EQ(tiles(8192, 8192, 8, device_class::h100), tuned_tiles::standard);
  EXPECT_EQ(tiles(16384, 8192, 8, device_class::h100), tuned_tiles::standard);
  EXPECT_EQ(tiles(8192, 8192, 4, device_class::h100), tuned_tiles::standard);
  for (const device_class memory : {device_class::h200, device_class::other}) {
    EXPECT_EQ(tiles(16384, 16384, 1, memory), tuned_tiles::standard);
    EXPECT_NE(tiles(16384, 8192, 2, memory), tuned_tiles::large);
  }
  EXPECT_EQ(copy_unaligned_takes_large(dense_args(16383, 16385), 1), h100_memory);
  EXPECT_EQ(copy_unaligned_takes_large(dense_args(16383, 8193), 2), h100_memory);
  EXPECT_TRUE(copy_unaligned_takes_large(dense_args(16383, 8193), 4));
  check_copy({16384, 8192, 2}, route::copy_tuned, 104);
  check_copy({16383, 8193, 2}, route::copy_tuned, 105);
}

// On the H100's memory, 4- and 8-byte matrices made of whole
// copy_tuned_whole<device_class::h100, E> tiles (32 x 64 and 32 x 32 elements), of at most 128 and
// 256 MiB (the batch's) and 32 rows a column, whose source rows resonate with no memory period take
// the whole tiles; both sides of each line, other element sizes never, misaligned rows never. The
// rule alone: runs without a device too (CI).
TEST(GpuCopyTranspose, WholeTilesRuleOnTheH100Memory) {
  using namespace detail::cuda;
  const auto tiles = [](std::int64_t rows, std::int64_t cols, int e, std::int64_t batch = 1) {
    copy_args a = dense_args(rows, cols);
    a.batch = batch;
    return choose_tuned_tiles(a, e, device_class::h100);
  };
  constexpr tuned_tiles whole = tuned_tiles::whole_h100;
  static_assert(
      std::int64_t{4096} * 8192 * 4 == copy_tuned_whole<device_class::h100, 4>::most_bytes &&
      std::int64_t{4096} * 8192 * 8 == copy_tuned_whole<device_class::h100, 8>::most_bytes);
  EXPECT_EQ(tiles(4096, 4096, 4), whole);
  EXPECT_EQ(tiles(4096, 8192, 4), whole);
  EXPECT_EQ(tiles(4096, 8256, 4), tuned_tiles::standard);  // over 128 MiB
  EXPECT_EQ(tiles(2048, 2048, 4, 8), whole);
  EXPECT_EQ(tiles(2048, 2048, 4, 9), tuned_tiles::standard);
  EXPECT_EQ(tiles(4064, 4160, 4), whole);
  EXPECT_EQ(tiles(4080, 4096, 4), tuned_tiles::standard);  // rows not whole tiles
  EXPECT_EQ(tiles(4096, 4100, 4), tuned_tiles::standard);  // columns not whole tiles
  EXPECT_EQ(tiles(4096, 2048, 4), whole);
  static_assert(copy_tuned_whole<device_class::h100, 4>::most_aspect == 32 &&
                copy_tuned_whole<device_class::h100, 8>::most_aspect == 32);
  EXPECT_EQ(tiles(32768, 1024, 4), whole);  // tall: the standard tiles would walk across
  EXPECT_EQ(tiles(16384, 512, 8), whole);
  EXPECT_EQ(tiles(16416, 512, 8), tuned_tiles::standard);  // taller
  EXPECT_EQ(tiles(64, 172032, 4), whole);
  // Source rows of half the memory's period: the tiles run in regions.
  EXPECT_EQ(tiles(64, 163840, 4), tuned_tiles::standard);
  EXPECT_EQ(tiles(4096, 8192, 8), whole);
  EXPECT_EQ(tiles(4096, 8224, 8), tuned_tiles::standard);  // over 256 MiB
  EXPECT_EQ(tiles(4096, 4128, 8), whole);
  EXPECT_EQ(tiles(4096, 4112, 8), tuned_tiles::standard);
  for (int e : {1, 2, 16}) EXPECT_EQ(tiles(4096, 4096, e), tuned_tiles::standard) << e;
  EXPECT_EQ(tiles(16384, 16384, 1), tuned_tiles::large);  // the large tiles come first
  copy_args misaligned = dense_args(4096, 4096);
  misaligned.src = reinterpret_cast<void*>(std::uintptr_t{4});
  EXPECT_EQ(choose_tuned_tiles(misaligned, 4, device_class::h100), tuned_tiles::standard);
}

// copy_unaligned's blocks: on the H200's memory 4- and 8-byte tiles (standard and large) have
// 256 threads, half the policy's; 1- and 2-byte ones and every tile on other memories the
// policy's; the tall tiles for 1-byte words only. Runs without a device too.
TEST(GpuCopyTranspose, UnalignedThreadsOnEachMemory) {
  using namespace detail::cuda;
  for (const unaligned_tiles tiles : {unaligned_tiles::standard, unaligned_tiles::large}) {
    for (const device_class memory : {device_class::h100, device_class::other}) {
      EXPECT_EQ(copy_unaligned_threads(4, tiles, memory), 512);
      EXPECT_EQ(copy_unaligned_threads(8, tiles, memory), 512);
    }
    EXPECT_EQ(copy_unaligned_threads(4, tiles, device_class::h200), 256);
    EXPECT_EQ(copy_unaligned_threads(8, tiles, device_class::h200), 256);
    EXPECT_EQ(copy_unaligned_threads(2, tiles, device_class::h200),
              copy_unaligned_threads(2, tiles, device_class::h100));
  }
  EXPECT_EQ(copy_unaligned_threads(1, unaligned_tiles::standard, device_class::h200), 256);
  EXPECT_EQ(copy_unaligned_threads(1, unaligned_tiles::large, device_class::h200), 512);
  EXPECT_EQ(copy_unaligned_threads(1, unaligned_tiles::tall, device_class::h200), 512);
  EXPECT_THROW(copy_unaligned_threads(4, unaligned_tiles::tall, device_class::h200), error);
  using h200_4 = copy_unaligned_blocks<device_class::h200, 4, copy_unaligned_policy<4>>::policy;
  using h200_8 = copy_unaligned_blocks<device_class::h200, 8, copy_unaligned_policy<8>>::policy;
  using h200_large_4 =
      copy_unaligned_blocks<device_class::h200, 4, copy_unaligned_large<4>::policy>::policy;
  static_assert(h200_4::min_blocks == 4 && h200_8::min_blocks == 4 &&
                h200_4::tile_bytes == copy_unaligned_policy<4>::tile_bytes &&
                h200_large_4::row_blocks == copy_unaligned_large<4>::policy::row_blocks);
}

// On the H200's memory, 2-, 4-, 8- and 16-byte matrices made of whole
// copy_tuned_whole<device_class::h200, E> tiles (64 x 64, 32 x 32, 32 x 32 and 16 x 32 elements) of
// at most 2, 32, 512 and 4096 rows a column take the whole tiles, whatever their size and rows (no
// resonance known there); no large tiles; other element sizes and misaligned rows never; other
// memories never. Runs without a device too.
TEST(GpuCopyTranspose, WholeTilesRuleOnTheH200Memory) {
  using namespace detail::cuda;
  const auto tiles = [](std::int64_t rows, std::int64_t cols, int e, std::int64_t batch = 1,
                        device_class memory = device_class::h200) {
    copy_args a = dense_args(rows, cols);
    a.batch = batch;
    return choose_tuned_tiles(a, e, memory);
  };
  constexpr tuned_tiles whole = tuned_tiles::whole_h200;
  static_assert(copy_tuned_whole<device_class::h200, 2>::most_aspect == 2 &&
                copy_tuned_whole<device_class::h200, 4>::most_aspect == 32 &&
                copy_tuned_whole<device_class::h200, 8>::most_aspect == 512 &&
                copy_tuned_whole<device_class::h200, 16>::most_aspect == 4096);
  EXPECT_EQ(tiles(4096, 4096, 4), whole);
  EXPECT_EQ(tiles(16384, 16384, 4), whole);  // 1 GiB
  EXPECT_EQ(tiles(2048, 2048, 4, 100), whole);
  EXPECT_EQ(tiles(4096, 4128, 4), whole);
  EXPECT_EQ(tiles(4096, 4112, 4), tuned_tiles::standard);  // columns not whole tiles
  EXPECT_EQ(tiles(4112, 4096, 4), tuned_tiles::standard);  // rows not whole tiles
  EXPECT_EQ(tiles(32768, 1024, 4), whole);
  EXPECT_EQ(tiles(32800, 1024, 4), tuned_tiles::standard);  // more than 32 rows a column
  EXPECT_EQ(tiles(64, 163840, 4), whole);                   // resonant on the H100
  EXPECT_EQ(tiles(4096, 4096, 2), whole);
  EXPECT_EQ(tiles(4096, 4160, 2), whole);
  EXPECT_EQ(tiles(4096, 4128, 2), tuned_tiles::standard);
  EXPECT_EQ(tiles(4128, 4096, 2), tuned_tiles::standard);
  EXPECT_EQ(tiles(16384, 8192, 2), whole);                  // the large tiles' shape on the H100
  EXPECT_EQ(tiles(16448, 8192, 2), tuned_tiles::standard);  // more than 2 rows a column
  EXPECT_EQ(tiles(8192, 8192, 8), whole);                   // over the H100's 256 MiB
  EXPECT_EQ(tiles(16384, 512, 8), whole);
  EXPECT_EQ(tiles(262144, 512, 8), whole);
  EXPECT_EQ(tiles(262176, 512, 8), tuned_tiles::standard);  // more than 512 rows a column
  EXPECT_EQ(tiles(4096, 4096, 16), whole);
  EXPECT_EQ(tiles(4112, 4096, 16), whole);
  EXPECT_EQ(tiles(4104, 4096, 16), tuned_tiles::standard);
  EXPECT_EQ(tiles(4096, 4112, 16), tuned_tiles::standard);
  EXPECT_EQ(tiles(131072, 32, 16), whole);
  EXPECT_EQ(tiles(131088, 32, 16), tuned_tiles::standard);  // more than 4096 rows a column
  EXPECT_EQ(tiles(16384, 16384, 1), tuned_tiles::standard);
  EXPECT_EQ(tiles(4096, 4096, 1), tuned_tiles::standard);
  copy_args misaligned = dense_args(4096, 4096);
  misaligned.dst = reinterpret_cast<void*>(std::uintptr_t{8});
  EXPECT_EQ(choose_tuned_tiles(misaligned, 4, device_class::h200), tuned_tiles::standard);
  for (int e : {1, 2, 4, 8, 16})
    EXPECT_EQ(tiles(4096, 4096, e, 1, device_class::other), tuned_tiles::standard) << e;
}

// Through the dispatch on this device: the plan's text names the tiles its memory takes, and
// shapes that the whole tiles take on the H100's or the H200's memory (dense, tall, padded rows,
// a strided batch, column-major) match the reference, whichever tiles run here.
TEST(GpuCopyTranspose, WholeTilesThroughTheDispatch) {
  XPOSE_REQUIRE_GPU();
  using namespace detail::cuda;
  const device_class memory = current_device_class();
  const auto text = [](int e) { return tuned_tiles_text(dense_args(4096, 4096), e); };
  const std::string lean = " in its lean kernel (no edge paths, full occupancy)";
  if (memory == device_class::h100) {
    EXPECT_EQ(text(4), "whole tiles of 32 rows x 256 bytes" + lean);
    EXPECT_EQ(text(8), "whole tiles of 32 rows x 256 bytes" + lean);
    EXPECT_EQ(text(2), "tiles of 64 rows x 128 bytes");
  } else if (memory == device_class::h200) {
    EXPECT_EQ(text(2), "whole tiles of 64 rows x 128 bytes" + lean);
    EXPECT_EQ(text(4), "whole tiles of 32 rows x 128 bytes" + lean);
    EXPECT_EQ(text(8), "whole tiles of 32 rows x 256 bytes" + lean);
    EXPECT_EQ(text(16), "whole tiles of 16 rows x 512 bytes" + lean);
  } else {
    EXPECT_EQ(text(4), "tiles of 64 rows x 256 bytes");
  }
  check_copy({1024, 2048, 4}, route::copy_tuned, 107);
  check_copy({512, 1024, 8}, route::copy_tuned, 108);
  check_copy({1024, 2048, 2}, route::copy_tuned, 114);
  check_copy({512, 1024, 16}, route::copy_tuned, 115);
  check_copy({4096, 128, 4}, route::copy_tuned, 112);
  check_copy({2048, 64, 8}, route::copy_tuned, 113);
  check_copy({1024, 32, 16}, route::copy_tuned, 116);
  check_copy({256, 640, 4, 648, 264}, route::copy_tuned, 109);
  check_copy({256, 640, 2, 648, 272}, route::copy_tuned, 117);
  check_copy({96, 160, 8, 162, 100, 3, 96 * 162 + 2, 160 * 100 + 4}, route::copy_tuned, 110);
  check_copy({96, 160, 16, 161, 98, 3, 96 * 161 + 1, 160 * 98 + 2}, route::copy_tuned, 118);
  copy_case column_major{640, 256, 4};
  column_major.order = storage_order::col_major;
  check_copy(column_major, route::copy_tuned, 111);
}

// choose_copy_kernel's lines between copy_full_height, copy_full_width, the tiles and the skinny
// slabs (its rules in dispatch/copy_dispatch.cu): shapes on both sides of each line.
using detail::cuda::copy_kernel;
struct near_tile_line {
  std::int64_t rows, cols;
  int e;
  copy_kernel expected;
};
constexpr near_tile_line near_tile_lines[] = {
    // copy_full_height's least rows, odd and aligned.
    {33, 3001, 1, copy_kernel::skinny},
    {34, 3001, 1, copy_kernel::full_height},
    {40, 3001, 2, copy_kernel::skinny},
    {41, 3001, 2, copy_kernel::full_height},
    {20, 3001, 4, copy_kernel::skinny},
    {21, 3001, 4, copy_kernel::full_height},
    {20, 3001, 8, copy_kernel::skinny},
    {21, 3001, 8, copy_kernel::full_height},
    {32, 3008, 1, copy_kernel::full_height},
    {16, 3008, 2, copy_kernel::skinny},
    {32, 3008, 2, copy_kernel::full_height},
    {16, 3008, 4, copy_kernel::skinny},
    {24, 3008, 4, copy_kernel::full_height},
    {16, 3008, 8, copy_kernel::skinny},
    {20, 3008, 8, copy_kernel::full_height},
    // copy_tuned's tiles 3/5 full (4/5 for 1-byte elements; fewer rows than the tile) or 2/3
    // full (more).
    {64, 3008, 1, copy_kernel::full_height},
    {96, 3008, 1, copy_kernel::full_height},
    {160, 3008, 1, copy_kernel::full_height},
    {192, 3008, 1, copy_kernel::tuned},
    {48, 3008, 2, copy_kernel::tuned},
    {32, 3008, 4, copy_kernel::full_height},
    {40, 3008, 4, copy_kernel::tuned},
    {72, 3008, 4, copy_kernel::full_height},
    {96, 3008, 4, copy_kernel::tuned},
    {32, 3008, 8, copy_kernel::full_height},
    {40, 3008, 8, copy_kernel::tuned},
    // copy_full_height's most row bytes, and rows past the columns.
    {512, 3001, 1, copy_kernel::full_height},
    {513, 3001, 1, copy_kernel::unaligned},
    {370, 3001, 2, copy_kernel::full_height},
    {371, 3001, 2, copy_kernel::unaligned},
    {250, 3001, 4, copy_kernel::full_height},
    {251, 3001, 4, copy_kernel::unaligned},
    {200, 3001, 8, copy_kernel::full_height},
    {201, 3001, 8, copy_kernel::unaligned},
    {299, 300, 1, copy_kernel::full_height},
    {300, 299, 1, copy_kernel::full_width},
    // 16-byte elements: no copy_full_height.
    {18, 3008, 16, copy_kernel::skinny},
    {20, 3008, 16, copy_kernel::tuned},
    {27, 3001, 16, copy_kernel::skinny},
    {29, 3001, 16, copy_kernel::sectors},
    // Tall, narrow matrices: copy_full_width from its least columns to its most row bytes,
    // where copy_unaligned's column tiles would be less than 9/10 full (2-byte elements: fewer
    // columns than 3/2 of its tile) or copy_tuned's less than 2/3.
    {3001, 32, 1, copy_kernel::skinny},
    {3001, 33, 1, copy_kernel::full_width},  // shifted slabs otherwise
    {3008, 47, 1, copy_kernel::skinny},      // plain slabs
    {3008, 48, 1, copy_kernel::full_width},
    {3001, 230, 1, copy_kernel::full_width},
    {3001, 231, 1, copy_kernel::unaligned},
    {3001, 320, 1, copy_kernel::full_width},
    {3001, 321, 1, copy_kernel::unaligned},
    {3001, 32, 2, copy_kernel::skinny},
    {3001, 33, 2, copy_kernel::full_width},
    {3001, 191, 2, copy_kernel::full_width},
    {3001, 192, 2, copy_kernel::unaligned},
    {3001, 320, 2, copy_kernel::unaligned},
    {3001, 115, 4, copy_kernel::full_width},
    {3001, 116, 4, copy_kernel::unaligned},
    {3001, 160, 4, copy_kernel::full_width},
    {3001, 161, 4, copy_kernel::full_width},
    {3001, 200, 4, copy_kernel::full_width},
    {3001, 201, 4, copy_kernel::unaligned},
    {3001, 57, 8, copy_kernel::full_width},
    {3001, 58, 8, copy_kernel::unaligned},
    {3001, 115, 8, copy_kernel::full_width},
    {3001, 116, 8, copy_kernel::unaligned},
    {3008, 160, 1, copy_kernel::full_width},
    {3008, 192, 1, copy_kernel::tuned},
    {3008, 80, 2, copy_kernel::full_width},
    {3008, 96, 2, copy_kernel::tuned},
    {3008, 32, 4, copy_kernel::skinny},
    {3008, 40, 4, copy_kernel::full_width},
    {3008, 72, 4, copy_kernel::full_width},
    {3008, 88, 4, copy_kernel::tuned},
    {3008, 36, 8, copy_kernel::full_width},
    {3008, 44, 8, copy_kernel::tuned},
};

// The rule: host code, so this runs without a device too (CI).
TEST(GpuCopyDispatch, RowsNearATileTakeTheTilesWhenFullEnough) {
  for (const near_tile_line& c : near_tile_lines)
    EXPECT_EQ(detail::cuda::choose_copy_kernel(dense_args(c.rows, c.cols), c.e), c.expected)
        << c.rows << " x " << c.cols << " x " << c.e;
}

// The lines' shapes through the public API, dense and in a padded batch.
TEST(GpuCopyTranspose, RowsNearATileTakeTheTilesWhenFullEnough) {
  XPOSE_REQUIRE_GPU();
  for (const near_tile_line& c : near_tile_lines) {
    const auto e = static_cast<std::size_t>(c.e);
    check_copy({c.rows, c.cols, e}, route::copy_tuned, 111 + c.rows + e);
    check_copy({c.rows, c.cols, e, c.cols + 2, c.rows + 2, 3}, route::copy_tuned, 112 + c.rows + e);
  }
}

// The skinny slabs: plain ones where the rows along the long side start on 16 bytes (short sides
// up to 64 for tall matrices; below 5 for wide ones of 1-byte elements, up to 32 for 2-byte
// ones, any for 4-byte ones), for wide matrices of fewer than 5 rows of 2-byte elements and of
// fewer than 32 of 4-byte ones, tall ones of fewer than 48 columns of 4-byte elements, and 8- and
// 16-byte elements; shifted ones elsewhere. Both sides of each line, then through the dispatch.
TEST(GpuCopyTranspose, SkinnySlabsPlainOrShifted) {
  XPOSE_REQUIRE_GPU();
  using detail::cuda::choose_skinny_slabs, detail::cuda::skinny_slabs;
  struct slabs_case {
    std::int64_t rows, cols;
    int e;
    skinny_slabs expected;
  };
  const slabs_case cases[] = {
      {4, 3008, 1, skinny_slabs::plain},    {5, 3008, 1, skinny_slabs::shifted},
      {4, 3001, 1, skinny_slabs::shifted},  {4, 3001, 2, skinny_slabs::plain},
      {5, 3001, 2, skinny_slabs::shifted},  {32, 3008, 2, skinny_slabs::plain},
      {33, 3008, 2, skinny_slabs::shifted}, {31, 3001, 4, skinny_slabs::plain},
      {32, 3001, 4, skinny_slabs::shifted}, {40, 3008, 4, skinny_slabs::plain},
      {40, 3001, 8, skinny_slabs::plain},   {3008, 64, 1, skinny_slabs::plain},
      {3008, 65, 1, skinny_slabs::shifted}, {3001, 8, 1, skinny_slabs::shifted},
      {3008, 40, 2, skinny_slabs::plain},   {3001, 40, 2, skinny_slabs::shifted},
      {3001, 47, 4, skinny_slabs::plain},   {3001, 48, 4, skinny_slabs::shifted},
      {3001, 63, 8, skinny_slabs::plain},   {3001, 31, 16, skinny_slabs::plain},
  };
  for (const slabs_case& c : cases) {
    EXPECT_EQ(choose_skinny_slabs(dense_args(c.rows, c.cols), c.e), c.expected)
        << c.rows << " x " << c.cols << " x " << c.e;
    const auto e = static_cast<std::size_t>(c.e);
    check_copy({c.rows, c.cols, e}, route::copy_tuned, 131 + c.rows + e);
  }
  // Narrow padded source rows of a long tall matrix, through the dispatch: the shifted slab is
  // sized by their covering chunks.
  check_copy({20001, 4, 1, 5, 0}, route::copy_tuned, 141);
  check_copy({50001, 2, 2, 3, 0}, route::copy_tuned, 142);
}

// copy_tuned's tiles walked down the column strips (rows <= 2 x cols, tiles_walk_down) and
// across the tile rows, on both sides of that line; short, wide matrices of a few tile rows
// (walked down) with tiles cut by the edges, padded destination rows and a batch.
TEST(GpuCopyTranspose, TilesWalkedDownAndAcross) {
  XPOSE_REQUIRE_GPU();
  static_assert(detail::cuda::tiles_walk_down(1216, 608) &&
                !detail::cuda::tiles_walk_down(1248, 608));
  for (std::size_t e : {1, 2, 4, 8, 16}) {
    check_copy({1216, 608, e}, route::copy_tuned, 99 + e);
    check_copy({1248, 608, e}, route::copy_tuned, 100 + e);
    const std::int64_t cols = 300000 / static_cast<std::int64_t>(e);
    check_copy({200, cols, e, 0, 224}, route::copy_tuned, 101 + e);
    check_copy({416, cols / 4 + 1, e, 0, 0, 3}, route::copy_tuned, 102 + e);
  }
}

TEST(GpuCopyTranspose, LargerOddAndSkinnyShapesEveryVariant) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t shapes[][2] = {{1000, 777}, {513, 1025}, {3, 70001}, {70001, 5},
                                    {2, 40000},  {64, 9999},  {4097, 33}, {1, 5000}};
  for (route variant : gpu_copy_variants)
    for (std::size_t e : element_sizes)
      for (const auto& s : shapes) check_copy({s[0], s[1], e}, variant, s[0] + s[1] + e);
}

TEST(GpuCopyTranspose, RandomLargeShapes) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(42);
  for (int i = 0; i < 12; ++i) {
    const std::size_t e = element_sizes[i % 6];
    const std::int64_t rows = 1 + rng() % 3000, cols = 1 + rng() % 3000;
    check_copy({rows, cols, e}, route::copy_tuned, rng());
  }
}

TEST(GpuCopyTranspose, StridedRowsLeaveGapsUntouched) {
  XPOSE_REQUIRE_GPU();
  for (route variant : gpu_copy_variants)
    for (std::size_t e : element_sizes) {
      check_copy({300, 200, e, 203, 310}, variant, 11 + e);
      check_copy({256, 512, e, 520, 264}, variant, 12 + e);                 // aligned strides
      check_copy({129, 131, e, 0, 0, 1, 0, 0, e, 3 * e}, variant, 13 + e);  // unaligned bases
    }
}

TEST(GpuCopyTranspose, BatchedWithStrides) {
  XPOSE_REQUIRE_GPU();
  for (route variant : gpu_copy_variants)
    for (std::size_t e : element_sizes) {
      check_copy({100, 37, e, 0, 0, 5}, variant, 21 + e);
      check_copy({64, 128, e, 130, 70, 3, 64 * 130 + 16, 128 * 70 + 32}, variant, 22 + e);
    }
  check_copy({5, 7, 4, 0, 0, 20000}, route::copy_tuned, 23);
}

TEST(GpuCopyTranspose, ColumnMajor) {
  XPOSE_REQUIRE_GPU();
  for (std::size_t e : element_sizes) {
    copy_case c{300, 517, e, 310, 0};
    c.order = storage_order::col_major;
    check_copy(c, route::copy_tuned, 31 + e);
  }
}

// Sizes that are not powers of two: copy_any_size (3 to 15 bytes) or the super-element kernel.
TEST(GpuCopyTranspose, OtherElementSizes) {
  XPOSE_REQUIRE_GPU();
  for (std::size_t e :
       {3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 20, 22, 24, 26, 28, 36, 40, 48, 80, 100, 1024})
    check_copy({37, 45, e, 0, 0, 2}, route::automatic, 41 + e);
}

// Element sizes that are not powers of two through the dispatch: copy_any_size, the super-element
// kernel and its 16-byte path (18- to 40-byte elements), on rows on 16 bytes or padded to cut
// tiles mid-vector, batched. Small enough for compute-sanitizer (the name matches its filter).
TEST(GpuCopyTranspose, SuperElementsOn16ByteRowsSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (std::size_t e : {3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 18, 20, 22, 24, 26, 28, 30, 40}) {
    check_copy({64, 96, e, 0, 0, 3}, route::automatic, 61 + e);
    check_copy({101, 67, e, 80, 112}, route::automatic, 62 + e);
    check_copy({37, 45, e, 48, 48, 2, 37 * 48 + 16, 45 * 48 + 32}, route::automatic, 63 + e);
  }
}

// The any-size dispatch (copy_full_height, skinny_any_size, copy_any_size and its tiles, the
// super-element kernel; the rules in copy/launchers.hpp) on both sides of each boundary, with and
// without padded rows: host code, so this runs without a device too (CI).
TEST(GpuCopyDispatch, AnySizeBoundaries) {
  using detail::cuda::copy_any_size_chosen;
  using detail::cuda::full_height_any_size_chosen;
  using detail::cuda::skinny_any_size_chosen;
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(47, 5001), 3, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(48, 5001), 3, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(319, 5001), 6, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(321, 5001), 6, 1));
  // 3 bytes in 321 to 353 rows where a destination row starts off 32 bytes (not 352 rows).
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(321, 5001), 3, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(353, 5001), 3, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(352, 5001), 3, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(354, 5001), 3, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(330, 5001), 5, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(100, 100), 7, 1));    // as wide as tall
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(101, 100), 7, 1));   // taller
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(5001, 100), 7, 1));  // tall
  // copy_any_size's tiles full: 320 rows of 15 bytes, 64 and 200 of 12 (dense destination
  // rows of 4800, 768 and 2400 bytes), not one tile row (64 of 3 bytes), 3/4 full (48 of 12),
  // with a halo (250 of 3) or on a padded destination row (6-byte 320, ldb 321).
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(320, 5001), 15, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(64, 5000), 12, 4));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(200, 5001), 12, 4));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(64, 5001), 3, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(48, 5000), 12, 4));
  // 12-byte rows on aligned chunks from 32 rows, others from 48.
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(32, 5000), 12, 4));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(31, 5000), 12, 4));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(32, 5000), 12, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(250, 5001), 3, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(320, 5001), 6, 1));
  auto padded = dense_args(320, 5001);
  padded.ldb = 321;
  EXPECT_TRUE(full_height_any_size_chosen(padded, 6, 1));
  // With a halo, from 7 bytes: copy_any_size's 64-row tiles from four tile rows at least 9/10
  // full (231 and 289 rows of 7 bytes, 300 of 11, 320 of 15 on a padded row), not 230 and 287
  // (0.898 and 0.897 full), 190 (three tile rows), 300 rows of 6 bytes.
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(231, 5001), 7, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(230, 5001), 7, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(289, 5001), 7, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(287, 5001), 7, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(190, 5001), 7, 1));
  EXPECT_FALSE(full_height_any_size_chosen(dense_args(300, 5001), 11, 1));
  EXPECT_TRUE(full_height_any_size_chosen(dense_args(300, 5001), 6, 1));
  EXPECT_FALSE(full_height_any_size_chosen(padded, 15, 1));
  EXPECT_TRUE(skinny_any_size_chosen(dense_args(47, 5001), 3, 1));    // below copy_full_height
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(48, 5001), 3, 1));   // copy_full_height's
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(64, 5000), 7, 1));   // copy_any_size's full tiles
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(65, 5001), 3, 1));   // past 64 rows
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(5001, 200), 3, 1));  // tall
  // Tall: copy_any_size's 42-column 3-byte tiles 31/42 and 32/42 full, 21-column 12-byte ones
  // 17/21 (15-byte elements stay), fewer rows than its tile.
  EXPECT_TRUE(skinny_any_size_chosen(dense_args(5001, 31), 3, 1));
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(5001, 32), 3, 1));
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(5001, 17), 12, 1));
  EXPECT_TRUE(skinny_any_size_chosen(dense_args(5001, 17), 15, 1));
  EXPECT_TRUE(skinny_any_size_chosen(dense_args(63, 33), 3, 1));
  // Rows of more than 384 bytes: 13-byte tiles of 19 columns 40/57 full (slabs), 57/57 and 31/38
  // (copy_any_size), 15-byte tiles of 17 columns 40/51 (copy_any_size).
  EXPECT_TRUE(skinny_any_size_chosen(dense_args(5001, 40), 13, 1));
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(5001, 57), 13, 1));
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(5001, 31), 13, 1));
  EXPECT_FALSE(skinny_any_size_chosen(dense_args(5001, 40), 15, 1));
  EXPECT_TRUE(skinny_any_size_chosen(dense_args(5001, 40), 14, 1));
  // The slab: 32 KiB from 31 columns of elements from 5 bytes, tall shapes only.
  using detail::cuda::skinny_any_size_slab_for;
  EXPECT_EQ(skinny_any_size_slab_for(dense_args(5001, 31), 5), 32 * 1024);
  EXPECT_EQ(skinny_any_size_slab_for(dense_args(5001, 30), 5), 24 * 1024);
  EXPECT_EQ(skinny_any_size_slab_for(dense_args(5001, 31), 3), 24 * 1024);
  EXPECT_EQ(skinny_any_size_slab_for(dense_args(31, 5001), 5), 24 * 1024);
  // copy_any_size's tiles (any_size_tiles_for): the halo tiles wherever a destination row starts
  // off 32 bytes (for 3 bytes, from two rows a column 32 columns where those fill the columns 1/10
  // better than 42, else 34 where those do; from 6 bytes, 256-byte rows but where 128-byte ones
  // fill the columns 1/10 better); 3 bytes, from two rows a column 96 x 32 where those fill the
  // columns 1/32 better than 42-column ones, on tiles that walk down from 1024 to 16383 rows 64 x
  // 32 but where 42-column tiles fill the columns 1/32 better, else 32 x 64 where those fill them
  // 1/8 better than 42-column ones, else 128 x 42 at least 0.85 full, else 96 x 42; 5 to 15 bytes,
  // the tall tiles from three rows a column (96 rows of 128 bytes for 5 and 6 bytes where their
  // columns are under 0.9 full, from 7 where those fill the columns 1/10 better), 32-column tiles
  // but for 9 bytes on tiles that walk down from 1024 to 8192 rows but where the standard tiles
  // fill the columns 1/32 better, else the standard tiles.
  using detail::cuda::any_size_tiles;
  using detail::cuda::any_size_tiles_for;
  EXPECT_EQ(any_size_tiles_for(dense_args(8193, 8192), 3), any_size_tiles::halo);
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 100), 3), any_size_tiles::halo_columns_34);
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 65), 3), any_size_tiles::halo_columns_34);
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 150), 3), any_size_tiles::halo);
  EXPECT_EQ(any_size_tiles_for(dense_args(199, 100), 3), any_size_tiles::halo);  // under 2 : 1
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 128), 3), any_size_tiles::halo_columns_32);
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 96), 3), any_size_tiles::halo_columns_32);
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 192), 3), any_size_tiles::halo);  // 0.09 fuller
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 224), 3),
            any_size_tiles::halo_columns_32);  // 0.11 fuller
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 256), 3),
            any_size_tiles::halo_columns_32);                                        // 0.13 fuller
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 512), 3), any_size_tiles::halo);  // 0.06 fuller
  EXPECT_EQ(any_size_tiles_for(dense_args(255, 128), 3), any_size_tiles::halo);      // under 2 : 1
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 96), 5), any_size_tiles::halo);
  auto off_sectors = dense_args(8192, 8192);
  off_sectors.dst_stride = 8192 * 8192 + 1;
  off_sectors.batch = 2;
  EXPECT_EQ(any_size_tiles_for(off_sectors, 3), any_size_tiles::halo);  // second matrix's
  EXPECT_EQ(any_size_tiles_for(off_sectors, 7), any_size_tiles::halo_wide);
  EXPECT_EQ(any_size_tiles_for(off_sectors, 5), any_size_tiles::halo);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 8192), 3), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 8193), 3), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(1024, 8192), 3), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(16352, 8192), 3), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(992, 8192), 3), any_size_tiles::rows_128);
  EXPECT_EQ(any_size_tiles_for(dense_args(16384, 8192), 3), any_size_tiles::rows_128);
  EXPECT_EQ(any_size_tiles_for(dense_args(12288, 6007), 3), any_size_tiles::rows_128);  // across
  EXPECT_EQ(any_size_tiles_for(dense_args(1024, 546), 3), any_size_tiles::rows_128);    // 1 : 0.95
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 128), 3), any_size_tiles::columns_32);  // 1 : 0.76
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 127), 3), any_size_tiles::columns_32);
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 300), 3), any_size_tiles::columns_32);  // 300/320
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 160), 3), any_size_tiles::columns_32);  // 1/21
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 768), 3), any_size_tiles::columns_32);  // 1/27
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 736), 3), any_size_tiles::rows_128);    // 1/38
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 4096), 3), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(224, 128), 3), any_size_tiles::columns_64);  // < 2 : 1
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 126), 3), any_size_tiles::rows_128);   // 0.98
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 200), 3), any_size_tiles::rows_128);   // 0.93
  EXPECT_EQ(any_size_tiles_for(dense_args(5024, 100), 3), any_size_tiles::rows_96);    // 0.78
  // The fill counts rows too: 0.85 is 435.2 of 512 rows (full columns).
  EXPECT_EQ(any_size_tiles_for(dense_args(416, 8400), 3), any_size_tiles::rows_96);
  EXPECT_EQ(any_size_tiles_for(dense_args(448, 8400), 3), any_size_tiles::rows_128);
  EXPECT_EQ(any_size_tiles_for(dense_args(3072, 1024), 5), any_size_tiles::tall);
  EXPECT_EQ(any_size_tiles_for(dense_args(3040, 1024), 5), any_size_tiles::standard);
  EXPECT_EQ(any_size_tiles_for(dense_args(3073, 1024), 5), any_size_tiles::halo);
  EXPECT_EQ(any_size_tiles_for(dense_args(3088, 1024), 6), any_size_tiles::tall);  // 3088 * 6 on 32
  EXPECT_EQ(any_size_tiles_for(dense_args(3088, 1024), 7), any_size_tiles::halo_wide);  // 7 off
  // From 6 bytes with a halo, 128-byte rows where they fill the columns at least 1/10 better.
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 65), 6), any_size_tiles::halo_wide);   // equal
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 100), 6), any_size_tiles::halo);       // 0.16
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 65), 9), any_size_tiles::halo);        // 0.15
  EXPECT_EQ(any_size_tiles_for(dense_args(1000001, 80), 9), any_size_tiles::halo_wide);   // equal
  EXPECT_EQ(any_size_tiles_for(dense_args(100001, 170), 12), any_size_tiles::halo);       // 0.1005
  EXPECT_EQ(any_size_tiles_for(dense_args(100001, 169), 12), any_size_tiles::halo_wide);  // 0.0999
  // 96 rows for 5 and 6 bytes where the tall tiles' columns are under 0.9 full.
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 64), 6), any_size_tiles::tall_rows_96);  // 64/84
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 84), 6), any_size_tiles::tall);
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 67), 5), any_size_tiles::tall_rows_96);  // 67/75
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 68), 5), any_size_tiles::tall);          // 68/75
  // From 7 bytes, 96 rows of 128 bytes where those fill the columns at least 1/10 better.
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 37), 7), any_size_tiles::tall_rows_96);  // 0.17
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 100), 7), any_size_tiles::tall);         // equal
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 170), 12), any_size_tiles::tall_rows_96);
  EXPECT_EQ(any_size_tiles_for(dense_args(3008, 169), 12), any_size_tiles::tall);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 8192), 15), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 8192), 9), any_size_tiles::standard);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 4096), 5), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 8192), 6), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(8224, 8192), 6), any_size_tiles::standard);
  EXPECT_EQ(any_size_tiles_for(dense_args(992, 4096), 7), any_size_tiles::standard);
  EXPECT_EQ(any_size_tiles_for(dense_args(8192, 4095), 7), any_size_tiles::standard);  // across
  // 25-column tiles (128-byte rows of 5 bytes) fill 1050 columns, 32-column ones 1050 of 1056.
  EXPECT_EQ(any_size_tiles_for(dense_args(2048, 1050), 5), any_size_tiles::columns_32_down);
  EXPECT_EQ(any_size_tiles_for(dense_args(1024, 550), 5), any_size_tiles::standard);  // 550/576
  EXPECT_EQ(any_size_tiles_for(dense_args(8191, 8192), 15), any_size_tiles::halo_wide);
  // Aligned 12-byte chunks: the super-element kernel on tall shapes of at most 128 columns.
  EXPECT_FALSE(copy_any_size_chosen(dense_args(5000, 64), 12, 4));
  EXPECT_FALSE(copy_any_size_chosen(dense_args(5000, 128), 12, 4));
  EXPECT_TRUE(copy_any_size_chosen(dense_args(5000, 132), 12, 4));
  EXPECT_TRUE(copy_any_size_chosen(dense_args(5000, 64), 12, 1));  // words of 1 byte
  EXPECT_TRUE(copy_any_size_chosen(dense_args(5001, 64), 12, 4));  // destination rows off
  EXPECT_TRUE(copy_any_size_chosen(dense_args(64, 5000), 12, 4));  // wide
  EXPECT_TRUE(copy_any_size_chosen(dense_args(4096, 4096), 12, 4));
}

// The shapes at the any-size dispatch's boundaries (GpuCopyDispatch.AnySizeBoundaries checks the
// rules) through the public API against the reference.
TEST(GpuCopyTranspose, AnySizeDispatchBoundaries) {
  XPOSE_REQUIRE_GPU();
  // Short, wide shapes with a halo that copy_any_size takes from 7 bytes.
  for (const copy_case c :
       {copy_case{300, 3001, 11}, copy_case{289, 2001, 7}, copy_case{320, 1999, 15, 0, 323}})
    check_copy(c, route::automatic, 400 + c.rows + c.e);
  // Tall shapes either side of skinny_any_size's column-fill rule, its 32 KiB slabs.
  for (const copy_case c : {copy_case{100003, 40, 13}, copy_case{100003, 48, 7},
                            copy_case{100003, 31, 5}, copy_case{100003, 57, 9}})
    check_copy(c, route::automatic, 300 + c.cols + c.e);
  // copy_any_size's tiles.
  for (const copy_case c :
       {copy_case{5024, 128, 3}, copy_case{5024, 300, 3}, copy_case{5024, 100, 3},
        copy_case{5025, 128, 3}, copy_case{224, 128, 3}, copy_case{4096, 1024, 3},
        copy_case{3072, 1024, 5}, copy_case{20000, 100, 7}, copy_case{20000, 64, 15},
        copy_case{3008, 700, 11}, copy_case{20001, 100, 3}, copy_case{3073, 1024, 5},
        copy_case{20001, 100, 7}, copy_case{3009, 700, 11}, copy_case{20000, 64, 6},
        copy_case{20000, 67, 5}, copy_case{20001, 65, 9}, copy_case{20001, 65, 6},
        copy_case{20000, 75, 11}})
    check_copy(c, route::automatic, 320 + c.cols + c.e);
  // copy_full_height's rows and the rows either side.
  for (std::size_t e : {3, 5, 12, 15})
    for (std::int64_t rows : {47, 48, 64, 65, 100, 101, 128, 200, 250, 320, 321}) {
      check_copy({rows, 5001, e}, route::automatic, 91 + e + rows);
      check_copy({rows, 4003, e, 4007, rows + 2, 2}, route::automatic, 92 + e + rows);
    }
  // skinny_any_size's sides and the sides either side.
  for (std::size_t e : {3, 5, 6, 7, 9, 12, 15}) {
    for (std::int64_t rows : {31, 32, 63, 64, 65})
      for (std::int64_t cols : {1, 200, 3000}) {
        check_copy({rows, cols, e}, route::automatic, 71 + e + rows);
        check_copy({rows, cols, e, cols + 3, rows + 1}, route::automatic, 72 + e + rows);
      }
    for (std::int64_t cols : {2, 25, 26, 31, 32, 33, 54, 55, 63, 64, 65}) {
      check_copy({3001, cols, e}, route::automatic, 73 + e + cols);
      check_copy({3001, cols, e, cols + 1, 3003}, route::automatic, 74 + e + cols);
    }
    // Padded narrow rows with slabs of the library's full size.
    check_copy({100003, 2, e, 3, 100003}, route::automatic, 75 + e);
  }
  // Tall 12-byte shapes on aligned chunks either side of super_elements_most_cols, and a wide one
  // between 32 and 48 rows.
  for (std::int64_t cols : {64, 128, 132})
    check_copy({3000, cols, 12}, route::automatic, 76 + cols);
  check_copy({40, 3000, 12}, route::automatic, 77);
}

// copy_any_size loads no halo rows when every destination row starts on 32 bytes (row length,
// matrix stride and pointer): such shapes with source rows off 16 bytes, cut by the last row and
// column or not, batched, next to the same shapes with the destination 8 bytes off its sector
// (the halo path). Small enough for compute-sanitizer (the name matches its filter).
TEST(GpuCopyTranspose, AnySizeDestinationRowsOnSectorsSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (std::size_t e : {3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15}) {
    for (std::size_t dst_offset : {std::size_t{0}, std::size_t{8}}) {
      check_copy({256, 301, e, 0, 0, 1, 0, 0, 0, dst_offset}, route::automatic, 81 + e);
      check_copy({160, 77, e, 0, 0, 1, 0, 0, 0, dst_offset}, route::automatic, 82 + e);
      check_copy({96, 131, e, 133, 128, 2, 96 * 133 + 5, 131 * 128, 0, dst_offset},
                 route::automatic, 83 + e);
    }
  }
}

TEST(GpuCopyTranspose, RunsOnTheCallersStream) {
  XPOSE_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  check_copy({1000, 3000, 4}, route::copy_tuned, 51, nullptr, nullptr, stream);
  check_copy({999, 3001, 2}, route::copy_multi_element, 52, nullptr, nullptr, stream);
  cudaStreamDestroy(stream);
}

TEST(GpuCopyTranspose, PlansOfDifferentSkinnyShapesFromSeveralThreads) {
  XPOSE_REQUIRE_GPU();
  // skinny_any_size sizes its shared memory by the shape and raises the kernel's limit at
  // launch: plans of different shapes launched at once from several host threads, each on its
  // own stream, must all come out right.
  const copy_case cases[] = {{7, 100003, 3}, {100003, 9, 5}, {2, 300007, 15}, {40000, 3, 7}};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&cases, t] {
      cudaStream_t stream = nullptr;
      ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
      for (int round = 0; round < 8; ++round)
        check_copy(cases[(t + round) % 4], route::automatic, 90 + 8 * t + round, nullptr, nullptr,
                   stream);
      cudaStreamDestroy(stream);
    });
  for (std::thread& thread : threads) thread.join();
}

// The plan's text names the interleaved regions where the kernel that runs takes them: on a
// device with the H100's memory interface, rows that resonate with it (tile_regions,
// full_height_regions); never for the skinny slabs or elsewhere.
TEST(GpuCopyTranspose, DescribeNamesTheRegions) {
  XPOSE_REQUIRE_GPU();
  const bool h100_memory = xpose::test::has_h100_memory_interface();
  plan_options options;
  options.target = device::cuda;
  const auto text = [&](std::int64_t rows, std::int64_t cols, std::size_t e) {
    return plan_copy({rows, cols, e}, 0, 0, options).describe();
  };
  const std::string tiles = text(2048, 81920, 4);       // k = 4: 2 regions
  const std::string full_height = text(100, 81921, 4);  // k = 4: 3 strip regions
  const std::string any_size = text(353, 145635, 3);    // k = 3: 3 regions
  EXPECT_EQ(tiles.find("2 interleaved regions") != std::string::npos, h100_memory) << tiles;
  for (const std::string* t : {&full_height, &any_size})
    EXPECT_EQ(t->find("3 interleaved regions") != std::string::npos, h100_memory) << *t;
  for (const std::string& t : {text(100, 82001, 4), text(8, 327680, 4), text(2048, 2048, 4)})
    EXPECT_EQ(t.find("interleaved regions"), std::string::npos) << t;
}

// The one dispatch decision on batches of small matrices: copy_small_batch for dense batches,
// but 64 x 64 matrices of 2- to 16-byte words stay on the tiles, and a single matrix is no batch
// (device-free: runs in CI).
TEST(GpuCopyTranspose, DispatchSendsBatchesOfSmallMatricesToCopySmallBatch) {
  using detail::cuda::copy_family;
  const auto family = [](std::int64_t batch, std::int64_t rows, std::int64_t cols, std::size_t e) {
    detail::cuda::copy_args a;
    a.batch = batch;
    a.rows = rows;
    a.cols = cols;
    a.lda = cols;
    a.ldb = rows;
    a.src_stride = a.dst_stride = rows * cols;
    return detail::cuda::decide_copy(a, e, route::automatic, detail::cuda::device_class::h200)
        .family;
  };
  for (std::size_t e : {1, 2, 3, 4, 8, 12, 16}) {
    EXPECT_EQ(family(4096, 32, 32, e), copy_family::small_batch) << e;
    EXPECT_EQ(family(4096, 24, 40, e), copy_family::small_batch) << e;
    EXPECT_NE(family(1, 32, 32, e), copy_family::small_batch) << e;
  }
  for (std::size_t e : {2, 4, 8, 16}) EXPECT_NE(family(4096, 64, 64, e), copy_family::small_batch);
  for (std::size_t e : {1, 3, 12}) EXPECT_EQ(family(4096, 64, 64, e), copy_family::small_batch);
}

// Plans are made without touching the device: runs without one too (CI).
TEST(GpuCopyTranspose, RejectsCpuOnlyVariant) {
  plan_options options;
  options.target = device::cuda;
  options.forced_route = route::copy_blocked;
  EXPECT_THROW(plan_copy({10, 20, 4}, 0, 0, options), error);
}

}  // namespace
}  // namespace xpose::test
