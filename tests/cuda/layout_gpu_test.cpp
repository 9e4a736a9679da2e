// Layout conversions and layout_buffer on the GPU: the same cases as the CPU tests, each result
// compared with the naive reference; the bytes around the array are checked untouched. The
// SmallSanitizerShapes cases are the ones scripts/device_check.sh runs under compute-sanitizer.
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
                      std::uint64_t seed, std::size_t offset = 0) {
  const std::size_t bytes = static_cast<std::size_t>(n * S) * e;
  const auto aos = random_bytes(bytes, seed);
  std::vector<unsigned char> host(offset + bytes + guard_bytes, poison_byte);
  const auto before = arrange(aos, from, n, S, e);
  std::copy(before.begin(), before.end(), host.begin() + static_cast<std::ptrdiff_t>(offset));
  device_buffer data(host.size());
  data.upload(host);
  convert_layout(data.get() + offset, from, to, n, S, e, on_gpu());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << describe_case(from, to, n, S, e);
  std::vector<unsigned char> expected(host.size(), poison_byte);
  const auto after = arrange(aos, to, n, S, e);
  std::copy(after.begin(), after.end(), expected.begin() + static_cast<std::ptrdiff_t>(offset));
  const std::int64_t at = first_difference(data.download(host.size()), expected);
  ASSERT_EQ(at, -1) << describe_case(from, to, n, S, e) << ": first wrong byte " << at
                    << " (the array starts at byte " << offset << ")";
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
