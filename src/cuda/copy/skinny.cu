// Out-of-place transposition of skinny matrices of 1-, 2-, 4-, 8- and 16-byte elements (one side
// short: the AoS <-> SoA case, or fewer rows than copy_tuned's tile and the tiles too empty),
// where a square tile would be mostly empty (the tiles of the lecture slides "Matrix Transpose —
// get 90% bandwidth" stretched along the long side). A slab is the whole short side S times a
// stretch L of the long side; two kinds, chosen per shape (choose_slabs_for):
// Plain slabs, one per block at a time, grid-stride:
//   wide (S rows): S x L source elements -> L contiguous destination rows of S elements; the slab
//     is loaded with 16-byte row loads where rows start on 16 bytes (element loads elsewhere), and
//     the destination (dense when ldb == S) is written as one contiguous run of 16-byte stores;
//   tall (S columns): L x S source elements (one contiguous run when lda == S, loaded with
//     16-byte loads) -> S destination row segments of L elements, written with 16-byte stores
//     where they start on 16 bytes (element stores elsewhere).
//   Shared memory holds the slab with the short dimension outermost, rows plain_pitch apart.
// Shifted slabs: the slab scheme of skinny_any_size (copy/skinny_any_size_kernel.cuh):
// the source fetched as the aligned 16-byte chunks that cover it with cp.async into one of two
// source slabs while the other is moved, with step 2 made for power-of-two elements so that
// shared memory serves it without bank conflicts:
//   wide: a thread takes 16 bytes of one source row (two aligned chunks of its row in the source
//     slab, shifted by the row's misalignment) and stores their 16 / E elements to the
//     destination slab in destination order (element (r, c) at byte (c * S + r) * E); the lanes
//     of a warp take consecutive rows, so one store instruction writes consecutive elements. The
//     destination is written as the aligned 16-byte chunks that cover its runs.
//   tall: the mirror: a thread gathers 16 / E elements of one column from the source slab (lanes
//     on consecutive columns: consecutive elements) and stores them as one aligned 16-byte chunk
//     of that column's destination row in the destination slab. A slab owns the aligned chunks
//     of each destination row that start in its segment: the last one ends in a halo of 16 / E
//     rows fetched after the slab, so that only the matrix's first and last rows cut a chunk.
//   With fewer than 32 rows (columns) a warp's lanes also take consecutive chunks j, whose
//   elements lie 16 * S bytes apart in the destination (source) slab: 4 * S words, for an odd S
//   of 5 or more in as many banks as there are chunks, for S = 3 at most two in one (still
//   cheaper than turning them: 1-byte 44739233 x 3 0.85 x copy against 0.77), for an even S often
//   all in the same ones. For an even S from 4 the slab is spaced, 16 bytes after each chunk's
//   group (spaced_group_bytes), where the run along the long side is dense and on 16 bytes;
//   otherwise lane j starts at its chunk's element j mod (16 / E) and goes round (turned_for),
//   which costs more instructions.
// The plain slabs alone (with rows 16 bytes apart in shared memory, a multiple of 128 for some S:
// 8.8-way bank conflicts) run far behind. H100: 1-byte 4000001 x 33 at 0.17 x copy.
// 64-bit global index math.
#include <cstdint>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/any_size_kernel.cuh"
#include "cuda/copy/launchers.hpp"
#include "cuda/copy/skinny_any_size_kernel.cuh"

namespace xpose::detail::cuda {

namespace {

/// Bytes from `bytes` up to a multiple of 16 that is an odd multiple (consecutive rows of slabs
/// that far apart start in different banks).
constexpr int odd_chunks(int bytes) {
  const int chunks = (bytes + 15) / 16;
  return 16 * (chunks % 2 == 1 ? chunks : chunks + 1);
}

/// Bytes from one row of a plain slab of `row_bytes` (the short side's rows) to the next: 16 more,
/// and 16 more again where that would be a multiple of 128 (every row on the same banks). Odd
/// numbers of chunks throughout cost 4-byte wide shapes of 3-16 rows 0.04-0.07.
/// H100: 1-byte 33 x 4000000 0.56 x copy, 0.84 with 16 more.
__host__ __device__ constexpr int plain_pitch(int row_bytes) {
  return (row_bytes + 16) % 128 == 0 ? row_bytes + 32 : row_bytes + 16;
}

constexpr int plain_slab_threads = 256;
constexpr int plain_slab_bytes = 16 * 1024;
/// Shifted slabs of 16 KiB (24 KiB run level or behind).
/// H100: 0.01-0.1 x copy faster than 8, 12 and 32 KiB ones on most shapes.
constexpr int shifted_slab_bytes = 16 * 1024;

__device__ bool aligned_16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0;
}

/// Plain wide slabs: `rows` x slab_cols columns (slab_cols * E a multiple of 16), rows
/// plain_pitch(slab_cols * E) bytes apart in shared memory.
template <int E>
__global__ void __launch_bounds__(plain_slab_threads)
    plain_wide_slab_kernel(const element_t<E>* __restrict__ src, element_t<E>* __restrict__ dst,
                           int rows, std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                           std::int64_t src_stride, std::int64_t dst_stride, int slab_cols,
                           std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  using element = element_t<E>;
  constexpr int P = 16 / E;
  extern __shared__ __align__(16) unsigned char slab[];
  const int pitch = plain_pitch(slab_cols * E);
  const int chunks_per_row = slab_cols * E / 16;
  for (std::int64_t t = blockIdx.x; t < total_slabs; t += gridDim.x) {
    const std::int64_t b = t / slabs_per_matrix;
    const std::int64_t c0 = (t - b * slabs_per_matrix) * slab_cols;
    const int valid_cols = static_cast<int>(cols - c0 < slab_cols ? cols - c0 : slab_cols);
    const element* s = src + b * src_stride + c0;
    element* d = dst + b * dst_stride + c0 * ldb;
    for (int idx = threadIdx.x; idx < rows * chunks_per_row; idx += plain_slab_threads) {
      const int r = idx / chunks_per_row, col = (idx - r * chunks_per_row) * P;
      const element* p = s + r * lda + col;
      unsigned char* out = slab + r * pitch + col * E;
      if (col + P <= valid_cols && aligned_16(p)) {
        *reinterpret_cast<uint4*>(out) = __ldcg(reinterpret_cast<const uint4*>(p));
      } else {
        for (int e = 0; e < P && col + e < valid_cols; ++e)
          reinterpret_cast<element*>(out)[e] = p[e];
      }
    }
    __syncthreads();
    const int total = valid_cols * rows;  // destination elements of this slab
    if (ldb == rows) {
      // Dense destination: elements k = c * rows + r of one contiguous run.
      for (int k0 = threadIdx.x * P; k0 < total; k0 += plain_slab_threads * P) {
        int c = k0 / rows, r = k0 - c * rows;
        if (k0 + P <= total && aligned_16(d + k0)) {
          uint4 v;
          element* parts = reinterpret_cast<element*>(&v);
#pragma unroll
          for (int i = 0; i < P; ++i) {
            parts[i] = *reinterpret_cast<const element*>(slab + r * pitch + c * E);
            if (++r == rows) r = 0, ++c;
          }
          __stcg(reinterpret_cast<uint4*>(d + k0), v);
        } else {
          for (int k = k0; k < k0 + P && k < total; ++k) {
            d[k] = *reinterpret_cast<const element*>(slab + r * pitch + c * E);
            if (++r == rows) r = 0, ++c;
          }
        }
      }
    } else {
      for (int k = threadIdx.x; k < total; k += plain_slab_threads) {
        const int c = k / rows, r = k - c * rows;
        d[c * ldb + r] = *reinterpret_cast<const element*>(slab + r * pitch + c * E);
      }
    }
    __syncthreads();
  }
}

/// Plain tall slabs: slab_rows rows (slab_rows * E a multiple of 16) x `cols`, the destination
/// rows plain_pitch(slab_rows * E) bytes apart in shared memory.
template <int E>
__global__ void __launch_bounds__(plain_slab_threads)
    plain_tall_slab_kernel(const element_t<E>* __restrict__ src, element_t<E>* __restrict__ dst,
                           std::int64_t rows, int cols, std::int64_t lda, std::int64_t ldb,
                           std::int64_t src_stride, std::int64_t dst_stride, int slab_rows,
                           std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  using element = element_t<E>;
  constexpr int P = 16 / E;
  extern __shared__ __align__(16) unsigned char slab[];
  const int pitch = plain_pitch(slab_rows * E);
  const int chunks_per_row = slab_rows * E / 16;
  for (std::int64_t t = blockIdx.x; t < total_slabs; t += gridDim.x) {
    const std::int64_t b = t / slabs_per_matrix;
    const std::int64_t r0 = (t - b * slabs_per_matrix) * slab_rows;
    const int valid_rows = static_cast<int>(rows - r0 < slab_rows ? rows - r0 : slab_rows);
    const element* s = src + b * src_stride + r0 * lda;
    element* d = dst + b * dst_stride + r0;
    const int total = valid_rows * cols;  // source elements of this slab
    if (lda == cols) {
      // Dense source: elements k = r * cols + c of one contiguous run.
      for (int k0 = threadIdx.x * P; k0 < total; k0 += plain_slab_threads * P) {
        int r = k0 / cols, c = k0 - r * cols;
        if (k0 + P <= total && aligned_16(s + k0)) {
          const uint4 v = __ldcg(reinterpret_cast<const uint4*>(s + k0));
          const element* parts = reinterpret_cast<const element*>(&v);
#pragma unroll
          for (int i = 0; i < P; ++i) {
            *reinterpret_cast<element*>(slab + c * pitch + r * E) = parts[i];
            if (++c == cols) c = 0, ++r;
          }
        } else {
          for (int k = k0; k < k0 + P && k < total; ++k) {
            *reinterpret_cast<element*>(slab + c * pitch + r * E) = s[k];
            if (++c == cols) c = 0, ++r;
          }
        }
      }
    } else {
      for (int k = threadIdx.x; k < total; k += plain_slab_threads) {
        const int r = k / cols, c = k - r * cols;
        *reinterpret_cast<element*>(slab + c * pitch + r * E) = s[r * lda + c];
      }
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < cols * chunks_per_row; idx += plain_slab_threads) {
      const int c = idx / chunks_per_row, row = (idx - c * chunks_per_row) * P;
      element* p = d + c * ldb + row;
      const unsigned char* in = slab + c * pitch + row * E;
      if (row + P <= valid_rows && aligned_16(p)) {
        __stcg(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(in));
      } else {
        for (int e = 0; e < P && row + e < valid_rows; ++e)
          p[e] = reinterpret_cast<const element*>(in)[e];
      }
    }
    __syncthreads();
  }
}

/// Bytes from one 16-byte chunk's elements of every row to the next chunk's in the destination
/// slab of a wide shifted slab of `short_side` rows: 16 * short_side, or spaced 16 more. For an
/// even short side that is 4 * (short_side + 1) words: the chunks a warp takes, up to 8, land in
/// different banks; turning the elements instead costs 1-byte 8 x 16777217 0.79 x copy against
/// 0.91 spaced. A tall slab's source run is spaced the same way, 16 bytes after every `cols`
/// chunks.
__device__ __forceinline__ int spaced_group_bytes(int short_side, bool spaced) {
  return 16 * short_side + (spaced ? 16 : 0);
}

/// Whether step 2 of shifted slabs of `short_side` rows (columns) turns each chunk's elements
/// (where not spaced).
__device__ __forceinline__ bool turned_for(int short_side) {
  return short_side < 32 && (short_side % 2 == 0 || short_side == 1);
}

/// The 16 bytes `v` turned down by `bytes` (0 .. 15): byte k of the result is byte (k + bytes)
/// mod 16 of v.
__device__ __forceinline__ void turn_down(unsigned (&v)[4], int bytes) {
  const uint4 both = make_uint4(v[0], v[1], v[2], v[3]);
  shift_bytes_down<4>(both, both, bytes, v);
}

/// Element i (a compile-time constant after unrolling) of the 16 bytes `v`, stored to `to`.
template <int E>
__device__ __forceinline__ void store_element(unsigned char* to, const unsigned (&v)[4], int i) {
  if constexpr (E == 1)
    *to = static_cast<unsigned char>(v[i / 4] >> (8 * (i % 4)));
  else if constexpr (E == 2)
    *reinterpret_cast<unsigned short*>(to) =
        static_cast<unsigned short>(v[i / 2] >> (16 * (i % 2)));
  else if constexpr (E == 4)
    *reinterpret_cast<unsigned*>(to) = v[i];
  else if constexpr (E == 8)
    *reinterpret_cast<uint2*>(to) = make_uint2(v[2 * i], v[2 * i + 1]);
  else
    *reinterpret_cast<uint4*>(to) = make_uint4(v[0], v[1], v[2], v[3]);
}

/// Element i of the 16 bytes `v` loaded from `from` (the other bytes of v kept).
template <int E>
__device__ __forceinline__ void load_element(const unsigned char* from, unsigned (&v)[4], int i) {
  if constexpr (E == 1) {
    const unsigned shift = 8 * (i % 4);
    v[i / 4] = (v[i / 4] & ~(0xFFu << shift)) | (unsigned{*from} << shift);
  } else if constexpr (E == 2) {
    const unsigned shift = 16 * (i % 2);
    v[i / 2] = (v[i / 2] & ~(0xFFFFu << shift)) |
               (unsigned{*reinterpret_cast<const unsigned short*>(from)} << shift);
  } else if constexpr (E == 4) {
    v[i] = *reinterpret_cast<const unsigned*>(from);
  } else if constexpr (E == 8) {
    const uint2 pair = *reinterpret_cast<const uint2*>(from);
    v[2 * i] = pair.x;
    v[2 * i + 1] = pair.y;
  } else {
    const uint4 all = *reinterpret_cast<const uint4*>(from);
    v[0] = all.x, v[1] = all.y, v[2] = all.z, v[3] = all.w;
  }
}

/// Wide slabs: `rows` (the short side) x slab_cols columns per slab. Shared memory holds two
/// source slabs of `buffer_bytes`, row r's covering chunks from byte r * pitch (pitch / 16 odd:
/// consecutive rows' chunks j in different banks), then from byte staging_at the destination
/// slab. Sizes in elements, strides in bytes.
template <int E>
__global__ void __launch_bounds__(skinny_any_size_threads)
    shifted_wide_slab_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                             int rows, std::int64_t cols, std::int64_t lda, std::int64_t ldb,
                             std::int64_t src_stride, std::int64_t dst_stride, int slab_cols,
                             int pitch, int buffer_bytes, int staging_at, bool spaced,
                             std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  constexpr int threads = skinny_any_size_threads;
  constexpr int per_chunk = 16 / E;
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* staging = shared + staging_at;
  const auto fetch = [&](std::int64_t t, unsigned char* buffer) {
    const slab_place p(t, slabs_per_matrix, slab_cols, cols);
    const unsigned char* s = src + p.matrix * src_stride + p.first * E;
    const unsigned char* end = src + p.matrix * src_stride + (rows - 1) * lda + cols * E;
    const int row_bytes = p.valid * E;
    for (split_index rj(threadIdx.x, threads, pitch / 16); rj.major < rows; rj.advance()) {
      const unsigned char* row = s + rj.major * lda;
      const int shift = misalignment(row);
      if (16 * rj.minor < shift + row_bytes)
        fetch_chunk(buffer + rj.major * pitch + 16 * rj.minor, row - shift + 16 * rj.minor, end);
    }
  };
  const auto move = [&](std::int64_t t, const unsigned char* slab) {
    const slab_place p(t, slabs_per_matrix, slab_cols, cols);
    const auto s_low = static_cast<unsigned>(
        reinterpret_cast<std::uintptr_t>(src + p.matrix * src_stride + p.first * E));
    const auto lda_low = static_cast<unsigned>(lda);
    // 2. Chunk j of row r (its elements c = j * per_chunk + i) to the destination slab.
    const int chunks = (p.valid * E + 15) / 16;
    const int column_bytes = rows * E, group_bytes = spaced_group_bytes(rows, spaced);
    const auto chunks_to_columns = [&](auto turned) {
      for (split_index jr(threadIdx.x, threads, rows); jr.major < chunks; jr.advance()) {
        const int j = jr.major, r = jr.minor;
        const unsigned char* at = slab + r * pitch + 16 * j;
        unsigned v[4];
        shift_bytes_down<4>(*reinterpret_cast<const uint4*>(at),
                            *reinterpret_cast<const uint4*>(at + 16),
                            static_cast<int>((s_low + r * lda_low) & 15), v);
        const unsigned first = decltype(turned)::value ? static_cast<unsigned>(j) % per_chunk : 0;
        turn_down(v, static_cast<int>(first) * E);
        unsigned char* column_zero = staging + j * group_bytes + r * E;
#pragma unroll
        for (int i = 0; i < per_chunk; ++i)
          store_element<E>(column_zero + ((first + i) % per_chunk) * column_bytes, v, i);
      }
    };
    if (!spaced && turned_for(rows))
      chunks_to_columns(std::true_type{});
    else
      chunks_to_columns(std::false_type{});
    __syncthreads();
    // 3. The destination: one run when its rows are dense, else a run per row; spaced, one run
    // on 16 bytes, its chunk k at byte 16 * k + 16 * (k / rows) of the destination slab.
    unsigned char* d = dst + p.matrix * dst_stride + p.first * ldb;
    const int row_out = rows * E;
    if (spaced) {
      const int run_bytes = p.valid * row_out;
      for (split_index gk(threadIdx.x, threads, rows);
           16 * (gk.major * rows + gk.minor) < run_bytes; gk.advance()) {
        const int at = 16 * (gk.major * rows + gk.minor);
        const unsigned char* from = staging + at + 16 * gk.major;
        if (at + 16 <= run_bytes)
          __stcg(reinterpret_cast<uint4*>(d + at), *reinterpret_cast<const uint4*>(from));
        else
          for (int b = 0; at + b < run_bytes; ++b) d[at + b] = from[b];
      }
    } else if (ldb == row_out) {
      write_runs(staging, 0, d, 0, 1, p.valid * row_out);
    } else {
      write_runs(staging, row_out, d, ldb, p.valid, row_out);
    }
  };
  pipeline_slabs(total_slabs, shared, buffer_bytes, fetch, move);
}

/// Tall slabs: slab_rows rows x `cols` (the short side) columns per slab. Shared memory holds two
/// source slabs of `buffer_bytes` (fetch_tall_slab's), then from byte staging_at the destination
/// slab's `cols` rows dst_pitch bytes apart (dst_pitch / 16 odd). Sizes in elements, strides in
/// bytes.
template <int E>
__global__ void __launch_bounds__(skinny_any_size_threads)
    shifted_tall_slab_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                             std::int64_t rows, int cols, std::int64_t lda, std::int64_t ldb,
                             std::int64_t src_stride, std::int64_t dst_stride, int slab_rows,
                             int src_pitch, int dst_pitch, int buffer_bytes, int staging_at,
                             bool spaced, std::int64_t slabs_per_matrix, std::int64_t total_slabs) {
  constexpr int threads = skinny_any_size_threads;
  constexpr int per_chunk = 16 / E;
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* staging = shared + staging_at;
  const int row_bytes = cols * E;
  const bool dense = lda == row_bytes;
  // The slab's rows and the halo after it (the elements of the last chunk a destination row's
  // segment owns), where the matrix has them.
  const auto rows_after = [&](const slab_place& p) {
    const std::int64_t left = rows - p.first;
    return static_cast<int>(left < slab_rows + per_chunk ? left : slab_rows + per_chunk);
  };
  const auto fetch = [&](std::int64_t t, unsigned char* buffer) {
    const slab_place p(t, slabs_per_matrix, slab_rows, rows);
    if (!spaced)
      return fetch_tall_slab(buffer, src, rows, row_bytes, lda, src_stride, src_pitch, p,
                             rows_after(p));
    // The run on 16 bytes, its chunk q at byte 16 * q + 16 * (q / cols) of the source slab.
    const unsigned char* s = src + p.matrix * src_stride + p.first * lda;
    const unsigned char* end = src + p.matrix * src_stride + (rows - 1) * lda + row_bytes;
    const int run_bytes = rows_after(p) * row_bytes;
    for (split_index gq(threadIdx.x, threads, cols); 16 * (gq.major * cols + gq.minor) < run_bytes;
         gq.advance()) {
      const int at = 16 * (gq.major * cols + gq.minor);
      fetch_chunk(buffer + at + 16 * gq.major, s + at, end);
    }
  };
  const auto move = [&](std::int64_t t, const unsigned char* slab) {
    const slab_place p(t, slabs_per_matrix, slab_rows, rows);
    const auto s_low = static_cast<unsigned>(
        reinterpret_cast<std::uintptr_t>(src + p.matrix * src_stride + p.first * lda));
    const auto lda_low = static_cast<unsigned>(lda);
    // Source row r's first byte in the slab (spaced: but for the 16 bytes after each chunk j).
    // The dense test stays at the kernel's scope: the compiler then unswitches the gather
    // (computed per slab, it splits the gather into a branch per element: tall 1-byte
    // 16000001 x 8 0.70 x copy against 0.84).
    const auto row_at = [&](int r) {
      return dense ? static_cast<int>(s_low & 15) + r * row_bytes
                   : r * src_pitch + static_cast<int>((s_low + r * lda_low) & 15);
    };
    // 2. Chunk j of destination row c (its elements r = j * per_chunk + i) to staging row c.
    const int rows_here = rows_after(p), chunks = (rows_here * E + 15) / 16;
    const auto columns_to_chunks = [&](auto turned) {
      for (split_index jc(threadIdx.x, threads, cols); jc.major < chunks; jc.advance()) {
        const int j = jc.major, c = jc.minor;
        const unsigned first = decltype(turned)::value ? static_cast<unsigned>(j) % per_chunk : 0;
        unsigned v[4] = {0, 0, 0, 0};
        const auto row = [&](int i) {
          return j * per_chunk + static_cast<int>((first + i) % per_chunk);
        };
        const unsigned char* column = slab + c * E + (spaced ? 16 * j : 0);
        if ((j + 1) * per_chunk <= rows_here) {
#pragma unroll
          for (int i = 0; i < per_chunk; ++i) load_element<E>(column + row_at(row(i)), v, i);
        } else {  // the chunk the matrix's last row cuts
#pragma unroll
          for (int i = 0; i < per_chunk; ++i)
            if (row(i) < rows_here) load_element<E>(column + row_at(row(i)), v, i);
        }
        turn_down(v, static_cast<int>(16 - first * E) & 15);
        *reinterpret_cast<uint4*>(staging + c * dst_pitch + 16 * j) =
            make_uint4(v[0], v[1], v[2], v[3]);
      }
    };
    if (!spaced && turned_for(cols))
      columns_to_chunks(std::true_type{});
    else
      columns_to_chunks(std::false_type{});
    __syncthreads();
    // 3. Destination row c's segment from staging row c: the aligned 16-byte chunks that start
    // in it, the last one ending in the halo (only the matrix's end cuts one), and in the first
    // slab also the bytes before the first chunk.
    unsigned char* d = dst + p.matrix * dst_stride + p.first * E;
    const int bytes_left = static_cast<int>(
        rows - p.first < slab_rows + per_chunk ? (rows - p.first) * E : p.valid * E + 16);
    write_owned_chunks(staging, dst_pitch, d, ldb, cols, p.valid * E, bytes_left, p.first == 0);
  };
  pipeline_slabs(total_slabs, shared, buffer_bytes, fetch, move);
}

template <int E>
void launch_shifted(const copy_args& a, cudaStream_t stream) {
  const auto* src = static_cast<const unsigned char*>(a.src);
  auto* dst = static_cast<unsigned char*>(a.dst);
  const bool wide = a.rows <= a.cols;
  const int short_side = static_cast<int>(wide ? a.rows : a.cols);
  const std::int64_t long_side = wide ? a.cols : a.rows;
  // A multiple of 16 long-side indices (each slab's chunks then start where the first slab's
  // do), about shifted_slab_bytes of source slab, no more than the long side needs. Padded
  // source rows of a tall slab take their covering chunks each (src_pitch).
  const auto covering = [](int bytes) { return (15 + bytes + 15) / 16 * 16; };  // any alignment
  const bool dense_source = wide || a.lda == short_side;
  const int src_pitch = covering(short_side * E);
  const int index_bytes = dense_source ? short_side * E : src_pitch;
  const std::int64_t fit = shifted_slab_bytes / index_bytes / 16 * 16;
  const std::int64_t needed = (long_side + 15) / 16 * 16;
  const int length = static_cast<int>(fit < 16 ? 16 : fit < needed ? fit : needed);
  const std::int64_t per_matrix = (long_side + length - 1) / length;
  const std::int64_t total = per_matrix * a.batch;
  constexpr int slack = 16;  // word reads past a run (read_16_bytes_at)
  // Spaced slabs (spaced_group_bytes) for an even short side from 4 to 30, where the run along
  // the long side (a wide matrix's destination, a tall one's source) is dense and every slab's
  // starts on 16 bytes. With 2 rows (columns) a warp takes 16 chunks, 8 banks apart: turned
  // ones run faster (2-byte 33554433 x 2 0.86 against 0.75 x copy).
  const bool even_and_narrow = short_side >= 4 && short_side < 32 && short_side % 2 == 0;
  const auto runs_aligned = [](const void* base, std::int64_t stride, std::int64_t batch) {
    return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && (batch == 1 || stride * E % 16 == 0);
  };
  if (wide) {
    const bool spaced =
        even_and_narrow && a.ldb == short_side && runs_aligned(a.dst, a.dst_stride, a.batch);
    const int pitch = odd_chunks(length * E + 16);  // a row's covering chunks, and the next
    const int buffer_bytes = short_side * pitch;
    const int staging_at = 2 * buffer_bytes;
    const int shared = staging_at + length * short_side * E + (spaced ? length * E : 0) + slack;
    const auto kernel = shifted_wide_slab_kernel<E>;
    constexpr const char* name = "shifted_wide_slab_kernel launch";
    allow_dynamic_shared(kernel, shared, name);
    kernel<<<resident_grid(kernel, shared, total, name), skinny_any_size_threads, shared, stream>>>(
        src, dst, short_side, a.cols, a.lda * E, a.ldb * E, a.src_stride * E, a.dst_stride * E,
        length, pitch, buffer_bytes, staging_at, spaced, per_matrix, total);
    check_launch(name);
  } else {
    const int row_bytes = short_side * E;
    const bool spaced =
        even_and_narrow && dense_source && runs_aligned(a.src, a.src_stride, a.batch);
    const int fetched = length + 16 / E;  // the slab's rows and the halo
    const int buffer_bytes = (dense_source ? covering(fetched * row_bytes) : fetched * src_pitch) +
                             (spaced ? 16 * (fetched * E / 16 + 1) : 0) + slack;
    const int dst_pitch = odd_chunks(fetched * E);
    const int staging_at = 2 * buffer_bytes;
    const int shared = staging_at + short_side * dst_pitch + slack;
    const auto kernel = shifted_tall_slab_kernel<E>;
    constexpr const char* name = "shifted_tall_slab_kernel launch";
    allow_dynamic_shared(kernel, shared, name);
    kernel<<<resident_grid(kernel, shared, total, name), skinny_any_size_threads, shared, stream>>>(
        src, dst, a.rows, short_side, a.lda * E, a.ldb * E, a.src_stride * E, a.dst_stride * E,
        length, src_pitch, dst_pitch, buffer_bytes, staging_at, spaced, per_matrix, total);
    check_launch(name);
  }
}

/// Plain slabs' length along the long dimension: about plain_slab_bytes of data, a multiple of
/// 16 bytes.
int plain_slab_length(std::int64_t short_side, int e) {
  const std::int64_t units = plain_slab_bytes / (short_side * 16);
  return static_cast<int>((units > 0 ? units : 1) * 16 / e);
}

template <int E>
void launch_plain(const copy_args& a, cudaStream_t stream) {
  const bool wide = a.rows <= a.cols;
  const int length = plain_slab_length(wide ? a.rows : a.cols, E);
  const std::int64_t per_matrix = ((wide ? a.cols : a.rows) + length - 1) / length;
  const std::int64_t total = per_matrix * a.batch;
  const std::size_t shared =
      static_cast<std::size_t>(wide ? a.rows : a.cols) * plain_pitch(length * E);
  const auto* src = static_cast<const element_t<E>*>(a.src);
  auto* dst = static_cast<element_t<E>*>(a.dst);
  if (wide) {
    plain_wide_slab_kernel<E><<<grid_for(total), plain_slab_threads, shared, stream>>>(
        src, dst, static_cast<int>(a.rows), a.cols, a.lda, a.ldb, a.src_stride, a.dst_stride,
        length, per_matrix, total);
    check_launch("plain_wide_slab_kernel launch");
  } else {
    plain_tall_slab_kernel<E><<<grid_for(total), plain_slab_threads, shared, stream>>>(
        src, dst, a.rows, static_cast<int>(a.cols), a.lda, a.ldb, a.src_stride, a.dst_stride,
        length, per_matrix, total);
    check_launch("plain_tall_slab_kernel launch");
  }
}

/// The plain slabs where they run faster than the shifted ones: their vector paths need the rows
/// along the long side (a wide matrix's source rows, a tall one's destination rows) to start on 16
/// bytes, and their element accesses cost elements of 2 bytes and more less. Plain where:
/// - wide: S < 5 with aligned rows or elements of 2 bytes or more, 2-byte ones aligned up to
///   S = 32, 4-byte ones with S < 32 or aligned, 8- and 16-byte;
/// - tall: S <= 64 with aligned rows, elements of 4 bytes and more with S < 48, 8- and 16-byte;
/// shifted otherwise.
/// H100: tall 1-byte 4194305 x 32 0.86 x copy shifted against 0.20 plain.
template <int E>
skinny_slabs choose_slabs_for(const copy_args& a) {
  constexpr auto plain = skinny_slabs::plain, shifted = skinny_slabs::shifted;
  if (E >= 8) return plain;
  if (a.rows <= a.cols) {  // wide
    const bool aligned = rows_aligned(a.src, a.lda, a.src_stride, a.batch, E, 16);
    if (E == 1) return aligned && a.rows < 5 ? plain : shifted;
    if (E == 2) return a.rows < 5 || (aligned && a.rows <= 32) ? plain : shifted;
    return a.rows < 32 || aligned ? plain : shifted;
  }
  const bool aligned = rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 16);
  return (a.cols <= 64 && aligned) || (E == 4 && a.cols < 48) ? plain : shifted;
}

}  // namespace

skinny_slabs choose_skinny_slabs(const copy_args& a, int word_bytes) {
  return with_word(word_bytes, "launch_copy_skinny",
                   [&](auto w) { return choose_slabs_for<decltype(w)::value>(a); });
}

void launch_copy_skinny_slabs(const copy_args& a, int word_bytes, skinny_slabs slabs,
                              cudaStream_t stream) {
  with_word(word_bytes, "launch_copy_skinny", [&](auto w) {
    constexpr int E = decltype(w)::value;
    if (slabs == skinny_slabs::plain)
      launch_plain<E>(a, stream);
    else
      launch_shifted<E>(a, stream);
  });
}

void launch_copy_skinny(const copy_args& a, int word_bytes, cudaStream_t stream) {
  launch_copy_skinny_slabs(a, word_bytes, choose_skinny_slabs(a, word_bytes), stream);
}

}  // namespace xpose::detail::cuda
