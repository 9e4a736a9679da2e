// The remainder steps of the skinny route (stage_kind::skinny_remainder_*, plan/skinny_route.hpp)
// on the GPU: the r = n mod w leftover columns of an m x n matrix set aside in a held block and
// the rows closed up to q*w elements (split), the held block placed after the closed matrix
// (place), taken from its end (take), or the rows opened back to n elements and their last r
// columns filled from it (spread). The CPU's cpu/skinny_remainder.cpp is the specification.
//
// Closing up moves closed position p left by shift(p) = (p div q*w) * r elements, at most
// (m-1)*r; opening up moves it right by as much. The closed matrix is cut into ranges of at least
// that many elements, one block each: a first kernel saves, before anything moves, what each
// range reads but the block of the range next to it overwrites (split: the sources just after the
// range; spread: the range's own head), then every block moves its range chunk by chunk through
// registers (front to back for split, back to front for spread), reading a saved element from the
// scratch. Within a chunk all loads finish before any store; a chunk's stores never reach a
// later chunk's sources.
// Any element size (moved as words of 1, 2, 4, 8 or 16 bytes that the size and the pointers
// allow), 64-bit index math.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "plan/plan_data.hpp"

namespace xpose::detail::cuda {

/// The held block of a remainder stage: r*m elements (0 when the chunks divide the long side).
std::size_t skinny_remainder_held_bytes(const stage& s);

/// The scratch a split or spread stage overwrites: the saved elements of its ranges, at most
/// skinny_remainder_scratch_max_bytes unless one range needs more. 0 for place and take.
std::size_t skinny_remainder_scratch_bytes(const stage& s);
constexpr std::size_t skinny_remainder_scratch_max_bytes = std::size_t{16} << 20;

/// Enqueues remainder stage `s` on the matrix at `data` on `stream`. `held`: the held block, kept
/// from split to place and from take to spread (skinny_remainder_held_bytes, on 16 bytes);
/// `scratch`: skinny_remainder_scratch_bytes bytes on 16 bytes. No synchronization.
void launch_skinny_remainder(void* data, const stage& s, void* held, void* scratch,
                             cudaStream_t stream);

}  // namespace xpose::detail::cuda
