// Kernels of the chains path of the elementary tiled transposition (launched by
// tiled_transpose.cu, table made by chain_table.hpp): `batch` instances of rows x cols
// super-elements, each permuted in place by the transposition's gather order new[k] = old[src(k)],
// src(k) = (k mod rows) * cols + k / rows (eq. 1 of "In-Place Transposition of Rectangular Matrices
// on Accelerators", PPoPP'14, sec. 3, inverted).
//
// A cycle p0 -> p1 = src(p0) -> p2 -> ... -> p0 is moved as new[p_j] = old[p_{j+1}]. Each position
// is read once (for the write to its predecessor) and then written once: when one group of lanes
// does both, in that order, nothing else needs ordering, and its loads may run ahead of its stores
// (chains_unroll super-elements in flight per thread), which is what makes the path fast: the
// PTTWAC kernels wait out one load per step. Every cycle of two positions or more comes from the
// table made at plan time; long ones are cut into chains of at most `chain_length` positions, one
// group of lanes per chain and column chunk. The value a chain's last position receives is the
// original of the next chain's first position, which that chain overwrites:
// chains_save_heads_kernel copies the first super-element of every chain of a cut cycle to the
// scratch beforehand, in its own launch. A cycle of at most chain_length positions is one closed
// chain: its group reads the first position before its first store. Super-elements of `words` words
// of W bytes are cut into column chunks of at most chain_group_limit words, as even as possible:
// the permutation moves each byte column alike, so chunks are independent items of work, each taken
// by a group of `group` consecutive threads (one word each; any count: groups may share a warp or
// straddle two, as the threads of a group never exchange anything). The table: a header entry {head
// = entries, length = cut chains}, then the entries (cut cycles' chains first, their scratch slot =
// their index). The kernels read the counts from the header and stride over the items with whatever
// grid they get. Assumes: rows * cols < 2^32 (32-bit positions); instance b at byte b * rows * cols
// * super_bytes; the data and super_bytes aligned to W; the scratch holding batch * cut chains
// super-elements.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/inplace/chain_table.hpp"
#include "cuda/inplace/tiled_transpose_kernel.cuh"

namespace xpose::detail::cuda::chains {

constexpr int threads = 256;
/// Threads per item at most (words per column chunk).
constexpr int chain_group_limit = 64;
/// Super-elements each thread has in flight along a chain, whatever the word size (H200,
/// 260-byte super-elements in 4-byte words: 0.46 x copy with 8 in flight per thread, 0.39 with 32).
constexpr int chains_unroll = 8;
struct chain_shape {
  std::uint32_t rows = 0, cols = 0;
  std::uint32_t size = 0;  ///< rows * cols
  std::int64_t batch = 0;
  std::int64_t super_bytes = 0;
  std::uint32_t words = 0;  ///< words of W bytes per super-element
  std::uint32_t group = 1;  ///< threads per item = words per column chunk (the last may have fewer)
  std::uint32_t chunks = 1;  ///< column chunks per super-element
  tiled::fast_divmod by_group;
  tiled::fast_divmod by_rows;
};

__device__ __forceinline__ std::uint32_t source(std::uint32_t k, const chain_shape& s) {
  const std::uint32_t a = s.by_rows.div(k);
  return (k - a * s.rows) * s.cols + a;
}

/// Moves positions p_0 = start .. p_{length-1} of a cycle: new[p_j] = old[p_{j+1}] for j <
/// length - 1, new[p_{length-1}] = last. `column` points at word `lane` of the chunk in
/// super-element 0 of the instance; `stride` is the super-element size in words.
template <int U, class Word>
__device__ __forceinline__ void move_chain(Word* column, std::uint32_t start, std::uint32_t length,
                                           Word last, const chain_shape& s, std::int64_t stride) {
  std::uint32_t p = start;
  for (std::uint32_t j = 0; j < length; j += U) {
    std::uint32_t at[U + 1];
    at[0] = p;
#pragma unroll
    for (int u = 0; u < U; ++u) at[u + 1] = source(at[u], s);
    Word value[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::uint32_t step = j + u + 1;
      if (step < length)
        value[u] = column[at[u + 1] * stride];
      else
        value[u] = last;
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (j + u < length) column[at[u] * stride] = value[u];
    p = at[U];
  }
}

/// scratch[(b * split_chains + c) * words + w] = word w of chain c's head in instance b.
template <int W>
__global__ void __launch_bounds__(threads)
    chains_save_heads_kernel(const unsigned char* data, const chain_entry* table,
                             unsigned char* scratch, chain_shape s) {
  using word = tiled::word_t<W>;
  const std::int64_t split_chains = table[0].length;
  ++table;
  const std::int64_t total = s.batch * split_chains * s.words;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t w = i % s.words;
    const std::int64_t slot = i / s.words;  // b * split_chains + c
    const std::int64_t b = slot / split_chains;
    const std::int64_t c = slot - b * split_chains;
    const auto* from = reinterpret_cast<const word*>(data + b * s.size * s.super_bytes +
                                                     std::int64_t{table[c].head} * s.super_bytes);
    reinterpret_cast<word*>(scratch)[i] = from[w];
  }
}

/// Grid-stride over (instance, chain, chunk) items, one group of `group` threads each.
template <int W>
__global__ void __launch_bounds__(threads)
    chains_move_kernel(unsigned char* data, const chain_entry* table, const unsigned char* scratch,
                       chain_shape s) {
  using word = tiled::word_t<W>;
  const std::int64_t chains = table[0].head;
  const std::int64_t split_chains = table[0].length;
  ++table;
  const std::uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t first = s.by_group.div(thread);
  const unsigned l = thread - first * s.group;
  const std::int64_t groups = s.by_group.div(gridDim.x * blockDim.x);
  if (first >= groups) return;  // the grid's last threads, fewer than a group
  const std::int64_t items = s.batch * chains * s.chunks;
  const std::int64_t stride = s.super_bytes / W;
  for (std::int64_t item = first; item < items; item += groups) {
    const std::int64_t q = item % s.chunks;
    const std::int64_t bc = item / s.chunks;
    const std::int64_t b = bc / chains;
    const std::int64_t c = bc - b * chains;
    const std::int64_t w = q * s.group + l;
    if (w >= s.words) continue;
    const chain_entry e = table[c];
    word* column =
        reinterpret_cast<word*>(data + b * s.size * s.super_bytes) + w;  // word w of position 0
    const word last = e.next_slot < 0
                          ? column[std::int64_t{e.head} * stride]
                          : reinterpret_cast<const word*>(
                                scratch)[(b * split_chains + e.next_slot) * s.words + w];
    move_chain<chains_unroll>(column, e.head, e.length, last, s, stride);
  }
}

}  // namespace xpose::detail::cuda::chains
