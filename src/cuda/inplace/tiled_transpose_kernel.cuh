// Kernels of the elementary tiled transposition ("In-Place Transposition of Rectangular Matrices
// on Accelerators", PPoPP'14): `batch` instances of rows x cols super-elements, each transposed
// in place. Launched by tiled_transpose.cu.
//
// tiled_transpose_on_chip_kernel: the barrier-sync (BS) kernel of sec. 3 (Fig. 1), used for 010
//   in sec. 5.1 where the tile fits on chip. A block takes a group of whole instances (one
//   contiguous byte range), loads it into shared memory with 16-byte global loads (any alignment:
//   a head and a tail of smaller pieces), synchronizes, and writes every instance back transposed
//   in words of W bytes (W: the widest power of two up to 16 dividing the super-element and the
//   pointer), consecutive threads writing consecutive words. Rows are padded in shared memory
//   (tiled_on_chip_pitch) so that the transposed reads of a warp, one word from each of
//   consecutive rows, meet every bank once. Blocks own their groups: no other synchronization.
//
// tiled_transpose_cycles_kernel: cycle following in global memory (sec. 3, eq. 1: the element at
//   index x of a rows x cols instance goes to (x mod cols) * rows + x / cols) with claim states
//   in the workspace, in the spirit of PTTWAC (sec. 4, 5.1) with one group of lanes per chain
//   (sec. 5.2.1 moves a super-element with one SIMD unit). Each super-element has 2 state bits,
//   16 super-elements per 32-bit word: bit 0 "claimed" (its original value is held by the
//   claimer), bit 1 "read" (the claimer that started there has its original in registers). A
//   worker starting at x claims x (atomic OR of bit 0; it stops if the bit was set), reads
//   data[x], publishes bit 1 (every lane of the group fences, the group meets at __syncwarp, the
//   leader ORs bit 1 with release semantics), then walks y = dest(y): if it claims y, it
//   swaps its carried value with data[y] and walks on; if y is already claimed, y's original is
//   (or will shortly be) held by the worker that started at y -- the only way to claim y other
//   than arriving from its unique predecessor, which is this worker -- so it waits (acquire
//   loads, __nanosleep backoff) for y's bit 1, writes its carried value into y and stops. Every
//   position is claimed once, so its original is read once and it is written once (by the
//   claimer of its predecessor), after that read. A worker only waits on a position whose
//   claimer is running and waits on nothing between its claim and its publication: no deadlock,
//   whatever the scheduling (independent thread scheduling lets groups of one warp diverge).
//   Workers start at every index (grid-stride over starts), so the work spreads over every group
//   and chains stay short; a start first reads its state word (a relaxed atomic load) and skips
//   the OR when the position is already claimed. Only starts publish bit 1: a position claimed
//   on the way is written by its own claimer, and nobody else ever waits on it.
//   A group of G lanes (a power of two up to 32, G = 1 for super-elements of up to 8 words: 32
//   chains per warp) carries up to cycle_words_per_lane words per lane in registers. Larger
//   super-elements are cut into column chunks: transposing rows x cols super-elements of S bytes
//   applies the same permutation to every byte column, so each chunk column is an independent
//   instance (its own states) and the chunks of one super-element never meet.
//
// tiled_transpose_pttwac_kernel: PTTWAC for instances whose flags fit in shared memory (sec. 5.1;
//   the DL paper's sec. 4.4: one work-group per AoS -> ASTA tile, the flags on chip). A block
//   takes a group of whole instances (several when they are tiny) with one flag bit per
//   position in shared memory, spread over more words (eq. 3, sec. 5.1.1) and padded by a word
//   every 32 (sec. 5.1.2); the elements stay in global memory and move there directly, each read
//   once and written once. Groups of `lanes` lanes (one lane for super-elements of up to
//   pttwac_words_per_lane words: 32 chains per warp) each keep pttwac_chains chains in flight.
//   Starts: consecutive groups take consecutive positions (coalesced first reads); a start whose
//   bit is clear is read, then claimed (atomic OR), with a block-scope fence between the read and
//   the claim, and dropped if the claim fails. Following: from a claimed position x the chain
//   reads y = dest(x) first (only the holder of x's original ever writes y, and that is this
//   chain) and then claims y: if it sets the bit it writes its carried value into y and carries
//   y's original on; if the bit was set, y is a start whose claimer read it before claiming (the
//   claimer's fence, then its atomic, which this chain's atomic observes, then a fence here:
//   that read happens before this chain's write), so the chain writes into y and ends. Every
//   position is claimed once: it is read once by its claimer and written once by the holder of
//   its predecessor. No thread ever waits for another and rounds of starts need no barrier between
//   them: a chain ends at the first claimed position it meets, which is a start. No cp.async, and
//   the flags are only touched by atomics between the barriers that clear them.
//
// Assumes: instance k at byte k * rows * cols * super_bytes; states zeroed before the launch;
// the on-chip group (padded) fits the dynamic shared memory given; sizes within a group fit 32
// bits (the launcher's limits), global offsets in 64 bits.
#pragma once

#include <cuda_runtime.h>
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

namespace xpose::detail::cuda::tiled {

constexpr int on_chip_threads = 256;
constexpr int cycle_threads = 256;
/// Words (of W bytes) each lane of a cycle-following group holds: a group of 32 lanes carries a
/// chunk of 256 words.
constexpr int cycle_words_per_lane = 8;

template <int Bytes>
struct word_of;
template <>
struct word_of<1> {
  using type = std::uint8_t;
};
template <>
struct word_of<2> {
  using type = std::uint16_t;
};
template <>
struct word_of<4> {
  using type = std::uint32_t;
};
template <>
struct word_of<8> {
  using type = uint2;
};
template <>
struct word_of<16> {
  using type = uint4;
};
/// The unsigned type of `Bytes` bytes that one load or store moves.
template <int Bytes>
using word_t = typename word_of<Bytes>::type;

/// Division of 32-bit unsigned values by a divisor fixed at launch (Granlund and Montgomery,
/// "Division by Invariant Integers using Multiplication", sec. 4): with l = ceil(log2 d) and
/// m = floor(2^32 (2^l - d) / d) + 1, n / d = (umulhi(m, n) + n) >> l for every n < 2^32.
struct fast_divmod {
  std::uint32_t divisor = 1;
  std::uint32_t multiplier = 1;
  std::uint32_t shift = 0;

  fast_divmod() = default;
  __host__ explicit fast_divmod(std::uint32_t d) : divisor(d) {
    std::uint32_t l = 0;
    while (l < 32 && (std::uint64_t{1} << l) < d) ++l;
    multiplier = static_cast<std::uint32_t>(
        ((std::uint64_t{1} << 32) * ((std::uint64_t{1} << l) - d)) / d + 1);
    shift = l;
  }
  __host__ __device__ std::uint32_t div(std::uint32_t n) const {
#ifdef __CUDA_ARCH__
    const std::uint32_t high = __umulhi(n, multiplier);
#else
    const auto high =
        static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * multiplier) >> 32);
#endif
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(high) + n) >> shift);
  }
};

// ---- copy back from the scratch -----------------------------------------------------------------

constexpr int copy_threads = 256;
constexpr int copy_words_per_thread = 4;

/// to[i] = from[i] for `words` words of W bytes (the through_scratch path's copy back), each
/// thread moving copy_words_per_thread words per round with its loads ahead of its stores. With
/// Discard (W = 16, `from` 128-byte aligned, whole lines), every line of `from` is dropped from
/// L2 once copied (discard.global.L2): the scratch is dirty there, and writing it back to DRAM
/// would cost a pass it is never read again for.
template <int W, bool Discard>
__global__ void __launch_bounds__(copy_threads)
    copy_words_kernel(unsigned char* to, const unsigned char* from, std::int64_t words) {
  using word = word_t<W>;
  auto* dst = reinterpret_cast<word*>(to);
  const auto* src = reinterpret_cast<const word*>(from);
  if constexpr (Discard) {
    // A warp copies runs of 32 * copy_words_per_thread consecutive words; lane l then drops the
    // lines of its run (8 words each) after the whole warp has its values.
    constexpr std::int64_t run = 32 * copy_words_per_thread;
    const unsigned lane = threadIdx.x & 31;
    const std::int64_t warps = std::int64_t{gridDim.x} * (copy_threads / 32);
    for (std::int64_t start = (std::int64_t{blockIdx.x} * copy_threads + threadIdx.x) / 32 * run;
         start < words; start += warps * run) {
      word v[copy_words_per_thread];
#pragma unroll
      for (int u = 0; u < copy_words_per_thread; ++u)
        if (start + u * 32 + lane < words) v[u] = src[start + u * 32 + lane];
#pragma unroll
      for (int u = 0; u < copy_words_per_thread; ++u)
        if (start + u * 32 + lane < words) dst[start + u * 32 + lane] = v[u];
      __syncwarp();
      constexpr int words_per_line = 128 / W;
#if __CUDA_ARCH__ >= 800
      if (lane < run / words_per_line && start + lane * words_per_line < words)
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(src + start + lane * words_per_line)
                     : "memory");
#endif
    }
    return;
  }
  const std::int64_t stride = std::int64_t{gridDim.x} * copy_threads;
  for (std::int64_t i = std::int64_t{blockIdx.x} * copy_threads + threadIdx.x; i < words;
       i += stride * copy_words_per_thread) {
    word v[copy_words_per_thread];
#pragma unroll
    for (int u = 0; u < copy_words_per_thread; ++u)
      if (i + u * stride < words) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < copy_words_per_thread; ++u)
      if (i + u * stride < words) dst[i + u * stride] = v[u];
  }
}

// ---- on chip ---------------------------------------------------------------------------------

/// The on-chip launch's shape: rows x cols super-elements of k words of W bytes; instances in
/// groups of `group`; rows `pitch` bytes apart in shared memory.
struct on_chip_shape {
  std::int64_t batch = 0;
  std::int64_t groups = 0;
  std::uint32_t group = 1;  ///< instances per group
  std::uint32_t rows = 0, cols = 0;
  std::uint32_t k = 1;  ///< words per super-element
  std::uint32_t row_bytes = 0, pitch = 0, instance_bytes = 0;
  fast_divmod by_k, by_rows, by_instance_elements, by_row_bytes;
};

/// Piece q (of 16 / P) of a 16-byte vector, as a P-byte word (q is a constant once unrolled).
template <int P>
__device__ __forceinline__ word_t<P> piece_of(const uint4& v, int q) {
  if constexpr (P == 16) {
    return v;
  } else if constexpr (P == 8) {
    return q == 0 ? make_uint2(v.x, v.y) : make_uint2(v.z, v.w);
  } else {
    const int at = q * P / 4;
    const std::uint32_t word = at == 0 ? v.x : at == 1 ? v.y : at == 2 ? v.z : v.w;
    return static_cast<word_t<P>>(word >> (q * P % 4 * 8));
  }
}

/// Copies the group's `bytes` bytes at `base` into `tile` (rows of row_bytes, `pitch` apart):
/// 16-byte global loads for the aligned middle, each stored as 16 / P pieces of P bytes (P
/// divides row_bytes, pitch and the alignment of `base`, so no piece straddles a row); the
/// unaligned head and tail as single pieces.
template <int P>
__device__ void load_group(const unsigned char* base, std::uint32_t bytes, const on_chip_shape& s,
                           unsigned char* tile) {
  const auto misalignment = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(base) & 15);
  const std::uint32_t head = min(bytes, (16 - misalignment) & 15);
  const std::uint32_t chunks = (bytes - head) / 16;
  const std::uint32_t tail = head + chunks * 16;
  for (std::uint32_t c = threadIdx.x; c < chunks; c += blockDim.x) {
    const std::uint32_t x = head + c * 16;
    const uint4 v = *reinterpret_cast<const uint4*>(base + x);
    std::uint32_t r = s.by_row_bytes.div(x);
    std::uint32_t o = x - r * s.row_bytes;
#pragma unroll
    for (int q = 0; q < 16 / P; ++q) {
      *reinterpret_cast<word_t<P>*>(tile + r * s.pitch + o) = piece_of<P>(v, q);
      o += P;
      if (o == s.row_bytes) {
        o = 0;
        ++r;
      }
    }
  }
  const std::uint32_t head_pieces = head / P;
  const std::uint32_t pieces = head_pieces + (bytes - tail) / P;
  for (std::uint32_t p = threadIdx.x; p < pieces; p += blockDim.x) {
    const std::uint32_t x = p < head_pieces ? p * P : tail + (p - head_pieces) * P;
    const std::uint32_t r = s.by_row_bytes.div(x);
    *reinterpret_cast<word_t<P>*>(tile + r * s.pitch + (x - r * s.row_bytes)) =
        *reinterpret_cast<const word_t<P>*>(base + x);
  }
}

/// Where word q of the transposed group comes from: instance `instance`, transposed row `jj`
/// (a source column), transposed column `i` (a source row), word `p` of the super-element.
struct transposed_word {
  std::uint32_t instance, jj, i, p;

  __device__ transposed_word(std::uint32_t q, const on_chip_shape& s) {
    const std::uint32_t e = s.by_k.div(q);
    p = q - e * s.k;
    instance = s.by_instance_elements.div(e);
    const std::uint32_t o = e - instance * s.rows * s.cols;
    jj = s.by_rows.div(o);
    i = o - jj * s.rows;
  }
  __device__ std::uint32_t shared_offset(const on_chip_shape& s, int word_bytes) const {
    return (instance * s.rows + i) * s.pitch + (jj * s.k + p) * word_bytes;
  }
  __device__ void next(const on_chip_shape& s) {
    if (++p < s.k) return;
    p = 0;
    if (++i < s.rows) return;
    i = 0;
    if (++jj < s.cols) return;
    jj = 0;
    ++instance;
  }
};

/// Writes the group back from `tile`, each instance transposed, in words of W bytes; words of 1
/// or 2 bytes are packed into 4-byte stores where the destination is 4-aligned.
template <int W>
__device__ void store_group_transposed(unsigned char* base, std::uint32_t bytes,
                                       const on_chip_shape& s, const unsigned char* tile) {
  using word = word_t<W>;
  if constexpr (W >= 4) {
    const std::uint32_t words = bytes / W;
    for (std::uint32_t q = threadIdx.x; q < words; q += blockDim.x) {
      const transposed_word at(q, s);
      *reinterpret_cast<word*>(base + q * W) =
          *reinterpret_cast<const word*>(tile + at.shared_offset(s, W));
    }
  } else {
    const auto misalignment =
        static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(base) & 3);
    const std::uint32_t head = min(bytes, (4 - misalignment) & 3);
    const std::uint32_t units = (bytes - head) / 4;
    const std::uint32_t tail = head + units * 4;
    for (std::uint32_t u = threadIdx.x; u < units; u += blockDim.x) {
      const std::uint32_t x = head + u * 4;
      transposed_word at(x / W, s);
      std::uint32_t packed = 0;
#pragma unroll
      for (int t = 0; t < 4 / W; ++t) {
        packed |= static_cast<std::uint32_t>(
                      *reinterpret_cast<const word*>(tile + at.shared_offset(s, W)))
                  << (8 * W * t);
        at.next(s);
      }
      *reinterpret_cast<std::uint32_t*>(base + x) = packed;
    }
    const std::uint32_t head_words = head / W;
    const std::uint32_t words = head_words + (bytes - tail) / W;
    for (std::uint32_t w = threadIdx.x; w < words; w += blockDim.x) {
      const std::uint32_t q = w < head_words ? w : (tail / W) + (w - head_words);
      const transposed_word at(q, s);
      *reinterpret_cast<word*>(base + q * W) =
          *reinterpret_cast<const word*>(tile + at.shared_offset(s, W));
    }
  }
}

/// Grid-stride over groups of instances: load, barrier, write back transposed, barrier (the
/// tile is reused). W: the word of the write-back; P: the piece of the load (P >= W).
template <int W, int P>
__global__ void __launch_bounds__(on_chip_threads)
    tiled_transpose_on_chip_kernel(unsigned char* data, on_chip_shape s) {
  extern __shared__ __align__(16) unsigned char tile[];
  for (std::int64_t g = blockIdx.x; g < s.groups; g += gridDim.x) {
    const std::int64_t first = g * s.group;
    const auto count =
        static_cast<std::uint32_t>(s.batch - first < s.group ? s.batch - first : s.group);
    unsigned char* base = data + first * s.instance_bytes;
    const std::uint32_t bytes = count * s.instance_bytes;
    load_group<P>(base, bytes, s, tile);
    __syncthreads();
    store_group_transposed<W>(base, bytes, s, tile);
    __syncthreads();
  }
}

// ---- cycle following ---------------------------------------------------------------------------

/// One wave of the cycle-following launch: virtual instances [first_virtual, first_virtual +
/// virtuals) of batch * chunks (instance b, chunk c is virtual instance b * chunks + c), each a
/// permutation of `size` = rows * cols positions with state_words 32-bit state words.
struct cycle_shape {
  std::int64_t rows = 0, cols = 0, size = 0;
  std::int64_t super_bytes = 0;
  std::int64_t chunks = 1;
  std::int64_t first_virtual = 0, virtuals = 0;
  std::int64_t state_words = 0;
  std::int64_t stride_v = 0, stride_i = 0;  ///< the grid's groups, as (virtuals, positions)
  std::uint32_t words = 0;                  ///< words of W bytes per super-element
  std::uint32_t chunk_words = 0;            ///< words per chunk (the last chunk may have fewer)
  std::uint32_t lanes = 1;                  ///< lanes per group
  bool small = false;                       ///< size <= 2^32: destinations in 32 bits
  fast_divmod by_cols;                      ///< valid when small
};

/// Eq. 1 in its div/mod form: where the element at index x of a rows x cols instance goes.
__device__ __forceinline__ std::int64_t destination(std::int64_t x, const cycle_shape& s) {
  if (s.small) {
    const auto x32 = static_cast<std::uint32_t>(x);
    const std::uint32_t row = s.by_cols.div(x32);
    return static_cast<std::int64_t>(x32 - row * static_cast<std::uint32_t>(s.cols)) * s.rows + row;
  }
  const std::int64_t row = x / s.cols;
  return (x - row * s.cols) * s.rows + row;
}

using state_ref = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>;

__device__ __forceinline__ std::uint32_t claimed_bit(std::int64_t x) {
  return 1u << (2 * (x & 15));
}
__device__ __forceinline__ std::uint32_t read_bit(std::int64_t x) {
  return 2u << (2 * (x & 15));
}

/// Claims position x (bit 0); true if this call set it.
__device__ __forceinline__ bool claim(std::uint32_t* states, std::int64_t x) {
  state_ref word(states[x >> 4]);
  return (word.fetch_or(claimed_bit(x), ::cuda::std::memory_order_relaxed) & claimed_bit(x)) == 0;
}

/// Waits until the worker that claimed x has read x's original value (bit 1).
__device__ __forceinline__ void wait_until_read(std::uint32_t* states, std::int64_t x) {
  state_ref word(states[x >> 4]);
  unsigned pause = 32;
  while ((word.load(::cuda::std::memory_order_acquire) & read_bit(x)) == 0) {
    __nanosleep(pause);
    if (pause < 1024) pause *= 2;
  }
}

/// The grid-stride step over (virtual instance, start position), without a division.
__device__ __forceinline__ void next_start(std::int64_t& v, std::int64_t& start,
                                           const cycle_shape& s) {
  start += s.stride_i;
  v += s.stride_v;
  if (start >= s.size) {
    start -= s.size;
    ++v;
  }
}

/// Grid-stride over (virtual instance, start position); each group of `lanes` lanes follows
/// the chain from its start as described at the top of this file.
template <int W>
__global__ void __launch_bounds__(cycle_threads)
    tiled_transpose_cycles_kernel(unsigned char* data, std::uint32_t* states, cycle_shape s) {
  using word = word_t<W>;
  constexpr int per_lane = cycle_words_per_lane;
  const unsigned lane = threadIdx.x & 31;
  const unsigned l = lane & (s.lanes - 1);
  const unsigned leader = lane - l;
  const unsigned mask = s.lanes == 32 ? 0xffffffffu : ((1u << s.lanes) - 1) << leader;
  const std::int64_t group = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / s.lanes;
  std::int64_t v = group / s.size;
  std::int64_t start = group - v * s.size;

  std::int64_t current = -1;
  unsigned char* chunk = nullptr;
  std::uint32_t* instance_states = nullptr;
  std::uint32_t chunk_words = 0;
  for (; v < s.virtuals; next_start(v, start, s)) {
    if (v != current) {
      current = v;
      const std::int64_t virtual_index = s.first_virtual + v;
      const std::int64_t b = virtual_index / s.chunks;
      const std::int64_t c = virtual_index - b * s.chunks;
      chunk = data + b * s.size * s.super_bytes + c * s.chunk_words * W;
      const std::int64_t left = s.words - c * s.chunk_words;
      chunk_words = static_cast<std::uint32_t>(left < s.chunk_words ? left : s.chunk_words);
      instance_states = states + v * s.state_words;
    }
    std::int64_t next = destination(start, s);
    if (next == start) continue;  // fixed point, 0 and size - 1 among them
    int mine = 0;
    if (l == 0) {
      const std::uint32_t seen =
          state_ref(instance_states[start >> 4]).load(::cuda::std::memory_order_relaxed);
      mine = (seen & claimed_bit(start)) == 0 && claim(instance_states, start);
    }
    if (!__shfl_sync(mask, mine, leader)) continue;

    word carried[per_lane];
    {
      const word* from = reinterpret_cast<const word*>(chunk + start * s.super_bytes);
#pragma unroll
      for (int r = 0; r < per_lane; ++r)
        if (l + r * s.lanes < chunk_words) carried[r] = from[l + r * s.lanes];
    }
    // Every lane's read is done before the leader publishes bit 1.
    __threadfence();
    __syncwarp(mask);
    if (l == 0)
      state_ref(instance_states[start >> 4])
          .fetch_or(read_bit(start), ::cuda::std::memory_order_release);

    for (;;) {
      int claimed = 0;
      if (l == 0) claimed = claim(instance_states, next);
      claimed = __shfl_sync(mask, claimed, leader);
      word* to = reinterpret_cast<word*>(chunk + next * s.super_bytes);
      if (!claimed) {
        wait_until_read(instance_states, next);
#pragma unroll
        for (int r = 0; r < per_lane; ++r)
          if (l + r * s.lanes < chunk_words) to[l + r * s.lanes] = carried[r];
        break;
      }
      // This worker holds next's predecessor: it reads next's original, then writes into it.
#pragma unroll
      for (int r = 0; r < per_lane; ++r)
        if (l + r * s.lanes < chunk_words) {
          const word original = to[l + r * s.lanes];
          to[l + r * s.lanes] = carried[r];
          carried[r] = original;
        }
      next = destination(next, s);
    }
  }
}

// ---- PTTWAC with flags in shared memory ------------------------------------------------------

constexpr int pttwac_threads = 256;
/// Chains each group of lanes keeps in flight: their loads are issued together.
constexpr int pttwac_chains = 4;
/// Words (of W bytes) each lane of a group carries per chain: a group of 32 lanes moves a chunk
/// of 64 words.
constexpr int pttwac_words_per_lane = 2;

/// The PTTWAC launch's shape: `batch` instances of rows x cols super-elements of `words` words
/// of W bytes, in groups of `group` instances (one block at a time each); every super-element cut
/// into `chunks` column chunks of chunk_words words (the last may have fewer), each moved by a
/// group of `lanes` lanes. The flags of a group: one bit per position, 32 >> spread_shift
/// positions per 32-bit word, one unused word after every 32 (flag_words words in all).
struct pttwac_shape {
  std::int64_t batch = 0;
  std::int64_t groups = 0;
  std::uint32_t group = 1;
  std::uint32_t rows = 0, cols = 0, size = 0;
  std::uint64_t super_bytes = 0;
  std::uint32_t words = 0, chunk_words = 0, chunks = 1;
  std::uint32_t lanes = 1;
  std::uint32_t spread_shift = 0;
  std::uint32_t flag_words = 0;
  fast_divmod by_size, by_cols;
};

/// The flag word of position p: eq. 3 of sec. 5.1.1 (p x spreading / 32), then one word of
/// padding per 32 (sec. 5.1.2), so that positions `rows` apart (a warp's next step) meet other
/// banks.
__device__ __forceinline__ std::uint32_t pttwac_flag_word(std::uint32_t p, const pttwac_shape& s) {
  const std::uint32_t w = (p << s.spread_shift) >> 5;
  return w + (w >> 5);
}
__device__ __forceinline__ std::uint32_t pttwac_flag_bit(std::uint32_t p, const pttwac_shape& s) {
  return 1u << ((p << s.spread_shift) & 31);
}

/// Eq. 1 within a group: position p of the group's instances goes to the transposed place in
/// its own instance.
__device__ __forceinline__ std::uint32_t pttwac_destination(std::uint32_t p,
                                                            const pttwac_shape& s) {
  const std::uint32_t instance = s.by_size.div(p);
  const std::uint32_t local = p - instance * s.size;
  const std::uint32_t row = s.by_cols.div(local);
  return instance * s.size + (local - row * s.cols) * s.rows + row;
}

/// Grid-stride over groups of instances, and within a group over its column chunks: flags
/// cleared, then PTTWAC on the chunk column as described at the top of this file.
template <int W>
__global__ void __launch_bounds__(pttwac_threads)
    tiled_transpose_pttwac_kernel(unsigned char* data, pttwac_shape s) {
  using word = word_t<W>;
  constexpr int K = pttwac_chains;
  constexpr int P = pttwac_words_per_lane;
  extern __shared__ std::uint32_t flags[];
  const unsigned lane = threadIdx.x & 31;
  const unsigned l = lane & (s.lanes - 1);
  const unsigned leader = lane - l;
  const unsigned mask = s.lanes == 32 ? 0xffffffffu : ((1u << s.lanes) - 1) << leader;
  const std::uint32_t chain_group = threadIdx.x / s.lanes;
  const std::uint32_t chain_groups = blockDim.x / s.lanes;

  for (std::int64_t g = blockIdx.x; g < s.groups; g += gridDim.x) {
    const std::int64_t first = g * s.group;
    const auto count =
        static_cast<std::uint32_t>(s.batch - first < s.group ? s.batch - first : s.group);
    const std::uint32_t positions = count * s.size;
    for (std::uint32_t c = 0; c < s.chunks; ++c) {
      for (std::uint32_t i = threadIdx.x; i < s.flag_words; i += blockDim.x) flags[i] = 0;
      __syncthreads();
      unsigned char* column =
          data + static_cast<std::uint64_t>(first) * s.size * s.super_bytes + c * s.chunk_words * W;
      const std::uint32_t left = s.words - c * s.chunk_words;
      const std::uint32_t chunk_words = left < s.chunk_words ? left : s.chunk_words;
      const auto load = [&](word(&to)[P], std::uint32_t p) {
        const auto* from = reinterpret_cast<const word*>(column + p * s.super_bytes);
#pragma unroll
        for (int r = 0; r < P; ++r)
          if (l + r * s.lanes < chunk_words) to[r] = from[l + r * s.lanes];
      };
      const auto store = [&](std::uint32_t p, const word(&from)[P]) {
        auto* to = reinterpret_cast<word*>(column + p * s.super_bytes);
#pragma unroll
        for (int r = 0; r < P; ++r)
          if (l + r * s.lanes < chunk_words) to[l + r * s.lanes] = from[r];
      };
      // The leader's claim of p, broadcast to its group: true if this group set p's bit.
      const auto claim = [&](std::uint32_t p) {
        int won = 0;
        if (l == 0) {
          const std::uint32_t bit = pttwac_flag_bit(p, s);
          won = (atomicOr(&flags[pttwac_flag_word(p, s)], bit) & bit) == 0;
        }
        return __shfl_sync(mask, won, leader) != 0;
      };

      word carried[K][P], loaded[K][P];
      std::uint32_t at[K];
      for (std::uint32_t round = 0; round < positions; round += K * chain_groups) {
        // Starts: consecutive groups at consecutive positions, each unclaimed one read before
        // its claim (a fence between them: see the top of this file).
        unsigned live = 0;
#pragma unroll
        for (int j = 0; j < K; ++j) {
          at[j] = round + j * chain_groups + chain_group;
          if (at[j] >= positions || pttwac_destination(at[j], s) == at[j]) continue;
          int open = 0;
          if (l == 0) {
            const std::uint32_t bit = pttwac_flag_bit(at[j], s);
            open = (atomicOr(&flags[pttwac_flag_word(at[j], s)], 0u) & bit) == 0;
          }
          if (!__shfl_sync(mask, open, leader)) continue;
          live |= 1u << j;
          load(carried[j], at[j]);
        }
        if (live == 0) continue;
        __threadfence_block();
        __syncwarp(mask);
#pragma unroll
        for (int j = 0; j < K; ++j)
          if ((live >> j & 1) && !claim(at[j])) live &= ~(1u << j);
        // Follow: every live chain's next original is loaded before any claim (nobody but this
        // group writes there first), then claimed; a position claimed already is a start whose
        // original is held by its claimer: the carried value goes there and the chain ends.
        while (live != 0) {
#pragma unroll
          for (int j = 0; j < K; ++j)
            if (live >> j & 1) {
              at[j] = pttwac_destination(at[j], s);
              load(loaded[j], at[j]);
            }
#pragma unroll
          for (int j = 0; j < K; ++j)
            if (live >> j & 1) {
              if (claim(at[j])) {
                store(at[j], carried[j]);
#pragma unroll
                for (int r = 0; r < P; ++r) carried[j][r] = loaded[j][r];
              } else {
                if (l != 0) atomicOr(&flags[pttwac_flag_word(at[j], s)], 0u);
                __threadfence_block();
                store(at[j], carried[j]);
                live &= ~(1u << j);
              }
            }
        }
      }
      __syncthreads();
    }
  }
}

}  // namespace xpose::detail::cuda::tiled
