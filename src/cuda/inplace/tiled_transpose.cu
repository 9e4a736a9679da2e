// Launchers of the elementary tiled transposition ("In-Place Transposition of Rectangular
// Matrices on Accelerators", PPoPP'14, sec. 4-5; kernels and their protocols in
// tiled_transpose_kernel.cuh and chains_kernel.cuh): the choice of path, word sizes, groups of
// instances, grids, the cycle-following waves with their states, PTTWAC's flags in shared memory
// (spreading and padding), the chains' table and heads, and the groups of instances through the
// scratch.
//
// Word sizes: the kernels move words of W bytes, the widest power of two up to 16 dividing both
// super_bytes and the data pointer's address, so every super-element is whole words, aligned.
// Workspace sizes never depend on the pointer: cycle following sizes its column chunks for the
// super-element's own widest word and, on a less aligned pointer (smaller words, more chunks),
// runs more waves through the same states.
// Assumes: a CUDA device of compute capability 9.0 (sm_90 build) for the launches; the sizing
// functions run without a device.
#include "cuda/inplace/tiled_transpose.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/backend/occupancy.hpp"
#include "cuda/copy/small_batch.hpp"
#include "cuda/dispatch/copy_dispatch.hpp"
#include "cuda/inplace/chain_table.hpp"
#include "cuda/inplace/chains_kernel.cuh"
#include "cuda/inplace/tiled_transpose_kernel.cuh"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

/// On-chip blocks take groups of about this many bytes of shared memory (whole instances).
/// Several blocks then share an SM and overlap one's loads with another's stores.
constexpr std::size_t on_chip_group_bytes = 24 * 1024;

[[noreturn]] void refuse(const std::string& what) {
  throw error(status::internal_error, "tiled_transpose: " + what);
}

/// a * b, or the largest std::size_t when it does not fit.
std::size_t saturating_product(std::size_t a, std::size_t b) {
  std::size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::numeric_limits<std::size_t>::max();
  return product;
}

/// Throws for a stage this kernel cannot take (checked before any device call).
void validate(const stage& s) {
  if (s.kind != stage_kind::tiled_transpose) refuse("stage is not a tiled_transpose");
  if (s.super_bytes == 0) refuse("super_bytes is 0");
  if (s.rows < 0 || s.cols < 0 || s.batch < 0)
    refuse("negative size: batch " + std::to_string(s.batch) + ", rows " + std::to_string(s.rows) +
           ", cols " + std::to_string(s.cols));
  std::int64_t elements = 0, total = 0;
  if (__builtin_mul_overflow(s.rows, s.cols, &elements) ||
      __builtin_mul_overflow(elements, s.batch, &total) ||
      saturating_product(static_cast<std::size_t>(total), s.super_bytes) ==
          std::numeric_limits<std::size_t>::max())
    refuse("batch x rows x cols x super_bytes overflows");
}

bool moves_nothing(const stage& s) {
  return s.batch == 0 || s.rows <= 1 || s.cols <= 1;
}

/// The largest power of two dividing x (x > 0), at most 16.
std::size_t word_limit(std::uint64_t x) {
  return static_cast<std::size_t>(std::min<std::uint64_t>(x & (~x + 1), 16));
}

/// The word size of the kernels for `s` at `data` (see the top of this file).
int word_bytes(const stage& s, const void* data) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  return static_cast<int>(
      std::min(word_limit(s.super_bytes), address == 0 ? 16 : word_limit(address)));
}

int multiprocessors() {
  int device = 0, count = 0;
  check_cuda(cudaGetDevice(&device), "tiled_transpose: cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
             "tiled_transpose: cudaDeviceGetAttribute");
  return count;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// `batch` instances of `s` at `src`, back to back, transposed into `dst` (out-of-place copy
/// arguments, in super-elements).
copy_args dense_instances(const stage& s, const void* src, void* dst, std::int64_t batch) {
  copy_args a;
  a.src = src;
  a.dst = dst;
  a.batch = batch;
  a.rows = s.rows;
  a.cols = s.cols;
  a.lda = s.cols;
  a.ldb = s.rows;
  a.src_stride = a.dst_stride = s.rows * s.cols;
  return a;
}

// ---- on chip -----------------------------------------------------------------------------------

template <int W, int P>
void launch_on_chip_words(unsigned char* data, tiled::on_chip_shape shape, std::size_t shared,
                          cudaStream_t stream) {
  const auto kernel = tiled::tiled_transpose_on_chip_kernel<W, P>;
  constexpr const char* name = "tiled_transpose_on_chip_kernel";
  allow_dynamic_shared(kernel, static_cast<int>(shared), name);
  const std::int64_t blocks = std::min(
      shape.groups,
      resident_blocks(kernel, tiled::on_chip_threads, static_cast<int>(shared), "tiled_transpose"));
  kernel<<<static_cast<unsigned>(blocks), tiled::on_chip_threads, shared, stream>>>(data, shape);
  check_launch(name);
}

void launch_on_chip(unsigned char* data, const stage& s, cudaStream_t stream) {
  // Instances of at most 64 x 64 elements of up to 16 bytes: the small-batch kernel of the
  // out-of-place copies, in place. Its blocks read a group of whole instances into shared memory
  // before writing any of them back, no two blocks take the same instance, and the bytes of
  // neighbouring groups that its covering 16-byte loads also read are dropped.
  const copy_args batch = dense_instances(s, data, data, s.batch);
  if (small_batch_takes(batch, s.super_bytes))
    return launch_copy_small_batch(batch, s.super_bytes, stream);
  const std::size_t instance_shared = tiled_on_chip_instance_bytes(s);
  if (instance_shared > tiled_on_chip_max_bytes)
    refuse("an instance of " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " x " +
           std::to_string(s.super_bytes) + " bytes does not fit the on-chip path's " +
           std::to_string(tiled_on_chip_max_bytes) + " bytes of shared memory");
  const int w = word_bytes(s, data);
  const std::size_t row_bytes = static_cast<std::size_t>(s.cols) * s.super_bytes;
  const std::size_t pitch = tiled_on_chip_pitch(row_bytes, static_cast<std::size_t>(w));
  const std::size_t padded = static_cast<std::size_t>(s.rows) * pitch;
  // Load pieces: the widest power of two dividing the row, the pitch (so no piece straddles a
  // row and every piece lands aligned) and the pointer, at least the write-back word.
  const int p = static_cast<int>(std::min({word_limit(row_bytes), word_limit(pitch),
                                           word_limit(reinterpret_cast<std::uintptr_t>(data))}));

  const std::int64_t fit = static_cast<std::int64_t>(tiled_on_chip_max_bytes / padded);
  std::int64_t group =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(on_chip_group_bytes / padded), 1, fit);
  // Small batches: smaller groups, so that at least two blocks per SM have work.
  const std::int64_t wanted_groups = 2 * std::int64_t{multiprocessors()};
  group = std::clamp<std::int64_t>(std::min(group, ceil_div(s.batch, wanted_groups)), 1, fit);

  tiled::on_chip_shape shape;
  shape.batch = s.batch;
  shape.group = static_cast<std::uint32_t>(group);
  shape.groups = ceil_div(s.batch, group);
  shape.rows = static_cast<std::uint32_t>(s.rows);
  shape.cols = static_cast<std::uint32_t>(s.cols);
  shape.k = static_cast<std::uint32_t>(s.super_bytes / static_cast<std::size_t>(w));
  shape.row_bytes = static_cast<std::uint32_t>(row_bytes);
  shape.pitch = static_cast<std::uint32_t>(pitch);
  shape.instance_bytes = static_cast<std::uint32_t>(row_bytes * static_cast<std::size_t>(s.rows));
  shape.by_k = tiled::fast_divmod(shape.k);
  shape.by_rows = tiled::fast_divmod(shape.rows);
  shape.by_instance_elements = tiled::fast_divmod(shape.rows * shape.cols);
  shape.by_row_bytes = tiled::fast_divmod(shape.row_bytes);
  const std::size_t shared = static_cast<std::size_t>(group) * padded;

  switch (w * 100 + p) {
    case 101:
      return launch_on_chip_words<1, 1>(data, shape, shared, stream);
    case 102:
      return launch_on_chip_words<1, 2>(data, shape, shared, stream);
    case 104:
      return launch_on_chip_words<1, 4>(data, shape, shared, stream);
    case 202:
      return launch_on_chip_words<2, 2>(data, shape, shared, stream);
    case 204:
      return launch_on_chip_words<2, 4>(data, shape, shared, stream);
    case 404:
      return launch_on_chip_words<4, 4>(data, shape, shared, stream);
    case 808:
      return launch_on_chip_words<8, 8>(data, shape, shared, stream);
    case 1616:
      return launch_on_chip_words<16, 16>(data, shape, shared, stream);
    default:
      refuse("no on-chip kernel for words of " + std::to_string(w) + " bytes and pieces of " +
             std::to_string(p));
  }
}

// ---- cycle following ---------------------------------------------------------------------------

/// Column chunks of a super-element of `words` words: a group of 32 lanes carries at most
/// 32 * cycle_words_per_lane words; chunks are made as even as possible.
std::int64_t chunks_for(std::int64_t words) {
  return ceil_div(words, 32 * tiled::cycle_words_per_lane);
}

/// 32-bit state words per instance (and chunk): 2 bits per super-element, 16 per word.
std::int64_t state_words(const stage& s) {
  return ceil_div(s.rows * s.cols, 16);
}

std::size_t cycle_workspace(const stage& s) {
  const auto per_virtual = static_cast<std::size_t>(state_words(s)) * 4;
  const std::int64_t total = s.batch * tiled_cycle_chunks(s);
  const auto per_wave = static_cast<std::int64_t>(
      std::max<std::size_t>(1, tiled_cycle_wave_state_bytes / per_virtual));
  return static_cast<std::size_t>(std::min(total, per_wave)) * per_virtual;
}

template <int W>
void launch_cycles_words(unsigned char* data, tiled::cycle_shape shape, std::int64_t total,
                         std::int64_t capacity, std::uint32_t* states, cudaStream_t stream) {
  const auto kernel = tiled::tiled_transpose_cycles_kernel<W>;
  constexpr const char* name = "tiled_transpose_cycles_kernel";
  const std::int64_t resident = resident_blocks(kernel, tiled::cycle_threads, 0, "tiled_transpose");
  const std::int64_t groups_per_block = tiled::cycle_threads / shape.lanes;
  for (std::int64_t first = 0; first < total; first += capacity) {
    shape.first_virtual = first;
    shape.virtuals = std::min(capacity, total - first);
    check_cuda(
        cudaMemsetAsync(states, 0, static_cast<std::size_t>(shape.virtuals * shape.state_words) * 4,
                        stream),
        "tiled_transpose: cudaMemsetAsync of the cycle states");
    const std::int64_t blocks =
        std::min(resident, ceil_div(shape.virtuals * shape.size, groups_per_block));
    const std::int64_t stride = blocks * groups_per_block;
    shape.stride_v = stride / shape.size;
    shape.stride_i = stride % shape.size;
    kernel<<<static_cast<unsigned>(blocks), tiled::cycle_threads, 0, stream>>>(data, states, shape);
    check_launch(name);
  }
}

void launch_cycles(unsigned char* data, const stage& s, void* workspace, cudaStream_t stream) {
  const std::size_t workspace_bytes = cycle_workspace(s);
  if (workspace == nullptr)
    refuse("cycle following needs a workspace of " + std::to_string(workspace_bytes) + " bytes");
  if (reinterpret_cast<std::uintptr_t>(workspace) % 4 != 0)
    refuse("the workspace is not 4-byte aligned");
  const int w = word_bytes(s, data);
  tiled::cycle_shape shape;
  shape.rows = s.rows;
  shape.cols = s.cols;
  shape.size = s.rows * s.cols;
  shape.super_bytes = static_cast<std::int64_t>(s.super_bytes);
  const std::int64_t words = shape.super_bytes / w;
  shape.chunks = chunks_for(words);
  shape.words = static_cast<std::uint32_t>(words);
  shape.chunk_words = static_cast<std::uint32_t>(ceil_div(words, shape.chunks));
  const std::int64_t lanes_needed = ceil_div(shape.chunk_words, tiled::cycle_words_per_lane);
  shape.lanes = 1;
  while (shape.lanes < lanes_needed) shape.lanes *= 2;
  shape.state_words = state_words(s);
  shape.small = shape.size <= (std::int64_t{1} << 32);
  if (shape.small) shape.by_cols = tiled::fast_divmod(static_cast<std::uint32_t>(s.cols));
  const std::int64_t per_virtual = shape.state_words * 4;
  const std::int64_t capacity =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(workspace_bytes) / per_virtual);
  const std::int64_t total = s.batch * shape.chunks;
  auto* states = static_cast<std::uint32_t*>(workspace);
  switch (w) {
    case 1:
      return launch_cycles_words<1>(data, shape, total, capacity, states, stream);
    case 2:
      return launch_cycles_words<2>(data, shape, total, capacity, states, stream);
    case 4:
      return launch_cycles_words<4>(data, shape, total, capacity, states, stream);
    case 8:
      return launch_cycles_words<8>(data, shape, total, capacity, states, stream);
    default:
      return launch_cycles_words<16>(data, shape, total, capacity, states, stream);
  }
}

// ---- PTTWAC ------------------------------------------------------------------------------------

/// 32-bit flag words of `positions` positions spread by 2^shift, padded by one word per 32.
std::size_t pttwac_flag_words(std::uint64_t positions, std::uint32_t shift) {
  if (positions == 0) return 0;
  const std::uint64_t last = ((positions - 1) << shift) >> 5;
  return static_cast<std::size_t>(last + (last >> 5) + 1);
}

/// The widest spreading (up to one position per word) whose flags fit pttwac_spread_bytes; no
/// spreading where even that does not fit.
std::uint32_t pttwac_spread_shift(std::uint64_t positions) {
  for (std::uint32_t shift = 5; shift > 0; --shift)
    if (pttwac_flag_words(positions, shift) * 4 <= pttwac_spread_bytes) return shift;
  return 0;
}

template <int W>
void launch_pttwac_words(unsigned char* data, const tiled::pttwac_shape& shape,
                         cudaStream_t stream) {
  const auto kernel = tiled::tiled_transpose_pttwac_kernel<W>;
  const std::size_t shared = std::size_t{shape.flag_words} * 4;
  const std::int64_t blocks = std::min(
      shape.groups,
      resident_blocks(kernel, tiled::pttwac_threads, static_cast<int>(shared), "tiled_transpose"));
  kernel<<<static_cast<unsigned>(blocks), tiled::pttwac_threads, shared, stream>>>(data, shape);
  check_launch("tiled_transpose_pttwac_kernel");
}

void launch_pttwac(unsigned char* data, const stage& s, cudaStream_t stream) {
  if (!tiled_pttwac_fits(s))
    refuse("the flags of an instance of " + std::to_string(s.rows) + " x " +
           std::to_string(s.cols) + " super-elements do not fit the pttwac path's " +
           std::to_string(pttwac_flag_max_bytes) + " bytes of shared memory");
  const int w = word_bytes(s, data);
  tiled::pttwac_shape shape;
  shape.batch = s.batch;
  shape.rows = static_cast<std::uint32_t>(s.rows);
  shape.cols = static_cast<std::uint32_t>(s.cols);
  shape.size = shape.rows * shape.cols;
  shape.super_bytes = s.super_bytes;
  const auto words = static_cast<std::int64_t>(s.super_bytes / static_cast<std::size_t>(w));
  const std::int64_t chunks = ceil_div(words, 32 * tiled::pttwac_words_per_lane);
  shape.words = static_cast<std::uint32_t>(words);
  shape.chunks = static_cast<std::uint32_t>(chunks);
  shape.chunk_words = static_cast<std::uint32_t>(ceil_div(words, chunks));
  const std::int64_t lanes_needed = ceil_div(shape.chunk_words, tiled::pttwac_words_per_lane);
  while (shape.lanes < lanes_needed) shape.lanes *= 2;
  // Groups of about pttwac_group_positions positions, but enough groups for every resident
  // block where the batch allows.
  const std::int64_t wanted_groups = 8 * std::int64_t{multiprocessors()};
  const std::int64_t group = std::clamp<std::int64_t>(
      std::min<std::int64_t>(pttwac_group_positions / shape.size, ceil_div(s.batch, wanted_groups)),
      1, s.batch);
  shape.group = static_cast<std::uint32_t>(group);
  shape.groups = ceil_div(s.batch, group);
  const std::uint64_t positions = std::uint64_t{shape.size} * shape.group;
  shape.spread_shift = pttwac_spread_shift(positions);
  shape.flag_words = static_cast<std::uint32_t>(pttwac_flag_words(positions, shape.spread_shift));
  shape.by_size = tiled::fast_divmod(shape.size);
  shape.by_cols = tiled::fast_divmod(shape.cols);
  switch (w) {
    case 1:
      return launch_pttwac_words<1>(data, shape, stream);
    case 2:
      return launch_pttwac_words<2>(data, shape, stream);
    case 4:
      return launch_pttwac_words<4>(data, shape, stream);
    case 8:
      return launch_pttwac_words<8>(data, shape, stream);
    default:
      return launch_pttwac_words<16>(data, shape, stream);
  }
}

// ---- through scratch ---------------------------------------------------------------------------

std::size_t instance_bytes(const stage& s) {
  return static_cast<std::size_t>(s.rows * s.cols) * s.super_bytes;
}

/// Instances per group of the through_scratch path.
std::int64_t scratch_group(const stage& s) {
  return std::clamp<std::int64_t>(
      static_cast<std::int64_t>(tiled_scratch_max_bytes / instance_bytes(s)), 1, s.batch);
}

template <int W, bool Discard = false>
void copy_back_words(unsigned char* to, const unsigned char* from, std::size_t bytes,
                     cudaStream_t stream) {
  const auto kernel = tiled::copy_words_kernel<W, Discard>;
  const std::int64_t words = static_cast<std::int64_t>(bytes / W);
  const std::int64_t blocks =
      std::min(resident_blocks(kernel, tiled::copy_threads, 0, "tiled_transpose"),
               ceil_div(words, tiled::copy_threads * tiled::copy_words_per_thread));
  kernel<<<static_cast<unsigned>(blocks), tiled::copy_threads, 0, stream>>>(to, from, words);
  check_launch("copy_words_kernel");
}

/// Copies the scratch (256-byte aligned) back to `to` in the widest words both allow, dropping
/// the scratch's lines from L2 as it goes where they are whole. A kernel, not cudaMemcpyAsync:
/// measured faster from L2 on the H200.
void copy_back(unsigned char* to, const unsigned char* from, std::size_t bytes,
               cudaStream_t stream) {
  switch (std::min({word_limit(reinterpret_cast<std::uintptr_t>(to)),
                    word_limit(reinterpret_cast<std::uintptr_t>(from)), word_limit(bytes)})) {
    case 16:
      if (bytes % 128 == 0 && reinterpret_cast<std::uintptr_t>(from) % 128 == 0)
        return copy_back_words<16, true>(to, from, bytes, stream);
      return copy_back_words<16>(to, from, bytes, stream);
    case 8:
      return copy_back_words<8>(to, from, bytes, stream);
    case 4:
      return copy_back_words<4>(to, from, bytes, stream);
    case 2:
      return copy_back_words<2>(to, from, bytes, stream);
    default:
      return copy_back_words<1>(to, from, bytes, stream);
  }
}

void launch_through_scratch(unsigned char* data, const stage& s, void* scratch,
                            cudaStream_t stream) {
  if (scratch == nullptr) refuse("the through_scratch path needs a scratch");
  const std::size_t instance = instance_bytes(s);
  const std::int64_t group = scratch_group(s);
  const device_class device = current_device_class();
  for (std::int64_t first = 0; first < s.batch; first += group) {
    const copy_args a = dense_instances(s, data + static_cast<std::size_t>(first) * instance,
                                        scratch, std::min(group, s.batch - first));
    run_copy(decide_copy(a, s.super_bytes, route::automatic, device), a, stream);
    copy_back(data + static_cast<std::size_t>(first) * instance,
              static_cast<const unsigned char*>(scratch),
              static_cast<std::size_t>(a.batch) * instance, stream);
  }
}

// ---- chains ------------------------------------------------------------------------------------

/// Threads per item of the chains kernels for super-elements of `words` words: the words of a
/// column chunk, chunks as even as chains::chain_group_limit allows.
std::uint32_t chain_group(std::int64_t words) {
  return static_cast<std::uint32_t>(ceil_div(words, ceil_div(words, chains::chain_group_limit)));
}

bool chains_apply(const stage& s) {
  const auto size = static_cast<std::uint64_t>(s.rows) * static_cast<std::uint64_t>(s.cols);
  return s.super_bytes >= chain_min_super_bytes && size <= chain_max_positions;
}

/// The chains' table: cycles cut at tiled_chain_length, or none cut (whole_cycles).
std::shared_ptr<const chain_table> table_of(const stage& s, bool whole_cycles = false) {
  return shared_chain_table(
      static_cast<std::uint32_t>(s.rows), static_cast<std::uint32_t>(s.cols),
      whole_cycles ? std::numeric_limits<std::uint32_t>::max() : tiled_chain_length(s));
}

std::size_t chain_heads_bytes(const stage& s) {
  return saturating_product(
      saturating_product(table_of(s)->split_chains, static_cast<std::size_t>(s.batch)),
      s.super_bytes);
}

bool uses_chain_table(tiled_path path) {
  return path == tiled_path::chains || path == tiled_path::whole_cycles;
}

template <int W>
void launch_chains_words(unsigned char* data, const chain_entry* table, unsigned char* heads,
                         const chains::chain_shape& shape, cudaStream_t stream) {
  // The entry counts live in the table's header on the device: the grids take what is resident
  // and stride over what is there.
  {
    const auto kernel = chains::chains_save_heads_kernel<W>;
    const std::int64_t blocks = resident_blocks(kernel, chains::threads, 0, "tiled_transpose");
    kernel<<<static_cast<unsigned>(blocks), chains::threads, 0, stream>>>(data, table, heads,
                                                                          shape);
    check_launch("chains_save_heads_kernel");
  }
  const auto kernel = chains::chains_move_kernel<W>;
  const std::int64_t blocks = resident_blocks(kernel, chains::threads, 0, "tiled_transpose");
  kernel<<<static_cast<unsigned>(blocks), chains::threads, 0, stream>>>(data, table, heads, shape);
  check_launch("chains_move_kernel");
}

void launch_chains(unsigned char* data, const stage& s, const void* table, void* scratch,
                   cudaStream_t stream, bool whole_cycles) {
  if (!chains_apply(s))
    refuse("the chains path takes instances of at most " + std::to_string(chain_max_positions) +
           " super-elements of at least " + std::to_string(chain_min_super_bytes) + " bytes");
  if (table == nullptr) refuse("the chains path needs its prepared table");
  const int w = word_bytes(s, data);
  chains::chain_shape shape;
  shape.rows = static_cast<std::uint32_t>(s.rows);
  shape.cols = static_cast<std::uint32_t>(s.cols);
  shape.size = static_cast<std::uint32_t>(s.rows * s.cols);
  shape.batch = s.batch;
  shape.super_bytes = static_cast<std::int64_t>(s.super_bytes);
  shape.words = static_cast<std::uint32_t>(s.super_bytes / static_cast<std::size_t>(w));
  shape.group = chain_group(shape.words);
  shape.chunks = static_cast<std::uint32_t>(ceil_div(shape.words, shape.group));
  shape.by_group = tiled::fast_divmod(shape.group);
  shape.by_rows = tiled::fast_divmod(shape.rows);
  // A table of whole cycles (whole_cycles) has no cut chain, so no heads to keep.
  if (scratch == nullptr && !whole_cycles)
    refuse("the chains path needs a scratch for the heads of its cut cycles");
  const auto* entries = static_cast<const chain_entry*>(table);
  auto* heads = static_cast<unsigned char*>(scratch);
  switch (w) {
    case 1:
      return launch_chains_words<1>(data, entries, heads, shape, stream);
    case 2:
      return launch_chains_words<2>(data, entries, heads, shape, stream);
    case 4:
      return launch_chains_words<4>(data, entries, heads, shape, stream);
    case 8:
      return launch_chains_words<8>(data, entries, heads, shape, stream);
    default:
      return launch_chains_words<16>(data, entries, heads, shape, stream);
  }
}

}  // namespace

std::size_t tiled_on_chip_pitch(std::size_t row_bytes, std::size_t word_bytes) {
  if (row_bytes <= 4) return row_bytes;
  const std::size_t unit = std::max<std::size_t>(word_bytes, 4);
  std::size_t pitch = (row_bytes + unit - 1) / unit * unit;
  if ((pitch / unit) % 2 == 0) pitch += unit;
  return pitch;
}

std::size_t tiled_on_chip_instance_bytes(const stage& s) {
  validate(s);
  const std::size_t row_bytes = saturating_product(static_cast<std::size_t>(s.cols), s.super_bytes);
  if (row_bytes > tiled_on_chip_max_bytes) return std::numeric_limits<std::size_t>::max();
  std::size_t pitch = 0;
  for (std::size_t w = 1; w <= word_limit(s.super_bytes); w *= 2)
    pitch = std::max(pitch, tiled_on_chip_pitch(row_bytes, w));
  return saturating_product(static_cast<std::size_t>(s.rows), pitch);
}

const char* tiled_path_name(tiled_path path) {
  switch (path) {
    case tiled_path::on_chip:
      return "on_chip";
    case tiled_path::through_scratch:
      return "through_scratch";
    case tiled_path::chains:
      return "chains";
    case tiled_path::cycle_following:
      return "cycle_following";
    case tiled_path::pttwac:
      return "pttwac";
    case tiled_path::whole_cycles:
      return "whole_cycles";
    case tiled_path::automatic:
      break;
  }
  return "automatic";
}

bool tiled_pttwac_fits(const stage& s) {
  validate(s);
  const auto size = static_cast<std::uint64_t>(s.rows) * static_cast<std::uint64_t>(s.cols);
  return pttwac_flag_words(size, 0) * 4 <= pttwac_flag_max_bytes;
}

tiled_path choose_pttwac_path(const stage& s) {
  if (tiled_pttwac_fits(s) && (s.batch >= pttwac_min_batch ||
                               saturating_product(static_cast<std::size_t>(s.rows * s.cols),
                                                  s.super_bytes) <= pttwac_small_instance_bytes))
    return tiled_path::pttwac;
  return tiled_path::cycle_following;
}

tiled_path choose_tiled_path(const stage& s) {
  if (tiled_on_chip_instance_bytes(s) <= tiled_on_chip_max_bytes) return tiled_path::on_chip;
  if (chains_apply(s) && s.super_bytes >= chain_fast_super_bytes) return tiled_path::chains;
  const bool scratch = saturating_product(static_cast<std::size_t>(s.rows * s.cols),
                                          s.super_bytes) <= tiled_scratch_max_bytes;
  const bool pttwac = choose_pttwac_path(s) == tiled_path::pttwac;
  if (pttwac && (!scratch || tiled_path_passes(s, tiled_path::pttwac) <
                                 tiled_path_passes(s, tiled_path::through_scratch)))
    return tiled_path::pttwac;
  if (scratch) return tiled_path::through_scratch;
  if (chains_apply(s)) return tiled_path::chains;
  return tiled_path::cycle_following;
}

double tiled_stage_passes(const stage& s) {
  return tiled_path_passes(s, tiled_path::automatic);
}

double tiled_path_passes(const stage& s, tiled_path path) {
  if (moves_nothing(s)) return 0;
  // H200, xpose_inplace_stages on 400-500 MB: on chip 0.77 x copy for instances of 51 KB, 0.54
  // for 96 KB; through the scratch 0.41-0.44; cycle following 0.004-0.01 on single elements; chains
  // by how the super-element meets 128-byte lines: multiples of 128 bytes 0.87-0.95 from 256 bytes
  // up, 0.83 at 128; of 64 but not 128 0.68-0.74; of 32 but not 64 0.46-0.70 (96: 0.46, 160: 0.59,
  // 288: 0.65, 480: 0.70); others 0.45-0.65 (240: 0.58, 260: 0.46-0.55, 400: 0.58-0.65); 64 bytes
  // 0.45-0.51; smaller super-elements below.
  switch (path == tiled_path::automatic ? choose_tiled_path(s) : path) {
    case tiled_path::on_chip:
      return tiled_on_chip_instance_bytes(s) <= 64 * 1024 ? 1.3 : 1.85;
    case tiled_path::chains: {
      const std::size_t b = s.super_bytes;
      if (b % 128 == 0) return b >= 256 ? 1.1 : 1.2;
      if (b % 64 == 0) return b >= 128 ? 1.4 : 2.1;
      if (b % 32 == 0) return b >= 256 ? 1.5 : b >= 128 ? 1.7 : 2.2;
      // Super-elements off the 32-byte grid: more sectors per byte and longer walks the smaller
      // they are (random shapes' 100 stages, 2-21 M positions: 76 bytes 0.26 x copy, 44 bytes
      // 0.23, 36 bytes 0.19-0.27, 28 bytes 0.22, 16 bytes 0.089, 12 bytes 0.064).
      return std::max(b >= 256 ? 1.9 : 2.3, 1.5 + 120.0 / static_cast<double>(b));
    }
    case tiled_path::through_scratch:
      return 2.4;
    case tiled_path::pttwac: {
      // A guess from the memory pattern: after the coalesced starts every step reads and writes
      // one super-element at a scattered place of its instance, so below 32 bytes each lane's
      // access is an L1 wavefront of its own (and a shared atomic per claim beside it); instances
      // beyond L1 go to L2 at a sector per access.
      const std::size_t b = s.super_bytes;
      const double passes = b >= 32 ? 3.0 : b >= 12 ? 4.0 : 5.0;
      return saturating_product(static_cast<std::size_t>(s.rows * s.cols), b) <= 128 * 1024
                 ? passes
                 : 2 * passes;
    }
    default:
      return 100.0;
  }
}

std::uint32_t tiled_chain_length(const stage& s) {
  validate(s);
  constexpr std::uint64_t shortest = 16, longest = 1024;
  constexpr std::uint64_t wanted_groups = std::uint64_t{1} << 16;
  const auto size = static_cast<std::uint64_t>(s.rows * s.cols);
  const auto words = static_cast<std::int64_t>(s.super_bytes / word_limit(s.super_bytes));
  const auto chunks = static_cast<std::uint64_t>(ceil_div(words, chain_group(words)));
  const std::uint64_t groups = size * static_cast<std::uint64_t>(s.batch) * chunks;
  // Cut cycles give at most 2 * size / length chains per instance, each holding a head.
  const std::uint64_t total =
      2 * saturating_product(size * static_cast<std::uint64_t>(s.batch), s.super_bytes);
  const std::uint64_t for_heads = (total + chain_heads_max_bytes - 1) / chain_heads_max_bytes;
  const std::uint64_t for_groups = std::clamp(groups / wanted_groups, shortest, longest);
  return static_cast<std::uint32_t>(std::max(for_heads, for_groups));
}

std::int64_t tiled_cycle_chunks(const stage& s) {
  validate(s);
  return chunks_for(static_cast<std::int64_t>(s.super_bytes / word_limit(s.super_bytes)));
}

namespace {

tiled_path resolve(const stage& s, tiled_path path) {
  return path == tiled_path::automatic ? choose_tiled_path(s) : path;
}

std::size_t table_part(std::size_t bytes) {
  return (bytes + 255) / 256 * 256;
}

}  // namespace

std::size_t tiled_table_bytes(const stage& s, tiled_path path) {
  validate(s);
  path = resolve(s, path);
  if (moves_nothing(s) || !uses_chain_table(path) || !chains_apply(s)) return 0;
  // The header, then the entries.
  return sizeof(chain_entry) * (1 + table_of(s, path == tiled_path::whole_cycles)->entries.size());
}

std::size_t tiled_scratch_bytes(const stage& s, tiled_path path) {
  validate(s);
  if (moves_nothing(s)) return 0;
  switch (resolve(s, path)) {
    case tiled_path::cycle_following:
      return cycle_workspace(s);
    case tiled_path::through_scratch:
      return static_cast<std::size_t>(scratch_group(s)) * instance_bytes(s);
    case tiled_path::chains:
      return chains_apply(s) ? chain_heads_bytes(s) : 0;
    default:
      return 0;
  }
}

void prepare_tiled_table(const stage& s, tiled_path path, void* table) {
  const std::size_t bytes = tiled_table_bytes(s, path);
  if (bytes == 0) return;
  if (table == nullptr)
    refuse("the chains path needs a table of " + std::to_string(bytes) + " bytes");
  const std::shared_ptr<const chain_table> made =
      table_of(s, resolve(s, path) == tiled_path::whole_cycles);
  std::vector<chain_entry> upload;
  upload.reserve(made->entries.size() + 1);
  upload.push_back({static_cast<std::uint32_t>(made->entries.size()), made->split_chains, -1, 0});
  upload.insert(upload.end(), made->entries.begin(), made->entries.end());
  check_cuda(
      cudaMemcpy(table, upload.data(), upload.size() * sizeof(chain_entry), cudaMemcpyHostToDevice),
      "tiled_transpose: cudaMemcpy of the chain table");
  // A copy from pageable memory may return before the data reaches the device, and kernels on a
  // non-blocking stream would not wait for it: the table is complete before this returns.
  check_cuda(cudaDeviceSynchronize(), "tiled_transpose: cudaDeviceSynchronize after the table");
}

void launch_tiled_transpose_parts(void* data, const stage& s, const void* table, void* scratch,
                                  cudaStream_t stream, tiled_path path) {
  validate(s);
  if (moves_nothing(s)) return;
  if (data == nullptr) refuse("the data pointer is null");
  path = resolve(s, path);
  auto* bytes = static_cast<unsigned char*>(data);
  switch (path) {
    case tiled_path::on_chip:
      return launch_on_chip(bytes, s, stream);
    case tiled_path::through_scratch:
      return launch_through_scratch(bytes, s, scratch, stream);
    case tiled_path::chains:
    case tiled_path::whole_cycles:
      return launch_chains(bytes, s, table, scratch, stream, path == tiled_path::whole_cycles);
    case tiled_path::pttwac:
      return launch_pttwac(bytes, s, stream);
    default:
      return launch_cycles(bytes, s, scratch, stream);
  }
}

std::size_t tiled_transpose_workspace_for_path(const stage& s, tiled_path path) {
  return table_part(tiled_table_bytes(s, path)) + tiled_scratch_bytes(s, path);
}

std::size_t tiled_transpose_workspace(const stage& s) {
  return tiled_transpose_workspace_for_path(s, tiled_path::automatic);
}

void prepare_tiled_workspace(const stage& s, tiled_path path, void* workspace) {
  prepare_tiled_table(s, path, workspace);
}

void launch_tiled_transpose_path(void* data, const stage& s, void* workspace, cudaStream_t stream,
                                 tiled_path path) {
  const std::size_t table = table_part(tiled_table_bytes(s, path));
  void* scratch = workspace == nullptr
                      ? nullptr
                      : static_cast<void*>(static_cast<unsigned char*>(workspace) + table);
  launch_tiled_transpose_parts(data, s, workspace, scratch, stream, path);
}

void launch_tiled_transpose(void* data, const stage& s, void* workspace, cudaStream_t stream) {
  launch_tiled_transpose_path(data, s, workspace, stream, tiled_path::automatic);
}

}  // namespace xpose::detail::cuda
