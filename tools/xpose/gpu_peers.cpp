#ifdef XPOSE_HAVE_CUDA

#include "gpu_peers.hpp"

#include <cublas_v2.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "gpu_timing.hpp"

namespace xpose_cli {

namespace {

void check_cublas(cublasStatus_t result, const char* what) {
  if (result != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with cuBLAS status " +
                             std::to_string(static_cast<int>(result)));
}

/// One cuBLAS handle for the whole run (created on first use).
cublasHandle_t cublas_handle() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    return h;
  }();
  return handle;
}

/// Row-major rows x cols A -> row-major cols x rows C. In cuBLAS's column-major view A is
/// cols x rows (lda = cols) and C is rows x cols (ldc = rows): C = 1 * A^T + 0 * C.
void run_geam(const bench_case& c, const std::byte* a, std::byte* out) {
  const int m = static_cast<int>(c.rows), n = static_cast<int>(c.cols);
  if (c.elem_size == 4) {
    const float one = 1.0f, zero = 0.0f;
    auto* result = reinterpret_cast<float*>(out);
    check_cublas(cublasSgeam(cublas_handle(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                             reinterpret_cast<const float*>(a), n, &zero, result, m, result, m),
                 "cublasSgeam");
  } else {
    const double one = 1.0, zero = 0.0;
    auto* result = reinterpret_cast<double*>(out);
    check_cublas(cublasDgeam(cublas_handle(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                             reinterpret_cast<const double*>(a), n, &zero, result, m, result, m),
                 "cublasDgeam");
  }
}

}  // namespace

peer_result run_gpu_peer(const bench_case& c, const reference_pair& reference,
                         const bench_settings& settings, cudaStream_t stream,
                         const std::byte* d_input, std::byte* d_output, std::byte* readback) {
  peer_result peer;
  constexpr auto int_max = std::numeric_limits<int>::max();
  // geam transposes one matrix per call: batches have no peer.
  if ((c.elem_size != 4 && c.elem_size != 8) || c.batch != 1 || c.rows > int_max ||
      c.cols > int_max)
    return peer;
  // In place, what users do without xpose: geam into a second buffer, then a copy back (twice
  // the memory). That buffer is allocated here when the device has room for it.
  peer.name = std::string(c.elem_size == 4 ? "cublas sgeam" : "cublas dgeam") +
              (c.in_place ? " + copy back" : "");
  const std::size_t bytes = c.matrix_bytes();
  std::optional<device_buffer> second;
  try {
    check_cublas(cublasSetStream(cublas_handle(), stream), "cublasSetStream");
    if (c.in_place) {
      std::size_t free_bytes = 0, total_bytes = 0;
      check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
      if (bytes + (64u << 20) > free_bytes) {
        peer.name.clear();  // no room for the peer's second buffer
        return peer;
      }
      second.emplace(bytes);
    }
  } catch (const std::exception& e) {
    peer.failure = e.what();
    return peer;
  }
  const timed_runs runs = time_device_runs(
      stream, settings,
      [&] {
        if (c.in_place)
          check_cuda(cudaMemcpyAsync(d_output, d_input, bytes, cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpyAsync");
        else
          check_cuda(cudaMemsetAsync(d_output, 0, bytes, stream), "cudaMemsetAsync");
      },
      [&] {
        if (!c.in_place) return run_geam(c, d_input, d_output);
        run_geam(c, d_output, second->data());
        check_cuda(
            cudaMemcpyAsync(d_output, second->data(), bytes, cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync");
      },
      [&] {
        check_cuda(cudaMemcpy(readback, d_output, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
        return check_run(readback, reference);
      });
  peer.failure = runs.failure;
  peer.verified = runs.failure.empty();
  if (peer.verified) peer.measured = rate_from_times(runs.times_ms, bytes);
  return peer;
}

}  // namespace xpose_cli

#endif
