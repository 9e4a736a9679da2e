// The layout views in a CUDA kernel: one kernel template, instantiated with aos_view, soa_view
// and asta_view, reads and writes the same fields through a layout_buffer converted in place
// between launches.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "gpu_test_util.hpp"
#include "xpose/layout.hpp"

namespace xpose::test {
namespace {

constexpr int fields = 4;  // x, y, z, weight

/// weight += x + 2y + 3z for every structure, whatever the layout View describes.
template <class View>
__global__ void accumulate(View v) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= v.structs) return;
  v(i, 3) += v(i, 0) + 2.0f * v(i, 1) + 3.0f * v(i, 2);
}

template <class View>
void launch(View v, cudaStream_t stream) {
  const int threads = 128;
  const auto blocks = static_cast<unsigned>((v.structs + threads - 1) / threads);
  accumulate<<<blocks, threads, 0, stream>>>(v);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(GpuLayoutView, OneKernelEveryLayout) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t n = 10001;  // a partial last tile for every tile tried
  std::vector<float> host(static_cast<std::size_t>(n * fields));
  for (std::int64_t i = 0; i < n; ++i)
    for (int f = 0; f < fields; ++f) host[i * fields + f] = static_cast<float>((i + f) % 17);
  layout_buffer buffer({n, fields, sizeof(float)}, layout::aos(), {device::cuda});
  buffer.copy_from_host(host.data());
  launch(buffer.view<aos_view<float, fields>>(), nullptr);
  launch(buffer.view<asta_view<float, fields, 32>>(), nullptr);
  launch(buffer.view<soa_view<float, fields>>(), nullptr);
  launch(buffer.view<asta_view<float, fields, 64>>(), nullptr);
  std::vector<float> back(host.size());
  buffer.copy_to_host(back.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::int64_t i = 0; i < n; ++i) {
    const float* s = &host[i * fields];
    const float expected = s[3] + 4.0f * (s[0] + 2.0f * s[1] + 3.0f * s[2]);
    ASSERT_EQ(back[i * fields + 3], expected) << i;
    for (int f = 0; f < 3; ++f) ASSERT_EQ(back[i * fields + f], s[f]) << i;
  }
}

}  // namespace
}  // namespace xpose::test
