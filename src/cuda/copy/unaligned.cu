// copy_unaligned: out-of-place transposition of 1-, 2-, 4- and 8-byte elements whose rows do not
// start on 16 (source) or 32 (destination) bytes (see copy/unaligned_kernel.cuh), with
// the policy of the element size, of copy_unaligned_large for large matrices, or for 1-byte
// elements copy_unaligned_tall_policy on short, wide ones whose rows its tiles fill better
// (tuning/unaligned.hpp); on the H200's memory 4- and 8-byte elements run those tiles in
// blocks of the H200's threads (copy_unaligned_blocks<device_class::h200, E, Policy>).
#include <string>
#include <type_traits>

#include "cuda/copy/launchers.hpp"
#include "cuda/copy/unaligned_kernel.cuh"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

namespace {

/// The internal error for the tall tiles asked for E-byte words (they are for 1-byte ones).
error tall_tiles_refused(int e) {
  return error(status::internal_error, "copy_unaligned: the tall tiles are for 1-byte words, not " +
                                           std::to_string(e) + "-byte ones");
}

/// Policy's tiles at the threads of `memory` (copy_unaligned_blocks<device_class::h200, E, Policy>
/// on the H200's).
template <int E, class Policy>
void launch_on(const copy_args& a, device_class memory, cudaStream_t stream, int regions) {
  if (memory == device_class::h200)
    return launch_unaligned_with<
        E, typename copy_unaligned_blocks<device_class::h200, E, Policy>::policy>(a, stream,
                                                                                  regions);
  launch_unaligned_with<E, Policy>(a, stream, regions);
}

template <int E>
void launch_for(const copy_args& a, unaligned_tiles tiles, device_class memory, cudaStream_t stream,
                int regions) {
  switch (tiles) {
    case unaligned_tiles::large:
      return launch_on<E, typename copy_unaligned_large<E>::policy>(a, memory, stream, regions);
    case unaligned_tiles::tall:
      if constexpr (E == 1) {
        return launch_on<1, copy_unaligned_tall_policy>(a, memory, stream, regions);
      } else {
        throw tall_tiles_refused(E);
      }
    case unaligned_tiles::standard:
      break;
  }
  launch_on<E, copy_unaligned_policy<E>>(a, memory, stream, regions);
}

/// with_word for the word sizes copy_unaligned takes: all of with_word's but 16.
template <class F>
decltype(auto) with_unaligned_word(int word_bytes, F&& f) {
  using result = decltype(f(std::integral_constant<int, 1>{}));
  return with_word(word_bytes, "copy_unaligned", [&](auto e) -> result {
    if constexpr (decltype(e)::value == 16)
      throw error(status::internal_error, "copy_unaligned: word size 16 is not 1, 2, 4 or 8");
    else
      return f(e);
  });
}

/// "tiles of R rows x W bytes and a halo of H rows" for Policy's tiles of E-byte words.
template <int E, class Policy>
std::string tiles_text() {
  using tile_t = unaligned_tile<E, Policy>;
  return "tiles of " + std::to_string(tile_t::R) + " rows x " + std::to_string(tile_t::W) +
         " bytes and a halo of " + std::to_string(tile_t::smem_rows - tile_t::R) + " rows";
}

template <int E>
std::string tiles_text_for(unaligned_tiles tiles) {
  switch (tiles) {
    case unaligned_tiles::large:
      return tiles_text<E, typename copy_unaligned_large<E>::policy>();
    case unaligned_tiles::tall:
      return tiles_text<1, copy_unaligned_tall_policy>();  // chosen for 1-byte words only
    case unaligned_tiles::standard:
      break;
  }
  return tiles_text<E, copy_unaligned_policy<E>>();
}

}  // namespace

// Below the large rule, 4-byte matrices of a few tile rows take the large policy's 120-row tiles
// where those fill the rows at least 1/16 better than the standard 56-row ones (rows / rows in
// whole tiles); where the fill gain is smaller they run level, where the standard tiles fill
// better behind. For 1- and 2-byte elements the large tiles run behind on such shapes even where
// they fill the rows better. The rule takes rows 225-240 and 337-360; copy_full_height takes
// 4-byte shapes of up to 250 rows first (full_height_takes, dispatch/copy_dispatch.cu), so the
// dispatch brings it 337-360.
// H100: 240 x 150001 0.960-0.961 x copy large / 0.935-0.936 standard (fill 1.00 / 0.86).
//
// 1- and 2-byte elements take the large tiles only on the H100's memory: on the H200 they run
// behind, while 4-byte ones stay ahead and 8-byte ones level.
// H200: 1-byte 16383 x 16385 0.81 x copy large / 0.85 standard.
bool copy_unaligned_takes_large(const copy_args& a, int word_bytes, device_class device) {
  if (word_bytes <= 2 && device != device_class::h100) return false;
  if (takes_large_tiles(a.rows, a.cols, word_bytes, copy_unaligned_large_bytes)) return true;
  if (word_bytes != 4 || a.rows * a.cols * word_bytes < copy_unaligned_short_large_bytes)
    return false;
  const std::int64_t large = rows_in_whole_tiles(a.rows, copy_unaligned_large_tile_rows<4>);
  const std::int64_t standard = rows_in_whole_tiles(a.rows, copy_unaligned_tile_rows<4>);
  // rows / large - rows / standard >= 1 / 16
  return 16 * a.rows * (standard - large) >= large * standard;
}

// copy_unaligned_tall_policy (tuning/unaligned.hpp) says what the rule rests on. On the H100's
// memory only: untried on the H200, where the large 1-byte tiles run behind.
bool copy_unaligned_takes_tall(const copy_args& a, int word_bytes, device_class device) {
  if (word_bytes != 1 || device != device_class::h100 ||
      a.rows * a.cols < copy_unaligned_large_bytes)
    return false;
  const std::int64_t tall = rows_in_whole_tiles(a.rows, copy_unaligned_tall_tile_rows);
  const std::int64_t standard = rows_in_whole_tiles(a.rows, copy_unaligned_tile_rows<1>);
  // rows / tall - rows / standard >= 1 / 5
  return 5 * a.rows * (standard - tall) >= tall * standard;
}

unaligned_tiles choose_unaligned_tiles(const copy_args& a, int word_bytes, device_class device) {
  if (copy_unaligned_takes_large(a, word_bytes, device)) return unaligned_tiles::large;
  if (copy_unaligned_takes_tall(a, word_bytes, device)) return unaligned_tiles::tall;
  return unaligned_tiles::standard;
}

std::string unaligned_tiles_text(int word_bytes, unaligned_tiles tiles) {
  return with_unaligned_word(word_bytes,
                             [&](auto e) { return tiles_text_for<decltype(e)::value>(tiles); });
}

std::string unaligned_tiles_text(const copy_args& a, int word_bytes) {
  return unaligned_tiles_text(word_bytes,
                              choose_unaligned_tiles(a, word_bytes, current_device_class()));
}

void launch_copy_unaligned(const copy_args& a, int word_bytes, cudaStream_t stream) {
  const device_class device = current_device_class();
  launch_copy_unaligned_tiles(a, word_bytes, choose_unaligned_tiles(a, word_bytes, device), stream,
                              tile_regions(a, static_cast<std::size_t>(word_bytes), device),
                              device);
}

int copy_unaligned_threads(int word_bytes, unaligned_tiles tiles, device_class memory) {
  return with_unaligned_word(word_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    const auto threads = [&](auto policy) {
      using Policy = decltype(policy);
      return memory == device_class::h200
                 ? copy_unaligned_blocks<device_class::h200, E, Policy>::policy::threads
                 : Policy::threads;
    };
    switch (tiles) {
      case unaligned_tiles::large:
        return threads(typename copy_unaligned_large<E>::policy{});
      case unaligned_tiles::tall:
        if (E != 1) throw tall_tiles_refused(E);
        return threads(copy_unaligned_tall_policy{});
      case unaligned_tiles::standard:
        break;
    }
    return threads(copy_unaligned_policy<E>{});
  });
}

void launch_copy_unaligned_tiles(const copy_args& a, int word_bytes, unaligned_tiles tiles,
                                 cudaStream_t stream, int regions, device_class memory) {
  with_unaligned_word(word_bytes, [&](auto e) {
    launch_for<decltype(e)::value>(a, tiles, memory, stream, regions);
  });
}

}  // namespace xpose::detail::cuda
