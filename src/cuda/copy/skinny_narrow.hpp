// copy_skinny_narrow: out-of-place transposition of very skinny matrices (a short side of at most
// skinny_narrow_most_short_side elements, elements of 1 to 16 bytes) as the interleave (wide
// c x n to n x c) or de-interleave (tall n x c to c x n) of c streams, in stretches of the long
// side (copy/skinny_narrow_kernel.cuh). Sizes and strides in copy_args are in elements of
// `elem_bytes`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

/// The longest short side the kernel takes: the packed side's words of a row (c * words per
/// element, at most 256) then fit the residues of one block's threads (skinny_narrow_threads).
constexpr std::int64_t skinny_narrow_most_short_side = 16;
/// The least short side and long side, and the element sizes, skinny_narrow_takes accepts.
constexpr std::int64_t skinny_narrow_least_short_side = 2;
constexpr std::int64_t skinny_narrow_least_long_side = 4096;
constexpr std::size_t skinny_narrow_least_element_bytes = 3;
constexpr std::size_t skinny_narrow_most_element_bytes = 16;
/// Bytes of the matrix a block moves per stretch, unless the launcher is given others: with
/// skinny_narrow_chunks_in_flight chunks per thread, every load of a stretch is in flight at once.
constexpr int skinny_narrow_stretch_bytes = 16 * 1024;
/// The most bytes per stretch the launcher takes: a block's shared words then fit 16 bits.
constexpr int skinny_narrow_most_stretch_bytes = 48 * 1024;

/// One launch of the kernel, in words of `word_bytes` (the widest power of two up to 16 that
/// divides the element size and both pointers). The packed side is the one whose rows hold the
/// short side (tall: the source; wide: the destination), dense (rows `short_side` elements
/// apart); the strided side holds `short_side` runs of the long side, `strided_ld` words apart.
/// A stretch is `length` consecutive long-side indices of one matrix (a multiple of 16, or the
/// whole long side), all short-side indices: one run of length * short_side elements on the
/// packed side, short_side runs of `length` elements on the strided side. Shared memory holds a
/// stretch as the strided side's runs, run j from word j * pitch + (the misalignment of its
/// global start in words, so that 16-byte chunks of both sides fall on the same chunks);
/// `packed_threads` (a multiple of the threads whose 16-byte chunks make whole packed rows) move
/// the packed side, each one chunk per `packed_threads` chunks, advancing packed_step shared
/// words per step.
struct skinny_narrow_params {
  const void* src = nullptr;
  void* dst = nullptr;
  std::int64_t long_side = 0;
  std::int64_t strided_ld = 0;                  ///< words between the strided side's runs
  std::int64_t src_stride = 0, dst_stride = 0;  ///< words between matrices
  std::int64_t stretches_per_matrix = 0, total_stretches = 0;
  int short_side = 0;
  int words = 0;  ///< words per element
  int length = 0;
  int pitch = 0;
  int packed_threads = 0;
  int packed_step = 0;
  bool tall = false;
};

/// The launch launch_copy_skinny_narrow makes for `a`: the kernel's parameters, its word size and
/// its dynamic shared memory in bytes.
struct skinny_narrow_layout {
  skinny_narrow_params params;
  int word_bytes = 0;
  int shared_bytes = 0;
};

/// The layout of `a` (elements of `elem_bytes`) in stretches of about `stretch_bytes` (0:
/// skinny_narrow_stretch_bytes, at most skinny_narrow_most_stretch_bytes); an internal error for
/// shapes the kernel does not take: elements of other than 1 to 16 bytes, a short side of more than
/// skinny_narrow_most_short_side, a packed side whose rows are not dense, a strided side whose rows
/// overlap, empty matrices.
skinny_narrow_layout skinny_narrow_layout_for(const copy_args& a, std::size_t elem_bytes,
                                              int stretch_bytes = 0);

/// Whether the out-of-place dispatch may run copy_skinny_narrow on `a`: elements of 3 to 16
/// bytes, a short side of 2 to skinny_narrow_most_short_side, a long side of at least
/// skinny_narrow_least_long_side, the packed side dense, any alignment.
bool skinny_narrow_takes(const copy_args& a, std::size_t elem_bytes);

/// Enqueues the transposition of `a` on `stream` without synchronizing, in stretches of about
/// `stretch_bytes` (0: skinny_narrow_stretch_bytes; sweeps pass others); an internal error for
/// shapes skinny_narrow_layout_for refuses, before the device is touched.
void launch_copy_skinny_narrow(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream,
                               int stretch_bytes = 0);

}  // namespace xpose::detail::cuda
