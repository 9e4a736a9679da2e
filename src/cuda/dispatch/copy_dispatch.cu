// The out-of-place dispatch (copy_dispatch.hpp): the rules that pick a kernel family for a
// shape, element size and alignment, the launch of the chosen family, and its description.
#include "cuda/dispatch/copy_dispatch.hpp"

#include <cstdint>
#include <string>

#include "cuda/copy/skinny_narrow.hpp"
#include "cuda/copy/small_batch.hpp"
#include "cuda/tuning/copy_policies.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

/// The rows of one tile of the kernel `k` (tuned, unaligned or sectors) for E-byte elements.
template <int E>
constexpr int tile_height(copy_kernel k) {
  if (k == copy_kernel::tuned) return copy_tuned_policy<E>::tile_rows;
  if constexpr (E == 16)
    return copy_sectors_policy<device_class::other>::tile_rows;
  else
    return copy_unaligned_tile_rows<E>;
}

/// The least rows copy_full_height takes, for E-byte elements in rows that copy_tuned's tiles
/// (`tuned`) or copy_unaligned's would move: fewer go to the skinny slabs or those tiles.
template <int E>
constexpr std::int64_t full_height_least_rows(bool tuned) {
  if (tuned) return E <= 2 ? 32 : 20;
  return E == 1 ? 34 : E == 2 ? 41 : 21;
}
/// The most destination row bytes copy_full_height takes; past them copy_unaligned's tiles cut
/// the rows rarely enough. H100: 4-byte 175 rows 0.98 x copy vs 0.90 on copy_unaligned.
template <int E>
constexpr std::int64_t full_height_most_row_bytes = E == 8   ? 1600
                                                    : E == 4 ? 1000
                                                    : E == 1 ? 512
                                                             : 740;

/// The least columns copy_full_width takes; fewer go to the skinny slabs.
constexpr std::int64_t full_width_least_cols = 33;
/// The most source row bytes copy_full_width takes, per element size.
template <int E>
constexpr std::int64_t full_width_most_row_bytes_for = E == 1   ? 320
                                                       : E == 4 ? 800
                                                       : E == 8 ? 1024
                                                                : 640;
/// The columns of one tile of copy_tuned (`tuned`) or copy_unaligned.
template <int E>
constexpr std::int64_t tile_width(bool tuned) {
  return (tuned ? copy_tuned_policy<E>::tile_bytes : copy_unaligned_policy<E>::tile_bytes) / E;
}

/// Whether copy_full_height takes a short, wide matrix: rows within its bounds, and in rows
/// copy_tuned would take, copy_tuned's tiles less than 3/5 full below the tile height (4/5 for
/// 1-byte elements) or 2/3 above it. H100: 4-byte 65 odd rows 0.97 x copy vs 0.84 on the tiles.
template <int E>
bool full_height_takes(const copy_args& a, bool aligned) {
  if (a.rows > a.cols || a.rows < full_height_least_rows<E>(aligned) ||
      a.rows * E > full_height_most_row_bytes<E>)
    return false;
  if (!aligned) return true;
  const std::int64_t tiled_rows = rows_in_whole_tiles(a.rows, copy_tuned_policy<E>::tile_rows);
  const std::int64_t below = E == 1 ? 4 : 3;
  return a.rows < copy_tuned_policy<E>::tile_rows ? 5 * a.rows < below * tiled_rows
                                                  : 3 * a.rows < 2 * tiled_rows;
}

/// Whether copy_full_width takes a tall, narrow matrix: fewer columns than copy_tuned's tile
/// (1-byte elements: fewer than 48 only where the slabs would be shifted ones), or column tiles
/// less than 2/3 (copy_tuned) or 9/10 (copy_unaligned) full; 2-byte elements in copy_unaligned's
/// rows up to 3/2 of its tile. H100: 2-byte 528417 x 127 0.95 x copy vs 0.65 on the tiles.
template <int E>
bool full_width_takes(const copy_args& a, bool aligned) {
  if (a.rows <= a.cols || a.cols < full_width_least_cols ||
      a.cols * E > full_width_most_row_bytes_for<E>)
    return false;
  if (a.cols < tile_width<E>(true))
    return E != 1 || a.cols >= 48 || choose_skinny_slabs(a, E) == skinny_slabs::shifted;
  if (E == 2 && !aligned) return 2 * a.cols < 3 * tile_width<E>(false);
  const std::int64_t tiled_cols = rows_in_whole_tiles(a.cols, tile_width<E>(aligned));
  return aligned ? 3 * a.cols < 2 * tiled_cols : 10 * a.cols < 9 * tiled_cols;
}

/// The word-element rule. copy_tuned's tiles write whole 32-byte sectors only where every
/// destination row starts on one (sector halves written by different tiles cost the L2 far more
/// than their bytes), so other rows go to copy_unaligned (1-8 bytes) or copy_sectors (16).
/// Fewer columns than the tile, or fewer rows with tiles under 3/5 (copy_tuned) or 17/20 (the
/// others) full, go to the slabs. H100: 4-byte 40 rows 0.97 x copy on the tiles vs 0.85 on slabs.
template <int E>
copy_kernel choose_for(const copy_args& a) {
  using policy = copy_tuned_policy<E>;
  const bool aligned = rows_aligned(a.src, a.lda, a.src_stride, a.batch, E, 16) &&
                       rows_aligned(a.dst, a.ldb, a.dst_stride, a.batch, E, 32);
  if constexpr (E <= 8) {
    if (full_height_takes<E>(a, aligned)) return copy_kernel::full_height;
    if (full_width_takes<E>(a, aligned)) return copy_kernel::full_width;
  }
  if (a.cols < policy::tile_bytes / E) return copy_kernel::skinny;
  const copy_kernel tiles = aligned   ? copy_kernel::tuned
                            : E == 16 ? copy_kernel::sectors
                                      : copy_kernel::unaligned;
  if (a.rows < policy::tile_rows) {
    const std::int64_t tiled_rows = rows_in_whole_tiles(a.rows, tile_height<E>(tiles));
    const bool full_enough =
        aligned ? 5 * a.rows >= 3 * tiled_rows : 20 * a.rows >= 17 * tiled_rows;
    if (!full_enough) return copy_kernel::skinny;
  }
  return tiles;
}

/// Whether the dispatch sends a batch copy_small_batch takes to it: all but 64 x 64 matrices of
/// 2- to 16-byte words, which the tile kernels move faster.
/// H200: 8-byte 2048 x 64 x 64 0.969 x copy on copy_tuned's tiles vs 0.947 on copy_small_batch.
bool small_batch_chosen(const copy_args& a, std::size_t elem_bytes) {
  if (!small_batch_takes(a, elem_bytes)) return false;
  const bool word =
      elem_bytes >= 2 && word_bytes_for(elem_bytes, a.src, a.dst) == static_cast<int>(elem_bytes);
  return !(word && a.rows >= small_batch_most_side && a.cols >= small_batch_most_side);
}

/// Whether the dispatch sends a skinny matrix of 3- to 15-byte elements to copy_skinny_narrow:
/// tall ones (the de-interleave), and wide ones (the interleave) of two rows moved in words of
/// 4 bytes or more. H200: 12-byte 1000000 x 16 0.871 x copy vs 0.642 on the super-element
/// kernel; 2 x 1000000 0.811 vs 0.763 on skinny_any_size, but 8 x 1000000 0.681 vs 0.829 and
/// 3-byte 2 x 16000000 0.636 vs 0.776.
bool skinny_narrow_chosen(const copy_args& a, std::size_t elem_bytes, int word_bytes) {
  return copy_any_size_takes(elem_bytes) && skinny_narrow_takes(a, elem_bytes) &&
         (a.rows > a.cols || (a.rows <= 2 && word_bytes >= 4));
}

bool is_automatic(route variant) {
  return variant == route::automatic || variant == route::copy_tuned;
}

std::string word_text(int word_bytes) {
  return std::to_string(word_bytes) + (word_bytes == 1 ? " byte" : " bytes");
}

/// What `other` adds to `first`: from its tiles on where both name the same kernel before their
/// tiles, else all of it.
std::string after(const std::string& first, const std::string& other) {
  const std::string::size_type tiles = other.find("tiles of ");
  return tiles != std::string::npos && first.compare(0, tiles, other, 0, tiles) == 0
             ? other.substr(tiles)
             : other;
}

}  // namespace

int word_bytes_for(std::size_t elem_bytes, const void* src, const void* dst) {
  const std::uintptr_t bits =
      elem_bytes | reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst);
  int w = 16;
  while (w > 1 && (bits & static_cast<std::uintptr_t>(w - 1)) != 0) w /= 2;
  return w;
}

copy_kernel choose_copy_kernel(const copy_args& a, int word_bytes) {
  return with_word(word_bytes, "copy_tuned",
                   [&](auto e) { return choose_for<decltype(e)::value>(a); });
}

copy_decision decide_copy(const copy_args& a, std::size_t elem_bytes, route variant,
                          device_class device) {
  copy_decision d;
  d.variant = variant;
  d.elem_bytes = elem_bytes;
  d.device = device;
  d.word_bytes = word_bytes_for(elem_bytes, a.src, a.dst);
  d.words_per_element = static_cast<std::int64_t>(elem_bytes) / d.word_bytes;
  const int w = d.word_bytes;
  if (!is_automatic(variant)) {
    d.family = d.words_per_element != 1 ? copy_family::super_elements : copy_family::seed_variant;
    return d;
  }
  if (small_batch_chosen(a, elem_bytes)) {
    d.family = copy_family::small_batch;
  } else if (skinny_narrow_chosen(a, elem_bytes, w)) {
    d.family = copy_family::skinny_narrow;
  } else if (full_height_any_size_chosen(a, elem_bytes, w)) {
    d.family = copy_family::full_height_any_size;
    d.regions = full_height_regions(a, elem_bytes, device);
  } else if (skinny_any_size_chosen(a, elem_bytes, w)) {
    d.family = copy_family::skinny_any_size;
  } else if (copy_any_size_chosen(a, elem_bytes, w)) {
    d.family = copy_family::any_size;
    d.regions = tile_regions(a, elem_bytes, device);
  } else if (d.words_per_element != 1) {
    d.family = copy_family::super_elements;
  } else {
    switch (choose_copy_kernel(a, w)) {
      case copy_kernel::skinny:
        d.family = copy_family::skinny;
        d.slabs = choose_skinny_slabs(a, w);
        break;
      case copy_kernel::full_height:
        d.family = copy_family::full_height;
        d.regions = full_height_regions(a, elem_bytes, device);
        break;
      case copy_kernel::full_width:
        d.family = copy_family::full_width;
        break;
      case copy_kernel::tuned:
        d.family = copy_family::tuned;
        d.tuned = choose_tuned_tiles(a, w, device);
        if (!is_whole(d.tuned)) d.regions = tile_regions(a, elem_bytes, device);
        break;
      case copy_kernel::unaligned:
        d.family = copy_family::unaligned;
        d.unaligned = choose_unaligned_tiles(a, w, device);
        d.regions = tile_regions(a, elem_bytes, device);
        break;
      case copy_kernel::sectors:
        d.family = copy_family::sectors;
        d.regions = tile_regions(a, elem_bytes, device);
        break;
    }
  }
  return d;
}

void run_copy(const copy_decision& d, const copy_args& a, cudaStream_t stream) {
  const int w = d.word_bytes;
  switch (d.family) {
    case copy_family::seed_variant:
      return launch_copy_seed_variant(a, w, d.variant, stream);
    case copy_family::small_batch:
      return launch_copy_small_batch(a, d.elem_bytes, stream);
    case copy_family::skinny_narrow:
      return launch_copy_skinny_narrow(a, d.elem_bytes, stream);
    case copy_family::full_height_any_size:
      return launch_copy_full_height_any_size(a, d.elem_bytes, stream, d.regions);
    case copy_family::skinny_any_size:
      return launch_copy_skinny_any_size(a, d.elem_bytes, stream);
    case copy_family::any_size:
      return launch_copy_any_size(a, d.elem_bytes, stream, d.regions);
    case copy_family::super_elements:
      return launch_copy_super_elements(a, w, d.words_per_element, stream);
    case copy_family::skinny:
      return launch_copy_skinny_slabs(a, w, d.slabs, stream);
    case copy_family::full_height:
      return launch_copy_full_height(a, w, stream, d.regions);
    case copy_family::full_width:
      return launch_copy_full_width(a, w, stream);
    case copy_family::tuned:
      return launch_copy_tuned_tiles(a, w, d.tuned, stream, d.regions);
    case copy_family::unaligned:
      return launch_copy_unaligned_tiles(a, w, d.unaligned, stream, d.regions, d.device);
    case copy_family::sectors:
      return launch_copy_sectors(a, w, stream, d.regions, d.device);
  }
  throw error(status::internal_error, "copy dispatch: unknown kernel family");
}

std::string copy_decision_text(const copy_decision& d, const copy_args& a) {
  const int w = d.word_bytes;
  const std::string bytes = std::to_string(d.elem_bytes);
  switch (d.family) {
    case copy_family::seed_variant:
      return std::string(to_string(d.variant)) + ", the lecture slides' kernel";
    case copy_family::small_batch:
      return "copy_small_batch, whole matrices of the batch per block through shared memory, "
             "16-byte accesses where the batch is dense and aligned";
    case copy_family::skinny_narrow:
      return "copy_skinny_narrow, a short side of at most " +
             std::to_string(skinny_narrow_most_short_side) +
             ": the interleave or de-interleave of its streams in stretches of the long side "
             "through shared memory, 16-byte accesses on both sides where aligned";
    case copy_family::full_height_any_size:
      return "copy_full_height, short rows that tiles would cut: one tile covers every row, "
             "each " +
             bytes +
             "-byte element as a run of bytes, 16-byte accesses, each block writing whole "
             "destination rows (one run when they are dense)";
    case copy_family::skinny_any_size:
      return "skinny_any_size slabs (at most " + std::to_string(skinny_any_size_max_side) +
             " rows or columns, copy_any_size's column tiles at most 3/4 full): each " + bytes +
             "-byte element as a run of bytes, 16-byte global accesses, elements moved four at "
             "a time between two shared-memory slabs";
    case copy_family::any_size:
      return "copy_any_size, each " + bytes +
             "-byte element as a run of bytes: rows shifted in registers and kept column by "
             "column in shared memory, 16-byte accesses, whole 32-byte destination sectors, " +
             any_size_tiles_text(a, d.elem_bytes);
    case copy_family::super_elements:
      return "super-element transpose, each " + bytes + "-byte element as " +
             std::to_string(d.words_per_element) + " words of " + word_text(w) +
             (super_elements_in_chunks(w, d.words_per_element)
                  ? " in aligned 16-byte chunks with whole 32-byte destination sectors"
                  : ", one word per access");
    case copy_family::skinny:
      return std::string(
                 "skinny slabs, the columns fewer than copy_tuned's tile or the rows too "
                 "few to fill the tiles enough: ") +
             (d.slabs == skinny_slabs::shifted
                  ? "shifted slabs (aligned chunks shifted in shared memory)"
                  : "plain slabs (16-byte accesses where rows start on 16 bytes)");
    case copy_family::full_height:
      return "copy_full_height, short rows that tiles would cut: one tile covers every row, so "
             "each block writes whole destination rows (one run when they are dense)";
    case copy_family::full_width:
      return "copy_full_width, short rows that column tiles would leave too empty: one tile "
             "covers every column";
    case copy_family::tuned:
      return "copy_tuned's " + tuned_tiles_text(w, d.tuned);
    case copy_family::unaligned:
      return "copy_unaligned, rows off 16 (source) or 32 (destination) bytes: rows shifted in "
             "registers and kept column by column in shared memory, whole 32-byte destination "
             "sectors, " +
             unaligned_tiles_text(w, d.unaligned);
    case copy_family::sectors:
      return "copy_sectors, rows off 16 (source) or 32 (destination) bytes: one element per "
             "lane, whole 32-byte destination sectors";
  }
  return "unknown kernel family";
}

std::string describe_copy(const copy_args& at_best, std::size_t elem_bytes, route variant,
                          device_class device) {
  const copy_decision best = decide_copy(at_best, elem_bytes, variant, device);
  const auto text_at = [&](std::uintptr_t src_offset, std::uintptr_t dst_offset) {
    copy_args a = at_best;
    a.src =
        reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(at_best.src) + src_offset);
    a.dst = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(at_best.dst) + dst_offset);
    return copy_decision_text(decide_copy(a, elem_bytes, variant, device), a);
  };
  const std::string best_text = copy_decision_text(best, at_best);
  // Pointers off 16 (source) or 32 (destination) bytes at execute that keep the word size.
  const std::uintptr_t src_off = best.word_bytes < 16 ? 8 : 0;
  const std::uintptr_t dst_off = 16;
  const std::string source_off = src_off != 0 ? text_at(src_off, 0) : best_text;
  const std::string destination_off = text_at(0, dst_off);
  std::string text = best_text;
  if (source_off == best_text) {
    if (destination_off != best_text)
      text += " when the destination rows start on 32 bytes at execute, else " +
              after(best_text, destination_off);
  } else {
    text +=
        " when the source rows start on 16 bytes and the destination rows on 32 at "
        "execute, else ";
    const std::string both_off = src_off != 0 ? text_at(src_off, dst_off) : destination_off;
    if (both_off == source_off)
      text += after(best_text, source_off);
    else
      text += after(best_text, source_off) + " where the destination rows start on 32 bytes, and " +
              after(source_off, both_off) + " where they do not";
  }
  text += " (pointers aligned to " + word_text(best.word_bytes) + ")";
  if (best.regions > 1)
    text +=
        "; the rows resonate with this device's memory (a few of them span a whole number "
        "of 1.25 MiB), so the kernel named first hands its tiles out in " +
        std::to_string(best.regions) + " interleaved regions";
  return text;
}

}  // namespace xpose::detail::cuda
