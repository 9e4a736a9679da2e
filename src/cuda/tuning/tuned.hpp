// copy_tuned's tiles (rows on 16 bytes at the source and 32 at the destination): a policy per
// element size, larger tiles for large matrices, and the whole-tile tables per device class.
// Tiles of 8-16 KiB give each thread two to four 16-byte loads in flight; tile widths are whole
// 128-byte lines on both sides. The block counts cap the registers (without the cap ptxas
// doubles them and aligned 8192 x 8192 4-byte runs 0.74 x copy instead of 0.95 on the H100).
#pragma once

#include <cstdint>

#include "cuda/tuning/device_class.hpp"
#include "cuda/tuning/tile_policy.hpp"

namespace xpose::detail::cuda {

/// A tile is tile_rows x (tile_bytes / E) elements; its transpose writes rows of tile_rows * E
/// bytes.
template <int E>
struct copy_tuned_policy;
template <>
struct copy_tuned_policy<1> : tile_policy<128, 128, 256, 4> {};
template <>
struct copy_tuned_policy<2> : tile_policy<64, 128, 128, 7> {};
template <>
struct copy_tuned_policy<4> : tile_policy<64, 256, 256, 4> {};
template <>
struct copy_tuned_policy<8> : tile_policy<64, 256, 256, 4> {};
template <>
struct copy_tuned_policy<16> : tile_policy<32, 512, 256, 3> {};

/// Large tiles, taken on the H100 by matrices (each, not the batch) of at least
/// copy_tuned_large_bytes and copy_tuned_large_rows rows: 256 and 128 rows for 1- and 2-byte
/// elements write 256-byte runs of each destination row instead of 128.
/// H100: 1-byte 24576^2 0.931-0.937 x copy vs 0.906-0.910 for the standard tiles.
constexpr std::int64_t copy_tuned_large_bytes = std::int64_t{1} << 28;
constexpr std::int64_t copy_tuned_large_rows = 8192;
/// Whether a matrix of rows x cols E-byte elements takes large tiles: at least `least_bytes` and
/// copy_tuned_large_rows rows.
constexpr bool takes_large_tiles(std::int64_t rows, std::int64_t cols, int e,
                                 std::int64_t least_bytes) {
  return rows >= copy_tuned_large_rows && rows * cols * e >= least_bytes;
}
template <int E>
struct copy_tuned_large {
  using policy = copy_tuned_policy<E>;
};
template <>
struct copy_tuned_large<1> {
  using policy = tile_policy<256, 128, 512, 2>;
};
template <>
struct copy_tuned_large<2> {
  using policy = tile_policy<128, 128, 256, 4>;
};

/// copy_tuned_whole<D, E>: the tiles of copy_tuned's lean kernel (one tile per block, no edge
/// paths, 32-bit offsets, full occupancy) for matrices made of whole tiles on rows that start on
/// 16 bytes, of at most `most_aspect` rows a column (and on the H100 at most `most_bytes`), per
/// device class. Taller shapes run behind the standard tiles, which walk across them.
template <device_class D, int E>
struct copy_tuned_whole {
  static constexpr bool taken = false;
};
/// H100: 4-byte 2048^2 0.922-0.936 x copy vs 0.887-0.898 for the standard kernel.
template <>
struct copy_tuned_whole<device_class::h100, 4> {
  static constexpr bool taken = true;
  using policy = tile_policy<32, 256, 256, 8>;
  static constexpr std::int64_t most_aspect = 32;
  static constexpr std::int64_t most_bytes = std::int64_t{1} << 27;
};
/// H100: 8-byte 4096^2 0.964-0.968 x copy vs 0.959-0.961 for the standard kernel.
template <>
struct copy_tuned_whole<device_class::h100, 8> {
  static constexpr bool taken = true;
  using policy = tile_policy<32, 256, 256, 8>;
  static constexpr std::int64_t most_aspect = 32;
  static constexpr std::int64_t most_bytes = std::int64_t{1} << 28;
};
/// H200: 2-byte 4096^2 0.900-0.914 x copy vs 0.881-0.888 for the standard kernel.
template <>
struct copy_tuned_whole<device_class::h200, 2> {
  static constexpr bool taken = true;
  using policy = tile_policy<64, 128, 256, 8>;
  static constexpr std::int64_t most_aspect = 2;
};
/// H200: 4-byte 4096^2 0.944 x copy vs 0.902-0.906 for the standard kernel.
template <>
struct copy_tuned_whole<device_class::h200, 4> {
  static constexpr bool taken = true;
  using policy = tile_policy<32, 128, 128, 16>;
  static constexpr std::int64_t most_aspect = 32;
};
/// H200: 8-byte 131072 x 256 0.934-0.936 x copy vs 0.910-0.915 for the standard kernel.
template <>
struct copy_tuned_whole<device_class::h200, 8> {
  static constexpr bool taken = true;
  using policy = copy_tuned_whole<device_class::h100, 8>::policy;
  static constexpr std::int64_t most_aspect = 512;
};
/// H200: 16-byte 4096^2 0.965-0.967 x copy vs 0.923-0.926 for the standard kernel.
template <>
struct copy_tuned_whole<device_class::h200, 16> {
  static constexpr bool taken = true;
  using policy = tile_policy<16, 512, 256, 8>;
  static constexpr std::int64_t most_aspect = 4096;
};

}  // namespace xpose::detail::cuda
