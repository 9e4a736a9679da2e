// Kernels of the row/column decomposition on the GPU (Catanzaro, Keller, Garland, "A
// Decomposition for In-place Matrix Transposition", PPoPP'14, sec. 3-4; the index maps are those
// of plan/row_column.hpp, which the CPU backend runs too). Launched by row_column.cu. One dense
// row-major m x n matrix of elements of k words of W bytes each.
//
// row_shuffle_kernel: phase 2, every row permuted within itself. A block takes whole rows; for
//   row i, each thread scatters elements j = tid, tid + T, ... to their destinations
//   d = (j m + (i - floor(j / b)) mod m) mod n in a row buffer, the block synchronizes and copies
//   the buffer back over the row. OnChip: the buffer is the block's shared memory (rows of up to
//   row_on_chip_max_bytes), so a row is read once and written once. Otherwise the buffer is the
//   row's place in a scratch of whole rows, which the launcher copies back. The terms of d are
//   kept per thread from one j to the next (j m mod n, floor(j / b), j mod b), so an element costs
//   additions and compares; each thread has row_unroll elements' loads in flight before it
//   stores. Rotated (phases 1 and 2 as one pass, on chip): each block takes a band of rows, from
//   its last row down, and reads element j of row i from row i - floor(j / b), where the
//   pre-rotation would have moved it from; a row below the band is read from the band's halo in
//   the scratch, which row_halo_kernel fills before any band is permuted.
//
// column_rotate_kernel: the column rotations of phases 1 and 3, for a group of column blocks
//   (block_cols adjacent columns each), out of place into a scratch that holds each block as m
//   rows of block_cols elements. Column s of the scratch is column s of the matrix rotated up by
//   rot(s): scratch[x][s] = a[(x + rot(s)) mod m][s], with rot(s) = s mod m (phase 3) or
//   (m - floor(s / b)) mod m (phase 1, a rotation down by floor(s / b)). Within a block,
//   rot(s0 + t) = base + delta(t) (mod m) with 0 <= delta(t) < span <= block_cols, so a tile of
//   rows_per_tile output rows needs rows_per_tile + span - 1 consecutive source rows: they are
//   loaded whole (row segments of the block, coalesced; by cp.async where words are 4 bytes or
//   more, through registers column_unroll rows at a time otherwise) into shared memory and each
//   output row is read along a diagonal of the tile (rows one word apart, so a warp meets every
//   bank once when a row segment is 32 words).
//
// column_gather_kernel: the copy back of such a group: a[r][s] = scratch[src(r)][s] for the
//   block's columns, src(r) = g(r) = (r n + floor(r / a)) mod m in phase 3 (the row permutation
//   that follows the rotation), r in phase 1. Whole row segments move, coalesced, column_unroll
//   rows per thread in flight; where a scratch row is one 128-byte line (Discard), the line is
//   dropped from L2 once read, so that it is never written back to DRAM.
//
// column_cluster_kernel (sm_90): a column phase in one pass, each column block held by a thread
//   block cluster (its comment below).
//
// Assumes: m, n < 2^31, n * k < 2^32; the scratch holds the group; 64-bit global offsets.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/inplace/tiled_transpose_kernel.cuh"

namespace xpose::detail::cuda::row_column {

using tiled::fast_divmod;
using tiled::word_t;

constexpr int row_threads = 512;
constexpr int row_unroll = 4;
constexpr int column_threads = 256;
/// Rows each thread of the column kernels has in flight (loads issued before their stores).
constexpr int column_unroll = 8;
/// Threads of a block of column_cluster_kernel<W>: fewer for 16-byte words, whose registers
/// would otherwise spill at two blocks an SM (H200: 384 threads 0.41 x copy on 4000 x 13001
/// against 0.34 with 512 at one block an SM).
template <int W>
constexpr int cluster_threads = W == 16 ? 384 : 512;

/// x mod d and floor(x / d) for 0 <= x < 2^52 and a divisor fixed at launch, through a
/// double-precision reciprocal and a correction of at most one.
struct wide_divmod {
  std::int64_t divisor = 1;
  double reciprocal = 1.0;

  wide_divmod() = default;
  __host__ explicit wide_divmod(std::int64_t d)
      : divisor(d), reciprocal(1.0 / static_cast<double>(d)) {}

  __device__ std::int64_t div(std::int64_t x) const {
    std::int64_t q = static_cast<std::int64_t>(static_cast<double>(x) * reciprocal);
    const std::int64_t r = x - q * divisor;
    if (r < 0) --q;
    if (r >= divisor) ++q;
    return q;
  }
  __device__ std::int64_t mod(std::int64_t x) const { return x - div(x) * divisor; }
};

struct row_shuffle_args {
  std::uint32_t m = 0, n = 0;  ///< rows, columns (elements)
  std::uint32_t k = 1;         ///< words per element
  std::uint32_t b = 1;         ///< n / gcd(m, n)
  fast_divmod by_n;            ///< for (i - floor(j / b)) mod m when m > n
  /// Per thread, from j to j + T (T threads): j m mod n advances by jm_step (mod n), floor(j / b)
  /// by q_step and j mod b by r_step (with a carry).
  std::uint32_t jm_step = 0, q_step = 0, r_step = 0;
  std::int64_t first_row = 0, rows = 0;  ///< the rows this launch permutes
  /// Rotated only: rows per band (block) and halo rows per band, gcd(m, n) - 1.
  std::int64_t band_rows = 0, halo_rows = 0;
};

template <int W, bool OnChip, bool Rotated = false>
__global__ void __launch_bounds__(row_threads, 1)
    row_shuffle_kernel(unsigned char* data, unsigned char* scratch, row_shuffle_args a) {
  static_assert(OnChip || !Rotated, "the rotated row shuffle permutes rows on chip");
  using word = word_t<W>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const std::uint32_t n = a.n, m = a.m, k = a.k, b = a.b;
  const std::uint32_t j0 = threadIdx.x;
  const auto jm0 = static_cast<std::uint32_t>(std::uint64_t{j0} * m % n);
  const std::uint32_t q0 = j0 / b, r0 = j0 % b;
  const std::uint64_t row_words = std::uint64_t{n} * k;
  word* const matrix = reinterpret_cast<word*>(data);
  // Rotated: this block's band of rows, from its last row down to its first; its halo (the
  // halo_rows rows below the band as they were before any block wrote) in the scratch.
  const std::int64_t band_first = std::int64_t{blockIdx.x} * a.band_rows;
  const std::int64_t band_end =
      band_first + a.band_rows < a.rows ? band_first + a.band_rows : a.rows;
  const word* const halo =
      reinterpret_cast<const word*>(scratch) + std::uint64_t(blockIdx.x * a.halo_rows) * row_words;
  for (std::int64_t step = 0;; ++step) {
    const std::int64_t local =
        Rotated ? band_end - 1 - step : std::int64_t{blockIdx.x} + step * gridDim.x;
    if (Rotated ? local < band_first : local >= a.rows) break;
    const std::int64_t i = a.first_row + local;
    word* row = matrix + static_cast<std::uint64_t>(i) * row_words;
    word* buffer =
        OnChip ? reinterpret_cast<word*>(shared_bytes)
               : reinterpret_cast<word*>(scratch) + static_cast<std::uint64_t>(local) * row_words;
    std::uint32_t jm = jm0, q = q0, r = r0;
    for (std::uint32_t j = j0; j < n; j += row_unroll * blockDim.x) {
      std::uint32_t from[row_unroll], to[row_unroll];
      const word* source[row_unroll];  // Rotated: the row element from[u] is read from
#pragma unroll
      for (int u = 0; u < row_unroll; ++u) {
        if constexpr (Rotated) {
          // Before the pre-rotation, the element at (i, j) was at (i - floor(j / b), j).
          const std::int64_t below = i - q;
          source[u] =
              below >= band_first
                  ? matrix + static_cast<std::uint64_t>(below) * row_words
                  : halo + static_cast<std::uint64_t>(below - band_first + a.halo_rows) * row_words;
        }
        // (i - q) mod m, then mod n, plus j m mod n (q < gcd(m, n) <= m while j < n).
        auto s = static_cast<std::uint32_t>(i) - q;
        if (static_cast<std::int32_t>(s) < 0) s += m;
        if (m > n) s -= a.by_n.div(s) * n;
        std::uint32_t d = jm + s;
        if (d >= n) d -= n;
        from[u] = j + u * blockDim.x;
        to[u] = d;
        jm += a.jm_step;
        if (jm >= n) jm -= n;
        q += a.q_step;
        r += a.r_step;
        if (r >= b) {
          r -= b;
          ++q;
        }
      }
      for (std::uint32_t p = 0; p < k; ++p) {
        word v[row_unroll];
#pragma unroll
        for (int u = 0; u < row_unroll; ++u)
          if (from[u] < n) v[u] = (Rotated ? source[u] : row)[std::uint64_t{from[u]} * k + p];
#pragma unroll
        for (int u = 0; u < row_unroll; ++u)
          if (from[u] < n) buffer[std::uint64_t{to[u]} * k + p] = v[u];
      }
    }
    if constexpr (OnChip) {
      __syncthreads();
      for (std::uint64_t t = threadIdx.x; t < row_words; t += blockDim.x) row[t] = buffer[t];
      __syncthreads();
    }
  }
}

/// The halos of row_shuffle_kernel<W, true, true>: for band t, the halo_rows rows below its
/// first row t * band_rows (mod m), copied into the scratch before any band is permuted. One block
/// per halo row.
template <int W>
__global__ void __launch_bounds__(row_threads)
    row_halo_kernel(const unsigned char* data, unsigned char* scratch, row_shuffle_args a) {
  using word = word_t<W>;
  const std::uint64_t row_words = std::uint64_t{a.n} * a.k;
  const std::int64_t band = blockIdx.x / a.halo_rows, h = blockIdx.x % a.halo_rows;
  std::int64_t source = band * a.band_rows - a.halo_rows + h;
  if (source < 0) source += a.m;
  const word* from = reinterpret_cast<const word*>(data) + std::uint64_t(source) * row_words;
  word* to = reinterpret_cast<word*>(scratch) + std::uint64_t(blockIdx.x) * row_words;
  for (std::uint64_t t = threadIdx.x; t < row_words; t += blockDim.x) to[t] = from[t];
}

struct column_args {
  std::int64_t m = 0, n = 0;        ///< rows, columns (elements)
  std::uint32_t k = 1;              ///< words per element
  std::uint32_t block_cols = 1;     ///< columns per block
  std::uint32_t segment_words = 1;  ///< block_cols * k: words of one row of a block
  std::uint32_t rows_per_tile = 1;  ///< output rows per tile of column_rotate_kernel
  std::int64_t first_block = 0;     ///< the group's first column block
  bool shuffle = true;              ///< phase 3 (else phase 1)
  std::int64_t b = 1;               ///< n / gcd(m, n)
  fast_divmod by_k;                 ///< word -> element within a segment
  fast_divmod by_a;                 ///< floor(r / a), a = m / gcd(m, n)
  wide_divmod by_m;                 ///< (r n + floor(r / a)) mod m
};

/// rot(s) of the block's first column and the span of its deltas (see the top of the file);
/// delta(t) for column s0 + t is t mod m in phase 3, q_last - floor((s0 + t) / b) in phase 1.
struct block_rotation {
  std::int64_t base = 0;
  std::int64_t span = 1;
};

__device__ inline block_rotation rotation_of(const column_args& a, std::int64_t s0,
                                             std::int64_t width) {
  block_rotation r;
  if (a.shuffle) {
    r.base = s0 % a.m;
    r.span = width < a.m ? width : a.m;
  } else {
    const std::int64_t q_first = s0 / a.b, q_last = (s0 + width - 1) / a.b;
    r.base = (a.m - q_last % a.m) % a.m;
    r.span = q_last - q_first + 1;
  }
  return r;
}

__device__ inline std::int64_t delta_of(const column_args& a, std::int64_t s0, std::int64_t width,
                                        std::int64_t t) {
  if (a.shuffle) return t % a.m;
  return (s0 + width - 1) / a.b - (s0 + t) / a.b;
}

/// Whether column_rotate_kernel loads its tiles by cp.async (sm_80 and later, words of 4 bytes or
/// more: the copy sizes cp.async takes) rather than through registers.
template <int W>
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
constexpr bool async_tile_loads = W >= 4;
#else
constexpr bool async_tile_loads = false;
#endif

/// The column block of a block of the column kernels (blockIdx.y within the group) and how its
/// threads cover it: `lanes` threads per row segment (the segment's words, at most the block),
/// `row_step` rows at a time; threads with lane_row >= row_step have no row.
struct column_block_threads {
  std::int64_t s0, width;  ///< the block's first column and its columns (the last one may be short)
  std::uint32_t words;     ///< words of the block's valid part of a row
  std::uint32_t lanes, lane, row_step, lane_row;

  __device__ explicit column_block_threads(const column_args& a)
      : s0((a.first_block + blockIdx.y) * a.block_cols),
        width(a.n - s0 < a.block_cols ? a.n - s0 : a.block_cols),
        words(static_cast<std::uint32_t>(width) * a.k),
        lanes(a.segment_words < blockDim.x ? a.segment_words : blockDim.x),
        lane(threadIdx.x % lanes),
        row_step(blockDim.x / lanes),
        lane_row(threadIdx.x / lanes) {}
};

template <int W>
__global__ void __launch_bounds__(column_threads)
    column_rotate_kernel(const unsigned char* data, unsigned char* scratch, column_args a) {
  using word = word_t<W>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  word* tile = reinterpret_cast<word*>(shared_bytes);
  const column_block_threads g(a);
  const std::int64_t s0 = g.s0, width = g.width;
  const std::uint32_t words = g.words, pitch = a.segment_words, lanes = g.lanes, lane = g.lane;
  const std::uint32_t row_step = g.row_step, lane_row = g.lane_row;
  const block_rotation rot = rotation_of(a, s0, width);
  const std::int64_t x0 = std::int64_t{blockIdx.x} * a.rows_per_tile;
  const std::int64_t rows = a.m - x0 < a.rows_per_tile ? a.m - x0 : a.rows_per_tile;
  const std::int64_t tile_rows = rows + rot.span - 1;
  const auto* src = reinterpret_cast<const word*>(data);
  if (lane_row < row_step) {
    for (std::uint32_t u = lane; u < words; u += lanes) {
      std::int64_t source = (x0 + rot.base + lane_row) % a.m;
      if constexpr (async_tile_loads<W>) {
        // Asynchronous copies straight into shared memory: every row of the tile in flight at
        // once, no registers held.
        for (std::int64_t t = lane_row; t < tile_rows; t += row_step) {
          const auto to = static_cast<unsigned>(__cvta_generic_to_shared(tile + t * pitch + u));
          asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to),
                       "l"(src + (source * a.n + s0) * a.k + u), "n"(W)
                       : "memory");
          source += row_step;
          while (source >= a.m) source -= a.m;
        }
      } else {
        for (std::int64_t t = lane_row; t < tile_rows;
             t += std::int64_t{row_step} * column_unroll) {
          word v[column_unroll];
#pragma unroll
          for (int q = 0; q < column_unroll; ++q) {
            if (t + q * row_step < tile_rows) v[q] = src[(source * a.n + s0) * a.k + u];
            source += row_step;
            while (source >= a.m) source -= a.m;
          }
#pragma unroll
          for (int q = 0; q < column_unroll; ++q)
            if (t + q * row_step < tile_rows) tile[(t + q * row_step) * pitch + u] = v[q];
        }
      }
    }
  }
  if constexpr (async_tile_loads<W>) asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  if (lane_row >= row_step) return;
  word* out = reinterpret_cast<word*>(scratch) +
              (std::int64_t{blockIdx.y} * a.m + x0) * static_cast<std::int64_t>(pitch);
  for (std::uint32_t u = lane; u < words; u += lanes) {
    const std::int64_t delta = delta_of(a, s0, width, a.by_k.div(u));
    for (std::int64_t x = lane_row; x < rows; x += row_step)
      out[x * pitch + u] = tile[(x + delta) * pitch + u];
  }
}

template <int W, bool Discard>
__global__ void __launch_bounds__(column_threads)
    column_gather_kernel(unsigned char* data, const unsigned char* scratch, column_args a) {
  using word = word_t<W>;
  const column_block_threads g(a);
  const std::int64_t s0 = g.s0;
  const std::uint32_t words = g.words, pitch = a.segment_words, lanes = g.lanes, lane = g.lane;
  const std::uint32_t row_step = g.row_step, lane_row = g.lane_row;
  if (lane_row >= row_step) return;
  const auto* from =
      reinterpret_cast<const word*>(scratch) + std::int64_t{blockIdx.y} * a.m * pitch;
  word* to = reinterpret_cast<word*>(data) + s0 * a.k;
  const std::int64_t first = std::int64_t{blockIdx.x} * row_step * column_unroll + lane_row;
  std::int64_t sources[column_unroll];
#pragma unroll
  for (int q = 0; q < column_unroll; ++q) {
    const std::int64_t r = first + q * row_step;
    sources[q] =
        a.shuffle && r < a.m ? a.by_m.mod(r * a.n + a.by_a.div(static_cast<std::uint32_t>(r))) : r;
  }
  for (std::uint32_t u = lane; u < words; u += lanes) {
    word v[column_unroll];
#pragma unroll
    for (int q = 0; q < column_unroll; ++q)
      if (first + q * row_step < a.m) v[q] = from[sources[q] * pitch + u];
#pragma unroll
    for (int q = 0; q < column_unroll; ++q)
      if (first + q * row_step < a.m) to[(first + q * row_step) * a.n * a.k + u] = v[q];
  }
  if constexpr (Discard) {
    // Each scratch row is one 128-byte line, read once and by one warp: dropped from L2 once the
    // warp has its values, so that it is never written back to DRAM.
    __syncwarp();
#if __CUDA_ARCH__ >= 800
    if (lane == 0)
      for (int q = 0; q < column_unroll; ++q)
        if (first + q * row_step < a.m)
          asm volatile("discard.global.L2 [%0], 128;" ::"l"(from + sources[q] * pitch) : "memory");
#endif
  }
}

/// A W-byte word at `address` in the shared-memory window of the cluster (any block's, sm_90).
template <int W>
__device__ __forceinline__ word_t<W> load_cluster_shared(std::uint32_t address) {
  word_t<W> v{};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (W == 16) {
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(address)
                 : "memory");
  } else if constexpr (W == 8) {
    asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];"
                 : "=r"(v.x), "=r"(v.y)
                 : "r"(address)
                 : "memory");
  } else {
    std::uint32_t x;
    if constexpr (W == 4)
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(address) : "memory");
    else if constexpr (W == 2)
      asm volatile("ld.shared::cluster.u16 %0, [%1];" : "=r"(x) : "r"(address) : "memory");
    else
      asm volatile("ld.shared::cluster.u8 %0, [%1];" : "=r"(x) : "r"(address) : "memory");
    v = static_cast<word_t<W>>(x);
  }
#else
  (void)address;
#endif
  return v;
}

// ---- column phases in one pass through a thread-block cluster ---------------------------------

/// A column block of the column kernels held whole in the distributed shared memory of a thread
/// block cluster (sm_90): rank c of the cluster holds rotated rows [c R, c R + R) of the block.
struct cluster_args {
  column_args columns;               ///< the phase, the block width, the rotations
  std::uint32_t rows_per_block = 1;  ///< R
  fast_divmod by_rows;               ///< a rotated row -> the rank that holds it
};

/// column_cluster_kernel: the pre-rotation or the column shuffle of one column block per cluster,
///   the block read once from memory and written once. Rotated row x holds, in column t of the
///   block, source row (x + base + delta(t)) mod m. Rank c of the cluster:
///   (1) loads the source rows (c R + base + j) mod m, j < rows + span - 1, whole row segments
///       (coalesced, through registers, a few rows in flight per thread), each word t into its
///       rotated row j - delta(t) when that row is one of the rank's own;
///   (2) synchronizes the cluster;
///   (3) writes its output rows r = c R + i: rotated row p = g(r) (column shuffle) or r
///       (pre-rotation), a whole row segment read from the shared memory of rank floor(p / R),
///       often another block's (distributed shared memory, contiguous reads);
///   (4) synchronizes the cluster again, so that no block leaves while another still reads it.
///   A row's index terms (its source row; the address of its rotated row) are computed by one
///   lane for 32 rows at a time and handed to the warp by shuffles, so that a row costs the warp
///   a few instructions. Loads go through registers rather than cp.async: compute-sanitizer's
///   racecheck takes cp.async writes followed by a cluster barrier for races (a 20-line kernel
///   reproduces it); in the same loop the two ran at the same speed. A row segment of at most 32
///   words is covered by `pitch` lanes, 32 / pitch rows per warp instruction; a longer one by the
///   whole warp in steps of 32 words. The skewed stores of (1) meet every bank once per warp
///   where a segment is 32 words.
template <int W>
__global__ void __launch_bounds__(cluster_threads<W>, 2)
    column_cluster_kernel(unsigned char* data, cluster_args c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using word = word_t<W>;
  constexpr int unroll = W >= 8 ? 4 : 8;  // loads in flight per thread
  constexpr unsigned full = 0xffffffffu;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  word* tile = reinterpret_cast<word*>(shared_bytes);
  const cg::cluster_group cluster = cg::this_cluster();
  const column_args& a = c.columns;
  // Rows, columns and tile rows are below 2^31 (row_column_limits): 32-bit, for the registers.
  const auto m = static_cast<std::int32_t>(a.m);
  const std::uint32_t rank = cluster.block_rank(), ranks = cluster.num_blocks();
  const auto s0 = static_cast<std::int32_t>((a.first_block + blockIdx.x / ranks) * a.block_cols);
  const std::int32_t width = static_cast<std::int32_t>(a.n) - s0 < std::int32_t(a.block_cols)
                                 ? static_cast<std::int32_t>(a.n) - s0
                                 : std::int32_t(a.block_cols);
  const std::uint32_t words = static_cast<std::uint32_t>(width) * a.k;
  const std::uint32_t pitch = a.segment_words;
  // Lanes per row segment and rows per warp instruction.
  const std::uint32_t lanes = pitch < 32 ? pitch : 32;
  const std::uint32_t per_warp = 32 / lanes;
  const std::uint32_t lane = threadIdx.x % 32, group = lane / lanes, lane_word = lane % lanes;
  const bool lane_works = group < per_warp;
  const std::int32_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const auto x0 = static_cast<std::int32_t>(rank * c.rows_per_block);
  const std::int32_t rows =
      m - x0 < std::int32_t(c.rows_per_block) ? m - x0 : std::int32_t(c.rows_per_block);
  const block_rotation rot = rotation_of(a, s0, width);
  word* const matrix = reinterpret_cast<word*>(data) + std::int64_t{s0} * a.k;
  const std::int64_t row_words = a.n * a.k;
  const std::int32_t sources = rows > 0 ? rows + static_cast<std::int32_t>(rot.span) - 1 : 0;
  const auto first_source = static_cast<std::int32_t>((x0 + rot.base) % m);
  for (std::int32_t batch = warp * 32; batch < sources; batch += warps * 32) {
    // Lane l: source row j = batch + l.
    std::int32_t source = first_source + batch + static_cast<std::int32_t>(lane);
    while (source >= m) source -= m;  // at most a few times: span <= block_cols, rows <= m
    const std::int32_t count = sources - batch < 32 ? sources - batch : 32;
    for (std::uint32_t step = 0; step < words; step += lanes) {  // the same steps in every lane
      const std::uint32_t u = step + lane_word;
      const bool word_works = lane_works && u < words;
      const auto delta =
          word_works ? static_cast<std::int32_t>(delta_of(a, s0, width, a.by_k.div(u))) : 0;
      for (std::int32_t rr = 0; rr < count; rr += per_warp * unroll) {
        word v[unroll];
        std::int32_t rotated[unroll];  // a row of the block's tile, or -1
#pragma unroll
        for (int q = 0; q < unroll; ++q) {
          const std::int32_t row = rr + q * per_warp + group;
          const std::int32_t from = __shfl_sync(full, source, row & 31);
          const std::int32_t i = batch + row - delta;
          rotated[q] = word_works && row < count && i >= 0 && i < rows ? i : -1;
          if (rotated[q] >= 0) v[q] = matrix[from * row_words + u];
        }
#pragma unroll
        for (int q = 0; q < unroll; ++q)
          if (rotated[q] >= 0) tile[rotated[q] * pitch + u] = v[q];
      }
    }
  }
  cluster.sync();
  const auto tile_address = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
  for (std::int32_t batch = warp * 32; batch < rows; batch += warps * 32) {
    // Lane l: the address, in the cluster's shared window, of the segment of rotated row
    // p(x0 + batch + l).
    std::uint32_t rotated = 0;
    if (batch + static_cast<std::int32_t>(lane) < rows) {
      const std::int64_t r = x0 + batch + lane;
      const auto p = static_cast<std::uint32_t>(
          a.shuffle ? a.by_m.mod(r * a.n + a.by_a.div(static_cast<std::uint32_t>(r))) : r);
      const std::uint32_t owner = c.by_rows.div(p);
      const std::uint32_t local = tile_address + (p - owner * c.rows_per_block) * pitch * W;
      asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rotated) : "r"(local), "r"(owner));
    }
    const std::int32_t count = rows - batch < 32 ? rows - batch : 32;
    word* const out = matrix + std::int64_t{x0 + batch} * row_words;
    for (std::uint32_t step = 0; step < words; step += lanes) {  // the same steps in every lane
      const std::uint32_t u = step + lane_word;
      const bool word_works = lane_works && u < words;
      for (std::int32_t rr = 0; rr < count; rr += per_warp * column_unroll) {
        word v[column_unroll];
#pragma unroll
        for (int q = 0; q < column_unroll; ++q) {
          const std::int32_t row = rr + q * per_warp + group;
          const std::uint32_t from = __shfl_sync(full, rotated, row & 31);
          if (word_works && row < count) v[q] = load_cluster_shared<W>(from + u * W);
        }
#pragma unroll
        for (int q = 0; q < column_unroll; ++q) {
          const std::int32_t row = rr + q * per_warp + group;
          if (word_works && row < count) out[row * row_words + u] = v[q];
        }
      }
    }
  }
  cluster.sync();
#else
  // Built without sm_90 code: device_has_clusters keeps the launchers off this kernel.
  __trap();
#endif
}

/// Rows of the matrix column_gather_kernel's blocks copy: row_step rows, column_unroll times.
__host__ inline std::int64_t gather_rows_per_block(std::uint32_t segment_words) {
  const std::uint32_t lanes =
      segment_words < static_cast<std::uint32_t>(column_threads) ? segment_words : column_threads;
  return std::int64_t{column_threads / lanes} * column_unroll;
}

}  // namespace xpose::detail::cuda::row_column
