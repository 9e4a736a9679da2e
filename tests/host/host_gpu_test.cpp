// Host plans through the GPU (plan_options::host_via_gpu) on a device: host matrices transposed in
// place through the GPU, compared byte for byte with a host reference, for every scheme (whole,
// slabs first, super-elements first; in core and out of core under a small gpu_memory_budget),
// element sizes 1 to 16 and 12, a batch, pageable memory (registered, or staged on 1 to 16
// threads in chunks of several sizes) and pinned memory; the cost model's choice and its
// description; refusals before the data is touched.
// Tests named HostViaGpu* need a device (label gpu) and skip without one; HostWithoutGpu* check
// the CPU fallback and skip when a device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/gpu_test_util.hpp"
#include "host/staging.hpp"
#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace xpose::test {
namespace {

plan_options through_gpu(host_pinning pinning = host_pinning::automatic, bool overlap = true,
                         std::size_t budget = 0, int streams = 0) {
  plan_options o;
  o.host_via_gpu = host_gpu_policy::always;
  o.pinning = pinning;
  o.overlap_copies = overlap;
  o.gpu_memory_budget = budget;
  o.gpu_streams = streams;
  return o;
}

/// Transposes `batch` random rows x cols matrices in host memory (pinned with `pinned`) through
/// the GPU with `options` and compares with the reference; returns the plan's description.
std::string check_host(std::int64_t rows, std::int64_t cols, std::size_t e,
                       const plan_options& options, std::uint64_t seed, bool pinned = false,
                       std::int64_t batch = 1) {
  const std::size_t matrix = static_cast<std::size_t>(rows * cols) * e;
  const std::vector<unsigned char> original = random_bytes(matrix * batch, seed);
  std::vector<unsigned char> expected(original.size());
  for (std::int64_t b = 0; b < batch; ++b)
    reference_transpose(original.data() + b * matrix, expected.data() + b * matrix, rows, cols, e,
                        cols, rows);
  unsigned char* data = nullptr;
  std::vector<unsigned char> pageable;
  if (pinned) {
    EXPECT_EQ(cudaMallocHost(reinterpret_cast<void**>(&data), original.size()), cudaSuccess);
  } else {
    pageable.resize(original.size());
    data = pageable.data();
  }
  std::memcpy(data, original.data(), original.size());
  matrix_desc desc{rows, cols, e};
  desc.batch = batch;
  const plan p = plan_inplace(desc, options);
  EXPECT_TRUE(p.runs_through_gpu()) << p.describe();
  p.execute(data);
  const std::string what = std::to_string(batch) + " x " + std::to_string(rows) + " x " +
                           std::to_string(cols) + " of " + std::to_string(e) + " bytes\n" +
                           p.describe();
  EXPECT_EQ(std::memcmp(data, expected.data(), expected.size()), 0) << what;
  if (pinned) cudaFreeHost(data);
  return p.describe();
}

TEST(HostViaGpu, InCoreEverySchemeAndElementSize) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 1;
  for (std::size_t e : {1, 2, 4, 8, 12, 16})
    for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{720, 180},
                                     {4096, 1000},
                                     {1000, 4096},
                                     {97, 89},
                                     {2048, 2048}})
      for (bool overlap : {true, false})
        check_host(rows, cols, e, through_gpu(host_pinning::automatic, overlap), ++seed);
}

TEST(HostViaGpu, LargerMatricesOverStreams) {
  XPOSE_REQUIRE_GPU();
  // 64 MiB: several slabs per stream.
  const std::string text = check_host(8192, 2048, 4, through_gpu(), 2);
  EXPECT_NE(text.find("in core"), std::string::npos) << text;
  check_host(2048, 8192, 4, through_gpu(host_pinning::automatic, true, 0, 4), 3);
  check_host(6000, 3000, 8, through_gpu(host_pinning::automatic, true, 0, 1), 4);
}

TEST(HostViaGpu, OutOfCoreUnderASmallBudget) {
  XPOSE_REQUIRE_GPU();
  // 256 MiB matrices, 200 MiB of device memory: slabs (a 64 MiB workspace bound each) through
  // the GPU, the 100 stage on the host.
  for (const auto& [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{16384, 4096}, {4096, 16384}}) {
    const std::string text =
        check_host(rows, cols, 4, through_gpu(host_pinning::automatic, true, 200 << 20), 5);
    EXPECT_NE(text.find("out of core"), std::string::npos) << text;
  }
  check_host(8192, 4096, 8, through_gpu(host_pinning::staged, true, 160 << 20), 6);
}

TEST(HostViaGpu, PinnedRegisteredAndStagedMemory) {
  XPOSE_REQUIRE_GPU();
  std::string text = check_host(1024, 768, 4, through_gpu(), 7, true);
  EXPECT_NE(text.find("the last execute: pinned"), std::string::npos) << text;
  text = check_host(1024, 768, 4, through_gpu(host_pinning::register_memory), 8);
  EXPECT_NE(text.find("the last execute: registered"), std::string::npos) << text;
  text = check_host(1024, 768, 4, through_gpu(host_pinning::staged), 9);
  EXPECT_NE(text.find("the last execute: staged"), std::string::npos) << text;
  // Staged chunks (16 MiB) smaller than the matrix.
  check_host(4096, 3000, 8, through_gpu(host_pinning::staged), 10);
}

TEST(HostViaGpu, StagedOnThreadsEverySchemeAndChunking) {
  XPOSE_REQUIRE_GPU();
  // Pageable memory staged through per-thread chunks: 1, 3 and 16 threads, chunks of 64 KiB (many
  // per slab, the last one short) and the default, in core and out of core.
  std::uint64_t seed = 100;
  for (int threads : {1, 3, 16})
    for (std::size_t chunk : {std::size_t{64} << 10, std::size_t{0}}) {
      plan_options o = through_gpu(host_pinning::staged);
      o.threads = threads;
      o.staging_chunk_bytes = chunk;
      const std::string text = check_host(3000, 1000, 4, o, ++seed);
      EXPECT_NE(text.find("staged: " + std::to_string(threads) + " threads"), std::string::npos)
          << text;
      EXPECT_NE(text.find("the last execute: staged"), std::string::npos) << text;
      check_host(1000, 3001, 8, o, ++seed);
      o.gpu_memory_budget = 160 << 20;
      check_host(8192, 4096, 8, o, ++seed);  // out of core: 256 MiB
      o.gpu_memory_budget = 0;
      o.overlap_copies = false;
      check_host(777, 555, 12, o, ++seed);
    }
  plan_options batch = through_gpu(host_pinning::staged);
  batch.staging_chunk_bytes = 64 << 10;
  check_host(300, 500, 4, batch, ++seed, false, 3);
}

TEST(HostViaGpu, AutomaticPinningStagesPageableMemory) {
  XPOSE_REQUIRE_GPU();
  // The threads' memcpy outruns registration on any multicore host: automatic stages.
  const std::string text = check_host(4096, 2048, 4, through_gpu(), 120);
  EXPECT_NE(text.find("the last execute: staged"), std::string::npos) << text;
  EXPECT_NE(text.find("registered"), std::string::npos) << text;
  EXPECT_NE(text.find("staged"), std::string::npos) << text;
}

TEST(HostViaGpu, StagingPipelineSettlesOverlappingCopies) {
  XPOSE_REQUIRE_GPU();
  // A copy back whose last chunks are still to unpack, then a copy in of the same bytes: the
  // copy in sees the unpacked data.
  detail::host::staging_pipeline pipeline(detail::host::choose_staging(1 << 20, 4, 64 << 10));
  const std::vector<unsigned char> source = random_bytes(3 << 20, 121);
  std::vector<unsigned char> host(source.size(), 0), back(source.size(), 0);
  char* device = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), 2 * source.size()), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  pipeline.to_device(device, reinterpret_cast<const char*>(source.data()), source.size(), stream);
  pipeline.to_host(reinterpret_cast<char*>(host.data()), device, source.size(), stream);
  pipeline.to_device(device + source.size(), reinterpret_cast<const char*>(host.data()),
                     source.size(), stream);
  pipeline.to_host(reinterpret_cast<char*>(back.data()), device + source.size(), source.size(),
                   stream);
  pipeline.finish();
  EXPECT_TRUE(host == source);
  EXPECT_TRUE(back == source);
  cudaStreamDestroy(stream);
  cudaFree(device);
}

TEST(HostViaGpu, BatchAndRepeatedExecutes) {
  XPOSE_REQUIRE_GPU();
  check_host(300, 500, 4, through_gpu(), 11, false, 3);
  // One plan, executed twice: the transpose's transpose of a square matrix is the original.
  std::vector<unsigned char> data = random_bytes(512 * 512 * 8, 12);
  const std::vector<unsigned char> original = data;
  const plan p = plan_inplace({512, 512, 8}, through_gpu());
  p.execute(data.data());
  p.execute(data.data());
  EXPECT_TRUE(data == original);
}

TEST(HostViaGpu, AutomaticExplainsItsChoice) {
  XPOSE_REQUIRE_GPU();
  plan_options o;
  o.host_via_gpu = host_gpu_policy::automatic;
  std::vector<unsigned char> data = random_bytes(4096 * 4096 * 4, 13);
  const std::vector<unsigned char> expected = reference_transpose(data, 4096, 4096, 4);
  const plan p = plan_inplace({4096, 4096, 4}, o);
  const std::string text = p.describe();
  EXPECT_NE(text.find("cost model"), std::string::npos) << text;
  EXPECT_NE(text.find(p.runs_through_gpu() ? "the GPU runs it" : "the CPU runs it"),
            std::string::npos)
      << text;
  p.execute(data.data());
  EXPECT_TRUE(data == expected);
}

TEST(HostViaGpu, RefusalsLeaveTheDataAsItWas) {
  XPOSE_REQUIRE_GPU();
  std::vector<unsigned char> data = random_bytes(1000 * 600 * 4, 14);
  const std::vector<unsigned char> before = data;
  // Prime dimensions do not cut into slabs: out of core cannot apply.
  EXPECT_THROW(plan_inplace({997, 601, 4}, through_gpu(host_pinning::automatic, true, 1 << 20)),
               error);
  // The device's memory taken by someone else: the plan fails at plan time (always) or runs on
  // the CPU (automatic), and the data is not touched by the failed plan.
  plan_inplace({64, 48, 4}, through_gpu());  // the bandwidths measured while memory is free
  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  struct device_hog {
    void* memory = nullptr;
    ~device_hog() { cudaFree(memory); }
  } hog;
  ASSERT_EQ(cudaMalloc(&hog.memory, free - (std::size_t{32} << 20)), cudaSuccess);
  try {
    plan_inplace({4096, 16384, 4},
                 through_gpu(host_pinning::automatic, false, std::size_t{1} << 40));
    ADD_FAILURE() << "a plan was made without device memory";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::out_of_memory) << e.what();
  }
  plan_options automatic = through_gpu(host_pinning::automatic, false, std::size_t{1} << 40);
  automatic.host_via_gpu = host_gpu_policy::automatic;
  const plan on_cpu = plan_inplace({4096, 16384, 4}, automatic);
  cudaFree(hog.memory);
  hog.memory = nullptr;
  EXPECT_TRUE(data == before);
  EXPECT_FALSE(on_cpu.runs_through_gpu()) << on_cpu.describe();
  plan_options bad = through_gpu();
  bad.gpu_streams = 65;
  EXPECT_THROW(plan_inplace({1000, 600, 4}, bad), error);
}

TEST(HostWithoutGpu, AutomaticRunsOnTheCpuAndAlwaysIsRefused) {
  if (have_cuda_device()) GTEST_SKIP() << "a CUDA device is present";
  std::vector<unsigned char> data = random_bytes(300 * 200 * 4, 15);
  const std::vector<unsigned char> expected = reference_transpose(data, 300, 200, 4);
  plan_options o;
  o.host_via_gpu = host_gpu_policy::automatic;
  const plan p = plan_inplace({300, 200, 4}, o);
  EXPECT_FALSE(p.runs_through_gpu());
  EXPECT_NE(p.describe().find("no CUDA device"), std::string::npos) << p.describe();
  p.execute(data.data());
  EXPECT_TRUE(data == expected);
  o.host_via_gpu = host_gpu_policy::always;
  try {
    plan_inplace({300, 200, 4}, o);
    FAIL() << "expected a refusal";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::unsupported);
  }
}

TEST(HostWithoutGpu, OptionsAreChecked) {
  plan_options o;
  o.target = device::cuda;
  o.host_via_gpu = host_gpu_policy::automatic;
  EXPECT_THROW(plan_inplace({300, 200, 4}, o), error);
  plan_options streams;
  streams.host_via_gpu = host_gpu_policy::automatic;
  streams.gpu_streams = -1;
  EXPECT_THROW(plan_inplace({300, 200, 4}, streams), error);
}

}  // namespace
}  // namespace xpose::test
