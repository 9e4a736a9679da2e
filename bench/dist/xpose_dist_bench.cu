// xpose_dist_bench: the distributed in-place transposition (xpose::dist, one process driving the
// first P visible GPUs) timed in the same run as NCCL's own all-to-all of the same bytes (one
// group of ncclSend/ncclRecv, out of place into a second buffer), the local stages alone and the
// exchange alone. Every shape is checked first: a pattern from each element's coordinates,
// transposed and checked on the device, transposed back and checked again.
//   xpose_dist_bench [--gpus 2,4] [--shape MxNxE]... [--fill F] [--runs N] [--chunk BYTES]
//                    [--scheme automatic|rows_even|cols_even|any_split] [--peers 0,1]
//                    [--json FILE]
// --peers lists the options.peers_at_once to run each shape with (0: every peer at once, the
// default; 1: one peer at a time), each a row of its own.
// --fill F adds a square fp32 matrix whose block takes F of each GPU's free memory (the all-to-all
// needs a second buffer: F <= 0.45). Times are wall-clock from the first enqueue to the last
// stream's end, the median of --runs after a warm-up; GB/s is the local block's bytes per second.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "xpose/dist.hpp"
#include "xpose/error.hpp"

namespace {

using namespace xpose::dist;

__host__ __device__ unsigned char pattern(std::uint64_t i, std::uint64_t j, std::uint32_t k) {
  std::uint64_t h = i * 0x9E3779B97F4A7C15ull ^ (j + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  return static_cast<unsigned char>(h >> (8 * (k % 8))) ^ static_cast<unsigned char>(k / 8);
}

/// A block of `rows` x `cols` elements of `e` bytes whose row r is row first + r of a matrix.
/// `transposed`: the matrix is the transpose of the pattern's (element (a, b) holds the
/// pattern's (b, a)).
struct block_view {
  unsigned char* data;
  std::uint64_t rows, first, cols;
  std::uint32_t e;
  bool transposed;
};

__device__ unsigned char expected_byte(const block_view& v, std::uint64_t b) {
  const std::uint64_t element = b / v.e;
  const std::uint32_t k = static_cast<std::uint32_t>(b % v.e);
  const std::uint64_t row = v.first + element / v.cols, col = element % v.cols;
  return v.transposed ? pattern(col, row, k) : pattern(row, col, k);
}

__global__ void fill_kernel(block_view v) {
  const std::uint64_t bytes = v.rows * v.cols * v.e;
  for (std::uint64_t b = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; b < bytes;
       b += std::uint64_t{gridDim.x} * blockDim.x)
    v.data[b] = expected_byte(v, b);
}

__global__ void check_kernel(block_view v, unsigned long long* mismatches) {
  const std::uint64_t bytes = v.rows * v.cols * v.e;
  unsigned long long wrong = 0;
  for (std::uint64_t b = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; b < bytes;
       b += std::uint64_t{gridDim.x} * blockDim.x)
    wrong += v.data[b] != expected_byte(v, b);
  if (wrong) atomicAdd(mismatches, wrong);
}

void cuda_ok(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(result));
    std::exit(2);
  }
}

void nccl_ok(ncclResult_t result, const char* what) {
  if (result != ncclSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, ncclGetErrorString(result));
    std::exit(2);
  }
}

struct shape {
  std::int64_t rows, cols;
  std::size_t e;
};

struct device_memory {
  int device = 0;
  void* ptr = nullptr;
  device_memory(int d, std::size_t bytes) : device(d) {
    cuda_ok(cudaSetDevice(d), "cudaSetDevice");
    cuda_ok(cudaMalloc(&ptr, std::max<std::size_t>(bytes, 1)), "cudaMalloc");
  }
  ~device_memory() {
    cudaSetDevice(device);
    cudaFree(ptr);
  }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
};

/// Wall-clock milliseconds of `enqueue` on every rank's stream: from a synchronized start to the
/// last stream's end.
double time_ms(const device_group& group, const std::function<void()>& enqueue) {
  group.synchronize();
  const auto start = std::chrono::steady_clock::now();
  enqueue();
  group.synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double median_ms(const device_group& group, int runs, const std::function<void()>& enqueue,
                 const std::function<void()>& between = nullptr) {
  std::vector<double> times;
  for (int run = 0; run <= runs; ++run) {  // the first warms up
    const double ms = time_ms(group, enqueue);
    if (run > 0) times.push_back(ms);
    if (between) between();
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// NCCL's all-to-all of the transposition's segments: rank r sends its segment for p (m_r x n_p
/// elements at m_r C_p) and receives p's (m_p x n_r at n_r R_p), out of place, one NCCL group.
void all_to_all(const device_group& group, const distributed_matrix& m,
                const std::vector<void*>& send, const std::vector<void*>& recv) {
  const std::size_t e = m.elem_size;
  nccl_ok(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < m.ranks; ++r)
    for (int p = 0; p < m.ranks; ++p) {
      const std::size_t send_at = e * m.row_count(r) * m.col_first(p);
      const std::size_t send_bytes = e * m.row_count(r) * m.col_count(p);
      const std::size_t recv_at = e * m.col_count(r) * m.row_first(p);
      const std::size_t recv_bytes = e * m.row_count(p) * m.col_count(r);
      if (send_bytes > 0)
        nccl_ok(ncclSend(static_cast<unsigned char*>(send[r]) + send_at, send_bytes, ncclUint8, p,
                         group.comm(r), group.stream(r)),
                "ncclSend");
      if (recv_bytes > 0)
        nccl_ok(ncclRecv(static_cast<unsigned char*>(recv[r]) + recv_at, recv_bytes, ncclUint8, p,
                         group.comm(r), group.stream(r)),
                "ncclRecv");
    }
  nccl_ok(ncclGroupEnd(), "ncclGroupEnd");
}

/// Mismatched bytes over the ranks: the blocks of `m` (transposed: of its transpose).
unsigned long long count_mismatches(const device_group& group, const distributed_matrix& m,
                                    const std::vector<void*>& locals, bool transposed, bool fill) {
  unsigned long long total = 0;
  for (int r = 0; r < m.ranks; ++r) {
    cuda_ok(cudaSetDevice(group.device(r)), "cudaSetDevice");
    block_view v;
    v.data = static_cast<unsigned char*>(locals[r]);
    v.e = static_cast<std::uint32_t>(m.elem_size);
    v.transposed = transposed;
    v.rows = static_cast<std::uint64_t>(transposed ? m.col_count(r) : m.row_count(r));
    v.first = static_cast<std::uint64_t>(transposed ? m.col_first(r) : m.row_first(r));
    v.cols = static_cast<std::uint64_t>(transposed ? m.rows : m.cols);
    if (fill) {
      fill_kernel<<<1024, 256, 0, group.stream(r)>>>(v);
      cuda_ok(cudaGetLastError(), "fill_kernel");
      continue;
    }
    unsigned long long* counter = nullptr;
    unsigned long long counted = 0;
    cuda_ok(cudaMalloc(&counter, sizeof *counter), "cudaMalloc");
    cuda_ok(cudaMemsetAsync(counter, 0, sizeof *counter, group.stream(r)), "cudaMemsetAsync");
    check_kernel<<<1024, 256, 0, group.stream(r)>>>(v, counter);
    cuda_ok(cudaGetLastError(), "check_kernel");
    cuda_ok(
        cudaMemcpyAsync(&counted, counter, sizeof counted, cudaMemcpyDeviceToHost, group.stream(r)),
        "cudaMemcpyAsync");
    cuda_ok(cudaStreamSynchronize(group.stream(r)), "cudaStreamSynchronize");
    total += counted;
    cudaFree(counter);
  }
  group.synchronize();
  return total;
}

struct result {
  int gpus = 0;
  shape s{};
  std::string scheme;
  int peers = 0;  ///< peers each rank exchanges with at once
  double local_gib = 0;
  double xpose_ms = 0, back_ms = 0, a2a_ms = 0, local_ms = 0, exchange_ms = 0, predicted_ms = 0;
  std::size_t workspace = 0, bound = 0, chunk = 0;
  bool correct = false;
};

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) values.push_back(std::stoi(item));
  return values;
}

shape parse_shape(const std::string& text) {
  shape s{};
  unsigned long long rows = 0, cols = 0, e = 0;
  if (std::sscanf(text.c_str(), "%llux%llux%llu", &rows, &cols, &e) != 3) {
    std::fprintf(stderr, "--shape takes MxNxE (rows x cols x element bytes), got %s\n",
                 text.c_str());
    std::exit(1);
  }
  s.rows = static_cast<std::int64_t>(rows);
  s.cols = static_cast<std::int64_t>(cols);
  s.e = static_cast<std::size_t>(e);
  return s;
}

scheme parse_scheme(const std::string& text) {
  for (scheme s : {scheme::automatic, scheme::rows_even, scheme::cols_even, scheme::any_split})
    if (text == to_string(s)) return s;
  std::fprintf(stderr, "--scheme: automatic, rows_even, cols_even or any_split, got %s\n",
               text.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  // NVLink multicast stays off (the device machines require it), before any NCCL call.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  std::vector<int> gpu_counts{2, 4};
  std::vector<int> peer_options{0};
  std::vector<shape> shapes;
  double fill = 0;
  int runs = 5;
  options opts;
  std::string json_file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--gpus")
      gpu_counts = parse_list(value());
    else if (arg == "--shape")
      shapes.push_back(parse_shape(value()));
    else if (arg == "--fill")
      fill = std::stod(value());
    else if (arg == "--runs")
      runs = std::max(1, std::stoi(value()));
    else if (arg == "--chunk")
      opts.chunk_bytes = std::stoull(value());
    else if (arg == "--scheme")
      opts.local = parse_scheme(value());
    else if (arg == "--peers")
      peer_options = parse_list(value());
    else if (arg == "--json")
      json_file = value();
    else {
      std::fprintf(stderr, "unknown argument %s (see the comment at the top of the source)\n",
                   arg.c_str());
      return 1;
    }
  }
  if (shapes.empty()) shapes = {{65536, 65536, 4}, {50021, 40009, 4}, {100003, 20000, 8}};
  int visible = 0;
  cuda_ok(cudaGetDeviceCount(&visible), "cudaGetDeviceCount");
  cudaDeviceProp properties{};
  cuda_ok(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  int nccl_version = 0;
  nccl_ok(ncclGetVersion(&nccl_version), "ncclGetVersion");
  std::printf("xpose_dist_bench: %d x %s visible, NCCL %d, NCCL_NVLS_ENABLE=%s\n", visible,
              properties.name, nccl_version, std::getenv("NCCL_NVLS_ENABLE"));

  std::vector<result> results;
  for (int gpus : gpu_counts) {
    if (gpus > visible) {
      std::printf("%d GPUs: skipped, %d visible\n", gpus, visible);
      continue;
    }
    std::vector<int> devices;
    for (int d = 0; d < gpus; ++d) devices.push_back(d);
    const device_group group(devices);
    options measured = opts;
    measured.measured = measure_bandwidths(group);
    std::printf(
        "%d GPUs: copy %.0f GB/s (2 x bytes / time), pairwise link %.0f GB/s per GPU, to every "
        "peer at once %.0f GB/s per GPU\n",
        gpus, measured.measured.copy / 1e9, measured.measured.link / 1e9,
        measured.measured.link_all_peers / 1e9);
    std::vector<shape> cases = shapes;
    if (fill > 0) {
      std::size_t free_bytes = 0, total_bytes = 0;
      cuda_ok(cudaSetDevice(0), "cudaSetDevice");
      cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
      const double elements = fill * static_cast<double>(free_bytes) * gpus / 4;
      const auto side = static_cast<std::int64_t>(std::sqrt(elements)) / (32 * gpus) * (32 * gpus);
      cases.push_back({side, side, 4});
    }
    for (const shape& s : cases)
      for (int peers : peer_options) {
        distributed_matrix m;
        m.rows = s.rows;
        m.cols = s.cols;
        m.elem_size = s.e;
        m.ranks = gpus;
        std::size_t capacity = 0;
        for (int r = 0; r < gpus; ++r) capacity = std::max(capacity, m.capacity_bytes(r));
        std::size_t free_bytes = 0, total_bytes = 0;
        cuda_ok(cudaSetDevice(0), "cudaSetDevice");
        cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        if (2 * capacity + (std::size_t{1} << 30) > free_bytes) {
          std::printf(
              "%lldx%lldx%zu on %d GPUs: skipped, 2 x %.1f GiB do not fit in %.1f GiB free\n",
              static_cast<long long>(s.rows), static_cast<long long>(s.cols), s.e, gpus,
              capacity / 1073741824.0, free_bytes / 1073741824.0);
          continue;
        }
        std::vector<std::unique_ptr<device_memory>> buffers, receive;
        std::vector<void*> locals, recv;
        for (int r = 0; r < gpus; ++r) {
          buffers.push_back(std::make_unique<device_memory>(devices[r], m.capacity_bytes(r)));
          receive.push_back(std::make_unique<device_memory>(devices[r], m.capacity_bytes(r)));
          locals.push_back(buffers.back()->ptr);
          recv.push_back(receive.back()->ptr);
        }
        result row;
        row.gpus = gpus;
        row.s = s;
        try {
          options forward_options = measured;
          forward_options.peers_at_once = peers;
          const group_plan forward(m, group, forward_options);
          options back_options = forward_options;
          back_options.local = scheme::automatic;
          const group_plan back(m.transposed(), group, back_options);
          std::printf("%s", forward.describe().c_str());
          const plan& first = forward.rank_plan(0);
          row.scheme = to_string(first.chosen_scheme());
          row.peers = first.peers_at_once();
          row.local_gib = static_cast<double>(m.capacity_bytes(0)) / 1073741824.0;
          row.predicted_ms = first.predicted_seconds() * 1e3;
          row.chunk = first.chunk_bytes();
          for (int r = 0; r < gpus; ++r) {
            row.workspace = std::max(row.workspace, forward.rank_plan(r).workspace_bytes());
            row.bound = r == 0 ? forward.rank_plan(r).memory_bound_bytes()
                               : std::min(row.bound, forward.rank_plan(r).memory_bound_bytes());
          }

          count_mismatches(group, m, locals, false, true);
          forward.execute(locals);
          const unsigned long long wrong_forward = count_mismatches(group, m, locals, true, false);
          back.execute(locals);
          const unsigned long long wrong_back = count_mismatches(group, m, locals, false, false);
          row.correct = wrong_forward == 0 && wrong_back == 0;
          if (!row.correct)
            std::printf(
                "WRONG: %llu bytes differ after the transposition, %llu after the way back\n",
                wrong_forward, wrong_back);

          // Forward timed, back between the runs (untimed) so that each forward run starts from
          // the matrix; then the back plan's own times.
          row.xpose_ms = median_ms(
              group, runs, [&] { forward.execute(locals); }, [&] { back.execute(locals); });
          if (row.correct && count_mismatches(group, m, locals, false, false) != 0) {
            std::printf("WRONG after the timed runs\n");
            row.correct = false;
          }
          forward.execute(locals);
          row.back_ms = median_ms(
              group, runs, [&] { back.execute(locals); }, [&] { forward.execute(locals); });
          row.a2a_ms = median_ms(group, runs, [&] { all_to_all(group, m, locals, recv); });
          row.local_ms = median_ms(group, runs, [&] {
            forward.execute_part(part::local_before, locals);
            forward.execute_part(part::local_after, locals);
          });
          row.exchange_ms =
              median_ms(group, runs, [&] { forward.execute_part(part::exchange, locals); });
        } catch (const xpose::error& e) {
          std::printf("%lldx%lldx%zu on %d GPUs: %s\n", static_cast<long long>(s.rows),
                      static_cast<long long>(s.cols), s.e, gpus, e.what());
          continue;
        }
        results.push_back(row);
      }
  }

  std::printf("\n%4s %-18s %3s %-9s %5s %8s %9s %9s %9s %9s %9s %10s %7s %8s %9s %s\n", "GPUs",
              "shape", "e", "scheme", "peers", "blk GiB", "xpose ms", "back ms", "a2a ms",
              "local ms", "exch ms", "x/(a2a+l)", "x/a2a", "GB/s", "pred ms", "ok");
  for (const result& r : results) {
    char name[48];
    std::snprintf(name, sizeof name, "%lldx%lld", static_cast<long long>(r.s.rows),
                  static_cast<long long>(r.s.cols));
    std::printf(
        "%4d %-18s %3zu %-9s %5d %8.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.3f %7.3f %8.0f %9.2f "
        "%s\n",
        r.gpus, name, r.s.e, r.scheme.c_str(), r.peers, r.local_gib, r.xpose_ms, r.back_ms,
        r.a2a_ms, r.local_ms, r.exchange_ms, r.xpose_ms / (r.a2a_ms + r.local_ms),
        r.xpose_ms / r.a2a_ms, r.local_gib * 1073741824.0 / (r.xpose_ms * 1e6), r.predicted_ms,
        r.correct ? "yes" : "NO");
  }
  if (!json_file.empty()) {
    std::ofstream out(json_file);
    out << "{\n  \"device\": \"" << properties.name << "\",\n  \"nccl\": " << nccl_version
        << ",\n  \"visible_gpus\": " << visible << ",\n  \"results\": [\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const result& r = results[i];
      out << "    {\"gpus\": " << r.gpus << ", \"rows\": " << r.s.rows << ", \"cols\": " << r.s.cols
          << ", \"elem_size\": " << r.s.e << ", \"scheme\": \"" << r.scheme
          << "\", \"peers_at_once\": " << r.peers << ", \"local_block_gib\": " << r.local_gib
          << ", \"xpose_ms\": " << r.xpose_ms << ", \"back_ms\": " << r.back_ms
          << ", \"nccl_all_to_all_ms\": " << r.a2a_ms << ", \"local_stages_ms\": " << r.local_ms
          << ", \"exchange_ms\": " << r.exchange_ms
          << ", \"ratio_to_all_to_all_plus_local\": " << r.xpose_ms / (r.a2a_ms + r.local_ms)
          << ", \"ratio_to_all_to_all\": " << r.xpose_ms / r.a2a_ms
          << ", \"predicted_ms\": " << r.predicted_ms << ", \"chunk_bytes\": " << r.chunk
          << ", \"workspace_bytes\": " << r.workspace << ", \"memory_bound_bytes\": " << r.bound
          << ", \"correct\": " << (r.correct ? "true" : "false") << "}"
          << (i + 1 < results.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  bool all_correct = true;
  for (const result& r : results) all_correct = all_correct && r.correct;
  return all_correct ? 0 : 3;
}
