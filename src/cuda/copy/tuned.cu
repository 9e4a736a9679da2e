// copy_tuned: out-of-place transposition tuned for Hopper (the lecture slides "Matrix Transpose —
// get 90% bandwidth": more work per thread, here with 16-byte loads and stores and a swizzled
// shared-memory tile; see block/shared_tile_transpose.cuh and copy/tuned_kernel.cuh). The launcher
// picks the policy of the element size and, for 1- and 2-byte elements, of the matrix size, and
// for matrices made of whole tiles the lean kernel with the tiles of the device's memory (H100: 4
// and 8 bytes; H200: 2, 4, 8, 16; tuning/tuned.hpp) at run time.
// Assumes element-aligned pointers. The dispatch (choose_copy_kernel, dispatch/copy_dispatch.cu)
// sends skinny shapes (fewer columns than copy_tuned_policy's tile, or fewer rows and tiles too
// empty) to copy/skinny.cu, short, wide ones that tiles would cut to copy/full_height_kernel.cuh,
// tall, narrow ones whose column tiles would be too empty to copy/full_width_kernel.cuh, other row
// alignments to copy/unaligned_kernel.cuh.
#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/copy/launchers.hpp"
#include "cuda/copy/tuned_kernel.cuh"
#include "cuda/tuning/copy_policies.hpp"

namespace xpose::detail::cuda {

namespace {

/// Whether the whole tiles of copy_tuned_whole<D, E> take `a`: E-byte elements they take, at most
/// most_aspect rows a column, made of their tiles on rows that start on 16 bytes.
template <int E, device_class D>
bool whole_tiles_take(const copy_args& a) {
  if constexpr (copy_tuned_whole<D, E>::taken) {
    return a.rows <= copy_tuned_whole<D, E>::most_aspect * a.cols &&
           whole_tiles_fit<E, typename copy_tuned_whole<D, E>::policy>(a);
  } else {
    return false;
  }
}

/// On the H100's memory: the large tiles for matrices of at least copy_tuned_large_bytes and
/// copy_tuned_large_rows rows, the whole tiles for 4- and 8-byte matrices made of them of at most
/// copy_tuned_whole<device_class::h100, E>'s bytes and rows a column whose source rows (the whole
/// tiles walk down) resonate with no memory period on the H100 (resonant_regions: the whole tiles
/// take no regions); tuning/tuned.hpp says why.
template <int E>
tuned_tiles choose_h100_tiles_for(const copy_args& a) {
  if (takes_large_tiles(a.rows, a.cols, E, copy_tuned_large_bytes) &&
      !std::is_same_v<typename copy_tuned_large<E>::policy, copy_tuned_policy<E>>)
    return tuned_tiles::large;
  if constexpr (copy_tuned_whole<device_class::h100, E>::taken) {
    if (a.batch * a.rows * a.cols * E <= copy_tuned_whole<device_class::h100, E>::most_bytes &&
        whole_tiles_take<E, device_class::h100>(a) &&
        resonant_regions(a.lda * E, h100_memory_period) == 1)
      return tuned_tiles::whole_h100;
  }
  return tuned_tiles::standard;
}

/// On the H200's memory: the whole tiles for 2-, 4-, 8- and 16-byte matrices made of them of at
/// most copy_tuned_whole<device_class::h200, E>'s rows a column, any size (its comment in
/// tuning/tuned.hpp).
template <int E>
tuned_tiles choose_h200_tiles_for(const copy_args& a) {
  return whole_tiles_take<E, device_class::h200>(a) ? tuned_tiles::whole_h200
                                                    : tuned_tiles::standard;
}

/// Runs the whole tiles of copy_tuned_whole<D, E>, named `name` in the error it throws where they
/// do not take E-byte elements or `a`, or regions are asked for.
template <int E, device_class D>
void launch_whole_tiles_for(const copy_args& a, cudaStream_t stream, int regions,
                            const char* name) {
  if constexpr (copy_tuned_whole<D, E>::taken) {
    using policy = typename copy_tuned_whole<D, E>::policy;
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
      return launch_whole_tiles_for<E, device_class::h100>(a, stream, regions,
                                                           "copy_tuned's whole tiles for the H100");
    case tuned_tiles::whole_h200:
      return launch_whole_tiles_for<E, device_class::h200>(a, stream, regions,
                                                           "copy_tuned's whole tiles for the H200");
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
  if constexpr (copy_tuned_whole<device_class::h100, E>::taken) {
    if (tiles == tuned_tiles::whole_h100)
      return whole_tiles_text<typename copy_tuned_whole<device_class::h100, E>::policy>();
  }
  if constexpr (copy_tuned_whole<device_class::h200, E>::taken) {
    if (tiles == tuned_tiles::whole_h200)
      return whole_tiles_text<typename copy_tuned_whole<device_class::h200, E>::policy>();
  }
  return tiles_text<copy_tuned_policy<E>>();
}

}  // namespace

tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes, device_class memory) {
  return with_word(word_bytes, "copy_tuned", [&](auto e) {
    constexpr int E = decltype(e)::value;
    switch (memory) {
      case device_class::h100:
        return choose_h100_tiles_for<E>(a);
      case device_class::h200:
        return choose_h200_tiles_for<E>(a);
      default:
        return tuned_tiles::standard;
    }
  });
}

tuned_tiles choose_tuned_tiles(const copy_args& a, int word_bytes) {
  return choose_tuned_tiles(a, word_bytes, current_device_class());
}

std::string tuned_tiles_text(int word_bytes, tuned_tiles tiles) {
  return with_word(word_bytes, "copy_tuned",
                   [&](auto e) { return tiles_text_for<decltype(e)::value>(tiles); });
}

std::string tuned_tiles_text(const copy_args& a, int word_bytes) {
  return tuned_tiles_text(word_bytes, choose_tuned_tiles(a, word_bytes));
}

void launch_copy_tuned_tiles(const copy_args& a, int word_bytes, tuned_tiles tiles,
                             cudaStream_t stream, int regions) {
  with_word(word_bytes, "copy_tuned",
            [&](auto e) { launch_tiles_for<decltype(e)::value>(a, tiles, stream, regions); });
}

}  // namespace xpose::detail::cuda
