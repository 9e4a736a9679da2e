// Device benchmark of the GPU in-place routes stage by stage: for each shape, the stages of the
// 3-stage and 4-stage routes (PPoPP'14 sec. 4.1-4.2, with the planner's tile choice) and of the
// row/column route (Catanzaro-Keller-Garland, PPoPP'14) are timed
// one at a time on a device buffer, each as a ratio to a device-to-device copy of the matrix
// timed in the same run (CUDA events, median of 7 after a warm-up). Stages permute whatever the
// buffer holds: only times are read here; correctness is the tests' job.
//   usage: xpose_inplace_stages [ROWSxCOLSxELEM ...]   (default: the paper's Table 2 shapes and
//          a few larger ones)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/backend/cuda_backend.hpp"
#include "cuda/inplace/row_column.hpp"
#include "cuda/inplace/tiled_transpose.hpp"
#include "plan/row_column.hpp"
#include "plan/staged_routes.hpp"
#include "xpose/route.hpp"

namespace {

using xpose::detail::stage;

struct shape {
  std::int64_t rows, cols;
  std::size_t elem;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class F>
float median_ms(F&& f) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  f();
  std::vector<float> t;
  for (int i = 0; i < 7; ++i) {
    check(cudaEventRecord(a), "cudaEventRecord");
    f();
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string stage_text(const stage& s) {
  return s.label + " (" + std::to_string(s.batch) + " x " + std::to_string(s.rows) + " x " +
         std::to_string(s.cols) + " x " + std::to_string(s.super_bytes) + " B)";
}

const char* path_name(xpose::detail::cuda::tiled_path path) {
  using xpose::detail::cuda::tiled_path;
  switch (path) {
    case tiled_path::on_chip:
      return "on chip";
    case tiled_path::through_scratch:
      return "through scratch";
    case tiled_path::chains:
      return "chains";
    default:
      return "cycle following";
  }
}

void run_route(const shape& sh, xpose::route r, unsigned char* data, float copy_ms) {
  std::vector<stage> stages;
  std::string tiles_text;
  if (r == xpose::route::three_stage) {
    stages = xpose::detail::gpu_three_stage_stages(sh.rows, sh.cols, sh.elem,
                                                   xpose::detail::cuda::stage_passes);
    tiles_text = "GPU tiles";
  } else if (r == xpose::route::row_column) {
    stages = xpose::detail::row_column_stages(sh.rows, sh.cols, sh.elem);
    tiles_text = "phases";
  } else if (const auto tiles = xpose::detail::choose_tiles(sh.rows, sh.cols, sh.elem, r)) {
    stages =
        xpose::detail::four_stage_stages(sh.rows, sh.cols, sh.elem, tiles->first, tiles->second);
    tiles_text = "m = " + std::to_string(tiles->first) + ", n = " + std::to_string(tiles->second);
  }
  if (stages.empty()) {
    std::printf("  %-12s no tile factors\n", std::string(xpose::to_string(r)).c_str());
    return;
  }
  std::size_t workspace_bytes = 0;
  for (const stage& s : stages)
    workspace_bytes =
        std::max(workspace_bytes, xpose::detail::cuda::is_row_column_stage(s)
                                      ? xpose::detail::cuda::row_column_scratch_bytes(s)
                                      : xpose::detail::cuda::tiled_transpose_workspace(s));
  void* workspace = nullptr;
  if (workspace_bytes) check(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc workspace");
  float total = 0;
  for (const stage& s : stages) {
    using xpose::detail::cuda::tiled_path;
    const bool phase = xpose::detail::cuda::is_row_column_stage(s);
    if (!phase) xpose::detail::cuda::prepare_tiled_workspace(s, tiled_path::automatic, workspace);
    const float ms = median_ms([&] {
      if (phase)
        xpose::detail::cuda::launch_row_column(data, s, workspace, nullptr);
      else
        xpose::detail::cuda::launch_tiled_transpose(data, s, workspace, nullptr);
    });
    check(cudaGetLastError(), "launch");
    total += ms;
    std::printf("  %-12s %-36s %-15s %9.4f ms %6.3f x copy (predicted %.3f)\n",
                std::string(xpose::to_string(r)).c_str(), stage_text(s).c_str(),
                phase ? "phase" : path_name(xpose::detail::cuda::choose_tiled_path(s)), ms,
                copy_ms / ms, 1.0 / xpose::detail::cuda::stage_passes(s));
  }
  std::printf("  %-12s %s: all stages %.4f ms, %.3f x copy\n",
              std::string(xpose::to_string(r)).c_str(), tiles_text.c_str(), total, copy_ms / total);
  if (workspace) cudaFree(workspace);
}

}  // namespace

/// Allocates the matrix and a second buffer of `bytes` each and returns the median time of a
/// device-to-device copy between them (the baseline every ratio is taken against).
float buffers_and_copy(std::size_t bytes, unsigned char*& data, unsigned char*& other) {
  check(cudaMalloc(&data, bytes), "cudaMalloc");
  check(cudaMalloc(&other, bytes), "cudaMalloc");
  check(cudaMemset(data, 0x5a, bytes), "cudaMemset");
  return median_ms([&] {
    check(cudaMemcpyAsync(other, data, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
}

/// One stage alone ("stage:BATCH,ROWS,COLS,SUPER[,PATH]", PATH 1 on chip, 2 through scratch,
/// 3 chains, 4 cycle following), timed against a copy of its bytes.
void run_stage(const char* text) {
  long long b = 0, r = 0, c = 0, e = 0;
  int path = 0;
  if (std::sscanf(text, "stage:%lld,%lld,%lld,%lld,%d", &b, &r, &c, &e, &path) < 4) {
    std::fprintf(stderr, "xpose_inplace_stages: a stage is stage:B,R,C,S[,PATH], got '%s'\n", text);
    std::exit(2);
  }
  stage s;
  s.kind = xpose::detail::stage_kind::tiled_transpose;
  s.label = "stage";
  s.batch = b;
  s.rows = r;
  s.cols = c;
  s.super_bytes = static_cast<std::size_t>(e);
  const auto p = static_cast<xpose::detail::cuda::tiled_path>(path);
  const std::size_t bytes = static_cast<std::size_t>(b * r * c) * s.super_bytes;
  unsigned char *data = nullptr, *other = nullptr;
  const float copy_ms = buffers_and_copy(bytes, data, other);
  void* workspace = nullptr;
  const std::size_t workspace_bytes = xpose::detail::cuda::tiled_transpose_workspace_for_path(s, p);
  if (workspace_bytes) check(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc workspace");
  xpose::detail::cuda::prepare_tiled_workspace(s, p, workspace);
  const float ms = median_ms(
      [&] { xpose::detail::cuda::launch_tiled_transpose_path(data, s, workspace, nullptr, p); });
  check(cudaGetLastError(), "launch");
  std::printf("  stage %-36s %-15s %9.4f ms %6.3f x copy (%.1f MB)\n", stage_text(s).c_str(),
              path_name(p == xpose::detail::cuda::tiled_path::automatic
                            ? xpose::detail::cuda::choose_tiled_path(s)
                            : p),
              ms, copy_ms / ms, bytes / 1e6);
  if (workspace) cudaFree(workspace);
  cudaFree(data);
  cudaFree(other);
}

int main(int argc, char** argv) {
  std::vector<shape> shapes;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("stage:", 0) == 0) {
      run_stage(argv[i]);
      continue;
    }
    long long r = 0, c = 0;
    unsigned long e = 4;
    if (std::sscanf(argv[i], "%lldx%lldx%lu", &r, &c, &e) < 2) {
      std::fprintf(stderr, "xpose_inplace_stages: a shape is ROWSxCOLS[xELEM], got '%s'\n",
                   argv[i]);
      return 2;
    }
    shapes.push_back({r, c, e});
  }
  if (shapes.empty() && argc == 1)
    shapes = {{7200, 1800, 4}, {5100, 2500, 4},  {4000, 3200, 4}, {3300, 3900, 4}, {2500, 5100, 4},
              {1800, 7200, 4}, {20000, 5000, 4}, {7200, 1800, 8}, {7200, 1800, 1}};
  for (const shape& sh : shapes) {
    const std::size_t bytes = static_cast<std::size_t>(sh.rows * sh.cols) * sh.elem;
    unsigned char *data = nullptr, *other = nullptr;
    const float copy_ms = buffers_and_copy(bytes, data, other);
    std::printf("%lld x %lld, %zu-byte elements (%.1f MB): copy %.4f ms\n",
                static_cast<long long>(sh.rows), static_cast<long long>(sh.cols), sh.elem,
                bytes / 1e6, copy_ms);
    for (xpose::route r :
         {xpose::route::three_stage, xpose::route::four_stage, xpose::route::row_column})
      run_route(sh, r, data, copy_ms);
    cudaFree(data);
    cudaFree(other);
  }
  return 0;
}
