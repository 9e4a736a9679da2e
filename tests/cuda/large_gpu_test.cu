// Matrices past 2^31 elements or 2^31 bytes on the GPU, through the public API, on each kernel
// the dispatch can take (copy_tuned, copy_unaligned for 1-, 2-, 4- and 8-byte elements,
// copy_sectors, the skinny slabs, copy_any_size, skinny_any_size, copy_skinny_narrow, the
// super-element kernel,
// square_tile_swap, the in-place routes of tiled transpositions): byte k of the source holds a hash
// of k, and a kernel checks every byte of the result against the hash of its source index, so no
// host copy is needed (and that it catches one changed byte). A case the device has too little free
// memory for is left out and named, and its test is then reported as skipped (not passed).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "gpu_test_util.hpp"
#include "xpose/plan.hpp"

namespace xpose::test {
namespace {

__host__ __device__ unsigned char hash_of(std::uint64_t k) {
  return static_cast<unsigned char>((k * 0x9E3779B97F4A7C15ull) >> 56);
}

__global__ void fill_with_hashes(unsigned char* p, std::int64_t n) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < n;
       k += std::int64_t{gridDim.x} * blockDim.x)
    p[k] = hash_of(static_cast<std::uint64_t>(k));
}

/// Counts the bytes of `got` (batch matrices of cols x rows elements of e bytes, dense) that are
/// not the transposed source's: byte b of element (j, i) of matrix m holds the hash of byte b of
/// element (i, j) of source matrix m.
__global__ void count_wrong_bytes(const unsigned char* got, std::int64_t batch, std::int64_t rows,
                                  std::int64_t cols, std::int64_t e, unsigned long long* wrong) {
  const std::int64_t matrix = rows * cols * e, n = batch * matrix;
  unsigned long long mine = 0;
  for (std::int64_t q = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; q < n;
       q += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t m = q / matrix, in_matrix = q % matrix;
    const std::int64_t element = in_matrix / e, b = in_matrix % e;
    const std::int64_t j = element / rows, i = element % rows;
    const auto source_byte = static_cast<std::uint64_t>(m * matrix + (i * cols + j) * e + b);
    mine += got[q] != hash_of(source_byte);
  }
  if (mine) atomicAdd(wrong, mine);
}

std::int64_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess ? static_cast<std::int64_t>(free) : 0;
}

std::string shape_name(std::int64_t batch, std::int64_t rows, std::int64_t cols, std::int64_t e) {
  return std::to_string(batch) + " x " + std::to_string(rows) + " x " + std::to_string(cols) +
         " x " + std::to_string(e) + " bytes";
}

unsigned long long wrong_bytes(const unsigned char* got, std::int64_t batch, std::int64_t rows,
                               std::int64_t cols, std::int64_t e) {
  device_buffer counter(sizeof(unsigned long long));
  EXPECT_EQ(cudaMemset(counter.get(), 0, sizeof(unsigned long long)), cudaSuccess);
  count_wrong_bytes<<<4096, 256>>>(got, batch, rows, cols, e,
                                   reinterpret_cast<unsigned long long*>(counter.get()));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  unsigned long long wrong = ~0ull;
  EXPECT_EQ(cudaMemcpy(&wrong, counter.get(), sizeof wrong, cudaMemcpyDeviceToHost), cudaSuccess);
  return wrong;
}

/// Checks `got` (as wrong_bytes), then that the check sees one byte changed near its end.
void expect_transposed(unsigned char* got, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                       std::int64_t e) {
  EXPECT_EQ(wrong_bytes(got, batch, rows, cols, e), 0u) << shape_name(batch, rows, cols, e);
  const std::int64_t last = batch * rows * cols * e - 1;
  unsigned char byte = 0;
  ASSERT_EQ(cudaMemcpy(&byte, got + last, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  byte = static_cast<unsigned char>(~byte);
  ASSERT_EQ(cudaMemcpy(got + last, &byte, 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(wrong_bytes(got, batch, rows, cols, e), 1u) << "the check missed a changed byte";
}

/// The cases of one test left out for want of device memory.
class GpuLarge : public ::testing::Test {
 protected:
  /// Whether `bytes` (and 256 MiB to spare) are free on the device; if not, `name` is noted.
  bool fits(std::int64_t bytes, const std::string& name) {
    if (free_device_bytes() >= bytes + (std::int64_t{256} << 20)) return true;
    left_out_ += (left_out_.empty() ? "" : ", ") + name;
    return false;
  }
  /// Reports the test as skipped when a case was left out.
  void skip_if_any_left_out() {
    if (!left_out_.empty()) GTEST_SKIP() << "too little free device memory for " << left_out_;
  }
  void check_large_copy(std::int64_t batch, std::int64_t rows, std::int64_t cols, std::int64_t e);
  void check_large_square(std::int64_t n, std::int64_t e);
  void check_large_rectangular(std::int64_t rows, std::int64_t cols, std::int64_t e);

 private:
  std::string left_out_;
};

/// Out of place: `batch` dense rows x cols matrices of e-byte elements.
void GpuLarge::check_large_copy(std::int64_t batch, std::int64_t rows, std::int64_t cols,
                                std::int64_t e) {
  const std::int64_t bytes = batch * rows * cols * e;
  if (!fits(2 * bytes, shape_name(batch, rows, cols, e))) return;
  device_buffer src(bytes), dst(bytes);
  fill_with_hashes<<<4096, 256>>>(src.get(), bytes);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  dst.poison();
  plan_options options;
  options.target = device::cuda;
  const matrix_desc desc{rows, cols, static_cast<std::size_t>(e), storage_order::row_major,
                         0,    batch};
  const plan p = plan_copy(desc, 0, 0, options);
  std::printf("%s: %s", shape_name(batch, rows, cols, e).c_str(), p.describe().c_str());
  p.execute(src.get(), dst.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  expect_transposed(dst.get(), batch, rows, cols, e);
}

/// In place: one n x n matrix of e-byte elements.
void GpuLarge::check_large_square(std::int64_t n, std::int64_t e) {
  const std::int64_t bytes = n * n * e;
  if (!fits(bytes, shape_name(1, n, n, e))) return;
  device_buffer data(bytes);
  fill_with_hashes<<<4096, 256>>>(data.get(), bytes);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  plan_options options;
  options.target = device::cuda;
  const plan p = plan_inplace({n, n, static_cast<std::size_t>(e)}, options);
  std::printf("%s: %s", shape_name(1, n, n, e).c_str(), p.describe().c_str());
  p.execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  expect_transposed(data.get(), 1, n, n, e);
}

/// In place: one rows x cols matrix of e-byte elements, the workspace the plan allocates on top.
void GpuLarge::check_large_rectangular(std::int64_t rows, std::int64_t cols, std::int64_t e) {
  const std::int64_t bytes = rows * cols * e;
  if (!fits(bytes, shape_name(1, rows, cols, e))) return;
  device_buffer data(bytes);
  fill_with_hashes<<<4096, 256>>>(data.get(), bytes);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  plan_options options;
  options.target = device::cuda;
  const plan p = plan_inplace({rows, cols, static_cast<std::size_t>(e)}, options);
  std::printf("%s: %s", shape_name(1, rows, cols, e).c_str(), p.describe().c_str());
  EXPECT_LE(static_cast<double>(p.workspace_bytes()),
            static_cast<double>(std::int64_t{64} << 20) + static_cast<double>(bytes) / 1000);
  p.execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  expect_transposed(data.get(), 1, rows, cols, e);
}

constexpr std::int64_t two_to_the_31 = std::int64_t{1} << 31;

// One matrix that fills 90 % of the device's free memory, transposed in place: what an
// out-of-place library cannot do at all. Its columns are a multiple of 64 so that the 3-stage
// route has tile factors.
TEST_F(GpuLarge, InPlaceRectangularNinetyPercentOfFreeMemory) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t target = free_device_bytes() / 10 * 9;
  constexpr std::int64_t rows = 30000, e = 4;
  const std::int64_t cols = target / (rows * e) / 64 * 64;
  if (cols <= rows) GTEST_SKIP() << "too little free device memory for a test of this kind";
  const std::int64_t bytes = rows * cols * e;
  device_buffer data(bytes);
  fill_with_hashes<<<4096, 256>>>(data.get(), bytes);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  plan_options options;
  options.target = device::cuda;
  const plan p = plan_inplace({rows, cols, static_cast<std::size_t>(e)}, options);
  std::printf("%s (%.1f GiB, %.1f %% of the free memory before): %s",
              shape_name(1, rows, cols, e).c_str(), bytes / double(1 << 30),
              100.0 * bytes / (target / 9 * 10), p.describe().c_str());
  EXPECT_LE(static_cast<double>(p.workspace_bytes()),
            static_cast<double>(std::int64_t{64} << 20) + static_cast<double>(bytes) / 1000);
  p.execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  expect_transposed(data.get(), 1, rows, cols, e);
}

TEST_F(GpuLarge, InPlaceRectangularPastTwoToThe31) {
  XPOSE_REQUIRE_GPU();
  static_assert(std::int64_t{40000} * 60000 > two_to_the_31);
  check_large_rectangular(40000, 60000, 1);  // elements past 2^31: 3-stage
  check_large_rectangular(30000, 20000, 4);  // bytes past 2^31
  skip_if_any_left_out();
}

TEST_F(GpuLarge, OutOfPlacePastTwoToThe31Elements) {
  XPOSE_REQUIRE_GPU();
  static_assert(std::int64_t{32768} * 65600 > two_to_the_31);
  static_assert(std::int64_t{46341} * 46345 > two_to_the_31);
  static_assert(std::int64_t{3} * 27000 * 27001 > two_to_the_31);
  check_large_copy(1, 32768, 65600, 1);   // rows on 16 bytes: copy_tuned's large tiles
  check_large_copy(1, 46341, 46345, 1);   // odd rows: copy_unaligned
  check_large_copy(3, 27000, 27001, 1);   // a batch whose elements pass 2^31
  check_large_copy(1, 2, 1100000000, 1);  // skinny slabs, both ways
  check_large_copy(1, 1100000000, 2, 1);
  skip_if_any_left_out();
}

TEST_F(GpuLarge, OutOfPlacePastTwoToThe31Bytes) {
  XPOSE_REQUIRE_GPU();
  static_assert(std::int64_t{32771} * 32773 * 2 > two_to_the_31);
  static_assert(std::int64_t{23173} * 23175 * 4 > two_to_the_31);
  static_assert(std::int64_t{16385} * 16387 * 8 > two_to_the_31);
  static_assert(std::int64_t{11587} * 11589 * 16 > two_to_the_31);
  static_assert(std::int64_t{27000} * 27001 * 3 > two_to_the_31);
  static_assert(std::int64_t{4} * 200000000 * 3 > two_to_the_31);
  static_assert(std::int64_t{32768} * 32800 * 2 > two_to_the_31);
  check_large_copy(1, 32768, 32800, 2);  // copy_tuned's large 2-byte tiles
  check_large_copy(1, 32771, 32773, 2);  // copy_unaligned, 2-, 4- and 8-byte elements
  check_large_copy(1, 23173, 23175, 4);
  check_large_copy(1, 16385, 16387, 8);
  static_assert(std::int64_t{16384} * 16400 * 8 > two_to_the_31);
  check_large_copy(1, 16384, 16400, 8);   // copy_tuned's large 8-byte tiles
  check_large_copy(1, 11587, 11589, 16);  // copy_sectors
  check_large_copy(1, 27000, 27001, 3);   // copy_any_size
  check_large_copy(1, 4, 200000000, 3);   // skinny_any_size, wide
  check_large_copy(1, 200000000, 4, 3);   // copy_skinny_narrow, tall
  check_large_copy(1, 50000000, 17, 3);   // skinny_any_size, tall
  check_large_copy(1, 16384, 16400, 12);  // copy_any_size, 12-byte elements on aligned rows
  check_large_copy(1, 2000000, 100, 12);  // the super-element kernel's aligned chunks
  skip_if_any_left_out();
}

TEST_F(GpuLarge, SquareInPlacePastTwoToThe31) {
  XPOSE_REQUIRE_GPU();
  static_assert(std::int64_t{46349} * 46349 > two_to_the_31);
  static_assert(std::int64_t{23171} * 23171 * 4 > two_to_the_31);
  check_large_square(46349, 1);
  check_large_square(23171, 4);
  skip_if_any_left_out();
}

}  // namespace
}  // namespace xpose::test
