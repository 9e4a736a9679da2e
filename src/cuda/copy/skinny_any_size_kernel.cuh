// The skinny_any_size kernel templates (instantiated per element size by
// copy/skinny_any_size.cu; its launcher takes the slab size, which
// bench/device_tune_policies.cu sweeps): out-of-place transposition of skinny matrices (one side
// short: the AoS <-> SoA case) of elements of E = 3 to 15 bytes that are not powers of two, rows
// of any alignment. The slab scheme of copy/skinny.cu (the tiles of the lecture slides "Matrix
// Transpose — get 90% bandwidth" stretched along the long side) moved as runs of bytes: a square
// tile would be mostly empty, and words of the element's widest power of two cost one access per
// word.
//
// A block moves slabs: all S rows (or columns) of the short side times a stretch L of the long
// side (a multiple of 16 elements when 16 or more fit and the long side is longer), about
// slab_bytes of data, in three steps through shared memory:
//   1. the aligned 16-byte chunks that cover the source rows (wide) or the source run (tall: one
//      run of L * S * E bytes when lda == S, else a run per row) are copied to shared memory as
//      they are with cp.async (the source slab), the next slab's while this one is moved
//      (plain 16-byte loads and stores below sm_80, which has no cp.async);
//   2. a thread takes four consecutive destination elements, reads each from the source slab at
//      its byte offset (where its row's first byte lies, from a table a wide slab keeps before
//      its rows, plus the column's bytes; word reads funnel-shifted), packs the four into E words
//      at compile-time byte offsets (as copy_any_size packs four rows) and stores them (the
//      destination slab);
//   3. the destination run (wide: one run of L * S * E bytes when ldb == S, else a run per row)
//      is written as the aligned 16-byte chunks that cover it, each read from the destination
//      slab at any byte offset, chunks cut by a run's ends byte by byte; a tall slab's
//      destination rows are written as the aligned chunks that start in them, the last one
//      ending in a halo of rows after the slab (15 bytes a row; steps 1 and 2 take them too), so
//      that only the matrix's first and last bytes take byte stores (as the shifted slabs of
//      copy/skinny.cu do). Written as runs, destination rows that do not start on 16 bytes (an
//      odd row count) would have two cut chunks per row and slab (H100: tall 3-byte 1398101 x
//      24 0.87 x copy vs 0.66).
// Bank conflicts: a wide slab's rows start 16 bytes further every 4 rows, so that the rows one
// step-2 read instruction touches (4 apart) fall in different banks; a tall slab's destination
// rows are an odd number of store widths apart (the store width being the widest of 16, 8, 4
// bytes that divides 4E), and a warp's step-2 threads take the same rows of consecutive columns.
// Blocks loop over the slabs of all matrices (as many blocks as fit on the device); 64-bit
// global index math; covering chunks are read only before the matrix's last byte (the chunk it
// cuts byte by byte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/backend/occupancy.hpp"
#include "cuda/copy/any_size_kernel.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/copy/unaligned_kernel.cuh"

namespace xpose::detail::cuda {

/// Threads per block (512 is no faster).
constexpr int skinny_any_size_threads = 256;
/// Bytes before a wide source slab of `rows` rows: the table of the rows' first bytes, for at
/// least skinny_any_size_max_side rows (the skinny shapes' slab sizes are tuned with that
/// table; a table for skinny_any_size_wide_max_rows costs 3-byte 8 x 16000000 0.07 x copy).
constexpr int wide_row_table(int rows) {
  return 4 * (rows > skinny_any_size_max_side ? (rows + 3) / 4 * 4
                                              : static_cast<int>(skinny_any_size_max_side));
}

/// Rows after a tall slab whose elements complete the chunk that its destination segments' last
/// owned chunk runs into (15 bytes at most).
__host__ __device__ constexpr int tall_any_size_halo_rows(int e) {
  return (15 + e - 1) / e;
}

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

/// Copies the aligned 16-byte chunk at `chunk` to shared memory at `to` (16-byte aligned):
/// asynchronously (cp.async) when it ends before `end`, byte by byte when `end` cuts it (only
/// the bytes before `end`: compute-sanitizer counts a cut cp.async as a whole 16-byte read),
/// not at all when it lies past `end`.
__device__ __forceinline__ void fetch_chunk(unsigned char* to, const unsigned char* chunk,
                                            const unsigned char* end) {
  const std::ptrdiff_t before_end = end - chunk;
  if (before_end >= 16) {
#if __CUDA_ARCH__ >= 800
    const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(shared), "l"(chunk)
                 : "memory");
#else
    *reinterpret_cast<uint4*>(to) = load_chunk_l2_prefetch(reinterpret_cast<const uint4*>(chunk));
#endif
  } else {
    for (int i = 0; i < before_end; ++i) to[i] = __ldcg(chunk + i);
  }
}
__device__ __forceinline__ void fetch_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/// Waits for this thread's fetches but those of the last committed group.
__device__ __forceinline__ void fetch_wait_all_but_last() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
}

/// Byte offset of `p` in its aligned 16-byte chunk.
__device__ __forceinline__ int misalignment(const unsigned char* p) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15);
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
      const int offset = run * from_pitch + p0;
      __stcg(reinterpret_cast<uint4*>(start + p0),
             offset % 16 == 0 ? *reinterpret_cast<const uint4*>(from + offset)
                              : read_16_bytes_at(from, offset));
    } else {  // cut by the run's first or last byte
      for (int p = p0 < 0 ? 0 : p0; p < p0 + 16 && p < run_bytes; ++p)
        start[p] = from[run * from_pitch + p];
    }
  }
}

/// Step 3 of a tall slab whose destination segments own the aligned 16-byte chunks that start in
/// them: `runs` segments of segment_bytes bytes, segment i at dst + i * ld (any alignment), from
/// byte i * from_pitch of `from`, which holds the halo after each segment, bytes_left bytes in
/// all (only the matrix's end cuts a segment's last chunk, then written byte by byte); the
/// matrix's first slab (first_slab) also writes the bytes before each segment's first chunk
/// (from the halo too where a segment is shorter than 16 bytes). A chunk cut by a slab's end is
/// thus written whole, by that slab, from its halo.
__device__ __forceinline__ void write_owned_chunks(const unsigned char* from, int from_pitch,
                                                   unsigned char* dst, std::int64_t ld, int runs,
                                                   int segment_bytes, int bytes_left,
                                                   bool first_slab) {
  for (split_index kc(threadIdx.x, skinny_any_size_threads, segment_bytes / 16 + 1);
       kc.major < runs; kc.advance()) {
    const int c = kc.major, k = kc.minor;
    unsigned char* segment = dst + c * ld;
    const int first_chunk = (16 - misalignment(segment)) & 15, at = first_chunk + 16 * k;
    const unsigned char* row = from + c * from_pitch;
    if (at < segment_bytes && at + 16 <= bytes_left) {
      const int offset = c * from_pitch + at;
      __stcg(reinterpret_cast<uint4*>(segment + at),
             offset % 16 == 0 ? *reinterpret_cast<const uint4*>(from + offset)
                              : read_16_bytes_at(from, offset));
    } else if (at < segment_bytes) {  // cut by the matrix's last row
      for (int b = at; b < bytes_left; ++b) segment[b] = row[b];
    }
    if (k == 0 && first_slab)
      for (int b = 0; b < first_chunk && b < bytes_left; ++b) segment[b] = row[b];
  }
}

/// Where slab t lies: matrix `matrix`, long-side indices first .. first + valid - 1.
struct slab_place {
  std::int64_t matrix, first;
  int valid;
  __device__ slab_place(std::int64_t t, std::int64_t slabs_per_matrix, int length,
                        std::int64_t long_side) {
    matrix = t / slabs_per_matrix;
    first = (t - matrix * slabs_per_matrix) * length;
    valid = static_cast<int>(long_side - first < length ? long_side - first : length);
  }
};

/// Step 1 of a tall slab `p` of a matrix of `rows` rows of `row_bytes` bytes, `ld` bytes apart
/// (strides in bytes), its first `fetch_rows` rows (the slab's, and rows after it for a kernel
/// that needs them): the covering chunks of the source run when the rows are dense (from byte 0
/// of `buffer`), else of each row (row r's from byte r * pitch).
__device__ __forceinline__ void fetch_tall_slab(unsigned char* buffer, const unsigned char* src,
                                                std::int64_t rows, int row_bytes, std::int64_t ld,
                                                std::int64_t stride, int pitch, const slab_place& p,
                                                int fetch_rows) {
  const unsigned char* s = src + p.matrix * stride + p.first * ld;
  const unsigned char* end = src + p.matrix * stride + (rows - 1) * ld + row_bytes;
  if (ld == row_bytes) {
    const int shift = misalignment(s);
    const int chunks = (shift + fetch_rows * row_bytes + 15) / 16;
    for (int j = threadIdx.x; j < chunks; j += skinny_any_size_threads)
      fetch_chunk(buffer + 16 * j, s - shift + 16 * j, end);
    return;
  }
  for (split_index rj(threadIdx.x, skinny_any_size_threads, pitch / 16); rj.major < fetch_rows;
       rj.advance()) {
    const unsigned char* row = s + rj.major * ld;
    const int shift = misalignment(row);
    if (16 * rj.minor < shift + row_bytes)
      fetch_chunk(buffer + rj.major * pitch + 16 * rj.minor, row - shift + 16 * rj.minor, end);
  }
}

/// Steps 1-3 for every slab of the grid-stride loop, two source slabs of `buffer_bytes` in
/// turn: fetch(t, buffer) starts slab t's step 1, move(t, buffer) does its steps 2 and 3.
template <class Fetch, class Move>
__device__ __forceinline__ void pipeline_slabs(std::int64_t total_slabs, unsigned char* buffers,
                                               int buffer_bytes, Fetch&& fetch, Move&& move) {
  std::int64_t t = blockIdx.x;
  if (t < total_slabs) fetch(t, buffers);
  fetch_commit();
  for (int current = 0; t < total_slabs; t += gridDim.x, current ^= 1) {
    unsigned char* buffer = buffers + current * buffer_bytes;
    if (t + gridDim.x < total_slabs) fetch(t + gridDim.x, buffers + (current ^ 1) * buffer_bytes);
    fetch_commit();
    fetch_wait_all_but_last();
    __syncthreads();  // slab t in `buffer`; the last slab's step 3 done with the staging
    move(t, buffer);
  }
}

/// Wide slabs: `rows` (the short side, at most skinny_any_size_wide_max_rows) x slab_cols columns
/// per slab. Shared memory holds two source slabs of `buffer_bytes`, each a table of where the
/// rows' first bytes lie (`row_table` = wide_row_table(rows) bytes) and row r's covering chunks
/// from byte row_table + r * pitch + 16 * (r / 4), then from byte staging_at the destination slab
/// (one run). Sizes in elements, strides in bytes.
template <int E>
__global__ void __launch_bounds__(skinny_any_size_threads)
    skinny_wide_any_size_kernel(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, int rows, std::int64_t cols,
                                std::int64_t lda, std::int64_t ldb, std::int64_t src_stride,
                                std::int64_t dst_stride, int slab_cols, int row_table, int pitch,
                                int buffer_bytes, int staging_at, std::int64_t slabs_per_matrix,
                                std::int64_t total_slabs) {
  using elements = skinny_elements<E>;
  constexpr int threads = skinny_any_size_threads;
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* staging = shared + staging_at;
  const auto row_start = [&](int r) { return row_table + r * pitch + 16 * (r / 4); };
  const auto fetch = [&](std::int64_t t, unsigned char* buffer) {
    const slab_place p(t, slabs_per_matrix, slab_cols, cols);
    const unsigned char* s = src + p.matrix * src_stride + p.first * E;
    const unsigned char* end = src + p.matrix * src_stride + (rows - 1) * lda + cols * E;
    const int row_bytes = p.valid * E;
    for (int r = threadIdx.x; r < rows; r += threads)
      reinterpret_cast<int*>(buffer)[r] = row_start(r) + misalignment(s + r * lda);
    for (split_index rj(threadIdx.x, threads, pitch / 16); rj.major < rows; rj.advance()) {
      const unsigned char* row = s + rj.major * lda;
      const int shift = misalignment(row);
      if (16 * rj.minor < shift + row_bytes)
        fetch_chunk(buffer + row_start(rj.major) + 16 * rj.minor, row - shift + 16 * rj.minor, end);
    }
  };
  const auto move = [&](std::int64_t t, const unsigned char* slab) {
    const slab_place p(t, slabs_per_matrix, slab_cols, cols);
    const int* row_first_byte = reinterpret_cast<const int*>(slab);
    // 2. Destination elements m = c * rows + r, four at a time, to staging byte m * E. With a
    // multiple of 4 rows the four lie in one column, with 1 or 2 rows their rows are known
    // (and the rows' first bytes held in registers); other row counts step row by row. A group
    // never passes the slab's end with a multiple of 4 rows; with other counts but 1 and 2 the
    // last group's elements past it read bytes past its last column (in the buffer's slack,
    // staged past the bytes step 3 writes), so that no read is conditional.
    const int count = p.valid * rows;
    const auto groups = [&](auto rows_kind) {
      constexpr int kind = decltype(rows_kind)::value;  // 1, 2, 4 (multiple of 4) or 0 (other)
      int first_byte[2] = {row_first_byte[0], kind == 2 ? row_first_byte[1] : 0};
      split_index cr(4 * threadIdx.x, 4 * threads, rows);  // (c, r) of a thread's first element
      for (int m = 4 * threadIdx.x; m < count; m += 4 * threads, cr.advance()) {
        unsigned four[4][elements::words + 1];
        int c = cr.major, r = cr.minor;
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          if (kind == 4 || kind == 0 || m + u < count) {
            const int at = kind == 1   ? first_byte[0] + (c + u) * E
                           : kind == 2 ? first_byte[u % 2] + (c + u / 2) * E
                           : kind == 4 ? row_first_byte[r + u] + c * E
                                       : row_first_byte[r] + c * E;
            elements::read(slab, at, four[u]);
          } else {
#pragma unroll
            for (int i = 0; i <= elements::words; ++i) four[u][i] = 0;
          }
          if (kind == 0 && ++r == rows) r = 0, ++c;
        }
        elements::store_four(four, staging + m * E);
      }
    };
    if (rows == 1)
      groups(std::integral_constant<int, 1>{});
    else if (rows == 2)
      groups(std::integral_constant<int, 2>{});
    else if (rows % 4 == 0)
      groups(std::integral_constant<int, 4>{});
    else
      groups(std::integral_constant<int, 0>{});
    __syncthreads();
    // 3. The destination: one run when its rows are dense, else a run per row.
    unsigned char* d = dst + p.matrix * dst_stride + p.first * ldb;
    const int row_out = rows * E;
    if (ldb == row_out)
      write_runs(staging, 0, d, 0, 1, count * E);
    else
      write_runs(staging, row_out, d, ldb, p.valid, row_out);
  };
  pipeline_slabs(total_slabs, shared, buffer_bytes, fetch, move);
}

/// Tall slabs: slab_rows rows x `cols` (the short side) columns per slab. Shared memory holds
/// two source slabs of `buffer_bytes` (the run's covering chunks when the source rows are dense,
/// else row r's from byte r * src_pitch), then from byte staging_at the destination slab's
/// `cols` rows `dst_pitch` bytes apart. Sizes in elements, strides in bytes. For 3-byte elements
/// five resident blocks are asked of ptxas (48 registers): left free, ptxas gives them 32
/// registers and spills (the build fails on spills), and six (40 registers) spill too. The other
/// sizes are left free (three blocks asked for every size: 5-byte 4000000 x 8 0.85 x copy vs 0.88).
template <int E>
__global__ void __launch_bounds__(skinny_any_size_threads, E == 3 ? 5 : 0)
    skinny_tall_any_size_kernel(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, std::int64_t rows, int cols,
                                std::int64_t lda, std::int64_t ldb, std::int64_t src_stride,
                                std::int64_t dst_stride, int slab_rows, int src_pitch,
                                int dst_pitch, int buffer_bytes, int staging_at,
                                std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  using elements = skinny_elements<E>;
  constexpr int threads = skinny_any_size_threads;
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* staging = shared + staging_at;
  constexpr int halo = tall_any_size_halo_rows(E);
  const int row_bytes = cols * E;
  const bool dense = lda == row_bytes;
  // The slab's rows and the halo after it, where the matrix has them.
  const auto rows_after = [&](const slab_place& p) {
    const std::int64_t left = rows - p.first;
    return static_cast<int>(left < slab_rows + halo ? left : slab_rows + halo);
  };
  const auto fetch = [&](std::int64_t t, unsigned char* buffer) {
    const slab_place p(t, slabs_per_matrix, slab_rows, rows);
    fetch_tall_slab(buffer, src, rows, row_bytes, lda, src_stride, src_pitch, p, rows_after(p));
  };
  const auto move = [&](std::int64_t t, const unsigned char* slab) {
    const slab_place p(t, slabs_per_matrix, slab_rows, rows);
    const auto s_low = static_cast<unsigned>(
        reinterpret_cast<std::uintptr_t>(src + p.matrix * src_stride + p.first * lda));
    const auto lda_low = static_cast<unsigned>(lda);
    // 2. Destination row c's elements r = 4q .. 4q + 3 (the slab's rows and the halo) to
    // staging row c; the threads of a warp take consecutive columns. Rows past the last read it
    // instead (their staging bytes lie past those step 3 writes), so that no read is conditional.
    // The dense test is a compile-time constant of each gather (H100: tall 3-byte 1973790 x 17
    // 0.88 x copy vs 0.77 with the test per element and each read conditional).
    const int rows_here = rows_after(p);
    const auto columns_to_staging = [&](auto dense_rows) {
      // Source row r's first byte in the slab.
      const auto row_at = [&](int r) {
        return decltype(dense_rows)::value
                   ? static_cast<int>(s_low & 15) + r * row_bytes
                   : r * src_pitch + static_cast<int>((s_low + r * lda_low) & 15);
      };
      const int quads = (rows_here + 3) / 4;
      for (split_index qc(threadIdx.x, threads, cols); qc.major < quads; qc.advance()) {
        const int q = qc.major, c = qc.minor;
        unsigned four[4][elements::words + 1];
#pragma unroll
        for (int u = 0; u < 4; ++u)
          elements::read(slab, row_at(min(4 * q + u, rows_here - 1)) + c * E, four[u]);
        elements::store_four(four, staging + c * dst_pitch + 4 * q * E);
      }
    };
    if (dense)
      columns_to_staging(std::true_type{});
    else
      columns_to_staging(std::false_type{});
    __syncthreads();
    // 3. Destination row c's segment from staging row c: the chunks it owns.
    write_owned_chunks(staging, dst_pitch, dst + p.matrix * dst_stride + p.first * E, ldb, cols,
                       p.valid * E, rows_here * E, p.first == 0);
  };
  pipeline_slabs(total_slabs, shared, buffer_bytes, fetch, move);
}

/// Blocks of `kernel` (skinny_any_size_threads threads taking `shared` bytes of dynamic shared
/// memory each) that fit on the device at once, at most `work_items`.
template <class Kernel>
unsigned resident_grid(Kernel kernel, int shared, std::int64_t work_items, const char* name) {
  const std::int64_t resident = resident_blocks(kernel, skinny_any_size_threads, shared, name);
  return grid_for(work_items < resident ? work_items : resident);
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
  const auto covering = [](int bytes) { return (15 + bytes + 15) / 16 * 16; };  // any alignment
  // Source-slab bytes per long-side index: a tall slab of padded rows keeps each row's covering
  // chunks. A multiple of 16 long-side indices when 16 or more fit: the slabs of a wide slab's
  // destination run that starts on 16 bytes then start on 16 bytes too (one shared-memory read
  // per chunk in step 3; a tall slab's staging rows are an odd number of store widths apart and
  // mostly take the five-word read).
  const bool dense_source = wide || a.lda == short_side;
  const int index_bytes = dense_source ? short_side * E : covering(short_side * E);
  const std::int64_t fit = slab_bytes / index_bytes;
  const std::int64_t whole = fit >= 16 ? fit / 16 * 16 : fit < 1 ? 1 : fit;
  const int length = static_cast<int>(whole < long_side ? whole : long_side);
  const std::int64_t per_matrix = (long_side + length - 1) / length;
  const std::int64_t total = per_matrix * a.batch;
  // Room for word reads past a row or run (element reads, read_16_bytes_at) and for the last
  // group of four elements.
  constexpr int slack = 16;
  if (wide) {
    const int pitch = covering(length * E);
    const int row_table = wide_row_table(short_side);
    const int buffer_bytes = row_table + short_side * pitch + 16 * (short_side / 4) + slack;
    const int staging_at = 2 * buffer_bytes;
    const int shared = staging_at + (length * short_side * E + 4 * E + slack + 15) / 16 * 16;
    const auto kernel = skinny_wide_any_size_kernel<E>;
    constexpr const char* name = "skinny_wide_any_size_kernel launch";
    allow_dynamic_shared(kernel, shared, name);
    kernel<<<resident_grid(kernel, shared, total, name), skinny_any_size_threads, shared, stream>>>(
        src, dst, short_side, a.cols, a.lda * E, a.ldb * E, a.src_stride * E, a.dst_stride * E,
        length, row_table, pitch, buffer_bytes, staging_at, per_matrix, total);
    check_launch(name);
  } else {
    const int src_pitch = covering(short_side * E);
    const int fetched = length + tall_any_size_halo_rows(E);  // the slab's rows and the halo
    const int buffer_bytes =
        (dense_source ? covering(fetched * short_side * E) : fetched * src_pitch) + slack;
    constexpr int width = skinny_elements<E>::store_width;
    int dst_pitch = ((fetched + 3) * E + slack + width - 1) / width * width;
    if (dst_pitch / width % 2 == 0) dst_pitch += width;  // an odd number of store widths
    const int staging_at = 2 * buffer_bytes;
    const int shared = staging_at + short_side * dst_pitch + slack;
    const auto kernel = skinny_tall_any_size_kernel<E>;
    constexpr const char* name = "skinny_tall_any_size_kernel launch";
    allow_dynamic_shared(kernel, shared, name);
    kernel<<<resident_grid(kernel, shared, total, name), skinny_any_size_threads, shared, stream>>>(
        src, dst, a.rows, short_side, a.lda * E, a.ldb * E, a.src_stride * E, a.dst_stride * E,
        length, src_pitch, dst_pitch, buffer_bytes, staging_at, per_matrix, total);
    check_launch(name);
  }
}

}  // namespace xpose::detail::cuda
