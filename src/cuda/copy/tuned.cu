// copy_tuned: out-of-place transposition tuned for Hopper (seed slides 001, "more work per
// thread", with 16-byte loads and stores and a swizzled shared-memory tile; see
// block/shared_tile_transpose.cuh and copy/tuned_kernel.cuh). The launcher picks the
// policy of the element size and, for 1- and 2-byte elements, of the matrix size, and for
// matrices made of whole tiles the lean kernel with the tiles of the device's memory (H100: 4 and
// 8 bytes; H200: 2, 4, 8, 16; tuning/copy_policies.hpp) at run time.
// Assumes element-aligned pointers. Skinny shapes (fewer columns than copy_tuned_policy's tile, or
// fewer rows and tiles too empty: choose_for) go to copy/skinny.cu, short, wide ones that
// tiles would cut to copy/full_height_kernel.cuh, tall, narrow ones whose column tiles
// would be too empty to copy/full_width_kernel.cuh, other row alignments to
// copy/unaligned_kernel.cuh.
#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/copy/launchers.hpp"
#include "cuda/tuning/copy_policies.hpp"
#include "cuda/copy/tuned_kernel.cuh"
#include "cuda/backend/cuda_check.hpp"

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

/// The least rows copy_full_height takes, for E-byte elements in rows that copy_tuned's tiles
/// (`tuned`) or copy_unaligned's would move: fewer go to the skinny slabs or those tiles.
template <int E>
constexpr std::int64_t full_height_least_rows(bool tuned) {
  if (tuned) return E <= 2 ? 32 : 20;
  return E == 1 ? 34 : E == 2 ? 41 : 21;
}
/// The most destination row bytes copy_full_height takes (past them copy_unaligned's tiles cut
/// the rows rarely enough). 1-byte elements: 512, since copy_unaligned writes the edges of the
/// rows it cuts as aligned pieces (fifteenth session, 128 MiB, two rounds, copy_full_height
/// against copy_unaligned: 449 rows 0.92 against 0.81, 511 0.88 level, 575 0.86 against 0.89,
/// 639 0.88 against 0.93). 4- and 8-byte elements: 1000 (250 rows) and 1600 (200 rows), with the
/// tiles that fill the budget at half width (full_height_tile_width). On the H100 (twenty-second
/// session, docs/performance.md; harness, about 160 MB, two rounds, x copy, against
/// copy_unaligned): 4-byte 161 rows 0.961-0.966 against 0.942-0.946, 175 0.977-0.979 against
/// 0.899-0.903, 185-192 (half width) 0.968-0.974 against 0.924-0.935, 200-250 0.967-0.979 against
/// 0.935-0.966; 8-byte 129 rows 0.959-0.960 against 0.896-0.899, 140-170 0.964-0.982 against
/// 0.916-0.972, 180 level, 190 (half width) 0.976 against 0.940-0.942, 200 0.964-0.968 against
/// 0.942-0.943. 2-byte elements: 740 (370 rows). On the H100 (twenty-third session, harness, about
/// 160 MB, two rounds, against copy_unaligned): 321-370 rows 0.945-0.967 against 0.929-0.949 (350
/// rows 0.954-0.960 against 0.929-0.935); 380-420 rows behind by 0.003-0.024.
template <int E>
constexpr std::int64_t full_height_most_row_bytes = E == 8   ? 1600
                                                    : E == 4 ? 1000
                                                    : E == 1 ? 512
                                                             : 740;

/// The least columns copy_full_width takes (fewer go to the skinny slabs: 2-byte 3947553 x 17
/// 0.87 against 0.84, 4-byte 1973761 x 17 0.94 against 0.90, 8-byte 986881 x 17 0.96 against 0.91).
constexpr std::int64_t full_width_least_cols = 33;
/// The most source row bytes copy_full_width takes: copy_unaligned's tiles were ahead past them
/// (1-byte 321857 x 417 0.91 against 0.87). 4-byte elements: 800 (200 columns). On the H100
/// (twenty-second session, docs/performance.md; harness, about 160 MB, two rounds, x copy,
/// copy_full_width against copy_unaligned's 128-column tiles): 161 columns 0.941-0.950 against
/// 0.858-0.860, 170 0.932-0.933 against 0.855-0.856, 180 0.932-0.933 against 0.895-0.896, 192
/// 0.943-0.945 against 0.921-0.923, 200 0.935-0.939 against 0.918-0.923; 210 level (0.932-0.933
/// against 0.925-0.929), 220-240 behind (0.882-0.935 against 0.913-0.958).
template <int E>
constexpr std::int64_t full_width_most_row_bytes_for = E == 1   ? 320
                                                       : E == 4 ? 800
                                                       : E == 8 ? 1024
                                                                : 640;
/// The columns of one tile of copy_tuned (`tuned`) or copy_unaligned for E-byte elements.
template <int E>
constexpr std::int64_t tile_width(bool tuned) {
  return (tuned ? copy_tuned_policy<E>::tile_bytes : copy_unaligned_policy<E>::tile_bytes) / E;
}

/// Whether copy_full_height takes the matrix (short and wide).
template <int E>
bool full_height_takes(const copy_args& a, bool aligned) {
  if (a.rows > a.cols || a.rows < full_height_least_rows<E>(aligned) ||
      a.rows * E > full_height_most_row_bytes<E>)
    return false;
  if (!aligned) return true;
  const std::int64_t tiled_rows = rows_in_whole_tiles(a.rows, copy_tuned_policy<E>::tile_rows);
  // Below the tile height: 1-byte tiles less than 4/5 full, the others less than 3/5 (1-byte 96
  // rows, 3/4 full, 0.92-0.93 on copy_tuned against 0.95-0.97 here; thirteenth session).
  const std::int64_t below = E == 1 ? 4 : 3;
  return a.rows < copy_tuned_policy<E>::tile_rows ? 5 * a.rows < below * tiled_rows
                                                  : 3 * a.rows < 2 * tiled_rows;
}

/// Whether copy_full_width takes the matrix (tall and narrow): fewer columns than copy_tuned's
/// tile (for 1-byte elements, fewer than 48 only where the slabs would be shifted ones), or
/// column tiles less than 2/3 (copy_tuned) or 9/10 (copy_unaligned) full; for 2-byte elements
/// in copy_unaligned's rows, fewer columns than 3/2 of its tile. (Its 2-byte tiles of 48 rows
/// ran behind even full; those of 112 rows, fifteenth session, 128 MiB, two rounds against
/// copy_full_width: 65 columns 0.83 against 0.95, 127 0.94 level, 129 0.84 against 0.94, 201
/// 0.95 against 0.93-0.94, 255 0.97 against 0.95, 301 0.95 against 0.93-0.94.)
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

/// Short, wide matrices whose rows copy_unaligned would take, or whose copy_tuned tiles would be
/// less than 3/5 full (fewer rows than the tile; 4/5 for 1-byte elements) or 2/3 full (more), go
/// to copy_full_height within
/// its rows (full_height_least_rows, full_height_most_row_bytes). 128 MiB, x copy, the dispatch
/// before it against it (twelfth session, docs/performance.md): odd rows, 1-byte 37 rows 0.85
/// against 0.93 (slabs), 160 rows 0.79 against 0.95, 300 rows 0.71 against 0.90, 417 rows 0.71
/// against 0.88 (copy_unaligned), 600 rows 0.87 against 0.90; 2-byte 41 rows 0.42 against 0.89
/// (copy_unaligned), 150 rows 0.81 against 0.91, 300 rows 0.88 against 0.92; 4-byte 29 rows 0.85
/// against 0.97, 65 rows 0.84 against 0.97, 127 rows 0.87 against 0.97; 8-byte 29 rows 0.78
/// against 0.98, 127 rows 0.92 against 0.99; aligned rows, 1-byte 64 rows 0.86 against 0.95
/// (slabs), 160 rows 0.89 against 0.96 (copy_tuned, 5/8 full), 2-byte 32 rows 0.90 against 0.95,
/// 4-byte 72 rows 0.96 against 0.98, 8-byte 20 rows 0.89 against 0.97. Where it lost: fewer rows
/// (1-byte 33 0.86 against 0.84, 2-byte 37 0.90 against 0.86, 4-byte 17 0.93 against 0.90, 8-byte
/// 17 0.95 against 0.91; aligned 2-byte 16 0.93 against 0.87, 4-byte 16 0.96 against 0.90, 8-byte
/// 16 0.97 against 0.90), longer destination rows (1-byte 767 rows 0.83 against 0.67, 2-byte 383
/// rows 0.91 against 0.78, 8-byte 160 rows 0.98 against 0.97) and fuller copy_tuned tiles (1-byte
/// 192 rows, 3/4 full, 0.95 against 0.91; 2-byte 144 rows 0.98 against 0.96; 4-byte 40 rows, 5/8
/// full, 0.98-0.99 against 0.97-0.98).
/// Fewer columns than the policy's tile would leave most of each tile empty: such skinny shapes
/// go to the slab kernels of copy/skinny.cu, and so do fewer rows than the tile unless
/// the tiles of the kernel that would run are at least 3/5 (copy_tuned) or 17/20 (the others)
/// full: 128 MiB short, wide matrices, x copy, tiles against slabs (tenth session), copy_tuned
/// 1-byte 96 rows 0.91-0.92 against 0.67, 2-byte 48 rows 0.97 against 0.81, 4-byte 40 rows
/// 0.97-0.98 against 0.85, 16-byte 20 rows 0.99 against 0.84; copy_unaligned 2-byte 48 rows 0.89
/// against 0.71, 4-byte 48 rows 0.95 against 0.75, 8-byte 56 rows 0.99 against 0.88, but 2-byte 40
/// rows (5/6 full) 0.71 against 0.75-0.83 and 8-byte 42 rows (7/10) 0.86 against 0.90-0.95.
/// (For 1-byte elements the 17/20 never holds: copy_unaligned's tile has more rows than
/// copy_tuned's.)
/// Tall, narrow matrices go to copy_full_width where full_width_takes: 128 MiB, x copy, the
/// dispatch before it against it (twelfth session, docs/performance.md): odd rows, 1-byte
/// 4000001 x 33 0.79 against 0.82 (slabs), 2097153 x 64 0.80 against 0.96, 1040417 x 129 0.78
/// against 0.94 (copy_unaligned), 447393 x 300 0.93 against 0.94; 2-byte 2033601 x 33 0.84
/// against 0.95, 1032417 x 65 0.77 against 0.95 (slabs), 528417 x 127 0.65 against 0.95, 223681
/// x 300 0.80 against 0.94; 4-byte 1016801 x 33 0.85 against 0.98, 209697 x 160 0.88 against
/// 0.97; 8-byte 508385 x 33 0.78 against 0.98, 207105 x 81 0.91 against 0.98; aligned rows,
/// 1-byte 838848 x 160 0.92 against 0.94, 2-byte 838848 x 80 0.93 against 0.97, 4-byte 466016 x
/// 72 0.90 against 0.98, 8-byte 466016 x 36 0.93 against 0.99. Where it lost: fuller
/// copy_unaligned tiles (1-byte 526337 x 255 0.91 against 0.90, 4-byte 264193 x 127 0.96
/// against 0.94, 134209 x 250 0.97 against 0.94) and copy_tuned ones (1-byte 524288 x 256 0.94
/// against 0.89, 2-byte 466016 x 144 0.94 against 0.92, 8-byte 246720 x 68 0.99 against 0.97),
/// and 1-byte rows of 33 columns the plain slabs take (4000000 x 33 0.95 against 0.80); 2-byte
/// 263169 x 255 ran 0.91 on copy_unaligned against 0.94.
/// copy_tuned takes source rows on 16 bytes and destination rows on 32 bytes; everything else
/// (odd dimensions, and e.g. 1-byte 8208 x 8176 or 16-byte 4095 x 4097 whose destination rows
/// start mid-sector) goes to a kernel that writes whole 32-byte sectors: copy_unaligned (16-byte
/// accesses, rows shifted in registers) for 1-, 2-, 4- and 8-byte elements, copy_sectors (one
/// element per lane) for 16-byte ones, whose rows always start on 16 bytes. Ratios to a copy on
/// the H100 (odd shapes: scripts/device_tune_policies.cu --odd-only, 2026-11-23): see
/// docs/performance.md.
template <int E>
copy_kernel choose_for(const copy_args& a) {
  using policy = copy_tuned_policy<E>;
  // copy_tuned's tiles write whole 32-byte sectors only when every destination row starts on
  // one; sector halves written by different tiles cost the L2 far more than their bytes.
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

/// Whether the whole tiles of `Whole` (copy_tuned_whole or copy_tuned_whole_h200) take `a`: E-byte
/// elements they take, at most Whole<E>::most_aspect rows a column, made of their tiles on rows
/// that start on 16 bytes.
template <int E, template <int> class Whole>
bool whole_tiles_take(const copy_args& a) {
  if constexpr (Whole<E>::taken) {
    return a.rows <= Whole<E>::most_aspect * a.cols &&
           whole_tiles_fit<E, typename Whole<E>::policy>(a);
  } else {
    return false;
  }
}

/// On the H100's memory: the large tiles for matrices of at least copy_tuned_large_bytes and
/// copy_tuned_large_rows rows, the whole tiles for 4- and 8-byte matrices made of them of at most
/// copy_tuned_whole's bytes and rows a column whose source rows (the whole tiles walk down)
/// resonate with no memory period on the H100 (resonant_regions: the whole tiles take no
/// regions); tuning/copy_policies.hpp says why.
template <int E>
tuned_tiles choose_h100_tiles_for(const copy_args& a) {
  if (takes_large_tiles(a.rows, a.cols, E, copy_tuned_large_bytes) &&
      !std::is_same_v<typename copy_tuned_large<E>::policy, copy_tuned_policy<E>>)
    return tuned_tiles::large;
  if constexpr (copy_tuned_whole<E>::taken) {
    if (a.batch * a.rows * a.cols * E <= copy_tuned_whole<E>::most_bytes &&
        whole_tiles_take<E, copy_tuned_whole>(a) &&
        resonant_regions(a.lda * E, h100_memory_period) == 1)
      return tuned_tiles::whole_h100;
  }
  return tuned_tiles::standard;
}

/// On the H200's memory: the whole tiles for 2-, 4-, 8- and 16-byte matrices made of them of at
/// most copy_tuned_whole_h200's rows a column, any size (copy_tuned_whole_h200's comment).
template <int E>
tuned_tiles choose_h200_tiles_for(const copy_args& a) {
  return whole_tiles_take<E, copy_tuned_whole_h200>(a) ? tuned_tiles::whole_h200
                                                       : tuned_tiles::standard;
}

/// Runs the whole tiles of `Whole` (copy_tuned_whole or copy_tuned_whole_h200), named `name` in
/// the error it throws where they do not take E-byte elements or `a`, or regions are asked for.
template <int E, template <int> class Whole>
void launch_whole_tiles_for(const copy_args& a, cudaStream_t stream, int regions,
                            const char* name) {
  if constexpr (Whole<E>::taken) {
    using policy = typename Whole<E>::policy;
    if (!whole_tiles_fit<E, policy>(a) || regions > 1)
      throw error(status::internal_error,
                  std::string(name) + ": " + std::to_string(a.rows) + " x " +
                      std::to_string(a.cols) + " " + std::to_string(E) +
                      "-byte elements are not whole tiles of " + std::to_string(policy::tile_rows) +
                      " x " + std::to_string(policy::tile_bytes / E) +
                      " on rows that start on 16 bytes, or regions were asked for");
    launch_whole_tiles_with<E, policy>(a, stream);
  } else {
    throw error(status::internal_error,
                std::string(name) + " take no " + std::to_string(E) + "-byte elements");
  }
}

template <int E>
void launch_tiles_for(const copy_args& a, tuned_tiles tiles, cudaStream_t stream, int regions) {
  switch (tiles) {
    case tuned_tiles::large:
      return launch_tuned_with<E, typename copy_tuned_large<E>::policy>(a, stream, regions);
    case tuned_tiles::whole_h100:
      return launch_whole_tiles_for<E, copy_tuned_whole>(a, stream, regions,
                                                         "copy_tuned's whole tiles for the H100");
    case tuned_tiles::whole_h200:
      return launch_whole_tiles_for<E, copy_tuned_whole_h200>(
          a, stream, regions, "copy_tuned's whole tiles for the H200");
    default:
      return launch_tuned_with<E, copy_tuned_policy<E>>(a, stream, regions);
  }
}

template <class Policy>
std::string tiles_text() {
  return "tiles of " + std::to_string(Policy::tile_rows) + " rows x " +
         std::to_string(Policy::tile_bytes) + " bytes";
}

template <class Policy>
std::string whole_tiles_text() {
  return "whole " + tiles_text<Policy>() + " in its lean kernel (no edge paths, full occupancy)";
}

template <int E>
std::string tiles_text_for(tuned_tiles tiles) {
  if (tiles == tuned_tiles::large) return tiles_text<typename copy_tuned_large<E>::policy>();
  if constexpr (copy_tuned_whole<E>::taken) {
    if (tiles == tuned_tiles::whole_h100)
      return whole_tiles_text<typename copy_tuned_whole<E>::policy>();
  }
  if constexpr (copy_tuned_whole_h200<E>::taken) {
    if (tiles == tuned_tiles::whole_h200)
      return whole_tiles_text<typename copy_tuned_whole_h200<E>::policy>();
  }
  return tiles_text<copy_tuned_policy<E>>();
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
    case copy_kernel::full_height:
      return launch_copy_full_height(a, word_bytes, stream);
    case copy_kernel::full_width:
      return launch_copy_full_width(a, word_bytes, stream);
    case copy_kernel::tuned:
      return launch_copy_tuned_tiles(a, word_bytes, choose_tuned_tiles(a, word_bytes), stream);
  }
}

// The large tiles and copy_tuned_whole's only on the H100's memory, where they were measured
// ahead; on the H200 (twenty-fourth session, docs/performance.md; x copy, three rounds, large /
// standard) the large tiles ran behind on every shape their rule takes (1-byte 16384^2
// 0.86-0.87 / 0.93-0.94, 8192 x 32768 0.85-0.87 / 0.94-0.96, 32768 x 8192 0.81 / 0.88; 8-byte
// 8192^2 0.82 / 0.97, 11584^2 0.80 / 0.96, 16384 x 4096 0.80 / 0.89) but 2-byte ones, level
// (16384 x 8192 0.94 / 0.94-0.95), and it has whole tiles of its own (copy_tuned_whole_h200).
// Other memories: the standard tiles (not measured).
tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes, device_memory memory) {
  return with_word(word_bytes, "copy_tuned", [&](auto e) {
    constexpr int E = decltype(e)::value;
    switch (memory) {
      case device_memory::h100:
        return choose_h100_tiles_for<E>(a);
      case device_memory::h200:
        return choose_h200_tiles_for<E>(a);
      default:
        return tuned_tiles::standard;
    }
  });
}

tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes) {
  return choose_tuned_tiles(a, word_bytes, current_device_memory());
}

std::string tuned_tiles_text(const copy_args& a, int word_bytes) {
  const tuned_tiles tiles = choose_tuned_tiles(a, word_bytes);
  return with_word(word_bytes, "copy_tuned",
                   [&](auto e) { return tiles_text_for<decltype(e)::value>(tiles); });
}

void launch_copy_tuned_tiles(const copy_args& a, int word_bytes, tuned_tiles tiles,
                             cudaStream_t stream, int regions) {
  with_word(word_bytes, "copy_tuned",
            [&](auto e) { launch_tiles_for<decltype(e)::value>(a, tiles, stream, regions); });
}

}  // namespace xpose::detail::cuda
