// The copy_small_batch kernel template (instantiated per element size E = 1 to 16 bytes and
// read mode by copy/small_batch.cu): out-of-place transposition of a dense batch of small
// matrices (2 to 64 rows and columns; one row or column is a plain copy, left to the launcher)
// through shared memory, as in the lecture slides "Matrix Transpose — get 90% bandwidth", a tile
// being a group of whole matrices. Dense (lda == cols, ldb == rows, matrices rows * cols apart), a
// group of G consecutive matrices is one contiguous run of G * rows * cols * E bytes in the source
// and one in the destination, so a block, looping over the groups (grid-stride, the grid the
// resident blocks):
//   1. fetches the source run as the aligned 16-byte chunks that cover it (cp.async; the chunk the
//      run's end cuts byte by byte, so nothing is read past the run) into a source buffer, the
//      next group's into a second buffer while this one moves where two fit the policy;
//   2. gathers destination units: a thread takes U consecutive destination elements (16 bytes
//      for 1-, 2-, 4-, 8- and 16-byte elements; 4 / gcd(E, 4) elements, a whole number of 32-bit
//      words, for the other sizes), reads each from the source buffer at its byte position and
//      packs it at its compile-time byte offset in the unit;
//   3. 1-, 2-, 4-, 8- and 16-byte elements: stores each unit straight to the destination run (a
//      16-byte store where the run starts on 16 bytes, narrower stores elsewhere); the other
//      sizes: stores the units to a destination image in shared memory, which is then written as
//      the aligned 16-byte chunks that cover the run (the chunks the run's ends cut byte by byte),
//      in pieces of the image's size.
//
// Element reads in step 2 (small_batch_read): `native`, one access of E bytes (1, 2, 4, 8, 16)
// where the source is aligned to E; `words4`, three 4-byte words (12-byte elements on 4 bytes);
// `funnel`, the 32-bit words that cover the element at any byte position, shifted into place
// (__funnelshift_r) and merged into the unit with __byte_perm: the other sizes and alignments
// (fewer shared-memory reads than a byte at a time).
//
// Bank conflicts: the source buffers' 16-byte chunks are swizzled within each 128-byte line (chunk
// bits 4-6 XORed with address bits 7-9, and for 2-, 4-, 8- and 16-byte elements bits 10-12 too),
// so that the elements one read instruction takes down source columns (rows C * E bytes apart)
// fall in different banks while step 1 still writes whole chunks; destination units of the other
// sizes are an odd number of words apart, so their image stores are conflict-free.
//
// Index arithmetic: 64-bit for the group's base, 32-bit inside a group (at most 64 KiB);
// divisions by R and R * C are multiplications by precomputed reciprocals (mul_hi), and where a
// unit spans at most two destination rows (R >= U) its positions are p0 + i * C * E plus one jump
// (none where U divides R).
// The device pieces are __host__ __device__ so that a host loop can run them thread by thread.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/tuning/small_batch.hpp"

namespace xpose::detail::cuda {

/// What a launch of the kernel needs to know (sizes in bytes unless named otherwise).
struct small_batch_params {
  const unsigned char* src = nullptr;
  unsigned char* dst = nullptr;
  std::int64_t batch = 0;   ///< matrices
  std::int64_t groups = 0;  ///< ceil(batch / group)
  int group = 0;            ///< matrices per group
  int rows = 0, cols = 0;   ///< R and C, 2 to 64
  int row_bytes = 0;        ///< C * E: one source row
  int matrix_bytes = 0;     ///< R * C * E
  int matrix_elements = 0;  ///< R * C
  /// floor(2^32 / d) + 1 for d = R and R * C: x / d == mul_hi(x, that) for x * d < 2^32.
  unsigned rows_reciprocal = 0, matrix_reciprocal = 0;
  int buffer_bytes = 0;  ///< one source buffer: a multiple of 128
  int buffers = 1;       ///< 1 or 2
  int piece_units = 0;   ///< units per piece of the destination image (staged sizes)
};

/// Host side: floor(2^32 / d) + 1 for 2 <= d.
constexpr unsigned small_batch_reciprocal(unsigned d) {
  return static_cast<unsigned>((std::uint64_t{1} << 32) / d + 1);
}

/// How step 2 reads an element from the source buffer.
enum class small_batch_read { native, words4, funnel };

/// Compile-time facts of E-byte elements.
template <int E>
struct small_batch_element {
  static_assert(E >= 1 && E <= 16, "1 to 16 bytes");
  /// 1, 2, 4, 8 or 16 bytes: 16-byte units stored straight to the destination.
  static constexpr bool direct = (E & (E - 1)) == 0;
  static constexpr int units_gcd = E % 4 == 0 ? 4 : E % 2 == 0 ? 2 : 1;
  static constexpr int unit = direct ? 16 / E : 4 / units_gcd;  ///< elements per unit
  static constexpr int unit_bytes = unit * E;
  static constexpr int unit_words = unit_bytes / 4;
  static constexpr int value_words = (E + 3) / 4;  ///< words holding one element
  /// Swizzle with address bits 10-12 as well as 7-9: in a model of step 2's reads on the shapes
  /// of tests/cuda/small_batch_gpu_test.cpp, fewer conflicts for 2-, 4-, 8- and 16-byte elements,
  /// more for the sizes that are not powers of two, as many for 1 byte (for two more instructions
  /// a byte).
  static constexpr bool fold = direct && E > 1;
};

namespace small_batch_parts {

__host__ __device__ inline unsigned mul_hi(unsigned a, unsigned b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return static_cast<unsigned>((std::uint64_t{a} * b) >> 32);
#endif
}

/// The low 32 bits of (hi:lo) >> shift, shift < 32.
__host__ __device__ inline unsigned funnel_right(unsigned lo, unsigned hi, unsigned shift) {
#ifdef __CUDA_ARCH__
  return __funnelshift_r(lo, hi, shift);
#else
  return static_cast<unsigned>(((std::uint64_t{hi} << 32) | lo) >> (shift & 31));
#endif
}

/// Byte k of the result is byte (s >> 4k) & 7 of y:x (x bytes 0-3, y bytes 4-7).
__host__ __device__ inline unsigned byte_perm(unsigned x, unsigned y, unsigned s) {
#ifdef __CUDA_ARCH__
  return __byte_perm(x, y, s);
#else
  const std::uint64_t both = (std::uint64_t{y} << 32) | x;
  unsigned r = 0;
  for (int k = 0; k < 4; ++k)
    r |= static_cast<unsigned>((both >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
#endif
}

/// A compile-time index: decltype(i)::value, or i where an int is wanted (host and device).
template <int I>
struct index_constant {
  static constexpr int value = I;
  __host__ __device__ constexpr operator int() const { return I; }
};

/// f(index_constant<I>) for I = B .. N-1, unrolled at compile time.
template <int B, int N, class F>
__host__ __device__ inline void unrolled(F&& f) {
  if constexpr (B < N) {
    f(index_constant<B>{});
    unrolled<B + 1, N>(f);
  }
}

/// Where byte p of the source buffers (an offset in shared memory) lies: its 16-byte chunk moved
/// within its 128-byte line.
template <bool FOLD>
__host__ __device__ inline int swizzled(int p) {
  return p ^ ((FOLD ? (p >> 3) ^ (p >> 6) : p >> 3) & 0x70);
}

/// The selector of __byte_perm(x, y, .) that keeps x's bytes below `lead` and puts y's bytes 0..
/// after them.
__host__ __device__ constexpr unsigned keep_then_take(int lead) {
  unsigned s = 0;
  for (int k = 0; k < 4; ++k) s |= static_cast<unsigned>(k < lead ? k : 4 + k - lead) << (4 * k);
  return s;
}
/// The selector that takes bytes `from` to from + 3 of y:x.
__host__ __device__ constexpr unsigned bytes_from(int from) {
  unsigned s = 0;
  for (int k = 0; k < 4; ++k) s |= static_cast<unsigned>(from + k) << (4 * k);
  return s;
}

/// The element at byte p of the source buffers in `shared` in v (its byte 0 in v[0]'s byte 0;
/// bytes past E unspecified).
template <int E, small_batch_read M>
__host__ __device__ inline void read_element(const unsigned char* shared, int p,
                                             unsigned (&v)[small_batch_element<E>::value_words]) {
  constexpr bool fold = small_batch_element<E>::fold;
  if constexpr (M == small_batch_read::native) {
    const unsigned char* at = shared + swizzled<fold>(p);
    if constexpr (E == 1) {
      v[0] = *at;
    } else if constexpr (E == 2) {
      v[0] = *reinterpret_cast<const unsigned short*>(at);
    } else if constexpr (E == 4) {
      v[0] = *reinterpret_cast<const unsigned*>(at);
    } else if constexpr (E == 8) {
      const uint2 x = *reinterpret_cast<const uint2*>(at);
      v[0] = x.x, v[1] = x.y;
    } else {
      static_assert(E == 16, "native reads take 1, 2, 4, 8 or 16 bytes");
      const uint4 x = *reinterpret_cast<const uint4*>(at);
      v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    }
  } else if constexpr (M == small_batch_read::words4) {
    static_assert(E % 4 == 0, "words4 reads take whole 4-byte words");
    unrolled<0, E / 4>([&](auto q) {
      v[q] = *reinterpret_cast<const unsigned*>(shared + swizzled<fold>(p + 4 * q));
    });
  } else {
    // The words that cover E bytes at any byte offset: (3 + E + 3) / 4; the word after them
    // only brings bytes past the element.
    constexpr int covering = (E + 6) / 4;
    const int base = p & ~3;
    const unsigned shift = static_cast<unsigned>(p & 3) * 8;
    unsigned w[covering + 1];
    unrolled<0, covering>([&](auto q) {
      w[q] = *reinterpret_cast<const unsigned*>(shared + swizzled<fold>(base + 4 * q));
    });
    w[covering] = 0;
    unrolled<0, small_batch_element<E>::value_words>(
        [&](auto q) { v[q] = funnel_right(w[q], w[q + 1], shift); });
  }
}

/// Puts element v (read_element's form) at byte offset O of the unit's words `out`. Bytes of
/// out before O stay; bytes after the element in its last word are unspecified (the next
/// element, or the unit's end: units are whole words).
template <int E, int O, int N>
__host__ __device__ inline void place(const unsigned (&v)[small_batch_element<E>::value_words],
                                      unsigned (&out)[N]) {
  constexpr int vw = small_batch_element<E>::value_words;
  unrolled<O / 4, (O + E - 1) / 4 + 1>([&](auto word) {
    constexpr int ow = decltype(word)::value;
    constexpr int lead = O - 4 * ow;
    if constexpr (lead > 0) {
      // The element starts inside this word: its first 4 - lead bytes (all in v[0]) go after the
      // bytes already there.
      out[ow] = byte_perm(out[ow], v[0], keep_then_take(lead));
    } else {
      constexpr int e0 = -lead;  // the element's byte at this word's byte 0
      constexpr int q = e0 / 4, s = e0 % 4;
      if constexpr (s == 0) {
        out[ow] = v[q];
      } else if constexpr (q + 1 < vw) {
        out[ow] = byte_perm(v[q], v[q + 1], bytes_from(s));
      } else {
        out[ow] = v[q] >> (8 * s);
      }
    }
  });
}

/// One group: its matrices, bytes, and where its runs start.
struct group_place {
  int matrices, elements, bytes;
  const unsigned char* src;  ///< the source run
  unsigned char* dst;        ///< the destination run
  int src_head;              ///< src's byte offset in its aligned 16-byte chunk
  int dst_head;
  __host__ __device__ group_place(const small_batch_params& p, std::int64_t g) {
    const std::int64_t first = g * p.group;
    const std::int64_t left = p.batch - first;
    matrices = static_cast<int>(left < p.group ? left : p.group);
    elements = matrices * p.matrix_elements;
    bytes = matrices * p.matrix_bytes;
    const std::int64_t offset = g * p.group * static_cast<std::int64_t>(p.matrix_bytes);
    src = p.src + offset;
    dst = p.dst + offset;
    src_head = static_cast<int>(reinterpret_cast<std::uintptr_t>(src) & 15);
    dst_head = static_cast<int>(reinterpret_cast<std::uintptr_t>(dst) & 15);
  }
};

/// Step 1 for one thread: the aligned 16-byte chunks `thread`, thread + threads, ... of the
/// group's source run into the buffer at byte `buffer` of `shared` (a multiple of 128): chunk k
/// at swizzled byte buffer + 16 k, so the run's byte i at buffer + src_head + i.
template <bool FOLD>
__host__ __device__ inline void fetch_group(const group_place& g, unsigned char* shared, int buffer,
                                            int thread, int threads) {
  const unsigned char* aligned = g.src - g.src_head;
  const int end = g.src_head + g.bytes;  // the run's end in positions
  const int chunks = (end + 15) / 16;
  for (int k = thread; k < chunks; k += threads) {
    unsigned char* to = shared + swizzled<FOLD>(buffer + 16 * k);
    const unsigned char* from = aligned + 16 * k;
    if (16 * k + 16 <= end) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
      asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(shared), "l"(from)
                   : "memory");
#else
      *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
#endif
    } else {
      // The chunk the run's end cuts: only its bytes in the run.
      for (int i = 16 * k > g.src_head ? 16 * k : g.src_head; i < end; ++i) {
#ifdef __CUDA_ARCH__
        to[i - 16 * k] = __ldcg(aligned + i);
#else
        to[i - 16 * k] = aligned[i];
#endif
      }
    }
  }
}

/// Where in the source buffers the group's destination element j lies, the group's run
/// starting at byte `origin`.
template <int E>
__host__ __device__ inline int source_position(const small_batch_params& p, int origin,
                                               unsigned j) {
  const unsigned m = mul_hi(j, p.matrix_reciprocal);
  const unsigned e = j - m * static_cast<unsigned>(p.matrix_elements);
  const unsigned c = mul_hi(e, p.rows_reciprocal);
  const unsigned r = e - c * static_cast<unsigned>(p.rows);
  return origin + static_cast<int>(m) * p.matrix_bytes + static_cast<int>(r) * p.row_bytes +
         static_cast<int>(c) * E;
}

/// Step 2 for one whole unit: destination elements j0 .. j0 + U - 1 of the group whose run
/// starts at byte `origin` of the source buffers in `shared`, packed into `out`.
template <int E, small_batch_read M, int N>
__host__ __device__ inline void gather_unit(const small_batch_params& p,
                                            const unsigned char* shared, int origin, unsigned j0,
                                            unsigned (&out)[N]) {
  using traits = small_batch_element<E>;
  constexpr int U = traits::unit;
  const auto take = [&](auto i, int position) {
    unsigned v[traits::value_words];
    read_element<E, M>(shared, position, v);
    place<E, decltype(i)::value * E>(v, out);
  };
  if (U <= 2 || p.rows >= U) {
    // At most one destination row change in the unit: after element k1 - 1 the next column,
    // or the next matrix's first column.
    const unsigned m = mul_hi(j0, p.matrix_reciprocal);
    const unsigned e = j0 - m * static_cast<unsigned>(p.matrix_elements);
    const unsigned c = mul_hi(e, p.rows_reciprocal);
    const int r0 = static_cast<int>(e - c * static_cast<unsigned>(p.rows));
    const int p0 =
        origin + static_cast<int>(m) * p.matrix_bytes + r0 * p.row_bytes + static_cast<int>(c) * E;
    if (U > 1 && p.rows % U == 0) {
      // Units of whole destination rows' parts (groups start on a row): no row change.
      unrolled<0, U>([&](auto i) { take(i, p0 + decltype(i)::value * p.row_bytes); });
      return;
    }
    const int k1 = p.rows - r0;
    const int p1 =
        p0 + (static_cast<int>(c) + 1 < p.cols ? E - p.matrix_bytes : -static_cast<int>(c) * E);
    unrolled<0, U>([&](auto i) {
      constexpr int I = decltype(i)::value;
      take(i, (I < k1 ? p0 : p1) + I * p.row_bytes);
    });
  } else {
    unrolled<0, U>(
        [&](auto i) { take(i, source_position<E>(p, origin, j0 + decltype(i)::value)); });
  }
}

/// The words `w` to `to`, which is aligned to `alignment` (16, 8, 4, 2 or 1): the widest
/// accesses that alignment and N allow.
template <int N>
__host__ __device__ inline void store_words(unsigned char* to, const unsigned (&w)[N],
                                            int alignment) {
  if constexpr (N % 4 == 0) {
    if (alignment >= 16) {
      unrolled<0, N / 4>([&](auto q) {
        constexpr int b = 4 * decltype(q)::value;
        reinterpret_cast<uint4*>(to)[b / 4] = make_uint4(w[b], w[b + 1], w[b + 2], w[b + 3]);
      });
      return;
    }
  }
  if constexpr (N % 2 == 0) {
    if (alignment >= 8) {
      unrolled<0, N / 2>([&](auto q) {
        constexpr int b = 2 * decltype(q)::value;
        reinterpret_cast<uint2*>(to)[b / 2] = make_uint2(w[b], w[b + 1]);
      });
      return;
    }
  }
  if (alignment >= 4) {
    unrolled<0, N>([&](auto q) { reinterpret_cast<unsigned*>(to)[q] = w[q]; });
  } else if (alignment >= 2) {
    unrolled<0, N>([&](auto q) {
      reinterpret_cast<unsigned short*>(to)[2 * q] = static_cast<unsigned short>(w[q]);
      reinterpret_cast<unsigned short*>(to)[2 * q + 1] = static_cast<unsigned short>(w[q] >> 16);
    });
  } else {
    unrolled<0, N>([&](auto q) {
      unrolled<0, 4>([&](auto k) { to[4 * q + k] = static_cast<unsigned char>(w[q] >> (8 * k)); });
    });
  }
}

/// The largest of 16, 8, 4, 2 and 1 that divides `offset`.
__host__ __device__ inline int alignment_of(int offset) {
  const int low = offset & -offset;
  return offset == 0 || low > 16 ? 16 : low;
}

/// Elements j0 .. j0 + count - 1 of the group (a last unit, cut by the group's end), byte by
/// byte to `to` (the unit's first byte).
template <int E>
__host__ __device__ inline void move_cut_unit(const small_batch_params& p,
                                              const unsigned char* shared, int origin, unsigned j0,
                                              int count, unsigned char* to) {
  constexpr bool fold = small_batch_element<E>::fold;
  for (int i = 0; i < count; ++i) {
    const int position = source_position<E>(p, origin, j0 + i);
    for (int b = 0; b < E; ++b) to[i * E + b] = shared[swizzled<fold>(position + b)];
  }
}

/// Steps 2 and 3 for 1-, 2-, 4-, 8- and 16-byte elements: the group's units `thread`,
/// thread + threads, ... from the buffer at byte `buffer` of `shared` straight to the
/// destination run.
template <int E, small_batch_read M>
__host__ __device__ inline void move_direct(const small_batch_params& p, const group_place& g,
                                            const unsigned char* shared, int buffer, int thread,
                                            int threads) {
  using traits = small_batch_element<E>;
  constexpr int U = traits::unit;
  const int whole = g.elements / U;
  const int alignment = alignment_of(g.dst_head);
  const int origin = buffer + g.src_head;
  for (int u = thread; u < whole; u += threads) {
    unsigned out[4];
    gather_unit<E, M>(p, shared, origin, static_cast<unsigned>(u * U), out);
    store_words(g.dst + 16 * u, out, alignment);
  }
  const int cut = g.elements - whole * U;
  if (cut > 0 && thread == whole % threads)
    move_cut_unit<E>(p, shared, origin, static_cast<unsigned>(whole * U), cut, g.dst + 16 * whole);
}

/// A piece of a group's destination run for the other sizes: units [first, end), run bytes
/// [begin, finish); its image holds run byte i at image byte dst_head + i - base (base: a
/// multiple of 16, so that the image's 16-byte chunks are the destination's).
struct piece_place {
  int first, end, begin, finish, base;
  __host__ __device__ piece_place(const small_batch_params& p, const group_place& g, int piece,
                                  int unit, int unit_bytes) {
    const int units = (g.elements + unit - 1) / unit;
    first = piece * p.piece_units;
    end = first + p.piece_units < units ? first + p.piece_units : units;
    begin = first * unit_bytes;
    finish = end * unit_bytes < g.bytes ? end * unit_bytes : g.bytes;
    base = (g.dst_head + begin) & ~15;
  }
};

/// Pieces of the group's destination run.
__host__ __device__ inline int pieces_of(const small_batch_params& p, const group_place& g,
                                         int unit) {
  const int units = (g.elements + unit - 1) / unit;
  return (units + p.piece_units - 1) / p.piece_units;
}

/// Step 2 for the other sizes: the piece's units `thread`, thread + threads, ... from the buffer
/// at byte `buffer` of `shared` into the destination image `image`.
template <int E, small_batch_read M>
__host__ __device__ inline void gather_piece(const small_batch_params& p, const group_place& g,
                                             const piece_place& piece, const unsigned char* shared,
                                             int buffer, unsigned char* image, int thread,
                                             int threads) {
  using traits = small_batch_element<E>;
  constexpr int U = traits::unit, UB = traits::unit_bytes;
  const int whole_end = g.elements / U;  // units before this one are whole
  const int alignment = alignment_of(g.dst_head);
  const int shift = g.dst_head - piece.base;
  const int origin = buffer + g.src_head;
  for (int u = piece.first + thread; u < piece.end; u += threads) {
    unsigned char* to = image + shift + u * UB;
    if (u < whole_end) {
      unsigned out[traits::unit_words];
      gather_unit<E, M>(p, shared, origin, static_cast<unsigned>(u * U), out);
      store_words(to, out, alignment < 4 ? alignment : 4);
    } else {
      move_cut_unit<E>(p, shared, origin, static_cast<unsigned>(u * U), g.elements - u * U, to);
    }
  }
}

/// Step 3 for the other sizes: the piece's image as the aligned 16-byte chunks that cover its
/// run bytes, chunks `thread`, thread + threads, ...; the chunks its ends cut byte by byte.
__host__ __device__ inline void write_piece(const group_place& g, const piece_place& piece,
                                            const unsigned char* image, int thread, int threads) {
  const int lo = g.dst_head + piece.begin - piece.base, hi = g.dst_head + piece.finish - piece.base;
  unsigned char* aligned = g.dst - g.dst_head + piece.base;
  const int chunks = (hi + 15) / 16;
  for (int k = thread; k < chunks; k += threads) {
    if (16 * k >= lo && 16 * k + 16 <= hi) {
      reinterpret_cast<uint4*>(aligned)[k] = reinterpret_cast<const uint4*>(image)[k];
    } else {
      const int from = 16 * k > lo ? 16 * k : lo, to = 16 * k + 16 < hi ? 16 * k + 16 : hi;
      for (int i = from; i < to; ++i) aligned[i] = image[i];
    }
  }
}

__device__ __forceinline__ void fetch_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/// Waits for this thread's fetches but the last committed group's (PENDING 1) or all (0).
template <int PENDING>
__device__ __forceinline__ void fetch_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

}  // namespace small_batch_parts

/// The kernel: blocks loop over the groups; shared memory holds p.buffers source buffers of
/// p.buffer_bytes, then (other sizes) the destination image.
template <int E, small_batch_read M, class Policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    copy_small_batch_kernel(const small_batch_params p) {
  using namespace small_batch_parts;
  using traits = small_batch_element<E>;
  constexpr int threads = Policy::threads;
  extern __shared__ __align__(128) unsigned char shared[];
  const int thread = static_cast<int>(threadIdx.x);
  std::int64_t t = blockIdx.x;
  if (t < p.groups) fetch_group<traits::fold>(group_place(p, t), shared, 0, thread, threads);
  fetch_commit();
  for (int current = 0; t < p.groups; t += gridDim.x) {
    const std::int64_t next = t + gridDim.x;
    const int buffer = current * p.buffer_bytes;
    if (p.buffers == 2) {
      if (next < p.groups)
        fetch_group<traits::fold>(group_place(p, next), shared, (current ^ 1) * p.buffer_bytes,
                                  thread, threads);
      fetch_commit();
      fetch_wait<1>();
    } else {
      fetch_wait<0>();
    }
    __syncthreads();  // group t in `buffer`; the last group's image written out
    const group_place g(p, t);
    if constexpr (traits::direct) {
      move_direct<E, M>(p, g, shared, buffer, thread, threads);
      __syncthreads();  // `buffer` read
    } else {
      unsigned char* image = shared + p.buffers * p.buffer_bytes;
      const int pieces = pieces_of(p, g, traits::unit);
      for (int k = 0; k < pieces; ++k) {
        if (k > 0) __syncthreads();  // the last piece's image written out
        const piece_place piece(p, g, k, traits::unit, traits::unit_bytes);
        gather_piece<E, M>(p, g, piece, shared, buffer, image, thread, threads);
        __syncthreads();  // the piece's image complete (and, the last piece, `buffer` read)
        write_piece(g, piece, image, thread, threads);
      }
    }
    if (p.buffers == 1 && next < p.groups) {
      fetch_group<traits::fold>(group_place(p, next), shared, 0, thread, threads);
      fetch_commit();
    }
    current ^= p.buffers - 1;
  }
}

}  // namespace xpose::detail::cuda
