// Block-level pieces of the tuned kernels: move a TILE_ROWS x (TILE_BYTES / E) tile of E-byte
// elements from global memory into shared memory with 16-byte loads, and write it back
// transposed with 16-byte stores. Out-of-place transposition (the shared-memory tiles of the
// lecture slides "Matrix Transpose — get 90% bandwidth", with more work per thread taken to
// Hopper's 16-byte accesses) and the square tile swap are built from these.
//
// Shared memory holds the tile row by row (TILE_BYTES per row, no padding), in 16-byte chunks
// whose index is XOR-swizzled by the row: chunk c of row r sits at c ^ swizzle(r). Loads write
// whole chunks, 8 lanes per 128-byte row segment: conflict-free for any swizzle. Stores: each
// lane reads P = 16/E consecutive tile rows of one shared-memory word (4 bytes for E <= 4,
// else E) and transposes them in registers (byte/halfword permutes for E < 4) into 16-byte
// output vectors, one per tile column held by the word. The swizzle sends the 4 row groups that
// share a 128-byte bank cycle to 4 different chunk pairs, so these reads are conflict-free too.
//
// Global accesses are 16-byte cache-global loads and stores (load_chunk_l2_prefetch, __stcg):
// they stay whole 16-byte instructions (a plain uint4 store is split into four 4-byte ones) and
// bypass L1, which also keeps in-place use coherent. Assumes: 128 | TILE_BYTES; TILE_ROWS a
// multiple of the rows one warp's read step covers. Tiles of 16-byte aligned rows, interior or cut
// by the matrix's edges, take unrolled vector paths. Whole tiles of rows at any 16-byte offset
// are funnel-shifted in registers on the way in and on the way out (load_whole_any_alignment,
// store_whole_any_alignment), so shared memory keeps the plain layout. Otherwise rows are
// shifted to their 16-byte boundary in shared memory (load_shifted) and written back as aligned
// 16-byte chunks gathered element by element from shared memory (store_transposed_shifted);
// global element accesses only at row ends. 64-bit index math.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace xpose::detail::cuda {

template <int E>
struct element_of_size;
template <>
struct element_of_size<1> {
  using type = std::uint8_t;
};
template <>
struct element_of_size<2> {
  using type = std::uint16_t;
};
template <>
struct element_of_size<4> {
  using type = std::uint32_t;
};
template <>
struct element_of_size<8> {
  using type = uint2;
};
template <>
struct element_of_size<16> {
  using type = uint4;
};

template <int E>
using element_t = typename element_of_size<E>::type;

/// Every kernel's 16-byte global loads: the L2 is asked to fetch the whole 256-byte block of a
/// sector it misses from DRAM (the .L2::256B prefetch size of ld), since the kernels read their
/// rows' neighbouring bytes soon after (the rest of a tile's row segment, the next tile's).
/// H100: copy_tuned 1-byte 16384 x 16384 0.958 x copy vs 0.930 without the hint.
/// load_chunk_l2_prefetch: cached in the L2 only (ld.global.cg, as __ldcg: also coherent for the
/// in-place kernels, which write what other blocks read).
__device__ __forceinline__ uint4 load_chunk_l2_prefetch(const uint4* chunk) {
  uint4 v;
  asm volatile("ld.global.cg.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(chunk));
  return v;
}

/// load_chunk_l1_l2_prefetch: through L1 too (ld.global.ca), for the misaligned row segments of
/// copy_unaligned and copy_any_size, whose covering chunks reach into lines the neighbouring
/// lane or tile also reads (out of place only: L1 is not coherent with other blocks' stores).
__device__ __forceinline__ uint4 load_chunk_l1_l2_prefetch(const uint4* chunk) {
  uint4 v;
  asm volatile("ld.global.ca.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(chunk));
  return v;
}

/// The 16-byte chunk at `chunk` with the bytes at or after `end` read as zero: one vector load
/// when the chunk ends before `end`, byte loads when it is cut by it, none when it lies past.
__device__ __forceinline__ uint4 load_chunk_before(const uint4* chunk, const unsigned char* end) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(chunk);
  if (bytes + 16 <= end) return load_chunk_l2_prefetch(chunk);
  // Words picked by selects, not an array indexed by i: that would live in local memory.
  uint4 v = make_uint4(0, 0, 0, 0);
  for (int i = 0; i < 16 && bytes + i < end; ++i) {
    const unsigned byte = unsigned(__ldcg(bytes + i)) << (8 * (i % 4));
    v.x |= i / 4 == 0 ? byte : 0u;
    v.y |= i / 4 == 1 ? byte : 0u;
    v.z |= i / 4 == 2 ? byte : 0u;
    v.w |= i / 4 == 3 ? byte : 0u;
  }
  return v;
}

/// Bytes [shift, shift + 16) of the 32 bytes lo, hi (little-endian), for shift in [0, 16).
/// The byte stage stays for 4-byte elements, whose shifts are multiples of 4: skipping it makes
/// copy_unaligned slower (H100: 0.79 vs 0.87-0.92 x copy).
__device__ __forceinline__ uint4 funnel_shift_16(uint4 lo, uint4 hi, int shift) {
  const unsigned a[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  unsigned by8[6], by4[5];
#pragma unroll
  for (int i = 0; i < 6; ++i) by8[i] = (shift & 8) ? a[i + 2] : a[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) by4[i] = (shift & 4) ? by8[i + 1] : by8[i];
  const unsigned bits = (shift & 3) * 8;
  return make_uint4(__funnelshift_r(by4[0], by4[1], bits), __funnelshift_r(by4[1], by4[2], bits),
                    __funnelshift_r(by4[2], by4[3], bits), __funnelshift_r(by4[3], by4[4], bits));
}

/// Lane l + 1's v in lane l of each group of `width` lanes (the last lane keeps its own).
__device__ __forceinline__ uint4 shuffle_down(uint4 v, int width) {
  return make_uint4(
      __shfl_down_sync(0xffffffffu, v.x, 1, width), __shfl_down_sync(0xffffffffu, v.y, 1, width),
      __shfl_down_sync(0xffffffffu, v.z, 1, width), __shfl_down_sync(0xffffffffu, v.w, 1, width));
}

/// Word w (0 .. 3) of `v`, picked by selects (a run-time index into a register array would put
/// the array in local memory).
__device__ __forceinline__ unsigned word_of(const uint4& v, int w) {
  return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

/// Bytes [0, K) of `v` to `p`, one K-byte store (p aligned to K; K = 1, 2, 4, 8 or 16).
template <int K>
__device__ __forceinline__ void store_piece(unsigned char* p, const uint4& v) {
  if constexpr (K == 1) *p = static_cast<unsigned char>(v.x);
  if constexpr (K == 2) *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(v.x);
  if constexpr (K == 4) *reinterpret_cast<unsigned*>(p) = v.x;
  if constexpr (K == 8) *reinterpret_cast<uint2*>(p) = make_uint2(v.x, v.y);
  if constexpr (K == 16) __stcg(reinterpret_cast<uint4*>(p), v);
}

/// The edges of a destination row that whole 16-byte chunks do not write, as naturally aligned
/// pieces of 1, 2, 4, 8 and 16 bytes (at most five stores for up to 31 bytes) instead of
/// element by element: each store of a piece of a sector another tile also writes reaches the L2
/// as its own partial write, and the lanes of a warp loop as long as the longest edge (H100:
/// copy_unaligned 1-byte 767 x 174991 0.91 x copy vs 0.82 element by element).
/// store_first_bytes: bytes [0, n) (n < 16) of `v` to `p` (on 16 bytes), pieces of 8, 4, 2, 1.
__device__ __forceinline__ void store_first_bytes(unsigned char* p, const uint4& v, int n) {
  int at = 0;
  if (n & 8) store_piece<8>(p, v), at = 8;
  if (n & 4) store_piece<4>(p + at, make_uint4(word_of(v, at / 4), 0, 0, 0)), at += 4;
  const unsigned rest = word_of(v, at / 4) >> (8 * (at % 4));
  if (n & 2) store_piece<2>(p + at, make_uint4(rest, 0, 0, 0)), at += 2;
  if (n & 1) store_piece<1>(p + at, make_uint4(n & 2 ? rest >> 16 : rest, 0, 0, 0));
}

/// store_last_bytes: bytes [from, 16) (0 < from < 16) of `v` to the same bytes of `p` (on 16
/// bytes), pieces of 1, 2, 4, 8.
__device__ __forceinline__ void store_last_bytes(unsigned char* p, const uint4& v, int from) {
  int at = from;
  if (at & 1)
    store_piece<1>(p + at, make_uint4(word_of(v, at / 4) >> (8 * (at % 4)), 0, 0, 0)), ++at;
  if (at & 2)
    store_piece<2>(p + at, make_uint4(word_of(v, at / 4) >> (8 * (at % 4)), 0, 0, 0)), at += 2;
  if (at & 4) store_piece<4>(p + at, make_uint4(word_of(v, at / 4), 0, 0, 0)), at += 4;
  if (at & 8) store_piece<8>(p + at, make_uint4(v.z, v.w, 0, 0));
}

/// One word (max(E, 4) bytes) from each of the 16 / E consecutive tile rows, all at the same
/// columns, rearranged in registers into max(E, 4) / E 16-byte column vectors: out[j] holds
/// column j of the word in rows 0 .. 16 / E - 1.
template <int E>
__device__ __forceinline__ void words_to_column_vectors(
    const element_t<(E < 4 ? 4 : E)> (&in)[16 / E], uint4 (&out)[(E < 4 ? 4 : E) / E]) {
  if constexpr (E == 16) {
    out[0] = in[0];
  } else if constexpr (E == 8) {
    out[0] = make_uint4(in[0].x, in[0].y, in[1].x, in[1].y);
  } else if constexpr (E == 4) {
    out[0] = make_uint4(in[0], in[1], in[2], in[3]);
  } else if constexpr (E == 2) {
    unsigned lo[4], hi[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      lo[k] = __byte_perm(in[2 * k], in[2 * k + 1], 0x5410);
      hi[k] = __byte_perm(in[2 * k], in[2 * k + 1], 0x7632);
    }
    out[0] = make_uint4(lo[0], lo[1], lo[2], lo[3]);
    out[1] = make_uint4(hi[0], hi[1], hi[2], hi[3]);
  } else {
    unsigned b[4][4];  // b[j][k]: byte j of rows 4k .. 4k+3
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned a01 = __byte_perm(in[4 * k], in[4 * k + 1], 0x5140);
      const unsigned a23 = __byte_perm(in[4 * k + 2], in[4 * k + 3], 0x5140);
      const unsigned c01 = __byte_perm(in[4 * k], in[4 * k + 1], 0x7362);
      const unsigned c23 = __byte_perm(in[4 * k + 2], in[4 * k + 3], 0x7362);
      b[0][k] = __byte_perm(a01, a23, 0x5410);
      b[1][k] = __byte_perm(a01, a23, 0x7632);
      b[2][k] = __byte_perm(c01, c23, 0x5410);
      b[3][k] = __byte_perm(c01, c23, 0x7632);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) out[j] = make_uint4(b[j][0], b[j][1], b[j][2], b[j][3]);
  }
}

template <int E, int TILE_ROWS, int TILE_BYTES, int THREADS>
struct shared_tile_transpose {
  using element = element_t<E>;
  static constexpr int word_bytes = E < 4 ? 4 : E;  ///< shared-memory read width in stores
  using word = element_t<word_bytes>;
  static constexpr int rows_per_vector = 16 / E;           ///< P: tile rows in one output vector
  static constexpr int columns_per_word = word_bytes / E;  ///< output vectors per word read
  static constexpr int tile_cols = TILE_BYTES / E;
  static constexpr int chunks_per_row = TILE_BYTES / 16;
  static constexpr int lanes_across_words = 32 / word_bytes;  ///< a warp reads 32-byte strips
  static constexpr int lanes_across_rows = 32 / lanes_across_words;
  static constexpr int step_rows = lanes_across_rows * rows_per_vector;
  static constexpr int step_strips = TILE_BYTES / 32;
  static constexpr int steps = (TILE_ROWS / step_rows) * step_strips;
  static constexpr int warps = THREADS / 32;
  static constexpr int steps_per_warp = steps / warps;
  static constexpr int chunks = TILE_ROWS * chunks_per_row;
  static constexpr int chunks_per_thread = chunks / THREADS;
  /// Shared memory of one tile: the rows, then one spare 16-byte chunk per row that shifted
  /// rows (below) spill into.
  static constexpr int bytes = TILE_ROWS * TILE_BYTES + TILE_ROWS * 16;

  static_assert(TILE_BYTES % 128 == 0,
                "the swizzle moves a chunk up to 6 chunks along its row: rows of whole 128-byte "
                "lines (64-byte rows gave wrong outputs)");
  static_assert(TILE_ROWS % step_rows == 0, "tile rows cover whole warp read steps");
  static_assert(steps % warps == 0 && chunks % THREADS == 0, "work divides evenly");

  __device__ static int swizzle(int row) { return ((row / rows_per_vector) & 3) << 1; }
  __device__ static int chunk_offset(int row, int chunk) {
    return row * TILE_BYTES + ((chunk ^ swizzle(row)) << 4);
  }
  __device__ static int byte_offset(int row, int byte_in_row) {
    return chunk_offset(row, byte_in_row >> 4) + (byte_in_row & 15);
  }

  /// Rows whose start is not 16-byte aligned: tile row r is stored from the
  /// 16-byte boundary at or before its first element, so its logical byte b sits at raw byte
  /// b + shift(r), shift(r) = (first + r * step) mod 16; raw bytes past TILE_BYTES go to the
  /// row's spare chunk. first = step = 0 is the plain layout.
  struct row_shifts {
    int first = 0, step = 0;
    __device__ int of(int row) const { return (first + row * step) & 15; }
  };
  __device__ static int raw_offset(int row, int raw_byte) {
    return raw_byte < TILE_BYTES ? byte_offset(row, raw_byte)
                                 : TILE_ROWS * TILE_BYTES + row * 16 + (raw_byte - TILE_BYTES);
  }

  /// Loads the tile whose top-left element is src[0]; rows `ld` elements apart; only the
  /// valid_rows x valid_cols corner exists. `aligned` = every row starts on 16 bytes: then each
  /// 16-byte chunk is one vector load; in a tile cut by the matrix's edges only chunks that
  /// start inside the valid corner are read (a chunk cut by the last column also reads the
  /// bytes after it, which stay unused), and a chunk reaching past `end`, one past the
  /// matrix's last element, is read element by element. Returns the layout it used (shifted
  /// rows unless `aligned`).
  template <bool Async = false>
  __device__ static row_shifts load(unsigned char* tile, const element* src, std::int64_t ld,
                                    int valid_rows, int valid_cols, bool aligned,
                                    const element* end) {
    if (!aligned) return load_shifted<Async>(tile, src, ld, valid_rows, valid_cols);
    if (valid_rows == TILE_ROWS && valid_cols == tile_cols) {
      load_whole(tile, src, ld);
      return {};
    }
    uint4 v[chunks_per_thread];
#pragma unroll
    for (int k = 0; k < chunks_per_thread; ++k) {
      const int idx = threadIdx.x + k * THREADS;
      const int row = idx / chunks_per_row, chunk = idx % chunks_per_row;
      const element* p = src + row * ld + chunk * rows_per_vector;
      if (row < valid_rows && chunk * rows_per_vector < valid_cols)
        v[k] = p + rows_per_vector <= end
                   ? load_chunk_l2_prefetch(reinterpret_cast<const uint4*>(p))
                   : load_before(p, end);
    }
#pragma unroll
    for (int k = 0; k < chunks_per_thread; ++k) {
      const int idx = threadIdx.x + k * THREADS;
      const int row = idx / chunks_per_row, chunk = idx % chunks_per_row;
      if (row < valid_rows && chunk * rows_per_vector < valid_cols)
        *reinterpret_cast<uint4*>(tile + chunk_offset(row, chunk)) = v[k];
    }
    return {};
  }

  /// A whole tile of 16-byte aligned rows `ld` elements apart, one vector load per chunk, all of
  /// a thread's in flight before any reaches shared memory. Index: the type of the offsets
  /// within the tile (32-bit where the caller knows they fit, which saves registers).
  template <class Index>
  __device__ static void load_whole(unsigned char* tile, const element* src, Index ld) {
    uint4 v[chunks_per_thread];
#pragma unroll
    for (int k = 0; k < chunks_per_thread; ++k) {
      const int idx = threadIdx.x + k * THREADS;
      const int row = idx / chunks_per_row, chunk = idx % chunks_per_row;
      v[k] = load_chunk_l2_prefetch(
          reinterpret_cast<const uint4*>(src + row * ld + chunk * rows_per_vector));
    }
#pragma unroll
    for (int k = 0; k < chunks_per_thread; ++k) {
      const int idx = threadIdx.x + k * THREADS;
      const int row = idx / chunks_per_row, chunk = idx % chunks_per_row;
      *reinterpret_cast<uint4*>(tile + chunk_offset(row, chunk)) = v[k];
    }
  }

  /// A whole tile whose rows need not start on 16 bytes, into the plain layout (as load_whole):
  /// each row segment is read as the aligned 16-byte chunks that cover it (one chunk more than
  /// it holds where it is misaligned; the bytes of the neighbouring tiles in them are dropped),
  /// and the lane of covering chunk j funnel-shifts it and chunk j + 1 (the next lane's) by the
  /// row's misalignment into the segment's chunk j. All of a thread's loads are in flight before
  /// any reaches shared memory. `end`: one past the matrix's last element; a covering chunk
  /// reaching past it is read up to it only.
  __device__ static void load_whole_any_alignment(unsigned char* tile, const element* src,
                                                  std::int64_t ld, const element* end) {
    static_assert(32 % chunks_per_row == 0 && THREADS % chunks_per_row == 0,
                  "a row's chunks lie in consecutive lanes of one warp, the same for every k");
    const auto* stop = reinterpret_cast<const unsigned char*>(end);
    const int chunk = threadIdx.x % chunks_per_row;
    const bool last = chunk == chunks_per_row - 1;
    auto row_start = [&](int k) {
      return reinterpret_cast<const unsigned char*>(src + (threadIdx.x + k * THREADS) /
                                                              chunks_per_row * ld);
    };
    auto shift_of = [](const unsigned char* p) {
      return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15);
    };
    uint4 covering[chunks_per_thread], after[chunks_per_thread];
#pragma unroll
    for (int k = 0; k < chunks_per_thread; ++k) {
      const unsigned char* start = row_start(k);
      const auto* first = reinterpret_cast<const uint4*>(start - shift_of(start));
      covering[k] = load_chunk_l2_prefetch(first + chunk);
      after[k] = make_uint4(0, 0, 0, 0);
      if (last && shift_of(start) != 0) after[k] = load_chunk_before(first + chunks_per_row, stop);
    }
#pragma unroll
    for (int k = 0; k < chunks_per_thread; ++k) {
      const int row = (threadIdx.x + k * THREADS) / chunks_per_row;
      const uint4 next = shuffle_down(covering[k], chunks_per_row);
      *reinterpret_cast<uint4*>(tile + chunk_offset(row, chunk)) =
          funnel_shift_16(covering[k], last ? after[k] : next, shift_of(row_start(k)));
    }
  }

  /// The elements of the 16-byte chunk at `p` that lie before `end`; the rest zero.
  __device__ static uint4 load_before(const element* p, const element* end) {
    uint4 v = make_uint4(0, 0, 0, 0);
    element* parts = reinterpret_cast<element*>(&v);
#pragma unroll
    for (int i = 0; i < rows_per_vector; ++i)
      if (p + i < end) parts[i] = p[i];
    return v;
  }

  /// Any row alignment: aligned 16-byte loads for every chunk that lies inside the valid part
  /// of a row, element loads for the partial chunks at its ends. Async (sm_80 and later): the
  /// chunks, and the elements of partial chunks where they are 4 bytes or more, go to shared
  /// memory by asynchronous copies (cp.async), all of a thread's in flight at once without
  /// holding registers, and the thread waits for them before it returns; otherwise each is a
  /// load then a store, one in flight at a time. The square swap takes Async (one load in flight
  /// per thread ran square matrices of unaligned rows at 0.36-0.45 x copy on the H200; staged in
  /// registers, the loads spill under the tile policies' register limits); the out-of-place
  /// tuned kernel spills with it.
  template <bool Async = false>
  __device__ static row_shifts load_shifted(unsigned char* tile, const element* src,
                                            std::int64_t ld, int valid_rows, int valid_cols) {
    const row_shifts shifts{static_cast<int>(reinterpret_cast<std::uintptr_t>(src) & 15),
                            static_cast<int>((ld * E) & 15)};
    constexpr int raw_chunks = chunks_per_row + 1;
    const int valid_bytes = valid_cols * E;
    for (int idx = threadIdx.x; idx < TILE_ROWS * raw_chunks; idx += THREADS) {
      const int row = idx / raw_chunks, q = idx % raw_chunks;
      if (row >= valid_rows) break;
      const int shift = shifts.of(row);
      const int first = 16 * q - shift;  // logical byte of the chunk's first byte
      const unsigned char* row_start = reinterpret_cast<const unsigned char*>(src + row * ld);
      if (first >= 0 && first + 16 <= valid_bytes) {
#if __CUDA_ARCH__ >= 800
        if constexpr (Async) {
          const auto to =
              static_cast<unsigned>(__cvta_generic_to_shared(tile + raw_offset(row, 16 * q)));
          asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(to),
                       "l"(row_start + first)
                       : "memory");
          continue;
        }
#endif
        *reinterpret_cast<uint4*>(tile + raw_offset(row, 16 * q)) =
            load_chunk_l2_prefetch(reinterpret_cast<const uint4*>(row_start + first));
      } else {
#if __CUDA_ARCH__ >= 800
        if constexpr (Async && E >= 4) {
          // The elements of a partial chunk, asynchronously too (each E-aligned both sides).
          for (int b = first < 0 ? 0 : first; b < first + 16 && b < valid_bytes; b += E) {
            const auto to =
                static_cast<unsigned>(__cvta_generic_to_shared(tile + raw_offset(row, b + shift)));
            asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(row_start + b),
                         "n"(E)
                         : "memory");
          }
          continue;
        }
#endif
        for (int b = first < 0 ? 0 : first; b < first + 16 && b < valid_bytes; b += E)
          *reinterpret_cast<element*>(tile + raw_offset(row, b + shift)) =
              *reinterpret_cast<const element*>(row_start + b);
      }
    }
#if __CUDA_ARCH__ >= 800
    if constexpr (Async) asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    return shifts;
  }

  /// P words of tile rows row0 .. row0+P-1 at word `w`, transposed into `columns_per_word`
  /// 16-byte vectors: out[j] holds tile column w*columns_per_word + j, rows row0 .. row0+P-1.
  __device__ static void read_transposed(const unsigned char* tile, int row0, int w,
                                         uint4 (&out)[columns_per_word]) {
    word in[rows_per_vector];
#pragma unroll
    for (int i = 0; i < rows_per_vector; ++i)
      in[i] = *reinterpret_cast<const word*>(tile + byte_offset(row0 + i, w * word_bytes));
    words_to_column_vectors<E>(in, out);
  }

  /// Writes the transpose of the tile: tile element (r, c) goes to dst[c * ld + r]; only the
  /// valid_rows x valid_cols corner of the tile exists. `aligned` = every destination row
  /// starts on 16 bytes: then each output vector is one 16-byte store, except vectors cut by
  /// the last valid row, which are written element by element. `shifts` is what load()
  /// returned.
  __device__ static void store_transposed(const unsigned char* tile, element* dst, std::int64_t ld,
                                          int valid_rows, int valid_cols, bool aligned,
                                          row_shifts shifts) {
    if (!aligned || shifts.first != 0 || shifts.step != 0)
      return store_transposed_shifted(tile, dst, ld, valid_rows, valid_cols, shifts);
    uint4 v[steps_per_warp][columns_per_word];
    read_steps(tile, v);
    // Whole tiles are stored in the loop below rather than by store_whole: branching to it
    // before the reads changes the standard kernels' register counts.
    const bool whole = valid_rows == TILE_ROWS && valid_cols == tile_cols;
#pragma unroll
    for (int s = 0; s < steps_per_warp; ++s) {
      const int w = step_word(s), row0 = step_row(s);
#pragma unroll
      for (int j = 0; j < columns_per_word; ++j) {
        const int c = w * columns_per_word + j;
        element* out = dst + c * ld + row0;
        if (whole) {
          __stcg(reinterpret_cast<uint4*>(out), v[s][j]);
        } else if (c < valid_cols) {
          if (row0 + rows_per_vector <= valid_rows) {
            __stcg(reinterpret_cast<uint4*>(out), v[s][j]);
          } else {
            const element* parts = reinterpret_cast<const element*>(&v[s][j]);
#pragma unroll
            for (int i = 0; i < rows_per_vector; ++i)
              if (i < valid_rows - row0) out[i] = parts[i];
          }
        }
      }
    }
  }

  /// The transpose of a whole tile into destination rows on 16 bytes, `ld` elements apart: one
  /// 16-byte store per output vector. Index as in load_whole.
  template <class Index>
  __device__ static void store_whole(const unsigned char* tile, element* dst, Index ld) {
    uint4 v[steps_per_warp][columns_per_word];
    read_steps(tile, v);
#pragma unroll
    for (int s = 0; s < steps_per_warp; ++s) {
      const int w = step_word(s), row0 = step_row(s);
#pragma unroll
      for (int j = 0; j < columns_per_word; ++j)
        __stcg(reinterpret_cast<uint4*>(dst + (w * columns_per_word + j) * ld + row0), v[s][j]);
    }
  }

  /// The transpose of a whole tile (plain layout) into destination rows that need not start on
  /// 16 bytes: output vector k of a destination row holds tile rows kP .. kP + P - 1 of its
  /// column; funnel-shifted with vector k - 1 by the row's misalignment m it gives the aligned
  /// 16-byte chunk that starts m bytes before vector k, one vector store. Where m > 0 the row's
  /// first chunk and the chunk after its last vector are shared with the neighbouring tiles:
  /// their bytes of this tile are written as naturally aligned pieces (store_last_bytes,
  /// store_first_bytes).
  __device__ static void store_whole_any_alignment(const unsigned char* tile, element* dst,
                                                   std::int64_t ld) {
    constexpr int P = rows_per_vector;
#pragma unroll
    for (int s = 0; s < steps_per_warp; ++s) {
      const int w = step_word(s), row0 = step_row(s);
      uint4 vectors[columns_per_word], before[columns_per_word];
      read_transposed(tile, row0, w, vectors);
      if (row0 > 0) {
        read_transposed(tile, row0 - P, w, before);
      } else {
#pragma unroll
        for (int j = 0; j < columns_per_word; ++j) before[j] = make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < columns_per_word; ++j) {
        element* out = dst + (w * columns_per_word + j) * ld + row0;
        const int m = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) & 15);
        if (m == 0) {
          __stcg(reinterpret_cast<uint4*>(out), vectors[j]);
          continue;
        }
        unsigned char* chunk = reinterpret_cast<unsigned char*>(out) - m;
        const uint4 v = funnel_shift_16(before[j], vectors[j], 16 - m);
        if (row0 > 0)
          __stcg(reinterpret_cast<uint4*>(chunk), v);
        else
          store_last_bytes(chunk, v, m);
        if (row0 + P == TILE_ROWS)
          store_first_bytes(chunk + 16, funnel_shift_16(vectors[j], make_uint4(0, 0, 0, 0), 16 - m),
                            m);
      }
    }
  }

  /// A warp's read step s (of steps_per_warp) in the stores: the shared-memory word its lane
  /// reads, and the first of the P tile rows it reads it from.
  __device__ static int step_word(int s) {
    const int step = threadIdx.x / 32 + s * warps, lane = threadIdx.x % 32;
    return (step % step_strips) * lanes_across_words + lane % lanes_across_words;
  }
  __device__ static int step_row(int s) {
    const int step = threadIdx.x / 32 + s * warps, lane = threadIdx.x % 32;
    return ((step / step_strips) * lanes_across_rows + lane / lanes_across_words) * rows_per_vector;
  }
  /// Every read step's output vectors, all read before any is stored.
  __device__ static void read_steps(const unsigned char* tile,
                                    uint4 (&v)[steps_per_warp][columns_per_word]) {
#pragma unroll
    for (int s = 0; s < steps_per_warp; ++s) read_transposed(tile, step_row(s), step_word(s), v[s]);
  }

  /// Any alignment of the source layout (shifts) and of the destination rows: each
  /// destination row (a tile column) is written as aligned 16-byte chunks; the chunk q of a row
  /// whose start is s elements past a 16-byte boundary holds tile rows q*P - s .. q*P - s + P-1.
  /// Chunks partly outside the tile are written element by element. Lanes: 8 columns x 4
  /// consecutive chunks, so a warp writes 64 contiguous bytes to each of 8 rows.
  __device__ static void store_transposed_shifted(const unsigned char* tile, element* dst,
                                                  std::int64_t ld, int valid_rows, int valid_cols,
                                                  row_shifts shifts) {
    constexpr int P = rows_per_vector;
    constexpr int out_chunks = TILE_ROWS / P + 1;
    constexpr int strips = tile_cols / 8, chunk_groups = (out_chunks + 3) / 4;
    static_assert(tile_cols % 8 == 0, "8 columns per warp step");
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int unit = warp; unit < strips * chunk_groups; unit += warps) {
      const int c = (unit % strips) * 8 + lane % 8;
      const int q = (unit / strips) * 4 + lane / 8;
      if (q >= out_chunks || c >= valid_cols) continue;
      unsigned char* row_start = reinterpret_cast<unsigned char*>(dst + c * ld);
      const int m = static_cast<int>(reinterpret_cast<std::uintptr_t>(row_start) & 15);
      const int first_row = q * P - m / E;
      if (first_row >= 0 && first_row + P <= valid_rows) {
        uint4 v;
        element* parts = reinterpret_cast<element*>(&v);
#pragma unroll
        for (int i = 0; i < P; ++i) {
          const int r = first_row + i;
          parts[i] = *reinterpret_cast<const element*>(tile + raw_offset(r, c * E + shifts.of(r)));
        }
        __stcg(reinterpret_cast<uint4*>(row_start - m + 16 * q), v);
      } else {
#pragma unroll
        for (int i = 0; i < P; ++i) {
          const int r = first_row + i;
          if (r >= 0 && r < valid_rows)
            reinterpret_cast<element*>(row_start)[r] =
                *reinterpret_cast<const element*>(tile + raw_offset(r, c * E + shifts.of(r)));
        }
      }
    }
  }
};

}  // namespace xpose::detail::cuda
