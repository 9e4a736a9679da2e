// Launchers of the row/column decomposition's phases (row_column.hpp; kernels and their index
// maps in row_column_kernel.cuh): word sizes, row groups through the scratch, column block
// widths, tiles and groups.
#include "cuda/inplace/row_column.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/backend/occupancy.hpp"
#include "cuda/dispatch/copy_dispatch.hpp"
#include "cuda/inplace/row_column_kernel.cuh"
#include "plan/row_column.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

/// Shared memory a column tile takes, about.
constexpr std::size_t column_tile_bytes = 24 * 1024;

/// Asks for the largest shared-memory carveout for `kernel` (a host call at each launch):
/// without it the driver may carve less than the resident blocks of these kernels could use
/// (ncu: three 40-KiB row blocks per SM where five fit).
template <class Kernel>
void prefer_shared_memory(Kernel kernel, const char* name) {
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared),
             name);
}

[[noreturn]] void refuse(const std::string& what) {
  throw error(status::internal_error, "row_column: " + what);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

bool row_on_chip(const stage& s) {
  return static_cast<std::size_t>(s.cols) * s.super_bytes <= row_on_chip_max_bytes;
}

/// Rows per group of the row shuffle through the scratch.
std::int64_t row_group(const stage& s) {
  const std::size_t row_bytes = static_cast<std::size_t>(s.cols) * s.super_bytes;
  return std::clamp<std::int64_t>(
      static_cast<std::int64_t>(row_column_scratch_max_bytes / row_bytes), 1, s.rows);
}

/// Column blocks per group of the column phases (the launches' grid.y: at most 65535).
std::int64_t column_group(const stage& s) {
  const std::size_t block_bytes =
      static_cast<std::size_t>(s.rows * row_column_block_cols(s)) * s.super_bytes;
  return std::clamp<std::int64_t>(
      static_cast<std::int64_t>(row_column_scratch_max_bytes / block_bytes), 1,
      std::min<std::int64_t>(65535, ceil_div(s.cols, row_column_block_cols(s))));
}

// ---- column phases on clusters -----------------------------------------------------------------

/// Shared memory one block of a cluster aims at: two blocks per SM, so that one's loads overlap
/// the other's writes.
constexpr std::size_t cluster_block_target_bytes = 112 * 1024;

/// The widest cluster the kernel asks for (16 is beyond the portable 8: sm_90 allows it).
constexpr int cluster_max_ranks = 16;

/// The current device, or -1 where there is none (a plan is described without a device; the
/// launch is what fails then).
int current_device() {
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess) return device;
  static_cast<void>(cudaGetLastError());
  return -1;
}

/// Whether the current device runs thread-block clusters (sm_90 and later) and this build holds
/// the cluster kernel's sm_90 code for it (a build for older architectures runs their code, JIT
/// compiled, where the kernel is empty), asked once per device.
bool device_has_clusters() {
  static std::mutex asking;
  static std::map<int, bool> answers;
  const int device = current_device();
  if (device < 0) return false;
  const std::lock_guard<std::mutex> lock(asking);
  const auto found = answers.find(device);
  if (found != answers.end()) return found->second;
  int major = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
             "row_column: cudaDeviceGetAttribute");
  cudaFuncAttributes code{};
  const bool built =
      cudaFuncGetAttributes(&code, row_column::column_cluster_kernel<4>) == cudaSuccess &&
      code.ptxVersion >= 90;
  if (!built) static_cast<void>(cudaGetLastError());  // its own failure only
  return answers[device] = major >= 9 && built;
}

/// The launch configuration of `clusters` clusters of `shape` (blocks of `threads` threads) on
/// `stream`; it points at its own cluster attribute, so it is neither copied nor moved.
struct cluster_launch {
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};

  cluster_launch(const cluster_shape& shape, unsigned clusters, int threads, cudaStream_t stream) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = static_cast<unsigned>(shape.ranks);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.gridDim = dim3(clusters * static_cast<unsigned>(shape.ranks));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = shape.shared_bytes;
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  cluster_launch(const cluster_launch&) = delete;
  cluster_launch& operator=(const cluster_launch&) = delete;
};

/// Raises the kernel's limits for `shape`: its dynamic shared memory, and clusters of more than 8
/// blocks.
template <class Kernel>
void allow_cluster_kernel(Kernel kernel, const cluster_shape& shape) {
  allow_dynamic_shared(kernel, static_cast<int>(shape.shared_bytes), "column_cluster_kernel");
  prefer_shared_memory(kernel, "column_cluster_kernel");
  if (shape.ranks > 8)
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
               "column_cluster_kernel: cudaFuncSetAttribute");
}

/// Whether clusters of `shape` fit on the current device at all (the runtime's occupancy answer
/// for the 16-byte word's kernel; the kernels of every word size take about as many registers per
/// block), asked once per shape.
bool clusters_fit(const cluster_shape& shape) {
  static std::mutex asking;
  static std::map<std::tuple<int, int, std::size_t>, bool> answers;
  int device = 0;
  check_cuda(cudaGetDevice(&device), "row_column: cudaGetDevice");
  const std::lock_guard<std::mutex> lock(asking);
  const auto key = std::make_tuple(device, shape.ranks, shape.shared_bytes);
  const auto found = answers.find(key);
  if (found != answers.end()) return found->second;
  const auto kernel = row_column::column_cluster_kernel<16>;
  int allowed = 0;
  check_cuda(cudaDeviceGetAttribute(&allowed, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
             "row_column: cudaDeviceGetAttribute");
  bool fits = shape.shared_bytes <= static_cast<std::size_t>(allowed);
  if (fits) {
    allow_cluster_kernel(kernel, shape);
    cluster_launch launch(shape, 1, row_column::cluster_threads<16>, nullptr);
    int clusters = 0;
    const cudaError_t asked = cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config);
    // An unsupported shape is an answer: its error is cleared, and only its own.
    if (asked != cudaSuccess) static_cast<void>(cudaGetLastError());
    fits = asked == cudaSuccess && clusters > 0;
  }
  return answers[key] = fits;
}

}  // namespace

std::optional<cluster_shape> cluster_columns(const stage& s) {
  if (s.kind != stage_kind::row_column_pre_rotate &&
      s.kind != stage_kind::row_column_column_shuffle)
    return std::nullopt;
  if (!device_has_clusters()) return std::nullopt;
  const auto e = static_cast<std::int64_t>(s.super_bytes);
  // The widest segment whose blocks stay within the target; else the widest that fits at all
  // (H200: 64-byte segments at 80 KiB a block beat 128-byte ones at 160 KiB, 0.36-0.38 x copy
  // against 0.28-0.33 on 16413 x 14613 and 20000 x 5000).
  std::optional<cluster_shape> fallback;
  for (const std::int64_t segment : {128, 64, 32}) {
    cluster_shape shape;
    shape.block_cols = std::clamp<std::int64_t>(segment / e, 1, s.cols);
    const auto segment_bytes = static_cast<std::size_t>(shape.block_cols * e);
    // The fewest blocks whose share stays near the target; the widest cluster when none does.
    for (int ranks = 1; ranks <= cluster_max_ranks; ranks *= 2) {
      shape.ranks = ranks;
      shape.rows_per_block = static_cast<std::uint32_t>(ceil_div(s.rows, ranks));
      shape.shared_bytes = shape.rows_per_block * segment_bytes;
      if (shape.shared_bytes <= cluster_block_target_bytes) break;
    }
    if (clusters_fit(shape)) {
      if (shape.shared_bytes <= cluster_block_target_bytes) return shape;
      if (!fallback) fallback = shape;
    }
    if (segment_bytes <= 32 || shape.block_cols == 1) break;
  }
  return fallback;
}

namespace {

/// The current device's SMs, asked once per device.
std::int64_t device_sms() {
  static std::mutex asking;
  static std::map<int, std::int64_t> answers;
  const int device = current_device();
  if (device < 0) return 1;
  const std::lock_guard<std::mutex> lock(asking);
  const auto found = answers.find(device);
  if (found != answers.end()) return found->second;
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "row_column: cudaDeviceGetAttribute");
  return answers[device] = std::max(sms, 1);
}

std::int64_t rotated_resident_blocks(const stage& s, int word_bytes);

/// The bands of the pre-rotation fused into the row shuffle of an m x n matrix of e-byte
/// elements, or 0 where it does not fuse: gcd(m, n) = 1 (no pre-rotation), rows longer than
/// shared memory, or halos (gcd - 1 rows per band) that would take more than their bound
/// (rotated_halos_max_bytes) before every SM had a band. No more bands than the rotated kernel
/// holds at once on the current device (for data on 16 bytes; without a device, by its shared
/// memory alone), so that every band runs from the start.
std::int64_t rotated_bands(const stage& s) {
  const row_column_math math(s.rows, s.cols);
  if (math.c() < 2 || !row_on_chip(s)) return 0;
  const std::size_t row_bytes = static_cast<std::size_t>(s.cols) * s.super_bytes;
  const std::int64_t sms = device_sms();
  const auto per_sm =
      std::clamp<std::int64_t>(static_cast<std::int64_t>((228 * 1024) / (row_bytes + 1024)), 1, 4);
  const std::int64_t slots =
      current_device() >= 0
          ? rotated_resident_blocks(s, word_bytes_for(s.super_bytes, nullptr, nullptr))
          : sms * per_sm;
  const auto halo_fit = static_cast<std::int64_t>(
      rotated_halos_max_bytes / (static_cast<std::size_t>(math.c() - 1) * row_bytes));
  const std::int64_t bands = std::min({s.rows, slots, halo_fit});
  return bands >= std::min(sms, s.rows) ? bands : 0;
}

void validate(const stage& s) {
  if (!is_row_column_stage(s)) refuse("stage is not a row_column phase");
  if (s.super_bytes == 0) refuse("element size 0");
  const std::string why = row_column_limits(s);
  if (!why.empty()) refuse(why);
}

// ---- row shuffle -------------------------------------------------------------------------------

/// Short rows: smaller blocks, more of them on an SM, so that one's loads overlap another's
/// barrier and copy back.
std::uint32_t row_shuffle_threads(const stage& s) {
  const std::size_t row_bytes = static_cast<std::size_t>(s.cols) * s.super_bytes;
  return row_bytes <= 48 * 1024 ? row_column::row_threads / 2 : row_column::row_threads;
}

template <int W>
row_column::row_shuffle_args row_shuffle_terms(const stage& s) {
  const row_column_math math(s.rows, s.cols);
  row_column::row_shuffle_args a;
  a.m = static_cast<std::uint32_t>(s.rows);
  a.n = static_cast<std::uint32_t>(s.cols);
  a.k = static_cast<std::uint32_t>(s.super_bytes / W);
  a.b = static_cast<std::uint32_t>(math.b());
  a.by_n = row_column::fast_divmod(a.n);
  const std::uint32_t threads = row_shuffle_threads(s);
  a.jm_step = static_cast<std::uint32_t>(std::uint64_t{threads} * a.m % a.n);
  a.q_step = threads / a.b;
  a.r_step = threads % a.b;
  return a;
}

template <int W>
void launch_row_shuffle_words(unsigned char* data, const stage& s, void* scratch,
                              cudaStream_t stream) {
  row_column::row_shuffle_args a = row_shuffle_terms<W>(s);
  const std::size_t row_bytes = static_cast<std::size_t>(s.cols) * s.super_bytes;
  const std::uint32_t threads = row_shuffle_threads(s);
  if (row_on_chip(s)) {
    const auto kernel = row_column::row_shuffle_kernel<W, true>;
    const int shared = static_cast<int>(row_bytes);
    allow_dynamic_shared(kernel, shared, "row_shuffle_kernel");
    prefer_shared_memory(kernel, "row_shuffle_kernel");
    a.first_row = 0;
    a.rows = s.rows;
    const std::int64_t blocks =
        std::min(s.rows, resident_blocks(kernel, threads, shared, "row_shuffle_kernel"));
    kernel<<<static_cast<unsigned>(blocks), threads, shared, stream>>>(data, nullptr, a);
    check_launch("row_shuffle_kernel");
    return;
  }
  if (scratch == nullptr)
    refuse("the row shuffle of rows longer than shared memory needs a scratch");
  const auto kernel = row_column::row_shuffle_kernel<W, false>;
  const std::int64_t group = row_group(s);
  const std::int64_t resident = resident_blocks(kernel, threads, 0, "row_shuffle_kernel");
  for (std::int64_t first = 0; first < s.rows; first += group) {
    a.first_row = first;
    a.rows = std::min(group, s.rows - first);
    kernel<<<static_cast<unsigned>(std::min(a.rows, resident)), threads, 0, stream>>>(
        data, static_cast<unsigned char*>(scratch), a);
    check_launch("row_shuffle_kernel");
    check_cuda(cudaMemcpyAsync(data + static_cast<std::size_t>(first) * row_bytes, scratch,
                               static_cast<std::size_t>(a.rows) * row_bytes,
                               cudaMemcpyDeviceToDevice, stream),
               "row_column: cudaMemcpyAsync");
  }
}

/// The pre-rotation and the row shuffle in one pass (rotated_bands says when): the halos, then
/// every band's rows from its last to its first, each gathered from the rows the pre-rotation
/// would have moved into it.
template <int W>
void launch_rotated_row_shuffle_words(unsigned char* data, const stage& row, std::int64_t bands,
                                      void* scratch, cudaStream_t stream) {
  row_column::row_shuffle_args a = row_shuffle_terms<W>(row);
  const row_column_math math(row.rows, row.cols);
  const auto kernel = row_column::row_shuffle_kernel<W, true, true>;
  const int shared = static_cast<int>(static_cast<std::size_t>(row.cols) * row.super_bytes);
  const std::uint32_t threads = row_shuffle_threads(row);
  // No more bands than blocks the device holds at once with this word size (rotated_bands asked
  // for data on 16 bytes), so that every band runs from the start: bands left waiting for a free
  // block slot would run while most SMs sit idle.
  bands = std::min(bands, rotated_resident_blocks(row, W));
  a.first_row = 0;
  a.rows = row.rows;
  a.band_rows = ceil_div(row.rows, bands);
  a.halo_rows = math.c() - 1;
  bands = ceil_div(row.rows, a.band_rows);
  auto* halo = static_cast<unsigned char*>(scratch);
  row_column::row_halo_kernel<W>
      <<<static_cast<unsigned>(bands * a.halo_rows), row_column::row_threads, 0, stream>>>(data,
                                                                                           halo, a);
  check_launch("row_halo_kernel");
  kernel<<<static_cast<unsigned>(bands), threads, shared, stream>>>(data, halo, a);
  check_launch("row_shuffle_kernel");
}

// ---- column phases -----------------------------------------------------------------------------

/// Fills the rotation terms of `a` for phase `s`, column blocks of `block_cols` columns.
void set_column_terms(row_column::column_args& a, const stage& s, std::int64_t block_cols, int w) {
  const row_column_math math(s.rows, s.cols);
  a.m = s.rows;
  a.n = s.cols;
  a.k = static_cast<std::uint32_t>(s.super_bytes / w);
  a.block_cols = static_cast<std::uint32_t>(block_cols);
  a.segment_words = a.block_cols * a.k;
  a.shuffle = s.kind == stage_kind::row_column_column_shuffle;
  a.b = math.b();
  a.by_k = row_column::fast_divmod(a.k);
  a.by_a = row_column::fast_divmod(static_cast<std::uint32_t>(math.a()));
  a.by_m = row_column::wide_divmod(s.rows);
}

template <int W>
void launch_columns_on_clusters(unsigned char* data, const stage& s, const cluster_shape& shape,
                                cudaStream_t stream) {
  row_column::cluster_args c;
  set_column_terms(c.columns, s, shape.block_cols, W);
  c.rows_per_block = shape.rows_per_block;
  c.by_rows = row_column::fast_divmod(shape.rows_per_block);
  const auto kernel = row_column::column_cluster_kernel<W>;
  allow_cluster_kernel(kernel, shape);
  const std::int64_t blocks = ceil_div(s.cols, shape.block_cols);
  const std::int64_t group = (std::int64_t{1} << 30) / shape.ranks;
  for (std::int64_t first = 0; first < blocks; first += group) {
    c.columns.first_block = first;
    const auto count = static_cast<unsigned>(std::min(group, blocks - first));
    cluster_launch launch(shape, count, row_column::cluster_threads<W>, stream);
    check_cuda(cudaLaunchKernelEx(&launch.config, kernel, data, c), "column_cluster_kernel");
    check_launch("column_cluster_kernel");
  }
}

template <int W>
void launch_columns_words(unsigned char* data, const stage& s, void* scratch, cudaStream_t stream) {
  if (const auto shape = cluster_columns(s)) {
    launch_columns_on_clusters<W>(data, s, *shape, stream);
    return;
  }
  if (scratch == nullptr) refuse("the column phases need a scratch");
  const row_column_math math(s.rows, s.cols);
  row_column::column_args a;
  a.m = s.rows;
  a.n = s.cols;
  a.k = static_cast<std::uint32_t>(s.super_bytes / W);
  a.block_cols = static_cast<std::uint32_t>(row_column_block_cols(s));
  a.segment_words = a.block_cols * a.k;
  const std::size_t segment_bytes = static_cast<std::size_t>(a.block_cols) * s.super_bytes;
  a.rows_per_tile = static_cast<std::uint32_t>(std::clamp<std::int64_t>(
      static_cast<std::int64_t>(column_tile_bytes / segment_bytes) - a.block_cols + 1, 16, 1024));
  a.shuffle = s.kind == stage_kind::row_column_column_shuffle;
  a.b = math.b();
  a.by_k = row_column::fast_divmod(a.k);
  a.by_a = row_column::fast_divmod(static_cast<std::uint32_t>(math.a()));
  a.by_m = row_column::wide_divmod(s.rows);
  const int shared =
      static_cast<int>((std::size_t{a.rows_per_tile} + a.block_cols - 1) * segment_bytes);
  const auto rotate = row_column::column_rotate_kernel<W>;
  // A scratch row of one whole 128-byte line, read by one warp, is dropped from L2 once read.
  const bool discard =
      W >= 4 && segment_bytes == 128 && reinterpret_cast<std::uintptr_t>(scratch) % 128 == 0;
  const auto gather = discard ? row_column::column_gather_kernel<W, true>
                              : row_column::column_gather_kernel<W, false>;
  allow_dynamic_shared(rotate, shared, "column_rotate_kernel");
  prefer_shared_memory(rotate, "column_rotate_kernel");
  const std::int64_t blocks = ceil_div(s.cols, a.block_cols);
  const std::int64_t group = column_group(s);
  const std::int64_t tiles = ceil_div(s.rows, a.rows_per_tile);
  const std::int64_t gather_blocks =
      ceil_div(s.rows, row_column::gather_rows_per_block(a.segment_words));
  auto* buffer = static_cast<unsigned char*>(scratch);
  for (std::int64_t first = 0; first < blocks; first += group) {
    a.first_block = first;
    const auto count = static_cast<unsigned>(std::min(group, blocks - first));
    rotate<<<dim3(static_cast<unsigned>(tiles), count), row_column::column_threads, shared,
             stream>>>(data, buffer, a);
    check_launch("column_rotate_kernel");
    gather<<<dim3(static_cast<unsigned>(gather_blocks), count), row_column::column_threads, 0,
             stream>>>(data, buffer, a);
    check_launch("column_gather_kernel");
  }
}

/// Calls run(std::integral_constant<int, W>{}) for word size w: 1, 2, 4, 8, else 16 bytes.
template <class Run>
void with_word_size(int w, Run&& run) {
  switch (w) {
    case 1:
      return run(std::integral_constant<int, 1>{});
    case 2:
      return run(std::integral_constant<int, 2>{});
    case 4:
      return run(std::integral_constant<int, 4>{});
    case 8:
      return run(std::integral_constant<int, 8>{});
    default:
      return run(std::integral_constant<int, 16>{});
  }
}

/// Blocks of the rotated row shuffle (row_shuffle_kernel<W, true, true>) for `s` that the
/// current device holds at once, with words of `word_bytes`.
std::int64_t rotated_resident_blocks(const stage& s, int word_bytes) {
  std::int64_t blocks = 0;
  with_word_size(word_bytes, [&](auto word) {
    const auto kernel = row_column::row_shuffle_kernel<decltype(word)::value, true, true>;
    const int shared = static_cast<int>(static_cast<std::size_t>(s.cols) * s.super_bytes);
    allow_dynamic_shared(kernel, shared, "row_shuffle_kernel");
    prefer_shared_memory(kernel, "row_shuffle_kernel");
    blocks = resident_blocks(kernel, static_cast<int>(row_shuffle_threads(s)), shared,
                             "row_shuffle_kernel");
  });
  return blocks;
}

}  // namespace

bool is_row_column_stage(const stage& s) {
  return s.kind == stage_kind::row_column_pre_rotate ||
         s.kind == stage_kind::row_column_row_shuffle ||
         s.kind == stage_kind::row_column_column_shuffle;
}

std::string row_column_limits(const stage& s) {
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  if (s.rows < 1 || s.cols < 1 || s.rows > limit || s.cols > limit)
    return "the GPU's row/column kernels take rows and cols in [1, 2^31), got " +
           std::to_string(s.rows) + " x " + std::to_string(s.cols);
  if (static_cast<std::uint64_t>(s.cols) * s.super_bytes >= (std::uint64_t{1} << 32))
    return "the GPU's row/column kernels take rows of under 4 GiB, got " + std::to_string(s.cols) +
           " elements of " + std::to_string(s.super_bytes) + " bytes";
  return {};
}

std::int64_t row_column_block_cols(const stage& s) {
  const std::int64_t wanted =
      std::max<std::int64_t>(1, 128 / static_cast<std::int64_t>(s.super_bytes));
  const std::int64_t fit = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(row_column_scratch_max_bytes /
                                   (static_cast<std::size_t>(s.rows) * s.super_bytes)));
  return std::clamp<std::int64_t>(std::min(wanted, fit), 1, s.cols);
}

std::size_t row_column_scratch_bytes(const stage& s) {
  if (s.kind == stage_kind::row_column_row_shuffle)
    return row_on_chip(s) ? 0 : static_cast<std::size_t>(row_group(s) * s.cols) * s.super_bytes;
  const std::size_t alone =
      cluster_columns(s)
          ? 0
          : static_cast<std::size_t>(column_group(s) * s.rows * row_column_block_cols(s)) *
                s.super_bytes;
  if (s.kind != stage_kind::row_column_pre_rotate) return alone;
  // Fused into the row shuffle: the halos. Run alone (a stage-by-stage run): `alone`.
  const std::size_t halos = static_cast<std::size_t>(rotated_bands(s)) *
                            static_cast<std::size_t>(row_column_math(s.rows, s.cols).c() - 1) *
                            static_cast<std::size_t>(s.cols) * s.super_bytes;
  return std::max(alone, halos);
}

double row_column_stage_passes(const stage& s) {
  // H200, xpose_inplace_stages on 24-2800 MB: the row shuffle on chip 0.66-0.68 x copy on 4-byte
  // elements, 0.81 on 8, 0.48 on 2, 0.32 on 1; through the scratch 0.13-0.19; the column shuffle
  // 0.20 on 4 bytes, 0.27 on 8, 0.31 on 16, 0.16 on 2, 0.08 on 1; the pre-rotation 0.25 on 4.
  // Words narrower than 4 bytes cost instructions; wider ones fill more of each sector.
  const std::size_t e = s.super_bytes;
  if (s.kind == stage_kind::row_column_pre_rotate) {
    // Fused into the row shuffle, which reads each row's pieces from the rows below it at its
    // own speed: the halos cost their copy.
    const std::int64_t bands = rotated_bands(s);
    if (bands > 0)
      return 2.0 * static_cast<double>(bands * (row_column_math(s.rows, s.cols).c() - 1)) /
                 static_cast<double>(s.rows) +
             0.05;
  }
  if (s.kind == stage_kind::row_column_row_shuffle) {
    if (!row_on_chip(s)) return 5.5;
    return e % 8 == 0 ? 1.25 : e % 4 == 0 ? 1.5 : e % 2 == 0 ? 2.1 : 3.2;
  }
  if (cluster_columns(s)) {
    // column_cluster_kernel, H200 (xpose_inplace_stages, 13-960 MB): 4-byte elements 0.36-0.49 x
    // copy (the lower end for columns of 16000 rows or more), 8 0.49-0.53, 16 0.36-0.41, 2 0.35,
    // 1 0.19; the pre-rotation alike.
    return e % 16 == 0 ? 2.6 : e % 8 == 0 ? 2.0 : e % 4 == 0 ? 2.4 : e % 2 == 0 ? 2.9 : 5.3;
  }
  // A row segment of a column block shorter than a 32-byte sector wastes the rest of it.
  const double segment = static_cast<double>(row_column_block_cols(s) * e);
  const double waste = segment < 32 ? 32 / segment : 1.0;
  const double columns = e % 16 == 0  ? 3.3
                         : e % 8 == 0 ? 3.7
                         : e % 4 == 0 ? 5.0
                         : e % 2 == 0 ? 6.4
                                      : 13.0;
  return (s.kind == stage_kind::row_column_pre_rotate ? 0.8 : 1.0) * columns * waste;
}

std::string row_column_kernel_text(const stage& s) {
  if (s.kind == stage_kind::row_column_pre_rotate) {
    const std::int64_t bands = rotated_bands(s);
    if (bands > 0)
      return "row_halo_kernel + row_shuffle_kernel (rotated): fused into the row shuffle; the " +
             std::to_string(row_column_math(s.rows, s.cols).c() - 1) + " rows below each of " +
             "up to " + std::to_string(bands) +
             " bands (no more than the device holds at once) saved, then each band's rows, last "
             "to first, gathered from the rows the pre-rotation moves into them";
  }
  if (s.kind == stage_kind::row_column_row_shuffle)
    return row_on_chip(s) ? "row_shuffle_kernel: each row scattered into shared memory, then "
                            "written back"
                          : "row_shuffle_kernel: groups of " + std::to_string(row_group(s)) +
                                " rows scattered into a scratch, then copied back";
  if (const auto shape = cluster_columns(s))
    return "column_cluster_kernel: each block of " + std::to_string(shape->block_cols) +
           " columns held by a cluster of " + std::to_string(shape->ranks) + " blocks (" +
           std::to_string(shape->shared_bytes / 1024) +
           " KiB of shared memory each), rotated on the way in, written back once" +
           (s.kind == stage_kind::row_column_column_shuffle ? " with the rows permuted" : "");
  return "column_rotate_kernel + column_gather_kernel: groups of " +
         std::to_string(column_group(s)) + " column blocks of " +
         std::to_string(row_column_block_cols(s)) +
         " columns rotated into a scratch by skewed tiles, then copied back" +
         (s.kind == stage_kind::row_column_column_shuffle ? " with the rows permuted" : "");
}

bool row_column_fuses_pre_rotation(const stage& pre, const stage& row) {
  return pre.kind == stage_kind::row_column_pre_rotate &&
         row.kind == stage_kind::row_column_row_shuffle && pre.rows == row.rows &&
         pre.cols == row.cols && pre.super_bytes == row.super_bytes && rotated_bands(row) > 0;
}

void launch_row_column_pair(void* data, const stage& pre, const stage& row, void* scratch,
                            cudaStream_t stream) {
  validate(pre);
  validate(row);
  if (!row_column_fuses_pre_rotation(pre, row))
    refuse("the pre-rotation does not fuse into this row shuffle");
  if (scratch == nullptr) refuse("the fused pre-rotation needs a scratch for its halos");
  if (row.rows == 1 || row.cols == 1) return;
  auto* bytes = static_cast<unsigned char*>(data);
  const std::int64_t bands = rotated_bands(row);
  with_word_size(word_bytes_for(row.super_bytes, data, data), [&](auto word) {
    launch_rotated_row_shuffle_words<decltype(word)::value>(bytes, row, bands, scratch, stream);
  });
}

void launch_row_column(void* data, const stage& s, void* scratch, cudaStream_t stream) {
  validate(s);
  if (s.rows == 1 || s.cols == 1) return;
  const int w = word_bytes_for(s.super_bytes, data, data);
  auto* bytes = static_cast<unsigned char*>(data);
  if (s.kind == stage_kind::row_column_row_shuffle)
    with_word_size(w, [&](auto word) {
      launch_row_shuffle_words<decltype(word)::value>(bytes, s, scratch, stream);
    });
  else
    with_word_size(w, [&](auto word) {
      launch_columns_words<decltype(word)::value>(bytes, s, scratch, stream);
    });
}

}  // namespace xpose::detail::cuda
