// Launchers of the out-of-place and square in-place kernels, called by dispatch/copy_dispatch.cu
// (run_copy, out of place) and backend/cuda_backend.cu (square, in place). Every launcher works on
// one element type of `word_bytes` bytes (1, 2, 4, 8 or 16) and enqueues on `stream` without
// synchronizing. Sizes and strides are in elements of that type.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/tuning/device_class.hpp"
#include "xpose/error.hpp"
#include "xpose/route.hpp"

namespace xpose::detail::cuda {

/// One batched out-of-place transposition: `batch` matrices of rows x cols (row-major, rows
/// `lda` apart, matrices `src_stride` apart) to cols x rows (rows `ldb` apart, `dst_stride`).
struct copy_args {
  const void* src = nullptr;
  void* dst = nullptr;
  std::int64_t batch = 1, rows = 0, cols = 0;
  std::int64_t lda = 0, ldb = 0, src_stride = 0, dst_stride = 0;
};

/// Whether every row and matrix of a batch at `base` starts on a multiple of `alignment` bytes
/// (ld and stride in elements of elem_bytes). Host and device: copy_any_size's kernel asks it of
/// its destination.
__host__ __device__ inline bool rows_aligned(const void* base, std::int64_t ld, std::int64_t stride,
                                             std::int64_t batch, int elem_bytes, int alignment) {
  return reinterpret_cast<std::uintptr_t>(base) % alignment == 0 &&
         (ld * elem_bytes) % alignment == 0 &&
         (batch == 1 || (stride * elem_bytes) % alignment == 0);
}
/// The order in which the tile kernels (copy_tuned, copy_unaligned, copy_sectors,
/// copy_any_size) hand out a matrix's tiles to consecutive blocks: down each column strip
/// unless the matrix is more than twice as tall as it is wide, then across each tile row. Down
/// a strip, the tiles that write the same destination lines run at the same time, and a strip's
/// destination is one contiguous run; across a tile row, the same holds for the source. Walking
/// across, a short, wide matrix has its destination lines written in parts by tile rows run far
/// apart; walking down, a tall, narrow one has its source lines read that way. Host and device.
/// H100: 1-byte 416 x 322656 0.70 x copy walking across, 0.96-0.98 walking down.
__host__ __device__ constexpr bool tiles_walk_down(std::int64_t rows, std::int64_t cols) {
  return rows <= 2 * cols;
}
/// `rows` rounded up to whole tiles of `height` rows (how full a matrix's tiles are: rows over
/// that).
constexpr std::int64_t rows_in_whole_tiles(std::int64_t rows, std::int64_t height) {
  return (rows + height - 1) / height * height;
}
/// Stride resonance of the H100's memory: where k source rows (walking down) or destination rows
/// (walking across) span about a whole number of 1.25 MiB (5 x 2^18 bytes; k = 1, 2, 3, 4 or 6,
/// within 1280 bytes), the blocks that run at the same time meet the same few parts of the memory,
/// and every tile kernel falls 0.03-0.11 x copy behind neighbouring shapes (H100: 4-byte 2048 x
/// 81920 0.87 against 0.97 for 2048 x 82176). Handing out the strips (walking down) or tile rows
/// (walking across) in `regions` interleaved regions spreads those blocks over the matrix: the
/// walk's position y takes strip / tile row (y % regions) * per + y / regions, per = ceil(n /
/// regions). resonant_rows: the least k of 1, 2, 3, 4 and 6 whose rows of `row_bytes` span a whole
/// number of `period` bytes within the tolerance, else 0. resonant_regions: 1 (the plain walk), or
/// the regions measured best for the tile kernels at that k (k = 1: 8; 2: 6; 3: 3; 4 and 6: 2);
/// resonant_strip_regions: for copy_full_height's column strips (the same but k = 4: 3).
/// tile_regions: resonant_regions of the row the walk of `a` (elements of `elem_bytes`) meets at a
/// time, on devices whose memory interface has the H100's 5120 bits; 1 elsewhere (not measured).
/// full_height_regions: resonant_strip_regions of a's source rows, which copy_full_height's blocks
/// take strip by strip, on the same devices.
constexpr std::int64_t h100_memory_period = std::int64_t{5} << 18;
constexpr std::int64_t resonance_tolerance_bytes = 1280;
int resonant_rows(std::int64_t row_bytes, std::int64_t period);
int resonant_regions(std::int64_t row_bytes, std::int64_t period);
int resonant_strip_regions(std::int64_t row_bytes, std::int64_t period);
int tile_regions(const copy_args& a, std::size_t elem_bytes, device_class device);
int full_height_regions(const copy_args& a, std::size_t elem_bytes, device_class device);
/// The same for the current device.
int tile_regions(const copy_args& a, std::size_t elem_bytes);
int full_height_regions(const copy_args& a, std::size_t elem_bytes);
/// The regions a launcher hands its tiles out in: `requested` where a test gives it (> 0), else
/// `rule` (tile_regions' or full_height_regions' for the shape); an internal error naming
/// `kernel` for fewer than 0.
unsigned chosen_regions(int requested, int rule, const std::string& kernel);
/// copy_tuned's tiles: the element size's (copy_tuned_policy), for some large matrices of 1- and
/// 2-byte elements copy_tuned_large's (for other element sizes the large tiles are the standard
/// ones), or for matrices made of whole tiles the lean kernel's: on the H100's memory
/// copy_tuned_whole<device_class::h100, E>'s (4- and 8-byte elements), on the H200's
/// copy_tuned_whole<device_class::h200, E>'s (2, 4, 8 and 16 bytes). choose_tuned_tiles says
/// which, for the current device's memory or for `memory`.
enum class tuned_tiles { standard, large, whole_h100, whole_h200 };
tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes);
tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes, device_class memory);
/// Whether `tiles` are whole tiles (the lean kernel: no regions).
constexpr bool is_whole(tuned_tiles tiles) {
  return tiles == tuned_tiles::whole_h100 || tiles == tuned_tiles::whole_h200;
}
/// The tiles choose_tuned_tiles gives `a`, for a plan's text: "tiles of R rows x W bytes", or
/// "whole tiles of ... in its lean kernel (...)".
std::string tuned_tiles_text(const copy_args& a, int word_bytes);
std::string tuned_tiles_text(int word_bytes, tuned_tiles tiles);
/// copy_tuned's kernel with the given tiles (run_copy passes choose_tuned_tiles'; tests
/// run the large and whole tiles on small shapes, on any device), its tiles handed out in
/// `regions` interleaved regions (0: tile_regions'; tests give others, as to the launchers of
/// copy_unaligned, copy_sectors and copy_any_size below). The whole tiles take no regions, and
/// throw internal_error on element sizes they do not take (whole_h100: other than 4 and 8;
/// whole_h200: 1) and on matrices not made of them (whole_tiles_fit).
void launch_copy_tuned_tiles(const copy_args& a, int word_bytes, tuned_tiles tiles,
                             cudaStream_t stream, int regions = 0);
/// copy_unaligned's tiles (tuning/unaligned.hpp): copy_unaligned_policy<E>,
/// copy_unaligned_large<E>'s policy, or (1-byte elements) copy_unaligned_tall_policy.
enum class unaligned_tiles { standard, large, tall };
/// copy_unaligned: rows of any alignment, still with 16-byte global accesses and whole 32-byte
/// destination sectors; word_bytes 1, 2, 4 or 8. Any shape. Matrices of at least
/// copy_unaligned_large_bytes and copy_tuned_large_rows rows run copy_unaligned_large's policy
/// (tuning/unaligned.hpp), and so do 4-byte ones of at least
/// copy_unaligned_short_large_bytes whose rows its tiles fill at least 1/16 better
/// (copy_unaligned_takes_large); 1-byte ones of at least copy_unaligned_large_bytes whose rows
/// copy_unaligned_tall_policy's tiles fill at least 1/5 better than the standard ones run those
/// (copy_unaligned_takes_tall). On the H200's memory 4- and 8-byte elements run their tiles in
/// blocks of copy_unaligned_blocks<device_class::h200, E, Policy>'s threads.
void launch_copy_unaligned(const copy_args& a, int word_bytes, cudaStream_t stream);
bool copy_unaligned_takes_large(const copy_args& a, int word_bytes,
                                device_class device = current_device_class());
bool copy_unaligned_takes_tall(const copy_args& a, int word_bytes,
                               device_class device = current_device_class());
/// The tiles launch_copy_unaligned runs `a` in, and for a plan's text: "tiles of R rows x W bytes
/// and a halo of H rows".
unaligned_tiles choose_unaligned_tiles(const copy_args& a, int word_bytes,
                                       device_class device = current_device_class());
std::string unaligned_tiles_text(const copy_args& a, int word_bytes);
std::string unaligned_tiles_text(int word_bytes, unaligned_tiles tiles);
/// The threads a block of copy_unaligned's `tiles` for `word_bytes` has on `memory`: the policy's,
/// or on the H200's copy_unaligned_blocks<device_class::h200, E, Policy>'s (half of them for 4- and
/// 8-byte words, at twice the blocks per SM); internal_error for the tall tiles of other than
/// 1-byte words, as the launcher.
int copy_unaligned_threads(int word_bytes, unaligned_tiles tiles, device_class memory);
/// copy_unaligned with the given tiles (tests run the large and tall ones on small shapes; the
/// tall ones only for word_bytes 1), in `regions` (0: tile_regions'), in blocks of the threads of
/// `memory` (tests run both memories' on any device).
void launch_copy_unaligned_tiles(const copy_args& a, int word_bytes, unaligned_tiles tiles,
                                 cudaStream_t stream, int regions = 0,
                                 device_class memory = current_device_class());
/// copy_full_height: short, wide matrices whose tile covers every row (a destination row is
/// written by one block; a dense destination as one run per block); word_bytes 1, 2, 4 or 8, rows
/// that full_height_fits. The tile takes the widest of 512, 256, 128 and 64 bytes of each source
/// row (full_height_tile_width) that keeps it within full_height_tile_budget bytes of shared
/// memory (tiles that would fill it take half the width, down to 64 bytes), but for 1-byte
/// elements in 505 to 512 rows 128 bytes (a 64 KiB tile, two load steps of 512 threads). Its
/// column strips are handed out in `regions` interleaved regions (0: full_height_regions'; tests
/// give others).
constexpr std::int64_t full_height_tile_budget = 48 * 1024;
int full_height_tile_width(std::int64_t rows, int word_bytes);
bool full_height_fits(std::int64_t rows, int word_bytes);
void launch_copy_full_height(const copy_args& a, int word_bytes, cudaStream_t stream,
                             int regions = 0);
/// copy_full_width: tall, narrow matrices whose tile covers every column (no column tile left
/// mostly empty); word_bytes 1, 2, 4 or 8, rows of full_width_least_row_bytes to
/// full_width_most_row_bytes (any shape full_width_fits: with rows of 32 bytes or more, the row
/// below a tile's halo holds the reach of its last row's covering chunks, at most 31 bytes past
/// the row, so tiles with rows below them load without checks). The tile takes row blocks of
/// 16 / word_bytes rows, up to full_width_most_row_blocks, as many as
/// copy/full_width.cu picks for the row.
constexpr int full_width_most_row_blocks = 30;
constexpr std::int64_t full_width_least_row_bytes = 32;
constexpr std::int64_t full_width_most_row_bytes = 1024;
bool full_width_fits(std::int64_t cols, int word_bytes);
void launch_copy_full_width(const copy_args& a, int word_bytes, cudaStream_t stream);
/// copy_sectors: rows of any alignment, one element per lane and whole 32-byte destination sectors;
/// word_bytes 16. Any shape. With the policy of `memory` (tests run both on any device):
/// copy_sectors_policy<device_class::h200> on the H200's, else
/// copy_sectors_policy<device_class::other>.
void launch_copy_sectors(const copy_args& a, int word_bytes, cudaStream_t stream, int regions = 0,
                         device_class memory = current_device_class());
/// Skinny matrices (those choose_copy_kernel names skinny: fewer columns than copy_tuned_policy's
/// tile, or fewer rows and the tiles too empty, that copy_full_height and copy_full_width do not
/// take): slabs of the whole short side times a stretch of
/// the long side (copy/skinny.cu), plain ones (16-byte accesses where rows start on 16
/// bytes, element accesses elsewhere) or shifted ones (aligned chunks fetched with cp.async and
/// shifted in shared memory) as choose_skinny_slabs picks; word_bytes 1, 2, 4, 8 or 16. Any
/// shape.
enum class skinny_slabs { plain, shifted };
skinny_slabs choose_skinny_slabs(const copy_args& a, int word_bytes);
void launch_copy_skinny(const copy_args& a, int word_bytes, cudaStream_t stream);
void launch_copy_skinny_slabs(const copy_args& a, int word_bytes, skinny_slabs slabs,
                              cudaStream_t stream);
/// The progression of the lecture slides "Matrix Transpose — get 90% bandwidth": copy_naive,
/// copy_shared_tiles, copy_padded_tiles, copy_multi_element.
void launch_copy_seed_variant(const copy_args& a, int word_bytes, route variant,
                              cudaStream_t stream);
/// copy_any_size: elements of 3 to 15 bytes that are not powers of two (copy_any_size_takes),
/// rows of any alignment, 16-byte global accesses and whole 32-byte destination sectors; a is in
/// elements of `elem_bytes`. Any shape.
bool copy_any_size_takes(std::size_t elem_bytes);
/// Whether the out-of-place dispatch runs copy_any_size for `a` (elements of `elem_bytes`, words
/// of `word_bytes`): shapes of at least its tile's rows that copy_full_height and
/// skinny_any_size do not take (the dispatch asks them first), but not where
/// super_elements_chosen.
bool copy_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes);
/// Whether copy_any_size's tiles on `a` load no halo (destination rows on 32 bytes), make two
/// tile rows or more, and are at least 7/8 full, or, from 7 bytes, load a halo and make four tile
/// rows or more at least 9/10 full: there it is ahead of copy_full_height.
bool any_size_tiles_full(const copy_args& a, std::size_t elem_bytes);
/// Whether the super-element kernel's aligned chunks (super_elements_aligned) run a shape
/// copy_any_size would otherwise take: tall ones of at most super_elements_most_cols columns.
constexpr std::int64_t super_elements_most_cols = 128;
bool super_elements_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes);
/// The tiles copy_any_size runs `a` in (elements of `elem_bytes`, copy_any_size_takes; the
/// policies are in tuning/any_size.hpp). "Fill the columns better": the matrix's columns
/// over those its tile strips cover, compared between two tile widths.
/// - where a destination row starts off 32 bytes (the tiles load a halo): for 3 bytes on at least
///   two rows a column `halo_columns_32` (copy_any_size_3_halo_columns_32_policy) where 32-column
///   tiles fill the columns at least 1/10 better than 42-column ones, else `halo_columns_34`
///   (copy_any_size_3_halo_columns_34_policy) where 34-column ones do; from 6 bytes `halo_wide`
///   (copy_any_size_halo_wide_policy, 256-byte tile rows) but where tiles of 128-byte rows fill
///   the columns at least 1/10 better; else `halo` (copy_any_size_halo_policy, 128-byte rows);
/// - 3 bytes, every destination row on 32 bytes: on at least two rows a column `columns_32`
///   (copy_any_size_3_columns_32_policy) where 32-column tiles fill the columns at least 1/32
///   better than 42-column ones; `columns_32_down` where columns_32_down_takes; else `columns_64`
///   (copy_any_size_3_columns_64_policy) where 64-column tiles fill them at least 1/8 better than
///   42-column ones, `rows_128` where those are at least 0.85 full, `rows_96` where they are less;
/// - 5 to 15 bytes, every destination row on 32 bytes: `columns_32_down` where
///   columns_32_down_takes; on at least three rows a column `tall`
///   (copy_any_size_tall_policy), or `tall_rows_96` (copy_any_size_tall_rows_96_policy, 128-byte
///   rows) for 5 and 6 bytes where the tall tiles' columns are under 0.9 full and from 7 bytes
///   where 128-byte rows fill the columns at least 1/10 better than the tall tiles' 256; else
///   `standard` (copy_any_size_policy).
enum class any_size_tiles {
  standard,
  tall,
  tall_rows_96,
  halo,
  halo_wide,
  rows_128,
  rows_96,
  columns_64,
  columns_32,
  columns_32_down,
  halo_columns_32,
  halo_columns_34
};
any_size_tiles any_size_tiles_for(const copy_args& a, std::size_t elem_bytes);
/// Whether copy_any_size runs `a` (every destination row on 32 bytes) in the 32-column tiles of
/// copy_any_size_columns_32_policy: `elem_bytes` other than 9, tiles that walk down
/// (tiles_walk_down), 1024 to 16383 rows (3 bytes) or 1024 to 8192 (5 to 15 bytes), but where the
/// tiles of `other_columns` columns (the ones the shape would take otherwise) fill the columns at
/// least 1/32 better.
bool columns_32_down_takes(const copy_args& a, std::size_t elem_bytes, std::int64_t other_columns);
void launch_copy_any_size(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream,
                          int regions = 0);
/// The tiles launch_copy_any_size runs `a` in, for a plan's text: "tiles of R rows x C columns",
/// and " and a halo of H rows" where a destination row starts off 32 bytes.
std::string any_size_tiles_text(const copy_args& a, std::size_t elem_bytes);
/// copy_full_height for elements copy_any_size_takes: short, wide matrices whose tile covers every
/// row, a in elements of `elem_bytes`; rows of 16 bytes or more that
/// full_height_any_size_tile_width gives a width (up to 640 rows of 3- and 5-byte elements, 768 of
/// the others: the tile takes the widest of 512, 256, 128 and 64 bytes of each
/// source row that keeps it within 40 KiB of shared memory for 3- and 5-byte elements, 48 KiB for
/// the others; 3- and 5-byte elements in some load-group counts take measured widths and threads,
/// and in 76, 93 to 96 and 109 to 112 rows 128 bytes, loaded in one step; 3-byte elements in 321
/// to 353 rows 128 bytes, up to 44 KiB).
/// full_height_any_size_chosen: the out-of-place dispatch runs it (elements of `word_bytes` words)
/// for wide shapes of full_height_any_size_least_rows (of full_height_any_size_least_aligned_rows
/// where super_elements_aligned) to full_height_any_size_most_rows rows but where
/// any_size_tiles_full, and for 3-byte shapes of 321 to 353 rows where a destination row starts
/// off 32 bytes. Its column strips in `regions` as launch_copy_full_height's.
constexpr std::int64_t full_height_any_size_least_rows = 48;
constexpr std::int64_t full_height_any_size_least_aligned_rows = 32;
constexpr std::int64_t full_height_any_size_most_rows = 320;
int full_height_any_size_tile_width(std::int64_t rows, std::size_t elem_bytes);
bool full_height_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes);
void launch_copy_full_height_any_size(const copy_args& a, std::size_t elem_bytes,
                                      cudaStream_t stream, int regions = 0);
/// f(std::integral_constant<int, W>{}) for word_bytes = W (1, 2, 4, 8 or 16); an internal error
/// naming `kernel` for any other size.
template <class F>
decltype(auto) with_word(int word_bytes, const char* kernel, F&& f) {
  switch (word_bytes) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    default:
      throw error(status::internal_error, std::string(kernel) + ": word size " +
                                              std::to_string(word_bytes) +
                                              " is not 1, 2, 4, 8 or 16");
  }
}
/// f(std::integral_constant<int, E>{}) for elem_bytes = E, one of the sizes copy_any_size_takes;
/// an internal error naming `kernel` for any other size.
template <class F>
void with_any_size(std::size_t elem_bytes, const char* kernel, F&& f) {
  switch (elem_bytes) {
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    case 6:
      return f(std::integral_constant<int, 6>{});
    case 7:
      return f(std::integral_constant<int, 7>{});
    case 9:
      return f(std::integral_constant<int, 9>{});
    case 10:
      return f(std::integral_constant<int, 10>{});
    case 11:
      return f(std::integral_constant<int, 11>{});
    case 12:
      return f(std::integral_constant<int, 12>{});
    case 13:
      return f(std::integral_constant<int, 13>{});
    case 14:
      return f(std::integral_constant<int, 14>{});
    case 15:
      return f(std::integral_constant<int, 15>{});
    default:
      throw error(status::internal_error, std::string(kernel) + ": element size " +
                                              std::to_string(elem_bytes) +
                                              " is not 3 to 15 bytes and not a power of two");
  }
}
/// skinny_any_size: skinny matrices (a side of at most skinny_any_size_max_side, or wide ones of
/// up to skinny_any_size_wide_max_rows rows) of elements
/// copy_any_size takes, in slabs of about `slab_bytes` of the long side (0: the tuned size,
/// skinny_any_size_slab_for; tests and sweeps pass others) that the blocks resident on the
/// device loop over; a is in elements of `elem_bytes`.
/// skinny_any_size_chosen: the out-of-place dispatch runs it (elements of `word_bytes` words),
/// where full_height_any_size_chosen does not take the shape, for wide shapes of fewer than
/// full_height_any_size_least_rows rows and tall ones of at most skinny_any_size_max_side
/// columns but where copy_any_size's column tiles would be more than 3/4 full (elements up to 12
/// bytes, or rows of more than skinny_any_size_tall_row_bytes; such rows also need the rows of
/// one copy_any_size tile), unless the super-element kernel's
/// aligned chunks apply (super_elements_aligned) and the short side has 32 elements or more.
/// skinny_any_size_slab_for: skinny_any_size_many_columns_slab_bytes for tall shapes of elements
/// from 5 bytes and at least skinny_any_size_many_columns columns, skinny_any_size_slab_bytes for
/// the others. The launcher also takes wide shapes of up to skinny_any_size_wide_max_rows rows
/// (3-byte elements in rows of skinny_any_size_wide_row_bytes), which the dispatch leaves to
/// copy_full_height; tests and sweeps run them.
constexpr std::int64_t skinny_any_size_max_side = 64;
constexpr std::int64_t skinny_any_size_tall_row_bytes = 384;
constexpr std::int64_t skinny_any_size_wide_row_bytes = 1024;
constexpr std::int64_t skinny_any_size_wide_max_rows = skinny_any_size_wide_row_bytes / 3;
constexpr int skinny_any_size_slab_bytes = 24 * 1024;
constexpr int skinny_any_size_many_columns_slab_bytes = 32 * 1024;
constexpr std::int64_t skinny_any_size_many_columns = 31;
bool skinny_any_size_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes);
int skinny_any_size_slab_for(const copy_args& a, std::size_t elem_bytes);
/// Whether elements of several words of `word_bytes` (4 or more) sit in rows that start on 16
/// bytes (source) and 32 bytes (destination), where the super-element kernel moves aligned
/// 16-byte chunks.
bool super_elements_aligned(const copy_args& a, std::size_t elem_bytes, int word_bytes);
void launch_copy_skinny_any_size(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream,
                                 int slab_bytes = 0);
/// Elements of `words_per_element` words of `word_bytes` bytes each (12-byte elements as three
/// 4-byte words, ...); a is in elements.
void launch_copy_super_elements(const copy_args& a, int word_bytes, std::int64_t words_per_element,
                                cudaStream_t stream);
/// Whether launch_copy_super_elements moves such elements as 16-byte chunks (else one word per
/// access).
bool super_elements_in_chunks(int word_bytes, std::int64_t words_per_element);

/// `batch` square n x n matrices in place (rows `ld` apart, matrices `stride` apart), elements
/// of `words_per_element` words of `word_bytes` bytes; `variant` is square_tile_swap or
/// square_naive.
struct square_args {
  void* data = nullptr;
  std::int64_t batch = 1, n = 0, ld = 0, stride = 0;
};
void launch_square_swap(const square_args& a, int word_bytes, std::int64_t words_per_element,
                        route variant, cudaStream_t stream);

/// Blocks to launch for `work_items` independent items processed by a grid-stride loop.
inline unsigned grid_for(std::int64_t work_items) {
  const std::int64_t cap = 0x7fffffff;
  return static_cast<unsigned>(work_items < cap ? (work_items > 0 ? work_items : 1) : cap);
}

}  // namespace xpose::detail::cuda
