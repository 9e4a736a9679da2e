// Out-of-place transposition of elements that are not 1, 2, 4, 8 or 16 bytes, each handled as a
// super-element: `k` words of W bytes (a 12-byte element is three 4-byte words). A square tile of
// S x S elements goes through shared memory, rows padded by one word; loads walk the tile's source
// rows (S*k contiguous words) and stores the destination rows, so both sides are coalesced for any
// k. S shrinks as k grows so the tile stays within 32 KiB (halo rows aside). Grid-stride over the
// tiles of all matrices.
// For elements of 3 or 5 words of 1-8 bytes (12-, 20-, 24-byte, ...) and of 7 to 15 words of at
// most 32 bytes in all (7-, 9-, 11-, 13-, 14-, 15-, 18-, 28-byte, ...: with naturally aligned
// pointers, every element size up to 16 bytes and every even one up to 30) both sides move
// aligned 16-byte chunks (the lecture slides "Matrix Transpose — get 90% bandwidth": more work
// per thread), the words going to and from the padded tile one by one. Loads: the chunks that
// cover each row strip (one more when the strip does not start on 16 bytes; words outside it are
// dropped, and nothing is read past the batch's last byte).
// Stores: each destination row is cut at its own 32-byte boundaries and a tile writes the sectors
// that start in its strip, so every sector leaves whole from one tile (a sector's halves written by
// two tiles cost the L2 far more than their bytes); a sector may reach into the next tile's first
// rows, so such tiles load a halo of ceil(31 / element bytes) rows. Other sizes: one word per
// access.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/block/shared_tile_transpose.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

// 32 KiB keeps 32 x 32 tiles for elements of up to 31 bytes; 512 threads per block are 0.03-0.15
// slower. H100: 24-byte 4096² 0.954 x copy vs 0.887 with 16 KiB (16 x 16 tiles).
constexpr int super_threads = 256;
constexpr std::int64_t super_tile_bytes = 32 * 1024;

/// Tile side for elements of `element_bytes` (words of `word_bytes`): the largest power of two
/// up to 32 whose padded tile fits super_tile_bytes.
__host__ __device__ constexpr int super_side(std::int64_t words_per_element,
                                             std::int64_t word_bytes) {
  int side = 32;
  while (side > 1 && side * (side * words_per_element + 1) * word_bytes > super_tile_bytes)
    side /= 2;
  return side;
}

/// Words of `p`'s 16-byte chunk before `p`.
template <class W>
__device__ __forceinline__ int words_before(const W* p) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15) / static_cast<int>(sizeof(W));
}

/// Words from `p` to the next 32-byte boundary (0 when on one).
template <class W>
__device__ __forceinline__ int words_to_sector(const W* p) {
  return static_cast<int>((32 - (reinterpret_cast<std::uintptr_t>(p) & 31)) & 31) /
         static_cast<int>(sizeof(W));
}

/// Stores the V words at `to` as one access: one 16-byte store for chunks (built as a uint4, so
/// the compiler does not split it into a store per word), else one word.
template <class W, int V>
__device__ __forceinline__ void store_access(W* to, const W (&words)[V]) {
  if constexpr (V == 1) {
    *to = words[0];
  } else {
    static_assert(V * sizeof(W) == 16, "a 16-byte chunk");
    uint4 chunk;
    memcpy(&chunk, words, sizeof chunk);
    __stcg(reinterpret_cast<uint4*>(to), chunk);
  }
}

/// Rows below a tile that the sectors it owns may reach (CHUNKS without ALIGNED).
__host__ __device__ constexpr int super_halo(bool chunks, bool aligned, std::int64_t bytes) {
  return chunks && !aligned ? static_cast<int>((31 + bytes - 1) / bytes) : 0;
}

/// K > 0: elements of K words, known at compile time (index divisions become multiplies and
/// the loops unroll, so each thread has all its loads in flight); K == 0: `k_any` words.
/// CHUNKS: accesses are aligned 16-byte chunks (V words), none read at or past `src_end` (one
/// past the batch's last source byte), destination sectors owned as the header says; else one
/// word each. ALIGNED: every source strip starts on 16 bytes and every destination strip on 32,
/// so no strip takes an extra chunk and no tile a halo.
template <class W, int K, bool CHUNKS, bool ALIGNED>
__global__ void __launch_bounds__(super_threads)
    copy_transpose_super_elements_kernel(const W* __restrict__ src, W* __restrict__ dst,
                                         std::int64_t k_any, std::int64_t rows, std::int64_t cols,
                                         std::int64_t lda, std::int64_t ldb,
                                         std::int64_t src_stride, std::int64_t dst_stride,
                                         std::int64_t tiles_down, std::int64_t tiles_across,
                                         std::int64_t total_tiles, const unsigned char* src_end) {
  using access = std::conditional_t<CHUNKS, uint4, W>;
  constexpr int V = sizeof(access) / sizeof(W);  // words per access
  extern __shared__ __align__(16) unsigned char tile_bytes[];
  W* tile = reinterpret_cast<W*>(tile_bytes);
  const std::int64_t k = K > 0 ? K : k_any;
  const int side = super_side(k, sizeof(W));
  const int halo = super_halo(CHUNKS, ALIGNED, k * sizeof(W));
  const int tile_rows = side + halo;
  const int row_words = static_cast<int>(side * k);
  // Loads touching a strip of row_words words (one more when it is not on 16 bytes).
  const int row_loads = !CHUNKS ? row_words : (row_words + V - 1) / V + (ALIGNED ? 0 : 1);
  // Stores per destination strip: its row_words words, from its first 32-byte boundary (the
  // launcher takes CHUNKS only where side * element bytes is a multiple of 32).
  const int column_stores = row_words / V;
  const int pitch = row_words + 1;
  const std::int64_t tiles_per_matrix = tiles_down * tiles_across;
  for (std::int64_t t = blockIdx.x; t < total_tiles; t += gridDim.x) {
    const std::int64_t b = t / tiles_per_matrix;
    const std::int64_t in_matrix = t - b * tiles_per_matrix;
    const std::int64_t r0 = (in_matrix / tiles_across) * side;
    const std::int64_t c0 = (in_matrix % tiles_across) * side;
    const int valid_rows = static_cast<int>(rows - r0 < tile_rows ? rows - r0 : tile_rows);
    const int valid_words = static_cast<int>((cols - c0 < side ? cols - c0 : side) * k);
    const W* s = src + (b * src_stride + r0 * lda + c0) * k;
#pragma unroll
    for (int i = threadIdx.x; i < tile_rows * row_loads; i += super_threads) {
      const int r = i / row_loads, z = i - r * row_loads;
      if (r >= valid_rows) continue;
      const W* strip = s + r * lda * k;
      const int q = z * V - (CHUNKS ? words_before(strip) : 0);  // strip word of word 0
      if (q >= valid_words) continue;
      access a;
      if constexpr (CHUNKS)
        a = load_chunk_before(reinterpret_cast<const uint4*>(strip + q), src_end);
      else
        a = strip[q];
      const W* words = reinterpret_cast<const W*>(&a);
#pragma unroll
      for (int w = 0; w < V; ++w)
        if (q + w >= 0 && q + w < valid_words) tile[r * pitch + q + w] = words[w];
    }
    __syncthreads();
    W* d = dst + (b * dst_stride + c0 * ldb + r0) * k;
    const int valid_dst_words = static_cast<int>(valid_rows * k);
#pragma unroll
    for (int i = threadIdx.x; i < side * column_stores; i += super_threads) {
      const int c = i / column_stores, z = i - c * column_stores;
      if (c * k >= valid_words) continue;
      W* strip = d + c * ldb * k;
      const int head = CHUNKS && !ALIGNED ? words_to_sector(strip) : 0;
      auto word_at = [&](int in_strip) {
        const int r = static_cast<int>(in_strip / k), part = static_cast<int>(in_strip - r * k);
        return tile[r * pitch + c * k + part];
      };
      if (r0 == 0 && z == 0)  // the words before the first boundary have no earlier tile
        for (int w = 0; w < head && w < valid_dst_words; ++w) strip[w] = word_at(w);
      const int q = head + z * V;  // strip word of word 0
      if (q >= valid_dst_words) continue;
      W words[V];
#pragma unroll
      for (int w = 0; w < V; ++w)  // past the matrix's last row: a valid word, never stored
        words[w] = word_at(q + w < valid_dst_words ? q + w : valid_dst_words - 1);
      if (q + V <= valid_dst_words) {
        store_access(strip + q, words);
      } else {
#pragma unroll
        for (int w = 0; w < V; ++w)
          if (q + w < valid_dst_words) strip[q + w] = words[w];
      }
    }
    __syncthreads();
  }
}

template <class W, int K, bool CHUNKS, bool ALIGNED>
void launch_super_kernel(const copy_args& a, std::int64_t k, cudaStream_t stream) {
  const int side = super_side(k, sizeof(W));
  const int tile_rows = side + super_halo(CHUNKS, ALIGNED, k * sizeof(W));
  const std::size_t shared = static_cast<std::size_t>(tile_rows) * (side * k + 1) * sizeof(W);
  const std::int64_t down = (a.rows + side - 1) / side;
  const std::int64_t across = (a.cols + side - 1) / side;
  const std::int64_t total = down * across * a.batch;
  const auto* src_end = reinterpret_cast<const unsigned char*>(
      static_cast<const W*>(a.src) +
      ((a.batch - 1) * a.src_stride + (a.rows - 1) * a.lda + a.cols) * k);
  copy_transpose_super_elements_kernel<W, K, CHUNKS, ALIGNED>
      <<<grid_for(total), super_threads, shared, stream>>>(
          static_cast<const W*>(a.src), static_cast<W*>(a.dst), k, a.rows, a.cols, a.lda, a.ldb,
          a.src_stride, a.dst_stride, down, across, total, src_end);
  check_launch("copy_transpose_super_elements_kernel launch");
}

/// Chunks need K known at compile time, words below 16 bytes and a tile strip of whole sectors
/// (true for every element of 3 to 15 words of 1-8 bytes).
template <class W, int K>
constexpr bool in_chunks = K > 0 && sizeof(W) < 16 &&
                           super_side(K, sizeof(W)) * K * sizeof(W) % 32 == 0;

template <class W, int K>
void launch_super_with(const copy_args& a, std::int64_t k, cudaStream_t stream) {
  if constexpr (in_chunks<W, K>) {
    const int e = static_cast<int>(k * sizeof(W));
    if (rows_aligned(a.src, a.lda, a.src_stride, a.batch, e, 16) &&
        rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, e, 32))
      return launch_super_kernel<W, K, true, true>(a, k, stream);
    return launch_super_kernel<W, K, true, false>(a, k, stream);
  } else {
    return launch_super_kernel<W, K, false, false>(a, k, stream);
  }
}

template <int K>
using words_t = std::integral_constant<int, K>;

/// visit(words_t<K>{}) with K = k for the element shapes compiled in: 3 and 5 words, and 7 to 15
/// (odd: what naturally aligned pointers give) when the element has at most 32 bytes; K = 0
/// (k at run time, one word per access) for the rest, e.g. odd sizes of 17 to 31 bytes.
template <class W, class Visit>
auto with_words(std::int64_t k, Visit&& visit) {
  constexpr bool up_to_32 = sizeof(W) <= 2;  // 15 words of 2 bytes: 30 bytes
  switch (k) {
    case 3:
      return visit(words_t<3>{});
    case 5:
      return visit(words_t<5>{});
    case 7:
      if constexpr (7 * sizeof(W) <= 32) return visit(words_t<7>{});
      break;
    case 9:
      if constexpr (up_to_32) return visit(words_t<9>{});
      break;
    case 11:
      if constexpr (up_to_32) return visit(words_t<11>{});
      break;
    case 13:
      if constexpr (up_to_32) return visit(words_t<13>{});
      break;
    case 15:
      if constexpr (up_to_32) return visit(words_t<15>{});
      break;
    default:
      break;
  }
  return visit(words_t<0>{});
}

template <class W>
void launch_super(const copy_args& a, std::int64_t k, cudaStream_t stream) {
  with_words<W>(k, [&](auto words) { launch_super_with<W, decltype(words)::value>(a, k, stream); });
}

template <class W>
bool in_chunks_for(std::int64_t k) {
  return with_words<W>(k, [](auto words) { return in_chunks<W, decltype(words)::value>; });
}

}  // namespace

void launch_copy_super_elements(const copy_args& a, int word_bytes, std::int64_t words_per_element,
                                cudaStream_t stream) {
  with_word(word_bytes, "launch_copy_super_elements", [&](auto w) {
    launch_super<element_t<decltype(w)::value>>(a, words_per_element, stream);
  });
}

bool super_elements_in_chunks(int word_bytes, std::int64_t words_per_element) {
  switch (word_bytes) {
    case 1:
      return in_chunks_for<element_t<1>>(words_per_element);
    case 2:
      return in_chunks_for<element_t<2>>(words_per_element);
    case 4:
      return in_chunks_for<element_t<4>>(words_per_element);
    case 8:
      return in_chunks_for<element_t<8>>(words_per_element);
    default:
      return false;
  }
}

}  // namespace xpose::detail::cuda
