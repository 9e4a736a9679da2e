// Layout conversions and layout_buffer on the GPU: the same cases as the CPU tests, each result
// compared with the naive reference; the bytes around the array are checked untouched; each forced
// variant (barrier-sync, PTTWAC, chains, through the scratch) on the conversions it applies to,
// and the kernel PTTWAC runs on (flags in shared or in global memory) by its steps' labels.
// The SmallSanitizerShapes cases are the ones scripts/device_check.sh and
// scripts/device_layout_check.sh run under compute-sanitizer.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "layout_reference.hpp"
#include "xpose/layout.hpp"

namespace xpose::test {
namespace {

constexpr std::size_t guard_bytes = 256;

plan_options on_gpu(cudaStream_t stream = nullptr) {
  plan_options options;
  options.target = device::cuda;
  options.stream = stream;
  return options;
}

/// Converts the reference `from` bytes to `to` in place on the device (at `offset` bytes into
/// the buffer, guard bytes around) and compares with the reference `to`.
void check_conversion(layout from, layout to, std::int64_t n, std::int64_t S, std::size_t e,
                      std::uint64_t seed, std::size_t offset = 0,
                      layout_variant variant = layout_variant::automatic) {
  const std::size_t bytes = static_cast<std::size_t>(n * S) * e;
  const auto aos = random_bytes(bytes, seed);
  std::vector<unsigned char> host(offset + bytes + guard_bytes, poison_byte);
  const auto before = arrange(aos, from, n, S, e);
  std::copy(before.begin(), before.end(), host.begin() + static_cast<std::ptrdiff_t>(offset));
  device_buffer data(host.size());
  data.upload(host);
  plan_layout_conversion({n, S, e}, from, to, on_gpu(), variant).execute(data.get() + offset);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess)
      << describe_case(from, to, n, S, e) << ", " << to_string(variant);
  std::vector<unsigned char> expected(host.size(), poison_byte);
  const auto after = arrange(aos, to, n, S, e);
  std::copy(after.begin(), after.end(), expected.begin() + static_cast<std::ptrdiff_t>(offset));
  const std::int64_t at = first_difference(data.download(host.size()), expected);
  ASSERT_EQ(at, -1) << describe_case(from, to, n, S, e) << ", " << to_string(variant)
                    << ": first wrong byte " << at << " (the array starts at byte " << offset
                    << ")";
}

TEST(GpuLayout, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 1;
  for (std::int64_t n : {5, 33, 100})
    for (std::int64_t S : {3, 8})
      for (const auto& [a, b] : sweep_test_pairs()) {
        check_conversion(a, b, n, S, 4, seed++);
        check_conversion(b, a, n, S, 4, seed++);
      }
}

TEST(GpuLayout, EveryPairSmall) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 100;
  for (std::int64_t n : {0, 1, 2, 5, 32, 33, 100})
    for (std::int64_t S : {1, 2, 3, 5, 8})
      for (layout from : all_test_layouts())
        for (layout to : all_test_layouts()) check_conversion(from, to, n, S, 4, seed++);
}

TEST(GpuLayout, FieldSizesAndMisalignedData) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 10000;
  std::vector<std::size_t> sizes;
  for (std::size_t e = 1; e <= 16; ++e) sizes.push_back(e);
  for (std::size_t e : {20, 24, 36, 100}) sizes.push_back(e);
  for (std::size_t e : sizes)
    for (std::int64_t n : {96, 1000})
      for (std::size_t offset : {0, 4, 3})
        for (const auto& [a, b] : sweep_test_pairs()) {
          check_conversion(a, b, n, 7, e, seed++, offset);
          check_conversion(b, a, n, 7, e, seed++, offset);
        }
}

TEST(GpuLayout, FieldCounts) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 20000;
  for (std::int64_t S = 1; S <= 64; ++S)
    for (const auto& [a, b] : sweep_test_pairs()) {
      check_conversion(a, b, 130, S, 4, seed++);
      check_conversion(b, a, 128, S, 4, seed++);
    }
}

TEST(GpuLayout, PaperTable1Widths) {
  // The ELL matrices of the DL paper's Table 1 (rows x widths): AoS and SoA to ASTA and back,
  // T = 16, 32, 64, fp32.
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 30000;
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{11948, 40},  {17281, 62}, {35588, 197},
                                                          {44609, 215}, {90449, 59}, {49152, 39}};
  for (const auto& [n, S] : shapes)
    for (std::int64_t T : {16, 32, 64}) {
      check_conversion(layout::aos(), layout::asta(T), n, S, 4, seed++);
      check_conversion(layout::asta(T), layout::aos(), n, S, 4, seed++);
      check_conversion(layout::soa(), layout::asta(T), n, S, 4, seed++);
      check_conversion(layout::asta(T), layout::soa(), n, S, 4, seed++);
    }
}

TEST(GpuLayout, BadInputsLeaveTheDataUntouched) {
  // Refused before the device is touched: these hold without a device too.
  std::vector<unsigned char> host(64 * 4 * 4, 7);
  void* p = host.data();
  const auto expect_invalid = [](auto call) {
    try {
      call();
      ADD_FAILURE() << "expected xpose::error";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), status::invalid_argument) << e.what();
    }
  };
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::asta(0), 64, 4, 4, on_gpu()); });
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::soa(), 64, 0, 4, on_gpu()); });
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::soa(), 64, 4, 2000, on_gpu()); });
  expect_invalid(
      [&] { convert_layout(nullptr, layout::aos(), layout::soa(), 64, 4, 4, on_gpu()); });
  EXPECT_EQ(host, std::vector<unsigned char>(64 * 4 * 4, 7));
}

const layout_variant forced_variants[] = {layout_variant::barrier_sync, layout_variant::pttwac,
                                          layout_variant::chains, layout_variant::through_scratch,
                                          layout_variant::pipt};

TEST(GpuLayoutVariant, SmallSanitizerShapes) {
  // Small enough that every variant takes every conversion made of tiled stages.
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 40000;
  for (const layout_variant v : forced_variants)
    for (std::int64_t S : {3, 8})
      for (std::int64_t n : {64, 100}) {
        check_conversion(layout::aos(), layout::asta(16), n, S, 4, seed++, 0, v);
        check_conversion(layout::asta(16), layout::aos(), n, S, 4, seed++, 0, v);
        check_conversion(layout::asta(16), layout::asta(32), n, S, 4, seed++, 0, v);
        check_conversion(layout::soa(), layout::asta(16), n, S, 4, seed++, 0, v);
        check_conversion(layout::asta(16), layout::soa(), n, S, 4, seed++, 0, v);
      }
}

TEST(GpuLayoutVariant, PaperTable1Widths) {
  // The bench's named variants on the DL paper's Table 1 arrays: aos -> asta barrier-sync and
  // PTTWAC, soa -> asta PTTWAC (with the partial tile), and on whole tiles (n rounded down to a
  // multiple of 64) PTTWAC, chains and P-IPT.
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 50000;
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{11948, 40},  {17281, 62}, {35588, 197},
                                                          {44609, 215}, {90449, 59}, {49152, 39}};
  for (const auto& [n, S] : shapes)
    for (std::int64_t T : {16, 32, 64}) {
      check_conversion(layout::aos(), layout::asta(T), n, S, 4, seed++, 0,
                       layout_variant::barrier_sync);
      check_conversion(layout::aos(), layout::asta(T), n, S, 4, seed++, 0, layout_variant::pttwac);
      check_conversion(layout::soa(), layout::asta(T), n, S, 4, seed++, 0, layout_variant::pttwac);
      check_conversion(layout::soa(), layout::asta(T), n / 64 * 64, S, 4, seed++, 0,
                       layout_variant::pttwac);
      check_conversion(layout::soa(), layout::asta(T), n / 64 * 64, S, 4, seed++, 0,
                       layout_variant::chains);
      check_conversion(layout::soa(), layout::asta(T), n / 64 * 64, S, 4, seed++, 0,
                       layout_variant::pipt);
    }
}

TEST(GpuLayoutVariant, PttwacKeepsItsFlagsInSharedMemory) {
  // PTTWAC on shared flags for aos <-> asta tiles (many, or small: the partial tile) and small
  // soa -> asta instances; on global claims where one instance is a large array; each checked
  // against the reference, field sizes 1-16 bytes among them.
  XPOSE_REQUIRE_GPU();
  const auto kernels = [](layout from, layout to, std::int64_t n, std::int64_t S, std::size_t e) {
    const layout_conversion c =
        plan_layout_conversion({n, S, e}, from, to, on_gpu(), layout_variant::pttwac);
    std::string labels;
    for (std::size_t k = 0; k < c.steps(); ++k) labels += c.step_label(k) + ";";
    return labels;
  };
  EXPECT_EQ(kernels(layout::aos(), layout::asta(32), 11948, 40, 4), "010 pttwac;10 pttwac;");
  EXPECT_EQ(kernels(layout::asta(64), layout::aos(), 44609 + 30, 215, 4), "010 pttwac;10 pttwac;");
  EXPECT_EQ(kernels(layout::soa(), layout::asta(16), 640, 8, 4), "100 pttwac;");
  EXPECT_EQ(kernels(layout::soa(), layout::asta(16), 11904, 40, 4), "100 cycle_following;");
  std::uint64_t seed = 60000;
  for (std::size_t e : {1, 2, 4, 8, 12, 16})
    for (std::int64_t T : {16, 32, 64}) {
      check_conversion(layout::aos(), layout::asta(T), 5000 + T + 3, 37, e, seed++, 0,
                       layout_variant::pttwac);
      check_conversion(layout::asta(T), layout::aos(), 5000 + T + 3, 37, e, seed++, 4,
                       layout_variant::pttwac);
      check_conversion(layout::soa(), layout::asta(T), 10 * T, 9, e, seed++, 0,
                       layout_variant::pttwac);
    }
}

TEST(GpuLayoutVariant, RefusedWhereTheRouteCannotTakeIt) {
  // Refused at planning (status::unsupported), before anything is allocated: these hold without
  // a device too.
  const auto expect_unsupported = [](layout from, layout to, std::int64_t n, std::int64_t S,
                                     layout_variant v, const char* names) {
    try {
      plan_layout_conversion({n, S, 4}, from, to, on_gpu(), v);
      ADD_FAILURE() << "expected unsupported for " << to_string(v);
    } catch (const error& e) {
      EXPECT_EQ(e.code(), status::unsupported) << e.what();
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  // One instance is the whole array: far beyond shared memory and the scratch.
  expect_unsupported(layout::soa(), layout::asta(16), 16 * 100000, 40, layout_variant::barrier_sync,
                     "shared memory");
  expect_unsupported(layout::soa(), layout::asta(16), 16 * 100000, 40,
                     layout_variant::through_scratch, "scratch");
  // A full transposition: aos <-> soa.
  expect_unsupported(layout::aos(), layout::soa(), 1000, 40, layout_variant::pttwac,
                     "full in-place transposition");
}

TEST(GpuLayoutBuffer, LazyConversionsOnAStreamAndCopyBack) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t n = 4000, S = 6;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    layout_buffer buffer({n, S, 4}, layout::aos(), on_gpu());
    const auto aos = random_bytes(buffer.bytes(), 61);
    buffer.copy_from_host(aos.data(), stream);
    buffer.convert_to(layout::asta(32), stream);
    buffer.convert_to(layout::asta(32), stream);  // nothing to do
    EXPECT_EQ(registered_layout(buffer.data()), layout::asta(32));
    std::vector<unsigned char> now(buffer.bytes());
    ASSERT_EQ(
        cudaMemcpyAsync(now.data(), buffer.data(), now.size(), cudaMemcpyDeviceToHost, stream),
        cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(now == arrange(aos, layout::asta(32), n, S, 4));
    buffer.convert_to(layout::soa(), stream);
    buffer.convert_to(layout::asta(16), stream);
    std::vector<unsigned char> back(buffer.bytes());
    buffer.copy_to_host(back.data(), stream);  // converts back to aos first
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(buffer.current(), layout::aos());
    EXPECT_TRUE(back == aos);
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace xpose::test
