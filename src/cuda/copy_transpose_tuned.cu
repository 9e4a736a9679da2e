// copy_tuned: out-of-place transposition tuned for Hopper (seed slides 001, "more work per
// thread", with 16-byte loads and stores and a swizzled shared-memory tile; see
// shared_tile_transpose.cuh and copy_transpose_tuned_kernel.cuh). The launcher picks the
// policy of the element size and, for 1-, 2- and 8-byte elements, of the matrix size
// (copy_transpose_policy.hpp) at run time. Assumes element-aligned pointers. Skinny shapes
// (fewer columns than copy_tuned_policy's tile, or fewer rows and tiles too empty: choose_for)
// go to copy_transpose_skinny.cu, other row alignments to copy_transpose_unaligned_kernel.cuh.
#include <cstdint>
#include <type_traits>

#include "cuda/copy_transpose_launch.hpp"
#include "cuda/copy_transpose_policy.hpp"
#include "cuda/copy_transpose_tuned_kernel.cuh"
#include "cuda/cuda_check.hpp"

namespace xpose::detail::cuda {

namespace {

/// The rows of one tile of the kernel `k` (tuned, unaligned or sectors) for E-byte elements.
template <int E>
constexpr int tile_height(copy_kernel k) {
  if (k == copy_kernel::tuned) return copy_tuned_policy<E>::tile_rows;
  if constexpr (E == 16)
    return copy_sectors_policy<16>::tile_rows;
  else
    return copy_unaligned_tile_rows<E>;
}

/// Fewer columns than the policy's tile would leave most of each tile empty: such skinny shapes
/// go to the slab kernels of copy_transpose_skinny.cu, and so do fewer rows than the tile unless
/// the tiles of the kernel that would run are at least 3/5 (copy_tuned) or 17/20 (the others)
/// full: 128 MiB short, wide matrices, x copy, tiles against slabs (tenth session), copy_tuned
/// 1-byte 96 rows 0.91-0.92 against 0.67, 2-byte 48 rows 0.97 against 0.81, 4-byte 40 rows
/// 0.97-0.98 against 0.85, 16-byte 20 rows 0.99 against 0.84; copy_unaligned 2-byte 48 rows 0.89
/// against 0.71, 4-byte 48 rows 0.95 against 0.75, 8-byte 56 rows 0.99 against 0.88, but 2-byte 40
/// rows (5/6 full) 0.71 against 0.75-0.83 and 8-byte 42 rows (7/10) 0.86 against 0.90-0.95.
/// (For 1-byte elements the 17/20 never holds: copy_unaligned's tile has more rows than
/// copy_tuned's.)
/// At and past copy_tuned's tile height, short, wide matrices that would take copy_unaligned go
/// to the slabs too (the shifted ones for 1- and 2-byte elements, choose_skinny_slabs) when
/// their rows have at most skinny_past_the_tile_bytes and do not fill the tiles (1- and 2-byte
/// elements: 1-byte 224 x 599169, whole tiles, 0.93 against 0.76), or when the tiles would be
/// less than 3/5 full (4- and 8-byte), and so do tall 2-byte matrices of at most 100 columns: 128
/// MiB, x copy, tiles against slabs (eleventh session): 1-byte 129 rows 0.38 against 0.79, 200 rows
/// 0.65 against 0.76, 255 rows 0.57 against 0.80, 300 rows 0.65 against 0.72; 2-byte 65 rows 0.50
/// against 0.88, 127 rows 0.76 against 0.85, 150 rows 0.78 against 0.83; 4-byte 65 rows 0.77
/// against 0.87, 8-byte 65 rows 0.83 against 0.93 (plain slabs); 2-byte 1032417 x 65 0.38 against
/// 0.74, 838849 x 80 0.48 against 0.78, 671073 x 100 0.55 against 0.74. The tiles kept the others:
/// copy_tuned's (1-byte 160 and 224 rows 0.89 and 0.95 against 0.80 and 0.76, 2-byte 80 rows 0.97
/// against 0.87), copy_unaligned's fuller ones (4-byte 80-127 rows 0.87-0.93 against 0.83-0.88),
/// tall 1-, 4- and 8-byte ones (1-byte 1040417 x 129 0.79 against 0.58), 2-byte 528417 x 127 level,
/// 447393 x 150 0.73 against 0.63. copy_tuned takes source rows on 16 bytes and destination rows on
/// 32 bytes; everything else (odd dimensions, and e.g. 1-byte 8208 x 8176 or 16-byte 4095 x 4097
/// whose destination rows start mid-sector) goes to a kernel that writes whole 32-byte sectors:
/// copy_unaligned (16-byte accesses, rows shifted in registers) for 1-, 2-, 4- and 8-byte elements,
/// copy_sectors (one element per lane) for 16-byte ones, whose rows always start on 16 bytes.
/// Ratios to a copy on the H100 (odd shapes: scripts/device_tune_policies.cu --odd-only,
/// 2026-11-23): see docs/performance.md.
template <int E>
copy_kernel choose_for(const copy_args& a) {
  using policy = copy_tuned_policy<E>;
  if (a.cols < policy::tile_bytes / E) return copy_kernel::skinny;
  // copy_tuned's tiles write whole 32-byte sectors only when every destination row starts on
  // one; sector halves written by different tiles cost the L2 far more than their bytes.
  const bool aligned = rows_aligned(a.src, a.lda, a.src_stride, a.batch, E, 16) &&
                       rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 32);
  const copy_kernel tiles = aligned   ? copy_kernel::tuned
                            : E == 16 ? copy_kernel::sectors
                                      : copy_kernel::unaligned;
  const std::int64_t tiled_rows = rows_in_whole_tiles(a.rows, tile_height<E>(tiles));
  if (a.rows < policy::tile_rows) {
    const bool full_enough =
        aligned ? 5 * a.rows >= 3 * tiled_rows : 20 * a.rows >= 17 * tiled_rows;
    if (!full_enough) return copy_kernel::skinny;
  } else if (tiles == copy_kernel::unaligned && a.rows <= a.cols) {
    // Short, wide matrices just past the tile: copy_unaligned's tiles lose to the slabs, unless
    // they are full.
    if (E <= 2 ? a.rows * E <= skinny_past_the_tile_bytes && a.rows < tiled_rows
               : 5 * a.rows < 3 * tiled_rows)
      return copy_kernel::skinny;
  } else if (tiles == copy_kernel::unaligned && E == 2 &&
             a.cols * E <= skinny_tall_past_the_tile_bytes) {
    return copy_kernel::skinny;  // tall 2-byte matrices just past the tile's width, likewise
  }
  return tiles;
}

/// The large tiles for matrices of at least copy_tuned_large_bytes and copy_tuned_large_rows rows
/// (copy_transpose_policy.hpp says why).
template <int E>
tuned_tiles choose_tiles_for(const copy_args& a) {
  const bool large =
      a.rows >= copy_tuned_large_rows && a.rows * a.cols * E >= copy_tuned_large_bytes;
  return large && !std::is_same_v<typename copy_tuned_large<E>::policy, copy_tuned_policy<E>>
             ? tuned_tiles::large
             : tuned_tiles::standard;
}

template <int E>
void launch_tiles_for(const copy_args& a, tuned_tiles tiles, cudaStream_t stream) {
  if (tiles == tuned_tiles::large)
    return launch_tuned_with<E, typename copy_tuned_large<E>::policy>(a, stream);
  launch_tuned_with<E, copy_tuned_policy<E>>(a, stream);
}

}  // namespace

copy_kernel choose_copy_kernel(const copy_args& a, int word_bytes) {
  return with_word(word_bytes, "copy_tuned",
                   [&](auto e) { return choose_for<decltype(e)::value>(a); });
}

void launch_copy_tuned(const copy_args& a, int word_bytes, cudaStream_t stream) {
  switch (choose_copy_kernel(a, word_bytes)) {
    case copy_kernel::skinny:
      return launch_copy_skinny(a, word_bytes, stream);
    case copy_kernel::unaligned:
      return launch_copy_unaligned(a, word_bytes, stream);
    case copy_kernel::sectors:
      return launch_copy_sectors(a, word_bytes, stream);
    case copy_kernel::tuned:
      return launch_copy_tuned_tiles(a, word_bytes, choose_tuned_tiles(a, word_bytes), stream);
  }
}

tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes) {
  return with_word(word_bytes, "copy_tuned",
                   [&](auto e) { return choose_tiles_for<decltype(e)::value>(a); });
}

void launch_copy_tuned_tiles(const copy_args& a, int word_bytes, tuned_tiles tiles,
                             cudaStream_t stream) {
  with_word(word_bytes, "copy_tuned",
            [&](auto e) { launch_tiles_for<decltype(e)::value>(a, tiles, stream); });
}

}  // namespace xpose::detail::cuda
