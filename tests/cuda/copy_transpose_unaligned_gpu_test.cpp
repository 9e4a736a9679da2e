// The kernels for rows that do not start on 16 / 32 bytes, called directly: copy_unaligned
// (src/cuda/copy/unaligned_kernel.cuh, 1-, 2-, 4- and 8-byte elements), copy_sectors
// (copy/sectors_kernel.cuh, 16-byte elements), copy_any_size
// (copy/any_size_kernel.cuh, 3 to 15 bytes, not powers of two) and skinny_any_size
// (copy/skinny_any_size_kernel.cuh, the same sizes, a side of at most 64), the plain
// and shifted skinny slabs (copy/skinny.cu, 1-, 2-, 4-, 8- and 16-byte elements),
// copy_full_height (copy/full_height_kernel.cuh, 1-, 2-, 4- and 8-byte elements, and
// copy/full_height_any_size_kernel.cuh, 3 to 15 bytes), copy_full_width
// (copy/full_width_kernel.cuh), copy_tuned's large tiles, copy_unaligned's large
// policy and 1-byte tall tiles, and copy_any_size's 3-byte, tall and halo tiles on small shapes,
// the tile kernels in interleaved regions (tile_regions) and copy_full_height's strips in them,
// against the host reference on random data: odd dimensions, padded rows, misaligned base pointers,
// destination rows starting anywhere in a 32-byte sector, batches, shapes smaller and larger than a
// tile or slab, more tile rows and matrices than the grid's y and z take; poisoned destinations
// (gaps between rows and matrices must stay poisoned).
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"
#include "gpu_test_util.hpp"

namespace xpose::test {
namespace {

struct unaligned_case {
  std::int64_t rows, cols;
  int e;
  std::int64_t lda = 0, ldb = 0;  // 0 = dense
  std::int64_t batch = 1, src_stride = 0, dst_stride = 0;
  std::size_t src_offset = 0, dst_offset = 0;  // bytes past a 256-byte aligned allocation
  int skinny_slab_bytes = 0;  // > 0: skinny_any_size with slabs of this size; library_slab: its own
  // copy_tuned's kernel with these tiles (launch_copy_tuned_tiles)
  std::optional<xpose::detail::cuda::tuned_tiles> tuned_tiles;
  // copy_unaligned with copy_unaligned_large's policy or (1-byte elements) the tall tiles
  xpose::detail::cuda::unaligned_tiles unaligned_tiles =
      xpose::detail::cuda::unaligned_tiles::standard;
  // copy_unaligned (launch_copy_unaligned_tiles) or, for 16-byte elements, copy_sectors with
  // this memory's policy
  std::optional<xpose::detail::cuda::device_class> memory;
  int skinny_slabs = -1;     // >= 0: launch_copy_skinny_slabs with this detail::cuda::skinny_slabs
  bool full_height = false;  // copy_full_height
  bool full_width = false;   // copy_full_width
  int regions = 0;           // > 0: tiles in this many regions (copy_tuned, copy_unaligned,
                             // copy_sectors, copy_any_size, copy_full_height); 0: the
                             // launcher's (tile_regions, full_height_regions)
};

/// unaligned_case::skinny_slab_bytes for skinny_any_size with the slab its launcher picks
/// (skinny_any_size_slab_for: 24 or 32 KiB).
constexpr int library_slab = -1;

constexpr int unaligned_element_sizes[] = {1, 2, 4, 8, 16, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15};

/// A case's buffers, a random source and a poisoned destination, and its launch arguments.
struct case_buffers {
  std::int64_t lda, ldb, src_stride, dst_stride;
  std::size_t src_bytes, dst_bytes;
  std::unique_ptr<device_buffer> src, dst;
  std::vector<unsigned char> host_src;
  xpose::detail::cuda::copy_args a;

  case_buffers(const unaligned_case& c, std::uint64_t seed)
      : lda(c.lda ? c.lda : c.cols), ldb(c.ldb ? c.ldb : c.rows) {
    src_stride = c.src_stride ? c.src_stride : c.rows * lda;
    dst_stride = c.dst_stride ? c.dst_stride : c.cols * ldb;
    src_bytes =
        ((c.batch - 1) * src_stride + (c.rows - 1) * lda + c.cols) * static_cast<std::size_t>(c.e);
    dst_bytes =
        ((c.batch - 1) * dst_stride + (c.cols - 1) * ldb + c.rows) * static_cast<std::size_t>(c.e);
    src = std::make_unique<device_buffer>(src_bytes + c.src_offset);
    dst = std::make_unique<device_buffer>(dst_bytes + c.dst_offset);
    host_src = random_bytes(src_bytes, seed);
    src->upload(host_src, c.src_offset);
    dst->poison();
    a.src = src->get() + c.src_offset;
    a.dst = dst->get() + c.dst_offset;
    a.batch = c.batch;
    a.rows = c.rows;
    a.cols = c.cols;
    a.lda = lda;
    a.ldb = ldb;
    a.src_stride = src_stride;
    a.dst_stride = dst_stride;
  }
};

void check_unaligned(const unaligned_case& c, std::uint64_t seed) {
  const case_buffers b(c, seed);
  const xpose::detail::cuda::copy_args& a = b.a;
  if (c.full_height && (c.e & (c.e - 1)) != 0)
    xpose::detail::cuda::launch_copy_full_height_any_size(a, static_cast<std::size_t>(c.e), nullptr,
                                                          c.regions);
  else if (c.full_height)
    xpose::detail::cuda::launch_copy_full_height(a, c.e, nullptr, c.regions);
  else if (c.full_width)
    xpose::detail::cuda::launch_copy_full_width(a, c.e, nullptr);
  else if (c.skinny_slabs >= 0)
    xpose::detail::cuda::launch_copy_skinny_slabs(
        a, c.e, static_cast<xpose::detail::cuda::skinny_slabs>(c.skinny_slabs), nullptr);
  else if (c.tuned_tiles)
    xpose::detail::cuda::launch_copy_tuned_tiles(a, c.e, *c.tuned_tiles, nullptr, c.regions);
  else if (c.memory && c.e == 16)
    xpose::detail::cuda::launch_copy_sectors(a, c.e, nullptr, c.regions, *c.memory);
  else if (c.memory)
    xpose::detail::cuda::launch_copy_unaligned_tiles(a, c.e, c.unaligned_tiles, nullptr, c.regions,
                                                     *c.memory);
  else if (c.unaligned_tiles != xpose::detail::cuda::unaligned_tiles::standard ||
           (c.regions > 0 && (c.e & (c.e - 1)) == 0 && c.e < 16))
    xpose::detail::cuda::launch_copy_unaligned_tiles(a, c.e, c.unaligned_tiles, nullptr, c.regions);
  else if (c.skinny_slab_bytes > 0 || c.skinny_slab_bytes == library_slab)
    xpose::detail::cuda::launch_copy_skinny_any_size(
        a, static_cast<std::size_t>(c.e), nullptr,
        c.skinny_slab_bytes > 0 ? c.skinny_slab_bytes : 0);
  else if (c.e == 16)
    xpose::detail::cuda::launch_copy_sectors(a, c.e, nullptr, c.regions);
  else if ((c.e & (c.e - 1)) == 0)
    xpose::detail::cuda::launch_copy_unaligned(a, c.e, nullptr);
  else
    xpose::detail::cuda::launch_copy_any_size(a, static_cast<std::size_t>(c.e), nullptr, c.regions);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<unsigned char> expected(b.dst_bytes, poison_byte);
  reference_batched(b.host_src.data(), expected.data(), c.batch, c.rows, c.cols, c.e, b.lda, b.ldb,
                    b.src_stride, b.dst_stride);
  const std::int64_t at = first_difference(b.dst->download(b.dst_bytes, c.dst_offset), expected);
  ASSERT_EQ(at, -1) << c.rows << " x " << c.cols << " x " << c.e << " bytes, lda " << b.lda
                    << ", ldb " << b.ldb << ", batch " << c.batch << ", offsets " << c.src_offset
                    << "/" << c.dst_offset << ", skinny slab " << c.skinny_slab_bytes
                    << ", skinny slabs " << c.skinny_slabs << ", full height " << c.full_height
                    << ", full width " << c.full_width << ", regions " << c.regions
                    << ", unaligned tiles " << static_cast<int>(c.unaligned_tiles) << ", memory "
                    << (c.memory ? static_cast<int>(*c.memory) : -1) << ": first wrong byte " << at;
}

/// A case copy_tuned's launcher must refuse with c.tuned_tiles: it throws internal_error and
/// leaves the destination untouched.
void expect_tuned_tiles_refused(const unaligned_case& c) {
  const case_buffers b(c, 7);
  expect_refused([&] {
    xpose::detail::cuda::launch_copy_tuned_tiles(b.a, c.e, *c.tuned_tiles, nullptr, c.regions);
  });
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned char> untouched(b.dst_bytes, poison_byte);
  EXPECT_EQ(first_difference(b.dst->download(b.dst_bytes, c.dst_offset), untouched), -1)
      << c.rows << " x " << c.cols << " x " << c.e << " bytes";
}

/// A case's shape and destination as a launcher's rules see them (the destination at its offset
/// past a 256-byte aligned address; no source): for the rules on destination rows.
xpose::detail::cuda::copy_args destination_args(const unaligned_case& c) {
  xpose::detail::cuda::copy_args a;
  a.dst = reinterpret_cast<void*>(std::uintptr_t{256} + c.dst_offset);
  a.batch = c.batch;
  a.rows = c.rows;
  a.cols = c.cols;
  a.ldb = c.ldb ? c.ldb : c.rows;
  a.dst_stride = c.dst_stride ? c.dst_stride : c.cols * a.ldb;
  return a;
}

// Few launches, small shapes: the filter compute-sanitizer runs.
TEST(GpuCopyUnaligned, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (int e : unaligned_element_sizes) {
    const std::size_t ue = static_cast<std::size_t>(e);
    check_unaligned({301, 517, e}, 1 + e);
    check_unaligned({67, 45, e, 50, 70, 2, 67 * 50 + 3, 45 * 70 + 5, ue, 2 * ue}, 2 + e);
  }
}

// copy_unaligned_large's policy (1-, 2- and 4-byte elements; 8-byte ones keep the standard one),
// which the dispatch takes only on matrices of 192 MiB and more, on small shapes under
// compute-sanitizer: fewer rows than a tile, more rows than one tile (with its halo), padded rows,
// a strided batch at misaligned pointers, destinations on 32 bytes.
TEST(GpuCopyUnaligned, LargePolicySmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (int e : {1, 2, 4}) {
    const std::size_t ue = static_cast<std::size_t>(e);
    for (unaligned_case c :
         {unaligned_case{301, 517, e}, unaligned_case{1001, 259, e},
          unaligned_case{487, 130, e, 131, 512},
          unaligned_case{67, 45, e, 50, 70, 2, 67 * 50 + 3, 45 * 70 + 5, ue, 2 * ue}}) {
      c.unaligned_tiles = xpose::detail::cuda::unaligned_tiles::large;
      check_unaligned(c, 500 + e + c.rows);
    }
  }
}

// copy_unaligned_tall_policy's tiles (1-byte elements; 352 rows of 256 bytes and a halo of 32
// rows), which the dispatch takes only on matrices of 192 MiB and more, on small shapes under
// compute-sanitizer: fewer rows than a tile, the rule's 700 rows (two tile rows), one row past a
// tile and its halo, columns past one tile, padded rows with destination rows on 32 bytes, a
// strided batch at misaligned pointers, tiles in three interleaved regions.
TEST(GpuCopyUnaligned, TallTilesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  using xpose::detail::cuda::unaligned_tiles;
  unaligned_case in_regions{701, 257, 1};
  in_regions.regions = 3;
  for (unaligned_case c :
       {unaligned_case{301, 517, 1}, unaligned_case{700, 601, 1}, unaligned_case{385, 259, 1},
        unaligned_case{680, 300, 1, 305, 704},
        unaligned_case{67, 45, 1, 50, 70, 2, 67 * 50 + 3, 45 * 70 + 5, 1, 2}, in_regions}) {
    c.unaligned_tiles = unaligned_tiles::tall;
    check_unaligned(c, 520 + c.rows + c.cols);
  }
}

// copy_unaligned's tiles in blocks of each memory's threads
// (copy_unaligned_blocks<device_class::h200, E, Policy>: the H200's 256 threads for 4- and 8-byte
// elements, the H100's 512) and copy_sectors with each memory's policy
// (copy_sectors_policy<device_class::h200>, copy_sectors_policy<device_class::other>), forced on
// any device, on small shapes under compute-sanitizer: the standard and large tiles of 4-byte
// elements, the 8-byte ones and the 16-byte sectors, fewer rows than a tile, more than one tile
// with its halo, padded rows with destination rows on 32 bytes, a strided batch at misaligned
// pointers, tiles in three interleaved regions.
TEST(GpuCopyUnaligned, EachMemorysThreadsSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  using xpose::detail::cuda::device_class, xpose::detail::cuda::unaligned_tiles;
  for (const device_class memory : {device_class::h200, device_class::h100}) {
    for (const auto& [e, tiles] :
         {std::pair{4, unaligned_tiles::standard}, std::pair{4, unaligned_tiles::large},
          std::pair{8, unaligned_tiles::standard}, std::pair{16, unaligned_tiles::standard}}) {
      const std::size_t ue = static_cast<std::size_t>(e);
      unaligned_case in_regions{301, 517, e};
      in_regions.regions = 3;
      for (unaligned_case c :
           {unaligned_case{301, 517, e}, unaligned_case{1001, 259, e},
            unaligned_case{487, 130, e, 131, 512},
            unaligned_case{67, 45, e, 50, 70, 2, 67 * 50 + 3, 45 * 70 + 5, ue, 2 * ue},
            in_regions}) {
        c.unaligned_tiles = tiles;
        c.memory = memory;
        check_unaligned(c, 540 + e + c.rows + c.regions);
      }
    }
  }
}

// copy_any_size's tiles for 3-byte elements (any_size_tiles_for picks them): on destination rows
// that start on 32 bytes copy_any_size_3_rows_128_policy, _rows_96_policy, _columns_64_policy and
// _columns_32_policy, on rows that do not copy_any_size_halo_policy<3> and
// copy_any_size_3_halo_columns_32_policy and _34_policy; on small shapes under compute-sanitizer:
// padded destination rows and tiles cut by both edges, fewer rows than a tile, source rows on 16
// bytes and off, strided batches at a misaligned source (and destination matrices off 32 bytes).
TEST(GpuCopyUnaligned, AnySize3TilesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  using xpose::detail::cuda::any_size_tiles;
  const struct {
    unaligned_case c;
    any_size_tiles tiles;
  } cases[] = {
      {{600, 120, 3, 0, 608}, any_size_tiles::rows_128},
      {{120, 40, 3, 0, 128}, any_size_tiles::rows_128},
      {{1000, 166, 3, 169, 1024}, any_size_tiles::rows_128},
      {{250, 82, 3, 85, 256, 2, 250 * 85 + 5, 82 * 256, 3}, any_size_tiles::rows_128},
      {{600, 100, 3, 0, 608}, any_size_tiles::rows_96},
      {{80, 36, 3, 0, 96}, any_size_tiles::rows_96},
      {{520, 210, 3, 211, 544}, any_size_tiles::rows_96},
      {{300, 70, 3, 73, 320, 2, 300 * 73 + 5, 70 * 320, 3}, any_size_tiles::rows_96},
      {{20, 64, 3, 0, 32}, any_size_tiles::columns_64},
      {{64, 128, 3, 112}, any_size_tiles::columns_64},
      {{96, 128, 3, 131, 0, 2, 96 * 131 + 5, 128 * 96 + 32, 7}, any_size_tiles::columns_64},
      {{301, 128, 3, 0, 320}, any_size_tiles::columns_32},
      {{200, 96, 3, 0, 224}, any_size_tiles::columns_32},
      {{90, 32, 3, 0, 96}, any_size_tiles::columns_32},
      {{300, 64, 3, 67, 320, 2, 300 * 67 + 5, 64 * 320, 3}, any_size_tiles::columns_32},
      {{601, 120, 3}, any_size_tiles::halo},
      {{130, 1031, 3}, any_size_tiles::halo},
      {{90, 40, 3, 0, 91}, any_size_tiles::halo},
      {{250, 82, 3, 85, 256, 2, 250 * 85 + 5, 82 * 256 + 1, 3}, any_size_tiles::halo},
      {{301, 128, 3}, any_size_tiles::halo_columns_32},
      {{200, 96, 3, 0, 201}, any_size_tiles::halo_columns_32},
      {{90, 32, 3}, any_size_tiles::halo_columns_32},
      {{300, 64, 3, 67, 320, 2, 300 * 67 + 5, 64 * 320 + 1, 3}, any_size_tiles::halo_columns_32},
      {{301, 100, 3}, any_size_tiles::halo_columns_34},
      {{200, 65, 3, 0, 201}, any_size_tiles::halo_columns_34},
      {{90, 34, 3}, any_size_tiles::halo_columns_34},
      {{300, 100, 3, 103, 320, 2, 300 * 103 + 5, 100 * 320 + 1, 3},
       any_size_tiles::halo_columns_34},
  };
  for (const auto& [c, tiles] : cases) {
    ASSERT_EQ(xpose::detail::cuda::any_size_tiles_for(destination_args(c), 3), tiles)
        << c.rows << " x " << c.cols;
    check_unaligned(c, 700 + c.rows);
  }
}

// copy_any_size's 32-column tiles (copy_any_size_columns_32_policy: 64 x 32 from 3 to 7 bytes, 32 x
// 32 from 10, two thread counts), which any_size_tiles_for picks on destination rows that start on
// 32 bytes for tiles that walk down from 1024 rows: padded destination rows, tiles cut by both
// edges, a strided batch at a misaligned source, under compute-sanitizer.
TEST(GpuCopyUnaligned, AnySizeColumns32TilesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (const int e : {3, 5, 6, 7, 10, 11, 12, 13, 14, 15}) {
    const std::size_t ue = static_cast<std::size_t>(e);
    for (const unaligned_case& c :
         {unaligned_case{1024, 600, e, 0, 1056},
          unaligned_case{1030, 590, e, 593, 1056, 2, 1030 * 593 + 5, 590 * 1056, 3 * ue}}) {
      ASSERT_EQ(xpose::detail::cuda::any_size_tiles_for(destination_args(c), ue),
                xpose::detail::cuda::any_size_tiles::columns_32_down)
          << c.rows << " x " << c.cols << " of " << e << " bytes";
      check_unaligned(c, 1100 + c.rows + e);
    }
  }
}

// copy_any_size's tiles for elements of 5 to 15 bytes other than copy_any_size_policy's, as
// any_size_tiles_for picks them (the tall, tall_rows_96, halo and halo_wide tiles), on small shapes
// under compute-sanitizer: padded destination rows and tiles cut by both edges, fewer rows than a
// tile, a misaligned source, a strided batch (its second matrix off 32 bytes for the halo tiles).
TEST(GpuCopyUnaligned, AnySizeTallAndHaloTilesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  using xpose::detail::cuda::any_size_tiles;
  constexpr any_size_tiles tall = any_size_tiles::tall, t96 = any_size_tiles::tall_rows_96,
                           halo = any_size_tiles::halo, wide = any_size_tiles::halo_wide;
  const int sizes[] = {5, 6, 7, 9, 10, 11, 12, 13, 14, 15};
  // The tiles each case takes, for each of `sizes` (the columns of 128- and 256-byte rows:
  // 25 and 51 of 5 bytes, 21 and 42 of 6, 18 and 36 of 7, 14 and 28 of 9, 12 and 25 of 10, 11
  // and 23 of 11, 10 and 21 of 12, 9 and 19 of 13, 9 and 18 of 14, 8 and 17 of 15).
  const struct {
    unaligned_case shape;  // element size set per size
    any_size_tiles tiles[10];
  } cases[] = {
      {{600, 103, 0, 0, 608}, {t96, tall, tall, tall, t96, tall, tall, tall, tall, t96}},
      {{600, 84, 0, 0, 608}, {t96, tall, t96, tall, t96, tall, tall, tall, tall, tall}},
      {{100, 10, 0, 0, 128}, {t96, t96, t96, t96, t96, t96, t96, tall, tall, tall}},
      {{50, 16, 0, 0, 64}, {t96, t96, t96, tall, tall, tall, tall, tall, tall, tall}},
      {{520, 130, 0, 131, 544}, {t96, t96, tall, tall, t96, tall, t96, tall, tall, tall}},
      {{300, 70, 0, 73, 320, 2, 300 * 73 + 5, 70 * 320, 3},
       {tall, t96, tall, t96, tall, t96, t96, tall, tall, t96}},
      {{200, 20, 0, 0, 224}, {t96, tall, tall, tall, tall, tall, tall, t96, t96, t96}},
      {{601, 103, 0}, {halo, halo, wide, wide, halo, wide, wide, wide, wide, halo}},
      {{100, 30, 0, 0, 101}, {halo, wide, wide, halo, halo, halo, halo, wide, wide, wide}},
      {{50, 16, 0}, {halo, halo, halo, wide, wide, wide, wide, wide, wide, wide}},
      {{130, 1031, 0}, {halo, wide, wide, wide, wide, wide, wide, wide, wide, wide}},
      {{521, 130, 0, 131, 545}, {halo, halo, wide, wide, halo, wide, halo, wide, wide, wide}},
      {{300, 70, 0, 73, 320, 2, 300 * 73 + 5, 70 * 320 + 1, 3},
       {halo, wide, wide, halo, wide, halo, halo, wide, wide, halo}},
      {{201, 20, 0}, {halo, halo, wide, wide, wide, wide, wide, halo, halo, halo}},
  };
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    const int e = sizes[i];
    const std::size_t ue = static_cast<std::size_t>(e);
    for (const auto& [shape, tiles] : cases) {
      unaligned_case c = shape;
      c.e = e;
      c.src_offset *= ue;  // the strided batches' source a whole number of elements off
      ASSERT_EQ(xpose::detail::cuda::any_size_tiles_for(destination_args(c), ue), tiles[i])
          << c.rows << " x " << c.cols << " of " << e << " bytes";
      check_unaligned(c, 900 + c.rows + e);
    }
  }
}

// copy_tuned's large tiles (copy_tuned_large, 1- and 2-byte elements), which the dispatch
// takes only on matrices of 64 MiB and more, on small shapes under compute-sanitizer: rows on
// 16 / 32 bytes with tiles cut by the edges (and fewer rows than a tile), odd rows (shifted in
// shared memory), a strided batch at misaligned pointers.
TEST(GpuCopyUnaligned, CopyTunedLargeTilesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (int e : {1, 2}) {
    const std::size_t ue = static_cast<std::size_t>(e);
    // The next multiple of 32 bytes above n elements.
    const auto pad = [e](std::int64_t n) { return (n / (32 / e) + 1) * (32 / e); };
    unaligned_case aligned{289, 130, e, pad(130), pad(289)};
    aligned.tuned_tiles = xpose::detail::cuda::tuned_tiles::large;
    check_unaligned(aligned, 400 + e);
    unaligned_case few_rows{40, 300, e, pad(300), pad(40)};
    few_rows.tuned_tiles = xpose::detail::cuda::tuned_tiles::large;
    check_unaligned(few_rows, 401 + e);
    unaligned_case odd{301, 517, e};
    odd.tuned_tiles = xpose::detail::cuda::tuned_tiles::large;
    check_unaligned(odd, 402 + e);
    unaligned_case batch{67, 45, e, 50, 70, 2, 67 * 50 + 3, 45 * 70 + 5, ue, 2 * ue};
    batch.tuned_tiles = xpose::detail::cuda::tuned_tiles::large;
    check_unaligned(batch, 403 + e);
  }
}

// The whole tiles' rows and columns (tile_bytes / E) for each element size they take.
struct whole_tile_size {
  xpose::detail::cuda::tuned_tiles tiles;
  int e;
  std::int64_t rows, cols;
};
template <int E, class Whole>
constexpr whole_tile_size whole_tile_of(xpose::detail::cuda::tuned_tiles tiles) {
  return {tiles, E, Whole::policy::tile_rows, Whole::policy::tile_bytes / E};
}
const whole_tile_size whole_tile_sizes[] = {
    whole_tile_of<
        4, xpose::detail::cuda::copy_tuned_whole<xpose::detail::cuda::device_class::h100, 4>>(
        xpose::detail::cuda::tuned_tiles::whole_h100),
    whole_tile_of<
        8, xpose::detail::cuda::copy_tuned_whole<xpose::detail::cuda::device_class::h100, 8>>(
        xpose::detail::cuda::tuned_tiles::whole_h100),
    whole_tile_of<
        2, xpose::detail::cuda::copy_tuned_whole<xpose::detail::cuda::device_class::h200, 2>>(
        xpose::detail::cuda::tuned_tiles::whole_h200),
    whole_tile_of<
        4, xpose::detail::cuda::copy_tuned_whole<xpose::detail::cuda::device_class::h200, 4>>(
        xpose::detail::cuda::tuned_tiles::whole_h200),
    whole_tile_of<
        8, xpose::detail::cuda::copy_tuned_whole<xpose::detail::cuda::device_class::h200, 8>>(
        xpose::detail::cuda::tuned_tiles::whole_h200),
    whole_tile_of<
        16, xpose::detail::cuda::copy_tuned_whole<xpose::detail::cuda::device_class::h200, 16>>(
        xpose::detail::cuda::tuned_tiles::whole_h200)};

// copy_tuned's whole tiles, the H100's (copy_tuned_whole<device_class::h100, E>: 4- and 8-byte
// elements) and the H200's (copy_tuned_whole<device_class::h200, E>: 2, 4, 8, 16 bytes), on small
// shapes under compute-sanitizer, on any device: one tile, a tall shape (still walked down), padded
// rows, a strided batch at pointers on 16 bytes past the allocation's 256. Shapes they do not fit,
// other element sizes and regions throw internal_error and leave the destination untouched.
TEST(GpuCopyUnaligned, CopyTunedWholeTilesSmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  using xpose::detail::cuda::tuned_tiles;
  for (const whole_tile_size& w : whole_tile_sizes) {
    const int e = w.e;
    const std::int64_t rows = w.rows, cols = w.cols, pad = 16 / e;  // pad: one 16-byte chunk
    const std::size_t ue = static_cast<std::size_t>(e);
    unaligned_case one{rows, cols, e}, tall{8 * cols + rows, cols, e};
    unaligned_case padded{3 * rows, 5 * cols, e, 5 * cols + pad, 3 * rows + 2 * pad};
    const std::int64_t lda = 3 * cols + 4 * pad, ldb = 2 * rows + pad;  // rows on 16 bytes
    unaligned_case batch{
        2 * rows, 3 * cols, e, lda, ldb, 3, 2 * rows * lda + pad, 3 * cols * ldb + 2 * pad, 16, 48};
    for (unaligned_case* c : {&one, &tall, &padded, &batch}) {
      c->tuned_tiles = w.tiles;
      check_unaligned(*c, 410 + c->rows + e);
    }
    // A source one element past 16 bytes; for 16-byte elements, half of one (still refused
    // before any launch, which would need whole elements).
    const std::size_t off_16_bytes = e == 16 ? 8 : ue;
    unaligned_case not_whole{rows + 1, cols, e},
        misaligned{rows, cols, e, 0, 0, 1, 0, 0, off_16_bytes}, in_regions{rows, cols, e};
    in_regions.regions = 2;
    for (unaligned_case* c : {&not_whole, &misaligned, &in_regions}) {
      c->tuned_tiles = w.tiles;
      expect_tuned_tiles_refused(*c);
    }
  }
  for (const auto& [tiles, e] :
       {std::pair{tuned_tiles::whole_h100, 1}, std::pair{tuned_tiles::whole_h100, 2},
        std::pair{tuned_tiles::whole_h100, 16}, std::pair{tuned_tiles::whole_h200, 1}}) {
    unaligned_case c{64, 256, e};
    c.tuned_tiles = tiles;
    expect_tuned_tiles_refused(c);
  }
}

// Empty matrices and empty batches are no whole tiles either. Refused before the device is
// touched: runs without one too (CI).
TEST(GpuCopyUnaligned, CopyTunedWholeTilesRefuseEmptyMatrices) {
  using xpose::detail::cuda::launch_copy_tuned_tiles, xpose::detail::cuda::tuned_tiles;
  for (const tuned_tiles tiles : {tuned_tiles::whole_h100, tuned_tiles::whole_h200})
    for (const auto& [rows, cols, batch] :
         {std::tuple<std::int64_t, std::int64_t, std::int64_t>{0, 64, 1},
          {32, 0, 1},
          {32, 64, 0}}) {
      xpose::detail::cuda::copy_args a;
      a.rows = rows;
      a.cols = cols;
      a.batch = batch;
      a.lda = a.ldb = 64;
      a.src_stride = a.dst_stride = 32 * 64;
      expect_refused([&] { launch_copy_tuned_tiles(a, 4, tiles, nullptr); });
    }
}

TEST(GpuCopyUnaligned, EveryRowAndColumnCountUpTo40) {
  XPOSE_REQUIRE_GPU();
  for (int e : unaligned_element_sizes)
    for (std::int64_t rows = 1; rows <= 40; ++rows)
      for (std::int64_t cols = 1; cols <= 40; cols += 3)
        check_unaligned({rows, cols, e}, rows * 41 + cols + e);
}

TEST(GpuCopyUnaligned, OddShapesAroundTileSizes) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t sides[] = {15, 17, 31, 33, 63, 65, 127, 129, 143, 145, 257, 513, 1025};
  for (int e : unaligned_element_sizes)
    for (std::int64_t rows : sides)
      for (std::int64_t cols : {17, 129, 1031})
        check_unaligned({rows, cols, e}, rows * 7 + cols + e);
  // copy_any_size's halo tiles (destination rows off 32 bytes): a tile with its halo has 100 to
  // 108 rows (96-row tiles: 128-byte rows, and 256-byte ones of 6 bytes) or 68 or 72 (64 rows of
  // 256 bytes from 7 bytes, as on 1031 columns); with more rows left it takes the path without
  // bounds checks. 65 columns of 9 and 12 bytes take 96 rows of 128 bytes.
  for (int e : {3, 5, 6, 7, 9, 13, 15})
    for (std::int64_t rows :
         {35, 37, 67, 69, 71, 73, 77, 95, 97, 103, 105, 107, 109, 141, 203, 209})
      check_unaligned({rows, 1031, e}, rows * 11 + e);
  for (int e : {9, 12})
    for (std::int64_t rows : {95, 97, 99, 101, 103, 105, 193, 197, 301})
      check_unaligned({rows, 65, e}, rows * 13 + e);
}

TEST(GpuCopyUnaligned, MisalignedPointersAndPaddedRows) {
  XPOSE_REQUIRE_GPU();
  for (int e : unaligned_element_sizes)  // copy_any_size takes any byte offset
    for (std::size_t offset = 0; offset < 16; offset += (e & (e - 1)) == 0 ? e : 5) {
      check_unaligned({1001, 777, e, 0, 0, 1, 0, 0, offset, 16 - offset}, offset + e);
      check_unaligned({333, 515, e, 519, 341, 1, 0, 0, 16 - offset, offset}, 100 + offset + e);
      check_unaligned({517, 333, e, 0, 0, 1, 0, 0, offset, 0}, 200 + offset + e);  // dst on 32
    }
}

TEST(GpuCopyUnaligned, BatchedWithStrides) {
  XPOSE_REQUIRE_GPU();
  for (int e : unaligned_element_sizes) {
    check_unaligned({257, 301, e, 303, 259, 3, 257 * 303 + 5, 301 * 259 + 7}, 200 + e);
    check_unaligned({5, 7, e, 0, 0, 40}, 300 + e);
  }
}

// Grid y and z stop at 65535: the kernels loop over the tile rows (tall matrices, walked across)
// or the column strips (wide ones, walked down; tiles_walk_down) and the matrices past them.
TEST(GpuCopyUnaligned, MoreTileRowsColumnStripsAndMatricesThanTheGrid) {
  XPOSE_REQUIRE_GPU();
  using namespace xpose::detail::cuda;
  constexpr std::int64_t unaligned_tile_rows = copy_unaligned_tile_rows<4>;
  constexpr std::int64_t unaligned_8_tile_rows = copy_unaligned_tile_rows<8>;
  constexpr std::int64_t sectors_tile_rows = copy_sectors_policy<device_class::other>::tile_rows;
  // copy_any_size: 3 columns of 3 or 9 bytes, destination rows off 32 bytes (odd rows; tiles of
  // 128-byte rows, which fill 3 columns of 9 bytes 1/10 better than 256-byte ones).
  constexpr std::int64_t any_size_3_tile_rows = copy_any_size_halo_policy<3>::tile_rows;
  constexpr std::int64_t any_size_9_tile_rows = copy_any_size_halo_policy<9>::tile_rows;
  static_assert(!tiles_walk_down(65535 * sectors_tile_rows, 3), "tall: walked across");
  check_unaligned({65535 * unaligned_tile_rows + 45, 3, 4}, 501);
  check_unaligned({65535 * unaligned_8_tile_rows + 45, 3, 8}, 504);
  check_unaligned({65535 * sectors_tile_rows + 45, 3, 16}, 502);
  check_unaligned({65535 * any_size_3_tile_rows + 45, 3, 3}, 505);
  check_unaligned({65535 * any_size_9_tile_rows + 45, 3, 9}, 506);
  constexpr std::int64_t unaligned_tile_cols = copy_unaligned_policy<4>::tile_bytes / 4;
  constexpr std::int64_t unaligned_8_tile_cols = copy_unaligned_policy<8>::tile_bytes / 8;
  constexpr std::int64_t sectors_tile_cols = copy_sectors_policy<device_class::other>::tile_cols;
  constexpr std::int64_t any_size_3_tile_cols = copy_any_size_halo_policy<3>::tile_bytes / 3;
  // (3 rows of 9 bytes and many columns: 256-byte tile rows, which fill them as well.)
  constexpr std::int64_t any_size_9_tile_cols = copy_any_size_halo_wide_policy<9>::tile_bytes / 9;
  static_assert(tiles_walk_down(3, 65535 * sectors_tile_cols), "wide: walked down");
  check_unaligned({3, 65535 * unaligned_tile_cols + 45, 4}, 507);
  check_unaligned({3, 65535 * unaligned_8_tile_cols + 45, 8}, 508);
  check_unaligned({3, 65535 * sectors_tile_cols + 45, 16}, 509);
  check_unaligned({3, 65535 * any_size_3_tile_cols + 45, 3}, 510);
  check_unaligned({3, 65535 * any_size_9_tile_cols + 45, 9}, 511);
  for (int e : unaligned_element_sizes) {
    check_unaligned({3, 5, e, 0, 0, 65535 + 9}, 503 + e);   // walked down
    check_unaligned({11, 5, e, 0, 0, 65535 + 9}, 603 + e);  // walked across
  }
}

// Tiles handed out in interleaved regions (block/column_tiles.cuh, tile_regions), which the
// launchers take only where the rows resonate with the H100's memory: every tile kernel, walked
// down (wide) and across (tall), strips or tile rows that the regions do not divide, padded rows
// and a strided batch at misaligned pointers, more strips or tile rows than the grid's y.
TEST(GpuCopyUnaligned, TilesInInterleavedRegions) {
  XPOSE_REQUIRE_GPU();
  for (int regions : {1, 2, 3, 6, 8}) {
    for (int e : unaligned_element_sizes) {
      const std::size_t ue = static_cast<std::size_t>(e);
      unaligned_case wide{301, 2017, e}, tall{2017, 301, e};
      unaligned_case batch{257, 701, e, 703, 259, 2, 257 * 703 + 5, 701 * 259 + 7, ue, 2 * ue};
      for (unaligned_case* c : {&wide, &tall, &batch}) {
        c->regions = regions;
        check_unaligned(*c, 700 + regions * 20 + e);
      }
    }
    for (int e : {1, 2, 4, 8, 16}) {
      // copy_tuned's kernel: rows on 16 / 32 bytes, and odd ones.
      const auto pad = [e](std::int64_t n) { return (n / (32 / e) + 1) * (32 / e); };
      unaligned_case wide{256, 2000, e, pad(2000), pad(256)},
          tall{2000, 256, e, pad(256), pad(2000)};
      unaligned_case odd{301, 2017, e};
      for (unaligned_case* c : {&wide, &tall, &odd}) {
        c->tuned_tiles = xpose::detail::cuda::tuned_tiles::standard;
        c->regions = regions;
        check_unaligned(*c, 800 + regions * 20 + e);
      }
    }
  }
  using namespace xpose::detail::cuda;
  constexpr std::int64_t unaligned_tile_rows = copy_unaligned_tile_rows<4>;
  constexpr std::int64_t unaligned_tile_cols = copy_unaligned_policy<4>::tile_bytes / 4;
  unaligned_case many_strips{3, 65535 * unaligned_tile_cols + 45, 4};
  unaligned_case many_tile_rows{65535 * unaligned_tile_rows + 45, 3, 4};
  for (unaligned_case* c : {&many_strips, &many_tile_rows}) {
    c->regions = 3;
    check_unaligned(*c, 900);
  }
}

// Which rows take regions: k rows spanning a whole number of the period within the tolerance
// (k = 1, 2, 3, 4, 6), not rows of a whole number of 2^18 bytes (5 a period) or shorter rows;
// the tile kernels' regions and copy_full_height's for each k.
TEST(GpuCopyUnaligned, ResonantRowsTakeRegions) {
  using xpose::detail::cuda::h100_memory_period, xpose::detail::cuda::resonant_regions,
      xpose::detail::cuda::resonance_tolerance_bytes;
  constexpr std::int64_t q = h100_memory_period, tol = resonance_tolerance_bytes;
  EXPECT_EQ(q, 1310720);
  EXPECT_EQ(resonant_regions(q, q), 8);
  EXPECT_EQ(resonant_regions(q + tol, q), 8);
  EXPECT_EQ(resonant_regions(q - tol, q), 8);
  EXPECT_EQ(resonant_regions(q + tol + 1, q), 1);
  EXPECT_EQ(resonant_regions(2 * q, q), 8);
  EXPECT_EQ(resonant_regions(q / 2, q), 6);
  EXPECT_EQ(resonant_regions(3 * q / 2, q), 6);
  EXPECT_EQ(resonant_regions(436912, q), 3);      // 1-byte 700 x 436912
  EXPECT_EQ(resonant_regions(109219 * 4, q), 3);  // 4-byte 353 x 109219
  EXPECT_EQ(resonant_regions(2 * q / 3, q), 3);
  EXPECT_EQ(resonant_regions(109411 * 4, q), 1);  // 3 rows 2212 bytes past the period
  EXPECT_EQ(resonant_regions(q / 4, q), 2);       // 4-byte 2048 x 81920
  EXPECT_EQ(resonant_regions(3 * q / 4, q), 2);
  EXPECT_EQ(resonant_regions(54611 * 4, q), 2);  // 4-byte 600 x 54611: 6 rows
  EXPECT_EQ(resonant_regions(std::int64_t{1} << 18, q), 1);
  EXPECT_EQ(resonant_regions(std::int64_t{1} << 19, q), 1);
  EXPECT_EQ(resonant_regions(32768, q), 1);  // 8192 4-byte columns: 40 rows a period
  EXPECT_EQ(resonant_regions(0, q), 1);
  EXPECT_EQ(resonant_regions(tol, q), 1);
  EXPECT_EQ(resonant_regions(113315 * 4, q), 1);
  // copy_full_height's strips: the same rows, 3 regions at k = 4.
  using xpose::detail::cuda::resonant_rows, xpose::detail::cuda::resonant_strip_regions;
  EXPECT_EQ(resonant_rows(q, q), 1);
  EXPECT_EQ(resonant_rows(q / 2, q), 2);
  EXPECT_EQ(resonant_rows(436912, q), 3);
  EXPECT_EQ(resonant_rows(q / 4, q), 4);
  EXPECT_EQ(resonant_rows(54611 * 4, q), 6);
  EXPECT_EQ(resonant_rows(113315 * 4, q), 0);
  EXPECT_EQ(resonant_strip_regions(q, q), 8);
  EXPECT_EQ(resonant_strip_regions(q / 2, q), 6);
  EXPECT_EQ(resonant_strip_regions(436912, q), 3);
  EXPECT_EQ(resonant_strip_regions(327681, q), 3);  // 1-byte 480 x 327681: 4 rows
  EXPECT_EQ(resonant_strip_regions(54611 * 4, q), 2);
  EXPECT_EQ(resonant_strip_regions(std::int64_t{1} << 18, q), 1);
  EXPECT_EQ(resonant_strip_regions(113315 * 4, q), 1);
}

// Through the launchers on resonant rows: where the device has the H100's memory interface,
// tile_regions names the regions (else 1), and the output is right either way.
TEST(GpuCopyUnaligned, ResonantRowsThroughTheLaunchers) {
  XPOSE_REQUIRE_GPU();
  using namespace xpose::detail::cuda;
  const bool h100_memory = xpose::test::has_h100_memory_interface();
  copy_args wide;
  wide.rows = 100;
  wide.cols = 81921;  // 4-byte rows of a quarter period and 4 bytes: regions walking down
  wide.lda = wide.cols;
  wide.ldb = wide.rows;
  EXPECT_EQ(tile_regions(wide, 4), h100_memory ? 2 : 1);
  copy_args tall = wide;
  tall.rows = 100000;
  tall.cols = 300;
  tall.lda = 300;
  tall.ldb = 109219;  // walking across, the destination rows: 109219 4-byte elements
  EXPECT_EQ(tile_regions(tall, 4), h100_memory ? 3 : 1);
  check_unaligned({100, 81921, 4}, 950);  // copy_unaligned
  unaligned_case tuned{128, 81920, 4};    // rows on 16 / 32 bytes
  tuned.tuned_tiles = tuned_tiles::standard;
  check_unaligned(tuned, 951);
  check_unaligned({100, 109227, 3}, 952);  // copy_any_size, 4 rows a period
}

TEST(GpuCopyUnaligned, RandomShapes) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(4242);
  constexpr int sizes = static_cast<int>(std::size(unaligned_element_sizes));
  for (int i = 0; i < 5 * sizes; ++i) {
    const int e = unaligned_element_sizes[i % sizes];
    const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 3000);
    const std::int64_t cols = 1 + static_cast<std::int64_t>(rng() % 3000);
    // copy_any_size takes any byte offset; the others, element-aligned ones.
    const bool any_offset = (e & (e - 1)) != 0;
    const auto offset = [&] {
      return any_offset ? rng() % 32 : static_cast<std::size_t>(e) * (rng() % (16 / e));
    };
    const std::size_t src_offset = offset(), dst_offset = offset();
    check_unaligned({rows, cols, e, cols + static_cast<std::int64_t>(rng() % 5),
                     rows + static_cast<std::int64_t>(rng() % 5), 1, 0, 0, src_offset, dst_offset},
                    rng());
  }
}

// skinny_any_size: wide (rows <= 64; WideSlabsOfMoreRows takes more) and tall (cols <= 64) slabs,
// whole and cut, with small slabs so that small matrices span many of them.
constexpr int any_size_element_sizes[] = {3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15};

unaligned_case skinny(std::int64_t rows, std::int64_t cols, int e, int slab_bytes) {
  unaligned_case c{rows, cols, e};
  c.skinny_slab_bytes = slab_bytes;
  return c;
}

TEST(GpuCopySkinnyAnySize, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (int e : any_size_element_sizes) {
    check_unaligned(skinny(7, 1001, e, 256), 900 + e);
    check_unaligned(skinny(1001, 7, e, 256), 950 + e);
  }
}

TEST(GpuCopySkinnyAnySize, EveryShortSideUpTo64) {
  XPOSE_REQUIRE_GPU();
  for (int e : any_size_element_sizes)
    for (std::int64_t side = 1; side <= 64; side += e < 8 ? 1 : 3)
      for (std::int64_t length : {1, 2, 17, 333}) {
        check_unaligned(skinny(side, length, e, 400), side * 1000 + length + e);
        check_unaligned(skinny(length, side, e, 400), side * 2000 + length + e);
      }
}

// Wide slabs of more rows than the skinny shapes (up to skinny_any_size_wide_max_rows, the
// dispatch's short, wide matrices past 64 rows): row counts on and off multiples of 4, several
// slabs a matrix, padded and misaligned rows, a batch.
TEST(GpuCopySkinnyAnySize, WideSlabsOfMoreRows) {
  XPOSE_REQUIRE_GPU();
  using xpose::detail::cuda::skinny_any_size_wide_max_rows;
  for (int e : any_size_element_sizes)
    for (std::int64_t rows : {std::int64_t{65}, std::int64_t{100}, std::int64_t{139},
                              std::int64_t{257}, skinny_any_size_wide_max_rows}) {
      check_unaligned(skinny(rows, 3001, e, 4000), rows * 3 + e);
      unaligned_case padded{
          rows, 2003, e, 2011, rows + 3, 2, 2011 * rows + 5, 2003 * (rows + 3) + 7, 5, 11};
      padded.skinny_slab_bytes = library_slab;
      check_unaligned(padded, rows * 5 + e);
    }
}

TEST(GpuCopySkinnyAnySize, SlabSizes) {
  XPOSE_REQUIRE_GPU();
  for (int e : {3, 7, 12, 15})
    for (int slab : {1, 16, 100, 1000, 4096, 16 * 1024, 32 * 1024})
      for (std::int64_t side : {2, 31, 64}) {
        check_unaligned(skinny(side, 20011, e, slab), slab + side + e);
        check_unaligned(skinny(20011, side, e, slab), 2 * slab + side + e);
      }
}

TEST(GpuCopySkinnyAnySize, MisalignedPointersPaddedRowsAndBatches) {
  XPOSE_REQUIRE_GPU();
  for (int e : any_size_element_sizes)
    for (std::size_t offset = 0; offset < 16; offset += 3) {
      for (const std::int64_t side : {3, 40}) {
        unaligned_case wide{side, 3001, e, 3007, side + 3, 1, 0, 0, offset, 15 - offset};
        wide.skinny_slab_bytes = 2000;
        check_unaligned(wide, 1000 + offset + e);
        unaligned_case tall{3001, side, e, side + 5, 3005, 1, 0, 0, 15 - offset, offset};
        tall.skinny_slab_bytes = 2000;
        check_unaligned(tall, 2000 + offset + e);
        unaligned_case dense{side,   2999,      e, 0, 0, 3, side * 2999 + 7, 2999 * side + 5,
                             offset, offset / 2};
        dense.skinny_slab_bytes = 2000;
        check_unaligned(dense, 3000 + offset + e);
        dense.rows = 2999;
        dense.cols = side;
        check_unaligned(dense, 4000 + offset + e);
      }
    }
}

// Padded source rows of a tall slab take their covering chunks in shared memory (32 bytes for
// a 6-byte row): the slab must still fit.
TEST(GpuCopySkinnyAnySize, PaddedNarrowRowsWithTheLibrarySlab) {
  XPOSE_REQUIRE_GPU();
  for (int e : any_size_element_sizes)
    for (const std::int64_t side : {1, 2, 3, 8, 31}) {
      unaligned_case tall{200003, side, e, side + 1, 200005, 1, 0, 0, 5, 3};
      tall.skinny_slab_bytes = library_slab;
      check_unaligned(tall, 5000 + side + e);
      unaligned_case wide{side, 200003, e, 200005, side + 1, 1, 0, 0, 3, 5};
      wide.skinny_slab_bytes = library_slab;
      check_unaligned(wide, 6000 + side + e);
    }
}

TEST(GpuCopySkinnyAnySize, PaddedBatchesWithTheLibrarySlab) {
  XPOSE_REQUIRE_GPU();
  for (int e : any_size_element_sizes)
    for (const std::int64_t side : {2, 7, 40}) {
      unaligned_case wide{
          side, 5003, e, 5009, side + 2, 3, side * 5009 + 11, 5003 * (side + 2) + 13, 7, 9};
      wide.skinny_slab_bytes = library_slab;
      check_unaligned(wide, 7000 + side + e);
      unaligned_case tall{5003, side, e, side + 3, 5007, 3, 5003 * (side + 3) + 5, side * 5007 + 3,
                          9,    7};
      tall.skinny_slab_bytes = library_slab;
      check_unaligned(tall, 8000 + side + e);
    }
}

TEST(GpuCopySkinnyAnySize, RandomShapesWithTheLibrarySlab) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(777);
  for (int i = 0; i < 44; ++i) {
    const int e = any_size_element_sizes[i % 11];
    const std::int64_t side = 1 + static_cast<std::int64_t>(rng() % 64);
    const std::int64_t length = 1 + static_cast<std::int64_t>(rng() % 200000);
    unaligned_case c = i % 2 ? skinny(side, length, e, 0) : skinny(length, side, e, 0);
    c.skinny_slab_bytes = library_slab;
    c.src_offset = rng() % 32;
    c.dst_offset = rng() % 32;
    check_unaligned(c, rng());
  }
}

// The plain and the shifted skinny slabs (copy/skinny.cu), each on every shape whatever
// choose_skinny_slabs would pick: short sides up to most_skinny_side, long sides whole and cut,
// around a shifted slab's length (16 KiB over the short side, in multiples of 16 elements: a tall
// slab's halo ends in the next slab or at the matrix's end), spaced slabs and even short sides that
// cannot be spaced, misaligned pointers, padded rows (narrow padded rows of a long tall matrix: the
// slab sized by their covering chunks), batches.
constexpr int power_of_two_sizes[] = {1, 2, 4, 8, 16};
constexpr xpose::detail::cuda::skinny_slabs both_slabs[] = {
    xpose::detail::cuda::skinny_slabs::plain, xpose::detail::cuda::skinny_slabs::shifted};

unaligned_case slabs(unaligned_case c, xpose::detail::cuda::skinny_slabs kind) {
  c.skinny_slabs = static_cast<int>(kind);
  return c;
}

/// The longest short side the slabs are tested on: past what the dispatch sends them (below
/// copy_tuned's tile, copy_full_height's least rows and copy_full_width's least columns), since the
/// launcher takes any shape.
std::int64_t most_skinny_side(int e) {
  switch (e) {
    case 1:
      return 300;
    case 2:
      return 150;
    case 4:
      return 67;
    case 8:
      return 71;
    default:
      return 31;
  }
}

TEST(GpuCopySkinnySlabs, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (const auto kind : both_slabs)
    for (int e : power_of_two_sizes) {
      const std::size_t ue = static_cast<std::size_t>(e);
      check_unaligned(slabs({7, 1001, e}, kind), 1100 + e);
      check_unaligned(slabs({1001, 7, e}, kind), 1150 + e);
      check_unaligned(slabs({33, 517, e, 521, 35, 2, 33 * 521 + 3, 517 * 35 + 5, ue, 0}, kind),
                      1200 + e);
      check_unaligned(slabs({517, 33, e, 35, 521, 2, 517 * 35 + 3, 33 * 521 + 5, 0, ue}, kind),
                      1250 + e);
      // An even short side below 32 and dense runs on 16 bytes: the shifted slabs spaced.
      check_unaligned(slabs({8, 1000, e, 0, 0, 3}, kind), 1300 + e);
      check_unaligned(slabs({1000, 8, e, 0, 0, 3}, kind), 1350 + e);
      check_unaligned(slabs({6, 1001, e, 0, 0, 1, 0, 0, ue, 0}, kind), 1400 + e);
      check_unaligned(slabs({1001, 6, e, 0, 0, 1, 0, 0, 0, ue}, kind), 1450 + e);
      // Even short sides whose batch strides leave the runs off 16 bytes: not spaced.
      check_unaligned(slabs({8, 1001, e, 0, 0, 3}, kind), 1500 + e);
      check_unaligned(slabs({1001, 8, e, 0, 0, 3}, kind), 1550 + e);
    }
}

TEST(GpuCopySkinnySlabs, EveryShortSide) {
  XPOSE_REQUIRE_GPU();
  for (const auto kind : both_slabs)
    for (int e : power_of_two_sizes)
      for (std::int64_t side = 1; side <= most_skinny_side(e); side += side < 40 ? 1 : 13)
        for (std::int64_t length : {1, 16, 17, 1000, 5003}) {
          check_unaligned(slabs({side, length, e}, kind), side * 1000 + length + e);
          check_unaligned(slabs({length, side, e}, kind), side * 2000 + length + e);
        }
}

TEST(GpuCopySkinnySlabs, LongSidesAroundTheShiftedSlabLength) {
  XPOSE_REQUIRE_GPU();
  for (const auto kind : both_slabs)
    for (int e : power_of_two_sizes)
      for (std::int64_t side :
           {std::int64_t{2}, std::int64_t{8}, std::int64_t{33}, most_skinny_side(e)}) {
        const std::int64_t slab = 16 * 1024 / (side * e) / 16 * 16;
        for (std::int64_t length : {slab, slab + 1, slab + 16 / e - 1, slab + 16 / e,
                                    slab + 16 / e + 1, 3 * slab - 1, 3 * slab + 7}) {
          check_unaligned(slabs({side, length, e}, kind), side * 3000 + length + e);
          check_unaligned(slabs({length, side, e}, kind), side * 4000 + length + e);
        }
      }
}

TEST(GpuCopySkinnySlabs, MisalignedPointersPaddedRowsAndBatches) {
  XPOSE_REQUIRE_GPU();
  for (const auto kind : both_slabs)
    for (int e : power_of_two_sizes)
      for (std::size_t offset = 0; offset < 16; offset += static_cast<std::size_t>(e))
        for (const std::int64_t side : {3, 40}) {
          const std::size_t other = 16 - static_cast<std::size_t>(e) - offset;
          check_unaligned(slabs({side, 3001, e, 3007, side + 3, 1, 0, 0, offset, other}, kind),
                          5000 + offset + e);
          check_unaligned(slabs({3001, side, e, side + 5, 3005, 1, 0, 0, other, offset}, kind),
                          6000 + offset + e);
          unaligned_case dense{side,   2999, e, 0, 0, 3, side * 2999 + 7, 2999 * side + 5,
                               offset, other};
          check_unaligned(slabs(dense, kind), 7000 + offset + e);
          dense.rows = 2999;
          dense.cols = side;
          check_unaligned(slabs(dense, kind), 8000 + offset + e);
        }
}

TEST(GpuCopySkinnySlabs, PaddedNarrowRowsOfLongTallMatrices) {
  XPOSE_REQUIRE_GPU();
  for (const auto kind : both_slabs)
    for (int e : power_of_two_sizes)
      for (const std::int64_t side : {1, 2, 4, 8}) {
        check_unaligned(slabs({200001, side, e, side + 1, 0}, kind), 9000 + side + e);
        check_unaligned(
            slabs({200001, side, e, side + 3, 200003, 2, 0, 0, 0, static_cast<std::size_t>(e)},
                  kind),
            9100 + side + e);
      }
}

TEST(GpuCopySkinnySlabs, RandomShapes) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(9191);
  for (int i = 0; i < 60; ++i) {
    const int e = power_of_two_sizes[i % 5];
    const std::int64_t side = 1 + static_cast<std::int64_t>(rng() % most_skinny_side(e));
    const std::int64_t length = 1 + static_cast<std::int64_t>(rng() % 300000);
    unaligned_case c = i % 2 ? unaligned_case{side, length, e} : unaligned_case{length, side, e};
    c.src_offset = static_cast<std::size_t>(e) * (rng() % (16 / e));
    c.dst_offset = static_cast<std::size_t>(e) * (rng() % (16 / e));
    check_unaligned(slabs(c, both_slabs[i / 5 % 2]), rng());
  }
}

// copy_full_height, 1- to 15-byte elements but 16 (copy/full_height_kernel.cuh for
// powers of two, copy/full_height_any_size_kernel.cuh for the others): row counts from
// one 16-byte chunk's worth to past each tile width's change (512, 256, 128 and 64 bytes of each
// source row) and to the most rows it takes, column counts around a tile's width (with row
// counts whose tiles load in two steps of 288 or 320 threads), dense and padded destinations (a
// dense run's chunks straddle columns; padded rows are written one by one), misaligned pointers,
// batches (past the grid's 65535), and row counts past its reach or sizes it does not take (a
// clear error).
constexpr int full_tile_sizes[] = {1, 2, 4, 8};
constexpr int full_height_sizes[] = {1, 2, 4, 8, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15};

unaligned_case full_height(unaligned_case c) {
  c.full_height = true;
  return c;
}

bool power_of_two(int e) {
  return (e & (e - 1)) == 0;
}

/// copy_full_height's tile width for `rows` rows of E-byte elements (0: past its reach).
int full_height_width(std::int64_t rows, int e) {
  return power_of_two(e) ? xpose::detail::cuda::full_height_tile_width(rows, e)
                         : xpose::detail::cuda::full_height_any_size_tile_width(rows, e);
}

/// The least and the most rows copy_full_height takes of E-byte elements (one 16-byte chunk a
/// destination row; its 64-byte-wide tile within the budget).
std::int64_t full_height_least_rows(int e) {
  return (16 + e - 1) / e;
}
std::int64_t full_height_most_rows(int e) {
  std::int64_t rows = 1;
  while (full_height_width(rows + 1, e) != 0) ++rows;
  return rows;
}

/// Pointer offsets (bytes) that keep E-byte elements on their natural alignment: powers of two
/// on multiples of themselves, other sizes anywhere.
std::size_t offset_step(int e) {
  return power_of_two(e) ? static_cast<std::size_t>(e) : 1;
}

TEST(GpuCopyFullHeight, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_tile_sizes) {
    const std::size_t ue = static_cast<std::size_t>(e);
    check_unaligned(full_height({417 / e, 1001, e}), 1600 + e);
    check_unaligned(full_height({97, 517, e, 521, 99, 2, 97 * 521 + 3, 517 * 99 + 5, ue, 0}),
                    1650 + e);
    check_unaligned(full_height({33, 300, e, 0, 0, 3, 0, 0, 0, ue}), 1700 + e);
    unaligned_case in_regions = full_height({97, 1001, e, 0, 0, 2, 0, 0, ue, 0});
    in_regions.regions = 3;
    check_unaligned(in_regions, 1720 + e);
  }
  // Tiles past 38 KiB whose load takes two steps of 320 threads (1- and 2-byte elements).
  for (int e : {1, 2})
    check_unaligned(full_height({300, 301, e, 0, 0, 2, 0, 0, static_cast<std::size_t>(e), 0}),
                    1750 + e);
  // 3- to 15-byte elements (65 and 130 rows: two load steps of 288 threads; 150 rows: of 320).
  for (int e : any_size_element_sizes) {
    const std::size_t ue = static_cast<std::size_t>(e);
    check_unaligned(full_height({67, 301, e}), 1800 + e);
    check_unaligned(full_height({150, 140, e, 0, 0, 2, 0, 0, 5, 0}), 1930 + e);
    check_unaligned(full_height({49, 203, e, 207, 53, 2, 49 * 207 + 3, 203 * 53 + 5, ue, 3}),
                    1850 + e);
    check_unaligned(full_height({130, 150, e, 0, 0, 3, 0, 0, 7, ue + 1}), 1900 + e);
  }
  // 1-byte tiles at half width (192 and 384 rows) and of 128 bytes loaded in two full steps of
  // 512 threads (505 and 512 rows, 64 KiB of shared memory).
  for (std::int64_t rows : {192, 384, 505, 512}) {
    check_unaligned(full_height({rows, 301, 1}), 2100 + rows);
    check_unaligned(
        full_height({rows, 203, 1, 207, rows + 3, 2, rows * 207 + 3, 203 * (rows + 3) + 5, 1, 3}),
        2200 + rows);
  }
  // 3-byte elements in 321 to 353 rows: 128-byte tiles of 384 threads (up to 44 KiB).
  for (std::int64_t rows : {321, 353}) {
    check_unaligned(full_height({rows, 301, 3}), 2300 + rows);
    check_unaligned(
        full_height({rows, 203, 3, 207, rows + 3, 2, rows * 207 + 3, 203 * (rows + 3) + 5, 3, 1}),
        2400 + rows);
  }
  // 3- and 5-byte elements: 128-byte tiles loaded in one step of 160, 192 or 224 threads (76 and
  // 112 rows), and the tiles of group_tile_for in two or three steps of 96, 128 or 160 threads
  // (48 to 108 rows).
  for (int e : {3, 5})
    for (std::int64_t rows : {48, 52, 65, 76, 80, 84, 92, 100, 108, 112}) {
      const std::size_t ue = static_cast<std::size_t>(e);
      check_unaligned(full_height({rows, 301, e}), 1950 + rows + e);
      check_unaligned(full_height({rows, 203, e, 207, rows + 3, 2, rows * 207 + 3,
                                   203 * (rows + 3) + 5, ue, 3}),
                      2050 + rows + e);
    }
}

// Column strips handed out in interleaved regions (full_height_regions names them only for rows
// that resonate with the H100's memory): regions that do not divide the strips, more regions
// than strips (blocks past the last strip), padded rows and a strided batch at misaligned
// pointers, every element size and tile width.
TEST(GpuCopyFullHeight, StripsInInterleavedRegions) {
  XPOSE_REQUIRE_GPU();
  for (int regions : {1, 2, 3, 6, 8})
    for (int e : full_height_sizes) {
      const std::size_t step = offset_step(e), ue = static_cast<std::size_t>(e);
      const std::int64_t rows[] = {full_height_least_rows(e) + 1, 97, full_height_most_rows(e)};
      for (std::int64_t r : rows) {
        unaligned_case wide = full_height({r, 2017, e}), narrow = full_height({r, 5, e});
        unaligned_case batch =
            full_height({r, 701, e, 703, r + 3, 2, r * 703 + 5, 701 * (r + 3) + 7, step, ue});
        for (unaligned_case* c : {&wide, &narrow, &batch}) {
          c->regions = regions;
          check_unaligned(*c, 2200 + regions * 100 + r + e);
        }
      }
    }
}

// On resonant source rows the launchers take full_height_regions' regions where the device has
// the H100's memory interface (else 1), and the output is right either way.
TEST(GpuCopyFullHeight, ResonantRowsThroughTheLaunchers) {
  XPOSE_REQUIRE_GPU();
  using namespace xpose::detail::cuda;
  const bool h100_memory = xpose::test::has_h100_memory_interface();
  copy_args wide;
  wide.rows = 100;
  wide.cols = 81921;  // 4-byte rows of a quarter period and 4 bytes: k = 4
  wide.lda = wide.cols;
  wide.ldb = wide.rows;
  EXPECT_EQ(full_height_regions(wide, 4), h100_memory ? 3 : 1);
  wide.lda = 145635;  // 3-byte rows, 5 bytes short of a third of the period
  EXPECT_EQ(full_height_regions(wide, 3), h100_memory ? 3 : 1);
  wide.lda = 82001;  // not resonant
  EXPECT_EQ(full_height_regions(wide, 4), 1);
  check_unaligned(full_height({100, 81921, 4}), 2900);
  check_unaligned(full_height({64, 145635, 3}), 2901);
  EXPECT_THROW(launch_copy_full_height(wide, 4, nullptr, -1), xpose::error);
  EXPECT_THROW(launch_copy_full_height_any_size(wide, 3, nullptr, -1), xpose::error);
}

// Powers of two: every row count to 200, then every 7th; the other sizes (eleven of them, each
// check larger): every row count to 70, then every 29th.
TEST(GpuCopyFullHeight, EveryRowCount) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_height_sizes) {
    const bool dense_steps = power_of_two(e);
    for (std::int64_t rows = full_height_least_rows(e); rows <= full_height_most_rows(e);
         rows += rows < (dense_steps ? 200 : 70) ? 1
                 : dense_steps                   ? 7
                                                 : 29)
      for (std::int64_t cols : {std::int64_t{1}, std::int64_t{(dense_steps ? 64 : 512) / e + 1},
                                std::int64_t{dense_steps ? 1031 : 301}}) {
        check_unaligned(full_height({rows, cols, e}), rows * 10 + cols + e);
        check_unaligned(full_height({rows, cols, e, 0, rows + 1}), rows * 20 + cols + e);
      }
  }
}

TEST(GpuCopyFullHeight, ColumnsAroundEachTileWidth) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_height_sizes)
    for (std::int64_t rows : {48,  52,  64,  65,  75,  76,  80,  84,  96,  97,  108, 112,
                              113, 139, 150, 192, 193, 260, 320, 384, 385, 505, 512, 520}) {
      const std::int64_t width = full_height_width(rows, e) / e;
      for (std::int64_t cols : {width - 1, width, width + 1, 2 * width - 1, 3 * width + 5}) {
        check_unaligned(full_height({rows, cols, e}), rows * 30 + cols + e);
        check_unaligned(full_height({rows, cols, e, cols + 3, rows + 2}), rows * 40 + cols + e);
      }
    }
}

TEST(GpuCopyFullHeight, MisalignedPointersPaddedRowsAndBatches) {
  XPOSE_REQUIRE_GPU();
  for (int e : {1, 2, 4, 8, 3, 7, 12, 15}) {
    const std::size_t step = power_of_two(e) ? static_cast<std::size_t>(e) : 3;
    for (std::size_t offset = 0; offset < 16; offset += step)
      for (const std::int64_t rows : {37, 50, 130, 300}) {
        const std::size_t other = 16 - offset_step(e) - offset;
        check_unaligned(full_height({rows, 3001, e, 3007, rows + 3, 1, 0, 0, offset, other}),
                        5100 + offset + e);
        check_unaligned(
            full_height({rows, 2999, e, 0, 0, 3, rows * 2999 + 7, 2999 * rows + 5, offset, other}),
            5200 + offset + e);
        check_unaligned(full_height({rows, 2999, e, 0, 0, 2, 0, 0, offset, other}),
                        5300 + offset + e);
      }
  }
}

TEST(GpuCopyFullHeight, MoreMatricesThanTheGrid) {
  XPOSE_REQUIRE_GPU();
  for (int e : {1, 2, 4, 8, 3, 13})
    check_unaligned(full_height({full_height_least_rows(e) + 1, 3, e, 0, 0, 65535 + 9}), 5400 + e);
}

// The tile widths the measured rules give (host code: runs without a device too): half width
// where a tile would fill the budget, 128 bytes for 1-byte elements in 505 to 512 rows,
// group_tile_for's widths for 3- and 5-byte elements, 128 bytes for their one-step rows and for
// 3-byte elements in 321 to 353 rows, else the widest within the budget.
TEST(GpuCopyFullHeight, TileWidthsFollowTheMeasuredRules) {
  const struct {
    std::int64_t rows;
    int e, width;
  } cases[] = {
      {96, 1, 256},  {97, 1, 256},  {192, 1, 128}, {184, 1, 256}, {376, 1, 128}, {384, 1, 64},
      {504, 1, 64},  {505, 1, 128}, {512, 1, 128}, {513, 1, 64},  {384, 2, 64},  {512, 2, 64},
      {44, 3, 512},  {48, 3, 256},  {49, 3, 512},  {52, 5, 512},  {60, 3, 512},  {64, 3, 512},
      {65, 3, 256},  {68, 5, 256},  {69, 5, 512},  {76, 3, 128},  {77, 5, 256},  {92, 3, 256},
      {96, 5, 128},  {97, 3, 256},  {108, 5, 256}, {112, 3, 128}, {113, 3, 256}, {320, 3, 128},
      {321, 3, 128}, {353, 3, 128}, {354, 3, 64},  {321, 5, 64},  {65, 7, 512},  {100, 7, 256}};
  for (const auto& c : cases)
    EXPECT_EQ(full_height_width(c.rows, c.e), c.width) << c.rows << " rows of " << c.e << " bytes";
}

// Refused before the device is touched: runs without one too (CI).
TEST(GpuCopyFullHeight, RowsPastItsReachAreAnError) {
  using xpose::detail::cuda::launch_copy_full_height;
  using xpose::detail::cuda::launch_copy_full_height_any_size;
  xpose::detail::cuda::copy_args a;
  a.cols = 10;
  a.lda = a.cols;
  for (int e : {1, 3}) {
    const auto launch = [&] {
      if (e == 1)
        launch_copy_full_height(a, e, nullptr);
      else
        launch_copy_full_height_any_size(a, static_cast<std::size_t>(e), nullptr);
    };
    a.rows = a.ldb = full_height_most_rows(e) + 1;
    expect_refused(launch);
    a.rows = a.ldb = full_height_least_rows(e) - 1;  // less than one 16-byte chunk a row
    expect_refused(launch);
  }
  a.rows = a.ldb = 100;  // sizes the launchers do not take
  expect_refused([&] { launch_copy_full_height(a, 16, nullptr); });
  expect_refused([&] { launch_copy_full_height_any_size(a, 8, nullptr); });
}

TEST(GpuCopyFullHeight, RandomShapes) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(7117);
  for (int i = 0; i < 180; ++i) {
    const int e = full_height_sizes[i % std::size(full_height_sizes)];
    const std::int64_t least = full_height_least_rows(e), most = full_height_most_rows(e);
    const std::int64_t rows = least + static_cast<std::int64_t>(rng() % (most - least + 1));
    const std::int64_t cols = 1 + static_cast<std::int64_t>(rng() % 20000);
    unaligned_case c{rows, cols, e};
    if (i % 3 == 0) c.ldb = rows + static_cast<std::int64_t>(rng() % 5);
    if (i % 5 == 0) c.lda = cols + static_cast<std::int64_t>(rng() % 5);
    c.src_offset = offset_step(e) * (rng() % (16 / offset_step(e)));
    c.dst_offset = offset_step(e) * (rng() % (16 / offset_step(e)));
    check_unaligned(full_height(c), rng());
  }
}

// copy_full_width: every column count it takes (rows of 32 to 1024 bytes within its tile), row
// counts around a tile and its halo (its rows depend on the row's chunks: all of them from one
// row block to thirty), dense and padded rows, misaligned pointers (destination rows starting
// anywhere in a sector: the first tile writes the heads), batches (past the grid's 65535), and
// rows past its reach either way (a clear error).
unaligned_case full_width(unaligned_case c) {
  c.full_width = true;
  return c;
}

/// The least and the most columns copy_full_width takes of E-byte elements.
std::int64_t full_width_least_cols(int e) {
  return xpose::detail::cuda::full_width_least_row_bytes / e;
}
std::int64_t full_width_most_cols(int e) {
  std::int64_t cols = full_width_least_cols(e);
  while (xpose::detail::cuda::full_width_fits(cols + 1, e)) ++cols;
  return cols;
}

TEST(GpuCopyFullWidth, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_tile_sizes) {
    const std::size_t ue = static_cast<std::size_t>(e);
    check_unaligned(full_width({1001, 417 / e, e}), 1800 + e);
    check_unaligned(full_width({517, 97, e, 99, 521, 2, 517 * 99 + 3, 97 * 521 + 5, 0, ue}),
                    1850 + e);
    check_unaligned(full_width({300, 33, e, 0, 0, 3, 0, 0, ue, 0}), 1900 + e);
  }
  // The narrowest rows it takes (32 bytes), off 16 bytes, with a tile of the most row blocks
  // (512 rows with the halo) and one row below it: that row holds the covering chunks' reach.
  for (int e : full_tile_sizes)
    check_unaligned(
        full_width({513, 32 / e, e, 0, 0, 1, 0, 0, 16 - static_cast<std::size_t>(e), 0}), 1950 + e);
}

TEST(GpuCopyFullWidth, EveryColumnCount) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_tile_sizes)
    for (std::int64_t cols = full_width_least_cols(e); cols <= full_width_most_cols(e);
         cols += cols < 160 ? 1 : 7)
      for (std::int64_t rows : {std::int64_t{1}, std::int64_t{17}, std::int64_t{1031}}) {
        check_unaligned(full_width({rows, cols, e}), cols * 10 + rows + e);
        check_unaligned(full_width({rows, cols, e, cols + 1, 0}), cols * 20 + rows + e);
      }
}

TEST(GpuCopyFullWidth, RowsAroundTilesAndHalos) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_tile_sizes)
    for (std::int64_t cols : {std::int64_t{33}, std::int64_t{320 / e}})
      for (std::int64_t rows = 1; rows <= 1100; rows += rows < 520 ? 1 : 19) {
        check_unaligned(full_width({rows, cols, e}), rows * 30 + cols + e);
        if (rows % 5 == 0) check_unaligned(full_width({rows, cols, e, 0, rows + 3}), rows + e);
      }
}

TEST(GpuCopyFullWidth, MisalignedPointersPaddedRowsAndBatches) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_tile_sizes)
    for (std::size_t offset = 0; offset < 16; offset += static_cast<std::size_t>(e))
      for (const std::int64_t cols : {37, 130 / e, 300 / e}) {
        const std::size_t other = 16 - static_cast<std::size_t>(e) - offset;
        check_unaligned(full_width({3001, cols, e, cols + 3, 3007, 1, 0, 0, offset, other}),
                        5500 + offset + e);
        check_unaligned(
            full_width({2999, cols, e, 0, 0, 3, cols * 2999 + 7, 2999 * cols + 5, offset, other}),
            5600 + offset + e);
        check_unaligned(full_width({2999, cols, e, 0, 0, 2, 0, 0, offset, other}),
                        5700 + offset + e);
      }
}

TEST(GpuCopyFullWidth, MoreMatricesThanTheGrid) {
  XPOSE_REQUIRE_GPU();
  for (int e : full_tile_sizes)
    check_unaligned(full_width({5, full_width_least_cols(e), e, 0, 0, 65535 + 9}), 5800 + e);
}

// Refused before the device is touched: runs without one too (CI).
TEST(GpuCopyFullWidth, RowsPastItsReachAreAnError) {
  for (int e : full_tile_sizes)
    for (std::int64_t cols : {full_width_most_cols(e) + 1, full_width_least_cols(e) - 1}) {
      xpose::detail::cuda::copy_args a;
      a.rows = 10;
      a.cols = cols;
      a.lda = a.cols;
      a.ldb = a.rows;
      expect_refused([&] { xpose::detail::cuda::launch_copy_full_width(a, e, nullptr); });
    }
}

TEST(GpuCopyFullWidth, RandomShapes) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(8118);
  for (int i = 0; i < 60; ++i) {
    const int e = full_tile_sizes[i % 4];
    const std::int64_t cols =
        full_width_least_cols(e) +
        static_cast<std::int64_t>(rng() % (full_width_most_cols(e) - full_width_least_cols(e) + 1));
    const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 20000);
    unaligned_case c{rows, cols, e};
    if (i % 3 == 0) c.lda = cols + static_cast<std::int64_t>(rng() % 5);
    if (i % 5 == 0) c.ldb = rows + static_cast<std::int64_t>(rng() % 5);
    c.src_offset = static_cast<std::size_t>(e) * (rng() % (16 / e));
    c.dst_offset = static_cast<std::size_t>(e) * (rng() % (16 / e));
    check_unaligned(full_width(c), rng());
  }
}

}  // namespace
}  // namespace xpose::test
