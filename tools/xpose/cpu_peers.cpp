#include "cpu_peers.hpp"

#ifdef XPOSE_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <limits>

#include "cpu_timing.hpp"

namespace xpose_cli {

#ifdef XPOSE_HAVE_OPENBLAS

namespace {

bool fits_blasint(std::int64_t n) {
  return n <= std::numeric_limits<blasint>::max();
}

/// Runs the OpenBLAS call that matches the case: ?imatcopy in place, ?omatcopy out of place.
void run_openblas(const bench_case& c, std::byte* work, const std::byte* src, std::byte* dst) {
  const auto rows = static_cast<blasint>(c.rows);
  const auto cols = static_cast<blasint>(c.cols);
  if (c.in_place && c.elem_size == 4)
    cblas_simatcopy(CblasRowMajor, CblasTrans, rows, cols, 1.0f, reinterpret_cast<float*>(work),
                    cols, rows);
  else if (c.in_place)
    cblas_dimatcopy(CblasRowMajor, CblasTrans, rows, cols, 1.0, reinterpret_cast<double*>(work),
                    cols, rows);
  else if (c.elem_size == 4)
    cblas_somatcopy(CblasRowMajor, CblasTrans, rows, cols, 1.0f,
                    reinterpret_cast<const float*>(src), cols, reinterpret_cast<float*>(dst), rows);
  else
    cblas_domatcopy(CblasRowMajor, CblasTrans, rows, cols, 1.0,
                    reinterpret_cast<const double*>(src), cols, reinterpret_cast<double*>(dst),
                    rows);
}

const char* openblas_name(const bench_case& c) {
  if (c.in_place) return c.elem_size == 4 ? "openblas simatcopy" : "openblas dimatcopy";
  return c.elem_size == 4 ? "openblas somatcopy" : "openblas domatcopy";
}

}  // namespace

peer_result run_cpu_peer(const bench_case& c, const reference_pair& reference,
                         const bench_settings& settings) {
  peer_result peer;
  // One matrix per call: batches have no peer.
  if ((c.elem_size != 4 && c.elem_size != 8) || c.batch != 1 || !fits_blasint(c.rows) ||
      !fits_blasint(c.cols))
    return peer;
  // ?imatcopy kills the process ("Memory alloc failed") on in-place row-major transpositions
  // with rows > cols once rows passes about 75000 (70000x2 runs, 80000x2, 100000x1000 and
  // 4000000x32 abort; Debian 12's OpenBLAS 0.3.21), so those cases have no peer.
  if (c.in_place && c.rows > c.cols && c.rows > 65536) return peer;
  peer.name = openblas_name(c);
  openblas_set_num_threads(settings.threads);
  const std::size_t bytes = c.matrix_bytes();
  byte_buffer work(bytes);
  byte_buffer dst(c.in_place ? 0 : bytes);
  std::byte* const result = c.in_place ? work.data() : dst.data();
  const timed_runs runs = time_host_runs(
      settings, [&] { prepare_run(result, c.in_place, reference, settings.threads); },
      [&] { run_openblas(c, work.data(), reference.input.data(), dst.data()); },
      [&] { return check_run(result, reference); });
  peer.failure = runs.failure;
  peer.verified = runs.failure.empty();
  if (peer.verified) peer.measured = rate_from_times(runs.times_ms, bytes);
  return peer;
}

#else

peer_result run_cpu_peer(const bench_case&, const reference_pair&, const bench_settings&) {
  return {};
}

#endif

}  // namespace xpose_cli
