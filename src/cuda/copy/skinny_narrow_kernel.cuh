// The per-thread pieces of copy_skinny_narrow's kernel (copy/skinny_narrow.cu): out-of-place
// transposition of a matrix with a short side of c <= skinny_narrow_most_short_side elements as
// the interleave (wide c x n -> n x c) or de-interleave (tall n x c -> c x n) of c streams. Both
// sides of a stretch of the long side are long contiguous runs (skinny_narrow_params), so both
// are moved as the aligned 16-byte chunks that cover them, words only where a run's first or last
// chunk is cut: the tiles of the lecture slides "Matrix Transpose — get 90% bandwidth" stretched
// along the long side, with the element moved as K words of the widest power of two W that divides
// it and the pointers (12 bytes as three 4-byte words).
//
// Per stretch, with one barrier between the steps and one after:
//   1. load (to_shared): the source's chunks into shared memory in the strided side's layout. A
//      strided run's chunk lands whole on a 16-byte shared chunk (its run starts in shared memory
//      at the same offset within 16 bytes as in global memory); a packed chunk's V = 16 / W words
//      go one by one to where their (long-side index, short-side index, word) puts them. A
//      thread's first skinny_narrow_chunks_in_flight whole chunks were loaded into registers
//      (fetch) while the block wrote the stretch before; any further ones are loaded that many at
//      a time before any is stored.
//   2. store (from_shared): the destination's chunks, from the same layout, the mirror of step 1.
// A packed chunk's words land at positions a thread computes once per matrix: thread t takes
// chunks t, t + T', t + 2T', ... of the packed run, and T' (packed_threads) * V is a multiple of
// the c * K words of a packed row, so every chunk a thread takes starts at the same word of a row
// and its words land packed_step shared words further than those of the chunk before. Because
// a stretch is a multiple of 16 long-side indices (or the whole long side), every stretch of a
// matrix has the same misalignment on both sides.
// The strided runs are `pitch` words apart in shared memory, chosen by the launcher so that the
// word-by-word side meets few bank conflicts. Blocks loop over the stretches of all matrices;
// 64-bit global offsets, 32-bit ones within a stretch. Nothing outside the matrices is read or
// written. The pieces are host-callable (plain loads and stores there), so that tests can run a
// block's threads one after another on the host.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/copy/skinny_narrow.hpp"

#if defined(__CUDA_ARCH__)
#define XPOSE_NARROW_UNROLL _Pragma("unroll")
#define XPOSE_NARROW_ROLLED _Pragma("unroll 1")
#else
#define XPOSE_NARROW_UNROLL
#define XPOSE_NARROW_ROLLED
#endif

namespace xpose::detail::cuda {

/// Threads per block.
constexpr int skinny_narrow_threads = 256;
/// Chunks a thread loads before it stores any to shared memory.
constexpr int skinny_narrow_chunks_in_flight = 4;

/// The unsigned type of W bytes.
template <int W>
struct narrow_word;
template <>
struct narrow_word<1> {
  using type = unsigned char;
};
template <>
struct narrow_word<2> {
  using type = unsigned short;
};
template <>
struct narrow_word<4> {
  using type = unsigned;
};
template <>
struct narrow_word<8> {
  using type = unsigned long long;
};
template <>
struct narrow_word<16> {
  using type = uint4;
};

/// (item / n, item % n) for item = first, first + step, first + 2 step, ... without a division
/// per step.
struct narrow_split {
  int major, minor;
  __host__ __device__ narrow_split(int first, int step, int n)
      : major(first / n), minor(first % n), major_step_(step / n), minor_step_(step % n), n_(n) {}
  __host__ __device__ void advance() {
    major += major_step_;
    minor += minor_step_;
    if (minor >= n_) minor -= n_, ++major;
  }

 private:
  int major_step_, minor_step_, n_;
};

/// Global accesses: read-only loads through the non-coherent cache, chunk stores cached in L2
/// only (the neighbouring stretch completes a cut chunk's sector there); plain ones on the host.
template <class T>
__host__ __device__ __forceinline__ T narrow_load(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
#endif
}
__host__ __device__ __forceinline__ void narrow_store_chunk(void* p, const uint4& chunk) {
#if defined(__CUDA_ARCH__)
  __stcg(static_cast<uint4*>(p), chunk);
#else
  std::memcpy(p, &chunk, sizeof chunk);
#endif
}

/// One thread's part of a block, per stretch: `enter` it, `to_shared` (step 1), a barrier,
/// `fetch` the block's next stretch, `from_shared` (step 2), a barrier; `fetch` the block's first
/// stretch before the first. `shared` holds c * pitch words, 16-byte aligned.
template <int W>
class skinny_narrow_thread {
 public:
  using word = typename narrow_word<W>::type;
  static constexpr int V = 16 / W;  ///< words per chunk
  static constexpr int R = skinny_narrow_chunks_in_flight;

  __host__ __device__ skinny_narrow_thread(const skinny_narrow_params& p, int thread)
      : p_(p), thread_(thread) {}

  /// Loads this thread's leading whole chunks of stretch `stretch`'s source (the packed
  /// run's chunks t + r * T', or the strided runs' items t + r * threads, r < R) into data_[r]
  /// before the barrier after which they go to shared memory: they are in flight while the
  /// stretch before is written. Cut chunks wait for to_shared, which writes them to shared memory
  /// as they come.
  __host__ __device__ void fetch(std::int64_t stretch) {
    const place at = locate(stretch);
    if (p_.tall) {
      if (thread_ >= p_.packed_threads) return;
      const word* packed = at.src + packed_offset(at);
      const int count = packed_words(at), a = misalignment(packed);
      XPOSE_NARROW_UNROLL
      for (int r = 0; r < R; ++r) {
        const int p0 = (thread_ + r * p_.packed_threads) * V - a;
        if (whole(p0, count)) data_[r] = narrow_load(reinterpret_cast<const uint4*>(packed + p0));
      }
    } else {
      const int count = at.valid * p_.words;
      narrow_split item(thread_, skinny_narrow_threads, chunks_per_run(at));
      XPOSE_NARROW_UNROLL
      for (int r = 0; r < R; ++r, item.advance()) {
        if (item.major >= p_.short_side) continue;
        const word* run = at.src + run_offset(at, item.major);
        const int p0 = item.minor * V - misalignment(run);
        if (whole(p0, count)) data_[r] = narrow_load(reinterpret_cast<const uint4*>(run + p0));
      }
    }
  }

  /// Takes stretch `stretch` (the one last fetched): the positions of the packed words when its
  /// matrix is not the last stretch's.
  __host__ __device__ void enter(std::int64_t stretch) {
    const std::int64_t matrix = now_.matrix;
    now_ = locate(stretch);
    if (now_.matrix != matrix) place_packed_words();
  }

  /// Step 1: the stretch's source chunks to shared memory.
  __host__ __device__ void to_shared(word* shared) const {
    if (p_.tall)
      packed_to_shared(shared);
    else
      runs_to_shared(shared);
  }

  /// Step 2: the stretch's destination chunks from shared memory.
  __host__ __device__ void from_shared(const word* shared) const {
    if (p_.tall)
      shared_to_runs(shared);
    else
      shared_to_packed(shared);
  }

 private:
  /// Where a stretch lies: its matrix, its first long-side index, its indices, and the matrix's
  /// source and destination.
  struct place {
    std::int64_t matrix = -1, first = 0;
    int valid = 0;
    const word* src = nullptr;
    word* dst = nullptr;
  };
  __host__ __device__ place locate(std::int64_t stretch) const {
    place at;
    at.matrix = stretch / p_.stretches_per_matrix;
    at.first = (stretch - at.matrix * p_.stretches_per_matrix) * p_.length;
    const std::int64_t left = p_.long_side - at.first;
    at.valid = static_cast<int>(left < p_.length ? left : p_.length);
    at.src = static_cast<const word*>(p_.src) + at.matrix * p_.src_stride;
    at.dst = static_cast<word*>(p_.dst) + at.matrix * p_.dst_stride;
    return at;
  }

  /// Words of `p` before its 16-byte chunk's start.
  __host__ __device__ static int misalignment(const void* p) {
    return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15) / W;
  }
  /// Whether the chunk whose first word is word p0 of `count` words lies within them.
  __host__ __device__ static bool whole(int p0, int count) { return p0 >= 0 && p0 + V <= count; }

  /// The packed run of a stretch (in the source when tall, else in the destination): its first
  /// word's offset in its matrix, its misalignment and its words.
  __host__ __device__ std::int64_t packed_offset(const place& at) const {
    return at.first * p_.short_side * p_.words;
  }
  __host__ __device__ int packed_misalignment(const place& at) const {
    return p_.tall ? misalignment(at.src + packed_offset(at))
                   : misalignment(at.dst + packed_offset(at));
  }
  __host__ __device__ int packed_words(const place& at) const {
    return at.valid * p_.short_side * p_.words;
  }
  /// Strided run j of a stretch (in the destination when tall, else in the source): its first
  /// word's offset in its matrix and its misalignment.
  __host__ __device__ std::int64_t run_offset(const place& at, int j) const {
    return j * p_.strided_ld + at.first * p_.words;
  }
  __host__ __device__ int run_misalignment(const place& at, int j) const {
    return p_.tall ? misalignment(at.dst + run_offset(at, j))
                   : misalignment(at.src + run_offset(at, j));
  }
  /// Chunks that may touch a strided run of a stretch (any misalignment).
  __host__ __device__ int chunks_per_run(const place& at) const {
    return (at.valid * p_.words + 2 * (V - 1)) / V;
  }

  /// The shared word of word p (>= 0) of the current stretch's packed run: element (i, j), word k
  /// of it, lies at word i * K + k of run j, which starts at word j * pitch + its misalignment.
  __host__ __device__ int packed_position(int p) const {
    const int k_words = p_.words, row = p_.short_side * k_words;
    const int i = p / row, in_row = p - i * row;
    const int j = in_row / k_words, k = in_row - j * k_words;
    return j * p_.pitch + run_misalignment(now_, j) + i * k_words + k;
  }

  /// pos_[v]: the shared word of word v of this thread's first packed chunk (chunk t, which
  /// starts `a` (misalignment) words before the packed run: word t * V - a + v of the run).
  /// Computed `back` rows further on, so that the words before the run (t = 0) get the place
  /// their row would have (later chunks of the thread hold real words there).
  __host__ __device__ void place_packed_words() {
    if (thread_ >= p_.packed_threads) return;
    const int row = p_.short_side * p_.words, back = (V + row - 1) / row;
    const int a = packed_misalignment(now_);
    XPOSE_NARROW_UNROLL
    for (int v = 0; v < V; ++v)
      set_position(v, packed_position(thread_ * V - a + v + back * row) - back * p_.words);
  }

  // A chunk cut by a run's first or last word moves word by word, in a loop kept rolled: such
  // chunks are two per run and stretch, and unrolled they would hold V words and addresses in
  // registers at once (W = 1: 120 registers rather than 96, left free).

  /// Tall step 1: the packed source run, chunk z = t + s * T' (s = 0, 1, ...) to the positions
  /// pos_ + s * packed_step: the fetched ones, then R at a time loaded here.
  __host__ __device__ void packed_to_shared(word* shared) const {
    if (thread_ >= p_.packed_threads) return;
    const word* packed = now_.src + packed_offset(now_);
    const int count = packed_words(now_), a = misalignment(packed);
    const int chunks = (a + count + V - 1) / V, threads = p_.packed_threads;
    const auto scatter = [&](const uint4& chunk, int s) {
      word w[V];
      std::memcpy(w, &chunk, sizeof w);
      XPOSE_NARROW_UNROLL
      for (int v = 0; v < V; ++v) shared[position(v) + s * p_.packed_step] = w[v];
    };
    const auto cut = [&](int p0) {
      XPOSE_NARROW_ROLLED
      for (int p = p0 < 0 ? 0 : p0; p < p0 + V && p < count; ++p)
        shared[packed_position(p)] = narrow_load(packed + p);
    };
    XPOSE_NARROW_UNROLL
    for (int r = 0; r < R; ++r) {
      const int z = thread_ + r * threads, p0 = z * V - a;
      if (z >= chunks) continue;
      if (whole(p0, count))
        scatter(data_[r], r);
      else
        cut(p0);
    }
    for (int s0 = R; thread_ + s0 * threads < chunks; s0 += R) {
      uint4 data[R];
      XPOSE_NARROW_UNROLL
      for (int r = 0; r < R; ++r) {
        const int z = thread_ + (s0 + r) * threads, p0 = z * V - a;
        if (z >= chunks) continue;
        if (whole(p0, count))
          data[r] = narrow_load(reinterpret_cast<const uint4*>(packed + p0));
        else
          cut(p0);
      }
      XPOSE_NARROW_UNROLL
      for (int r = 0; r < R; ++r) {
        const int z = thread_ + (s0 + r) * threads;
        if (z < chunks && whole(z * V - a, count)) scatter(data[r], s0 + r);
      }
    }
  }

  /// Wide step 2: the packed destination run, chunk z = t + s * T' gathered from the positions
  /// pos_ + s * packed_step.
  __host__ __device__ void shared_to_packed(const word* shared) const {
    if (thread_ >= p_.packed_threads) return;
    word* packed = now_.dst + packed_offset(now_);
    const int count = packed_words(now_), a = misalignment(packed);
    const int chunks = (a + count + V - 1) / V;
    int shift = 0;
    for (int z = thread_; z < chunks; z += p_.packed_threads, shift += p_.packed_step) {
      const int p0 = z * V - a;
      if (whole(p0, count)) {
        word w[V];
        XPOSE_NARROW_UNROLL
        for (int v = 0; v < V; ++v) w[v] = shared[position(v) + shift];
        uint4 chunk;
        std::memcpy(&chunk, w, sizeof chunk);
        narrow_store_chunk(packed + p0, chunk);
      } else {
        XPOSE_NARROW_ROLLED
        for (int p = p0 < 0 ? 0 : p0; p < p0 + V && p < count; ++p)
          packed[p] = shared[packed_position(p)];
      }
    }
  }

  /// Wide step 1: the strided source runs, item (j, z) = chunk z of run j to shared word
  /// j * pitch + z * V: the fetched ones, then R at a time loaded here.
  __host__ __device__ void runs_to_shared(word* shared) const {
    const int count = now_.valid * p_.words;
    // Item (j, z): a whole chunk is loaded into `chunk` unless `fetched` (returns where it goes),
    // a cut one's words in the run go to shared memory here (returns -1).
    const auto take = [&](const narrow_split& item, uint4& chunk, bool fetched) {
      const word* run = now_.src + run_offset(now_, item.major);
      const int p0 = item.minor * V - misalignment(run);
      const int to = item.major * p_.pitch + item.minor * V;
      if (whole(p0, count)) {
        if (!fetched) chunk = narrow_load(reinterpret_cast<const uint4*>(run + p0));
        return to;
      }
      XPOSE_NARROW_ROLLED
      for (int p = p0 < 0 ? 0 : p0; p < p0 + V && p < count; ++p)
        shared[to + (p - p0)] = narrow_load(run + p);
      return -1;
    };
    narrow_split item(thread_, skinny_narrow_threads, chunks_per_run(now_));
    XPOSE_NARROW_UNROLL
    for (int r = 0; r < R; ++r, item.advance()) {
      if (item.major >= p_.short_side) continue;
      uint4 fetched = data_[r];
      const int to = take(item, fetched, true);
      if (to >= 0) *reinterpret_cast<uint4*>(shared + to) = fetched;
    }
    while (item.major < p_.short_side) {
      uint4 data[R];
      int to[R];
      XPOSE_NARROW_UNROLL
      for (int r = 0; r < R; ++r, item.advance())
        to[r] = item.major < p_.short_side ? take(item, data[r], false) : -1;
      XPOSE_NARROW_UNROLL
      for (int r = 0; r < R; ++r)
        if (to[r] >= 0) *reinterpret_cast<uint4*>(shared + to[r]) = data[r];
    }
  }

  /// Tall step 2: the strided destination runs, chunk z of run j from shared word
  /// j * pitch + z * V.
  __host__ __device__ void shared_to_runs(const word* shared) const {
    const int count = now_.valid * p_.words;
    for (narrow_split item(thread_, skinny_narrow_threads, chunks_per_run(now_));
         item.major < p_.short_side; item.advance()) {
      word* run = now_.dst + run_offset(now_, item.major);
      const int p0 = item.minor * V - misalignment(run);
      const word* from = shared + item.major * p_.pitch + item.minor * V;
      if (whole(p0, count)) {
        narrow_store_chunk(run + p0, *reinterpret_cast<const uint4*>(from));
      } else {
        XPOSE_NARROW_ROLLED
        for (int p = p0 < 0 ? 0 : p0; p < p0 + V && p < count; ++p) run[p] = from[p - p0];
      }
    }
  }

  /// For words of 1 and 2 bytes, whose 16 and 8 positions would take as many registers, the
  /// positions are kept in pairs of 16 bits, V more than they are (a block's shared words fit
  /// 16 bits; the positions of the words before the packed run are down to -(V - 1)).
  static constexpr bool paired = V >= 8;
  __host__ __device__ int position(int v) const {
    if constexpr (paired)
      return static_cast<int>(pos_[v / 2] >> (16 * (v % 2)) & 0xffffu) - V;
    else
      return pos_[v];
  }
  __host__ __device__ void set_position(int v, int at) {
    if constexpr (paired)
      pos_[v / 2] = (pos_[v / 2] & (0xffff0000u >> (16 * (v % 2)))) |
                    (static_cast<unsigned>(at + V) << (16 * (v % 2)));
    else
      pos_[v] = at;
  }

  const skinny_narrow_params& p_;
  int thread_;
  place now_;  ///< the current stretch
  std::conditional_t<paired, unsigned, int> pos_[paired ? V / 2 : V] = {};
  uint4 data_[R] = {};  ///< the fetched chunks
};

}  // namespace xpose::detail::cuda
