// ELL sparse matrix-vector product y = A x run on the same matrix stored in AoS, SoA and ASTA,
// the experiment of the DL paper ("DL: A Data Layout Transformation System for Heterogeneous
// Computing", sec. 6.1, Table 1, Figure 6) on the CPU. An ELL matrix of n rows and width W keeps
// W (value, column) pairs per row: row-major, each row is a structure of W fields (AoS); the
// "transposed ELL" of GPU codes is its SoA, and the tiled transposed ELL its ASTA. One kernel
// template serves every layout through the views. The marshaling is timed as an in-place
// conversion of both arrays from AoS, and the break-even is the number of products after which
// converting and then multiplying beats multiplying in AoS (Figure 6's question). --csv FILE writes
// the rows in ell_spmv_gpu's format (copy_s: a memcpy of both arrays) for plot_figure6.py.
//
// Usage: ell_spmv [--rows-scale K] [--reps R] [--csv FILE]   (K multiplies the Table 1 row counts)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ell_matrix.hpp"
#include "xpose/layout.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

template <class F>
double median_seconds(int reps, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = clock_type::now();
    f();
    times.push_back(std::chrono::duration<double>(clock_type::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// y = A x for the ELL matrix whose values and columns `values` and `columns` view.
template <class Values, class Columns>
void spmv(Values values, Columns columns, const float* x, float* y, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float sum = 0.0f;
    for (int k = 0; k < Values::fields; ++k) sum += values(i, k) * x[columns(i, k)];
    y[i] = sum;
  }
}

struct result {
  double kernel_s = 0, marshal_s = 0;
  std::vector<float> y;
};

/// Converts both arrays from AoS to `View`'s layout (timed), runs the kernel `reps` times (median),
/// and converts back so that the next layout starts from AoS again.
template <template <class> class View>
result run_layout(std::vector<float>& values, std::vector<std::int32_t>& columns,
                  const std::vector<float>& x, std::int64_t n, std::int64_t W, int reps) {
  using value_view = View<float>;
  using column_view = View<std::int32_t>;
  const xpose::struct_array_desc desc{n, W, 4};
  const xpose::layout target = value_view::layout_of();
  const xpose::layout_conversion forward =
      xpose::plan_layout_conversion(desc, xpose::layout::aos(), target);
  const xpose::layout_conversion back =
      xpose::plan_layout_conversion(desc, target, xpose::layout::aos());
  result r;
  r.y.assign(static_cast<std::size_t>(n), 0.0f);
  const auto start = clock_type::now();
  forward.execute(values.data());
  forward.execute(columns.data());
  r.marshal_s = std::chrono::duration<double>(clock_type::now() - start).count();
  const value_view v{values.data(), n};
  const column_view c{columns.data(), n};
  r.kernel_s = median_seconds(reps, [&] { spmv(v, c, x.data(), r.y.data(), n); });
  back.execute(values.data());
  back.execute(columns.data());
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
  ell::matrix m = ell::make_matrix(n, W, seed);
  std::vector<float>& values = m.values;
  std::vector<std::int32_t>& columns = m.columns;
  const std::vector<float>& x = m.x;
  // Both arrays copied, the unit of the marshaling's cost.
  std::vector<float> value_copy(values.size());
  std::vector<std::int32_t> column_copy(columns.size());
  const double copy_s = median_seconds(5, [&] {
    std::memcpy(value_copy.data(), values.data(), values.size() * sizeof(float));
    std::memcpy(column_copy.data(), columns.data(), columns.size() * sizeof(std::int32_t));
  });

  const result aos = run_layout<views<W>::template aos>(values, columns, x, n, W, reps);
  const auto report = [&](const char* name, const result& r) {
    const bool same = ell::same_result(r.y, aos.y);
    const double saved = aos.kernel_s - r.kernel_s;
    std::printf("%8lld %4d  %-9s %9.3f %8.2f %10.3f   ", static_cast<long long>(n), W, name,
                r.kernel_s * 1e3, aos.kernel_s / r.kernel_s, r.marshal_s * 1e3);
    if (&r == &aos)
      std::printf("%10s", "-");
    else if (saved > 0)
      std::printf("%10.1f", r.marshal_s / saved);
    else
      std::printf("%10s", "never");
    std::printf("  %s\n", same ? "ok" : "MISMATCH");
    const bool marshaled = &r != &aos;
    if (csv)
      std::fprintf(csv, "%lld,%d,%s,%.9g,%.9g,%.9g,%.9g\n", static_cast<long long>(n), W, name,
                   r.kernel_s, marshaled ? r.marshal_s : 0.0, copy_s,
                   marshaled && saved > 0 ? r.marshal_s / saved : -1.0);
  };
  report("aos", aos);
  report("soa", run_layout<views<W>::template soa>(values, columns, x, n, W, reps));
  report("asta(16)", run_layout<views<W>::template asta16>(values, columns, x, n, W, reps));
  report("asta(32)", run_layout<views<W>::template asta32>(values, columns, x, n, W, reps));
  report("asta(64)", run_layout<views<W>::template asta64>(values, columns, x, n, W, reps));
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
  if (csv) std::fprintf(csv, "rows,width,layout,kernel_s,marshal_s,copy_s,break_even\n");
  std::printf(
      "ELL SpMV on the CPU, %d threads; times in ms, speedup over aos, break-even in "
      "products\n",
      omp_get_max_threads());
  std::printf("%8s %4s  %-9s %9s %8s %10s   %10s\n", "rows", "W", "layout", "kernel", "speedup",
              "marshal", "break-even");
  run_matrix<40>(ell::table1_rows[0] * scale, reps, 1, csv);
  run_matrix<62>(ell::table1_rows[1] * scale, reps, 2, csv);
  run_matrix<197>(ell::table1_rows[2] * scale, reps, 3, csv);
  run_matrix<215>(ell::table1_rows[3] * scale, reps, 4, csv);
  run_matrix<59>(ell::table1_rows[4] * scale, reps, 5, csv);
  run_matrix<39>(ell::table1_rows[5] * scale, reps, 6, csv);
  if (csv) std::fclose(csv);
  return 0;
}
