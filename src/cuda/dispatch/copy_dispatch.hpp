// The out-of-place dispatch: one decision per stage (kernel family, its tiles or slabs, the
// device class whose tables apply, the interleaved tile regions), computed by decide_copy and
// consumed by both run_copy (execute) and describe_copy (plan::describe, `xpose plan`), so the
// choice is written once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/copy/launchers.hpp"
#include "xpose/route.hpp"

namespace xpose::detail::cuda {

/// The kernel families of src/cuda/copy/, in the order decide_copy tries them.
enum class copy_family {
  seed_variant,          ///< the lecture slides' progression (forced routes)
  small_batch,           ///< batches of small matrices, several per block
  skinny_narrow,         ///< 3-15 byte elements, a short side of 2-16
  full_height_any_size,  ///< 3-15 byte elements, short and wide
  skinny_any_size,       ///< 3-15 byte elements, skinny
  any_size,              ///< 3-15 byte elements, tiles
  super_elements,        ///< elements of several words
  skinny,                ///< word elements, skinny slabs
  full_height,           ///< word elements, short and wide
  full_width,            ///< word elements, tall and narrow
  tuned,                 ///< word elements, rows on 16 (source) and 32 (destination) bytes
  unaligned,             ///< 1-8 byte words, rows of any alignment
  sectors                ///< 16-byte words, rows of any alignment
};

/// What runs a stage: decide_copy's answer.
struct copy_decision {
  copy_family family = copy_family::tuned;
  route variant = route::automatic;
  std::size_t elem_bytes = 0;
  int word_bytes = 1;  ///< the word the kernel moves (1, 2, 4, 8 or 16 bytes)
  std::int64_t words_per_element = 1;
  device_class device = device_class::other;
  tuned_tiles tuned = tuned_tiles::standard;              ///< copy_family::tuned
  unaligned_tiles unaligned = unaligned_tiles::standard;  ///< copy_family::unaligned
  skinny_slabs slabs = skinny_slabs::plain;               ///< copy_family::skinny
  int regions = 1;  ///< interleaved tile regions (1: the plain order)
};

/// Widest word (<= 16 bytes, a power of two) dividing the element size and both pointers.
int word_bytes_for(std::size_t elem_bytes, const void* src, const void* dst);

/// What the dispatch runs for elements of one word, for `a` in words of `word_bytes`: the
/// skinny slabs, copy_full_height, copy_full_width, copy_tuned's tiles, copy_unaligned or
/// copy_sectors.
enum class copy_kernel { skinny, tuned, unaligned, sectors, full_height, full_width };
copy_kernel choose_copy_kernel(const copy_args& a, int word_bytes);

/// The decision for `a` (elements of `elem_bytes`, pointers as given: null pointers stand for
/// the best alignment the leading dimensions allow) under the forced or automatic `variant`, with
/// the tables of `device`.
copy_decision decide_copy(const copy_args& a, std::size_t elem_bytes, route variant,
                          device_class device);
/// Enqueues the kernel `d` names on `stream`.
void run_copy(const copy_decision& d, const copy_args& a, cudaStream_t stream);
/// The kernel `d` names, its tiles and why, for a plan's text.
std::string copy_decision_text(const copy_decision& d, const copy_args& a);
/// The kernel line of a plan: the decision at the best alignment and, where the pointers'
/// alignment at execute changes it, the decisions then; the regions where they are taken.
std::string describe_copy(const copy_args& at_best, std::size_t elem_bytes, route variant,
                          device_class device);

}  // namespace xpose::detail::cuda
