// The skinny_any_size kernel templates (instantiated per element size by
// copy_transpose_skinny_any_size.cu and, with candidate slab sizes, by
// scripts/device_tune_policies.cu): out-of-place transposition of skinny matrices (one side
// short: the AoS <-> SoA case) of elements of E = 3 to 15 bytes that are not powers of two, rows
// of any alignment. The slab scheme of copy_transpose_skinny.cu (DESIGN.md's skinny shapes,
// seed slides 001's tiles stretched along the long side) moved as runs of bytes: a square tile
// would be mostly empty, and words of the element's widest power of two cost one access per
// word.
//
// One block moves a slab: all S rows (or columns) of the short side times a stretch L of the
// long side, about slab_bytes of data, in three steps through shared memory:
//   1. the source rows (wide) or the source run (tall: one run of L * S * E bytes when lda == S,
//      else a run per row) are read as the aligned 16-byte chunks that cover them, a lane's
//      chunk and the next lane's funnel-shifted by the run's misalignment into the run's
//      logical chunk, and copied to shared memory as they are (the source slab);
//   2. a thread takes four consecutive destination elements, reads each from the source slab at
//      its byte offset (word reads funnel-shifted), packs the four into E words at compile-time
//      byte offsets (as copy_any_size packs four rows) and stores them (the destination slab);
//   3. the destination rows (tall), or the destination run (wide: one run of L * S * E bytes
//      when ldb == S, else a run per row), are written as the aligned 16-byte chunks that cover
//      them, each read from the destination slab at any byte offset; only chunks cut by a run's
//      ends take byte stores.
// Bank conflicts: a wide slab's rows are an odd number of words apart, so that the rows one
// step-2 read instruction touches fall in different banks; a tall slab's destination rows are
// an odd number of store widths apart (the store width being the widest of 16, 8, 4 bytes that
// divides 4E), and a warp's step-2 threads take the same rows of consecutive columns. Slabs of
// all matrices in a grid-stride loop; 64-bit global index math; covering chunks are read only
// before the matrix's last byte (byte loads for the chunk it cuts).
#pragma once

#include <cstdint>

#include "cuda/copy_transpose_any_size_kernel.cuh"
#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_unaligned_kernel.cuh"
#include "cuda/cuda_check.hpp"

namespace xpose::detail::cuda {

constexpr int skinny_any_size_threads = 256;

/// Step 2's element moves for E-byte elements.
template <int E>
struct skinny_elements {
  static constexpr int words = (E + 3) / 4;  ///< words an element's bytes fill
  /// Bytes of the widest shared-memory store (16, 8 or 4) that divides a group of four.
  static constexpr int store_width = 4 * E % 16 == 0 ? 16 : 4 * E % 8 == 0 ? 8 : 4;

  /// The element at byte `offset` of `slab` (4-byte aligned) in words 0 .. words-1 of `out`
  /// (its bytes first; the last word zero, for four_bytes_at); reads only the words holding it.
  __device__ static void read(const unsigned char* slab, int offset, unsigned (&out)[words + 1]) {
    constexpr int raw_words = (E + 6) / 4;  // the most words E bytes at any offset touch
    const auto* at = reinterpret_cast<const unsigned*>(slab) + (offset >> 2);
    const unsigned bits = (offset & 3) * 8;
    unsigned raw[words + 1];
#pragma unroll
    for (int i = 0; i <= words; ++i) raw[i] = i < raw_words ? at[i] : 0u;
#pragma unroll
    for (int i = 0; i < words; ++i) out[i] = __funnelshift_r(raw[i], raw[i + 1], bits);
    out[words] = 0;
  }

  /// Four elements packed end to end (4E bytes) to `to` (aligned to store_width).
  __device__ static void store_four(const unsigned (&elements)[4][words + 1], unsigned char* to) {
    unsigned packed[E];
#pragma unroll
    for (int w = 0; w < E; ++w) packed[w] = four_elements_word<E>(elements, 0, w);
    if constexpr (store_width == 16) {
#pragma unroll
      for (int w = 0; w < E; w += 4)
        *reinterpret_cast<uint4*>(to + 4 * w) =
            make_uint4(packed[w], packed[w + 1], packed[w + 2], packed[w + 3]);
    } else if constexpr (store_width == 8) {
#pragma unroll
      for (int w = 0; w < E; w += 2)
        *reinterpret_cast<uint2*>(to + 4 * w) = make_uint2(packed[w], packed[w + 1]);
    } else {
#pragma unroll
      for (int w = 0; w < E; ++w) reinterpret_cast<unsigned*>(to)[w] = packed[w];
    }
  }
};

/// Logical chunk j (bytes [16j, 16j + 16), garbage past `bytes`) of a run of `bytes` bytes at
/// `start` (any alignment), for lanes of a warp that take consecutive chunks: the lane reads the
/// aligned chunk j covering it, takes the aligned chunk j + 1 from the next lane when that lane
/// holds chunk j + 1 of the same run (`next_lane_has_next`), else reads it itself if it holds
/// bytes of the run, and funnel-shifts the two by the run's misalignment. Nothing at or past
/// `end` (the matrix's end) is read. Every lane of the warp calls it; inactive lanes read
/// nothing.
__device__ __forceinline__ uint4 run_chunk(const unsigned char* start, int bytes, int j,
                                           bool active, bool next_lane_has_next,
                                           const unsigned char* end) {
  const int shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(start) & 15);
  const uint4* aligned = reinterpret_cast<const uint4*>(start - shift);
  const uint4 zero = make_uint4(0, 0, 0, 0);
  const uint4 raw = active ? load_chunk_before(aligned + j, end) : zero;
  uint4 next = shuffle_down(raw, 32);
  if (!next_lane_has_next)
    next = active && shift != 0 && 16 * (j + 1) < shift + bytes
               ? load_chunk_before(aligned + j + 1, end)
               : zero;
  return funnel_shift_16(raw, next, shift);
}

/// (item / n, item % n) for item = first, first + step, first + 2 step, ... without a division
/// per step.
struct split_index {
  int major, minor;
  __device__ split_index(int first, int step, int n)
      : major(first / n), minor(first % n), major_step_(step / n), minor_step_(step % n), n_(n) {}
  __device__ void advance() {
    major += major_step_;
    minor += minor_step_;
    if (minor >= n_) minor -= n_, ++major;
  }

 private:
  int major_step_, minor_step_, n_;
};

/// Step 3: `runs` destination runs of `run_bytes` bytes, run i at dst + i * ld (any alignment),
/// from byte i * from_pitch of `from`, as the aligned 16-byte chunks that cover each run.
__device__ __forceinline__ void write_runs(const unsigned char* from, int from_pitch,
                                           unsigned char* dst, std::int64_t ld, int runs,
                                           int run_bytes) {
  const int chunks = (run_bytes + 15) / 16 + 1;  // covering a run, at most
  split_index at(threadIdx.x, skinny_any_size_threads, chunks);
  for (; at.major < runs; at.advance()) {
    const int run = at.major;
    unsigned char* start = dst + run * ld;
    const int p0 = 16 * at.minor - static_cast<int>(reinterpret_cast<std::uintptr_t>(start) & 15);
    if (p0 >= 0 && p0 + 16 <= run_bytes) {
      __stcg(reinterpret_cast<uint4*>(start + p0), read_16_bytes_at(from, run * from_pitch + p0));
    } else {  // cut by the run's first or last byte
      for (int p = p0 < 0 ? 0 : p0; p < p0 + 16 && p < run_bytes; ++p)
        start[p] = from[run * from_pitch + p];
    }
  }
}

/// Wide slabs: `rows` (the short side) x slab_cols columns per slab; shared memory holds the
/// source slab's rows `pitch` bytes apart, then from byte staging_at the destination slab (one
/// run). Sizes in elements, strides in bytes.
template <int E>
__global__ void __launch_bounds__(skinny_any_size_threads)
    skinny_wide_any_size_kernel(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, int rows, std::int64_t cols,
                                std::int64_t lda, std::int64_t ldb, std::int64_t src_stride,
                                std::int64_t dst_stride, int slab_cols, int pitch, int staging_at,
                                std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  using elements = skinny_elements<E>;
  constexpr int threads = skinny_any_size_threads;
  extern __shared__ __align__(16) unsigned char slab[];
  unsigned char* staging = slab + staging_at;
  const int lane = threadIdx.x % 32;
  for (std::int64_t t = blockIdx.x; t < total_slabs; t += gridDim.x) {
    const std::int64_t b = t / slabs_per_matrix;
    const std::int64_t c0 = (t - b * slabs_per_matrix) * slab_cols;
    const int valid_cols = static_cast<int>(cols - c0 < slab_cols ? cols - c0 : slab_cols);
    const unsigned char* s = src + b * src_stride + c0 * E;
    const unsigned char* end = src + b * src_stride + (rows - 1) * lda + cols * E;
    unsigned char* d = dst + b * dst_stride + c0 * ldb;
    // 1. Row r's segment to shared row r (word stores: the rows are an odd number of words
    // apart).
    const int row_bytes = valid_cols * E;
    const int chunks = (row_bytes + 15) / 16;
    const int items = rows * chunks;
    split_index rj(threadIdx.x, threads, chunks);
    for (int first = threadIdx.x - lane; first < items; first += threads, rj.advance()) {
      const bool active = first + lane < items;
      const int r = rj.major, j = rj.minor;
      const uint4 v =
          run_chunk(s + r * lda, row_bytes, j, active, lane != 31 && j + 1 < chunks, end);
      if (active) {
        auto* out = reinterpret_cast<unsigned*>(slab + r * pitch + 16 * j);
        out[0] = v.x;
        out[1] = v.y;
        out[2] = v.z;
        out[3] = v.w;
      }
    }
    __syncthreads();
    // 2. Destination elements m = c * rows + r, four at a time, to staging byte m * E.
    const int count = valid_cols * rows;
    split_index cr(4 * threadIdx.x, 4 * threads, rows);  // (c, r) of a thread's first element
    for (int m = 4 * threadIdx.x; m < count; m += 4 * threads, cr.advance()) {
      unsigned four[4][elements::words + 1];
      int c = cr.major, r = cr.minor;
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        if (m + u < count) {
          elements::read(slab, r * pitch + c * E, four[u]);
        } else {
#pragma unroll
          for (int i = 0; i <= elements::words; ++i) four[u][i] = 0;
        }
        if (++r == rows) r = 0, ++c;
      }
      elements::store_four(four, staging + m * E);
    }
    __syncthreads();
    // 3. The destination: one run when its rows are dense, else a run per row.
    const int row_out = rows * E;
    if (ldb == row_out)
      write_runs(staging, 0, d, 0, 1, count * E);
    else
      write_runs(staging, row_out, d, ldb, valid_cols, row_out);
    __syncthreads();
  }
}

/// Tall slabs: slab_rows rows x `cols` (the short side) columns per slab; shared memory holds
/// the source slab (element (r, c) at r * cols * E + c * E when the source rows are dense, else
/// rows 16-byte aligned), then from byte staging_at the destination slab's `cols` rows
/// `dst_pitch` bytes apart. Sizes in elements, strides in bytes.
template <int E>
__global__ void __launch_bounds__(skinny_any_size_threads)
    skinny_tall_any_size_kernel(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, std::int64_t rows, int cols,
                                std::int64_t lda, std::int64_t ldb, std::int64_t src_stride,
                                std::int64_t dst_stride, int slab_rows, int dst_pitch,
                                int staging_at, std::int64_t slabs_per_matrix,
                                std::int64_t total_slabs) {
  using elements = skinny_elements<E>;
  constexpr int threads = skinny_any_size_threads;
  extern __shared__ __align__(16) unsigned char slab[];
  unsigned char* staging = slab + staging_at;
  const int lane = threadIdx.x % 32;
  const bool dense = lda == static_cast<std::int64_t>(cols) * E;
  const int src_pitch = dense ? cols * E : (cols * E + 15) / 16 * 16;
  for (std::int64_t t = blockIdx.x; t < total_slabs; t += gridDim.x) {
    const std::int64_t b = t / slabs_per_matrix;
    const std::int64_t r0 = (t - b * slabs_per_matrix) * slab_rows;
    const int valid_rows = static_cast<int>(rows - r0 < slab_rows ? rows - r0 : slab_rows);
    const unsigned char* s = src + b * src_stride + r0 * lda;
    const unsigned char* end = src + b * src_stride + (rows - 1) * lda + cols * E;
    unsigned char* d = dst + b * dst_stride + r0 * E;
    // 1. The source run(s) to the source slab as they are.
    const int runs = dense ? 1 : valid_rows;
    const int run_bytes = dense ? valid_rows * cols * E : cols * E;
    const int chunks = (run_bytes + 15) / 16;
    const int items = runs * chunks;
    split_index rj(threadIdx.x, threads, chunks);
    for (int first = threadIdx.x - lane; first < items; first += threads, rj.advance()) {
      const bool active = first + lane < items;
      const int run = rj.major, j = rj.minor;
      const uint4 v =
          run_chunk(s + run * lda, run_bytes, j, active, lane != 31 && j + 1 < chunks, end);
      if (active) *reinterpret_cast<uint4*>(slab + run * src_pitch + 16 * j) = v;
    }
    __syncthreads();
    // 2. Destination row c's elements r = 4q .. 4q + 3 to staging row c; the threads of a warp
    // take consecutive columns.
    const int quads = (valid_rows + 3) / 4;
    split_index qc(threadIdx.x, threads, cols);
    for (; qc.major < quads; qc.advance()) {
      const int q = qc.major, c = qc.minor;
      unsigned four[4][elements::words + 1];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        if (4 * q + u < valid_rows) {
          elements::read(slab, (4 * q + u) * src_pitch + c * E, four[u]);
        } else {
#pragma unroll
          for (int i = 0; i <= elements::words; ++i) four[u][i] = 0;
        }
      }
      elements::store_four(four, staging + c * dst_pitch + 4 * q * E);
    }
    __syncthreads();
    // 3. Destination row c's segment from staging row c.
    write_runs(staging, dst_pitch, d, ldb, cols, valid_rows * E);
    __syncthreads();
  }
}

/// Runs the wide or tall kernel for E-byte elements (`a` in elements) with slabs of about
/// `slab_bytes` bytes.
template <int E>
void launch_skinny_any_size_with(const copy_args& a, int slab_bytes, cudaStream_t stream) {
  const auto* src = static_cast<const unsigned char*>(a.src);
  auto* dst = static_cast<unsigned char*>(a.dst);
  const bool wide = a.rows <= a.cols;
  const int short_side = static_cast<int>(wide ? a.rows : a.cols);
  const std::int64_t long_side = wide ? a.cols : a.rows;
  const std::int64_t fit = slab_bytes / (static_cast<std::int64_t>(short_side) * E);
  const int length = static_cast<int>(fit < 1 ? 1 : fit < long_side ? fit : long_side);
  const std::int64_t per_matrix = (long_side + length - 1) / length;
  const std::int64_t total = per_matrix * a.batch;
  const auto round16 = [](int bytes) { return (bytes + 15) / 16 * 16; };
  // Room for the last word reads past a row or run (element reads, read_16_bytes_at) and for
  // the last group of four elements.
  constexpr int slack = 16;
  if (wide) {
    const int pitch = round16(length * E) + 4;  // an odd number of words
    const int staging_at = round16(short_side * pitch + slack);
    const int shared = staging_at + round16(length * short_side * E + 4 * E + slack);
    const auto kernel = skinny_wide_any_size_kernel<E>;
    allow_dynamic_shared(kernel, shared, "skinny_wide_any_size_kernel launch");
    kernel<<<grid_for(total), skinny_any_size_threads, shared, stream>>>(
        src, dst, short_side, a.cols, a.lda * E, a.ldb * E, a.src_stride * E, a.dst_stride * E,
        length, pitch, staging_at, per_matrix, total);
    check_launch("skinny_wide_any_size_kernel launch");
  } else {
    constexpr int width = skinny_elements<E>::store_width;
    int dst_pitch = ((length + 3) * E + slack + width - 1) / width * width;
    if (dst_pitch / width % 2 == 0) dst_pitch += width;  // an odd number of store widths
    const bool dense = a.lda == short_side;              // the source slab is one run
    const int staging_at =
        round16((dense ? length * short_side * E : length * round16(short_side * E)) + slack);
    const int shared = staging_at + short_side * dst_pitch + slack;
    const auto kernel = skinny_tall_any_size_kernel<E>;
    allow_dynamic_shared(kernel, shared, "skinny_tall_any_size_kernel launch");
    kernel<<<grid_for(total), skinny_any_size_threads, shared, stream>>>(
        src, dst, a.rows, short_side, a.lda * E, a.ldb * E, a.src_stride * E, a.dst_stride * E,
        length, dst_pitch, staging_at, per_matrix, total);
    check_launch("skinny_tall_any_size_kernel launch");
  }
}

}  // namespace xpose::detail::cuda
