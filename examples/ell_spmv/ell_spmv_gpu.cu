// ELL SpMV on the GPU in AoS, SoA and ASTA: the DL paper's experiment ("DL: A Data Layout
// Transformation System for Heterogeneous Computing", sec. 6.1, Figure 6). The matrix is uploaded
// in AoS into two layout_buffers (values, columns); for each layout the buffers are converted in
// place on the device (the marshaling, timed with events), one kernel template runs through the
// layout's views (median of the timed runs), and the result is checked against AoS's. Prints the
// kernel time, its speedup over AoS, the marshaling time and its ratio to a device-to-device copy
// of the same bytes, and the break-even in products; --csv FILE writes the same rows for a plot.
//
// Usage: ell_spmv_gpu [--rows-scale K] [--reps R] [--csv FILE]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ell_matrix.hpp"
#include "xpose/layout.hpp"

namespace {

void check(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(result));
    std::exit(1);
  }
}

template <class Values, class Columns>
__global__ void spmv(Values values, Columns columns, const float* x, float* y) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= values.structs) return;
  float sum = 0.0f;
  for (int k = 0; k < Values::fields; ++k) sum += values(i, k) * x[columns(i, k)];
  y[i] = sum;
}

/// Times `enqueue` on `stream` between two events: the median of `reps` runs, in seconds.
template <class F>
double median_seconds(int reps, cudaStream_t stream, F&& enqueue) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    enqueue();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct context {
  xpose::layout_buffer& values;
  xpose::layout_buffer& columns;
  const float* x;
  float* y;
  std::int64_t rows;
  cudaStream_t stream;
  int reps;
};

struct result {
  double kernel_s = 0, marshal_s = 0;
  std::vector<float> y;
};

/// Marshals both buffers from AoS to View's layout (timed; the plans are made by an untimed
/// round trip first), runs the kernel, and converts back to AoS.
template <template <class> class View>
result run_layout(context& c) {
  const xpose::layout target = View<float>::layout_of();
  c.values.convert_to(target, c.stream);  // plans made here, outside the timing
  c.columns.convert_to(target, c.stream);
  c.values.convert_to(xpose::layout::aos(), c.stream);
  c.columns.convert_to(xpose::layout::aos(), c.stream);
  result r;
  r.marshal_s = median_seconds(1, c.stream, [&] {
    c.values.convert_to(target, c.stream);
    c.columns.convert_to(target, c.stream);
  });
  const auto values = c.values.view<View<float>>(c.stream);
  const auto columns = c.columns.view<View<std::int32_t>>(c.stream);
  const int threads = 256;
  const auto blocks = static_cast<unsigned>((c.rows + threads - 1) / threads);
  r.kernel_s = median_seconds(
      c.reps, c.stream, [&] { spmv<<<blocks, threads, 0, c.stream>>>(values, columns, c.x, c.y); });
  check(cudaGetLastError(), "spmv");
  r.y.resize(static_cast<std::size_t>(c.rows));
  check(cudaMemcpyAsync(r.y.data(), c.y, r.y.size() * sizeof(float), cudaMemcpyDeviceToHost,
                        c.stream),
        "cudaMemcpyAsync");
  c.values.convert_to(xpose::layout::aos(), c.stream);
  c.columns.convert_to(xpose::layout::aos(), c.stream);
  check(cudaStreamSynchronize(c.stream), "cudaStreamSynchronize");
  return r;
}

template <int W>
struct views {
  template <class V>
  using aos = xpose::aos_view<V, W>;
  template <class V>
  using soa = xpose::soa_view<V, W>;
  template <class V>
  using asta16 = xpose::asta_view<V, W, 16>;
  template <class V>
  using asta32 = xpose::asta_view<V, W, 32>;
  template <class V>
  using asta64 = xpose::asta_view<V, W, 64>;
};

template <int W>
void run_matrix(std::int64_t n, int reps, std::uint64_t seed, std::FILE* csv) {
  const ell::matrix m = ell::make_matrix(n, W, seed);
  const xpose::plan_options on_gpu{xpose::device::cuda};
  xpose::layout_buffer values({n, W, sizeof(float)}, xpose::layout::aos(), on_gpu);
  xpose::layout_buffer columns({n, W, sizeof(std::int32_t)}, xpose::layout::aos(), on_gpu);
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  float *x = nullptr, *y = nullptr, *copy = nullptr;
  check(cudaMalloc(&x, m.x.size() * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&y, m.x.size() * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&copy, values.bytes()), "cudaMalloc");
  check(cudaMemcpy(x, m.x.data(), m.x.size() * sizeof(float), cudaMemcpyHostToDevice),
        "cudaMemcpy");
  values.copy_from_host(m.values.data(), stream);
  columns.copy_from_host(m.columns.data(), stream);
  // Both arrays copied device to device, the unit of the marshaling's cost.
  const double copy_s = median_seconds(5, stream, [&] {
    check(cudaMemcpyAsync(copy, values.data(), values.bytes(), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
    check(cudaMemcpyAsync(copy, columns.data(), columns.bytes(), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
  });
  context c{values, columns, x, y, n, stream, reps};
  const result aos = run_layout<views<W>::template aos>(c);
  const auto report = [&](const char* name, const result& r) {
    const double saved = aos.kernel_s - r.kernel_s;
    const bool marshaled = &r != &aos;
    const double break_even = marshaled && saved > 0 ? r.marshal_s / saved : -1;
    std::printf("%8lld %4d  %-9s %9.4f %8.2f %10.4f %8.2f   ", static_cast<long long>(n), W, name,
                r.kernel_s * 1e3, aos.kernel_s / r.kernel_s, marshaled ? r.marshal_s * 1e3 : 0.0,
                marshaled ? copy_s / r.marshal_s : 0.0);
    if (!marshaled)
      std::printf("%10s", "-");
    else if (break_even >= 0)
      std::printf("%10.1f", break_even);
    else
      std::printf("%10s", "never");
    std::printf("  %s\n", ell::same_result(r.y, aos.y) ? "ok" : "MISMATCH");
    if (csv)
      std::fprintf(csv, "%lld,%d,%s,%.9g,%.9g,%.9g,%.9g\n", static_cast<long long>(n), W, name,
                   r.kernel_s, marshaled ? r.marshal_s : 0.0, copy_s, break_even);
  };
  report("aos", aos);
  report("soa", run_layout<views<W>::template soa>(c));
  report("asta(16)", run_layout<views<W>::template asta16>(c));
  report("asta(32)", run_layout<views<W>::template asta32>(c));
  report("asta(64)", run_layout<views<W>::template asta64>(c));
  cudaFree(copy);
  cudaFree(y);
  cudaFree(x);
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t scale = 1;
  int reps = 7;
  std::FILE* csv = nullptr;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--rows-scale") == 0) scale = std::atoll(argv[a + 1]);
    if (std::strcmp(argv[a], "--reps") == 0) reps = std::atoi(argv[a + 1]);
    if (std::strcmp(argv[a], "--csv") == 0) csv = std::fopen(argv[a + 1], "w");
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "ell_spmv_gpu: no CUDA device\n");
    return 1;
  }
  if (csv) std::fprintf(csv, "rows,width,layout,kernel_s,marshal_s,copy_s,break_even\n");
  std::printf(
      "ELL SpMV on the GPU; times in ms, speedup over aos, marshaling of both arrays as a "
      "ratio of their D2D copy time, break-even in products\n");
  std::printf("%8s %4s  %-9s %9s %8s %10s %8s   %10s\n", "rows", "W", "layout", "kernel", "speedup",
              "marshal", "x copy", "break-even");
  run_matrix<40>(ell::table1_rows[0] * scale, reps, 1, csv);
  run_matrix<62>(ell::table1_rows[1] * scale, reps, 2, csv);
  run_matrix<197>(ell::table1_rows[2] * scale, reps, 3, csv);
  run_matrix<215>(ell::table1_rows[3] * scale, reps, 4, csv);
  run_matrix<59>(ell::table1_rows[4] * scale, reps, 5, csv);
  run_matrix<39>(ell::table1_rows[5] * scale, reps, 6, csv);
  if (csv) std::fclose(csv);
  return 0;
}
