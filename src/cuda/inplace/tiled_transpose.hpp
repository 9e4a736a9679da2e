// Elementary tiled transposition on the GPU (stage_kind::tiled_transpose; "In-Place Transposition
// of Rectangular Matrices on Accelerators", PPoPP'14, sec. 4-5): `batch` independent instances,
// each a rows x cols matrix of super_bytes-byte super-elements, transposed in place to cols x rows.
// Two paths (kernels in tiled_transpose_kernel.cuh):
//  - on_chip: the barrier-sync kernel of sec. 3 (Fig. 1) and 5.1: a block loads one or several
//    whole instances into shared memory, synchronizes, and writes them back transposed. Taken
//    where one instance, rows padded (tiled_on_chip_pitch), fits tiled_on_chip_max_bytes.
//  - cycle_following: the cycles of eq. 1 (sec. 3) followed in global memory with per-element
//    claim states (PTTWAC, sec. 4 and 5.1; one group of lanes per super-element as in sec. 5.2.1),
//    for instances that do not fit on chip. Needs tiled_transpose_workspace(s) bytes of device
//    workspace for its states.
// Any super_bytes >= 1, any rows, cols >= 1, any batch; the data pointer may have any alignment.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "plan/plan_data.hpp"

namespace xpose::detail::cuda {

/// Which kernel runs a tiled_transpose stage. `automatic` is choose_tiled_path's; tests force the
/// others on the same shapes.
enum class tiled_path { automatic, on_chip, cycle_following };

/// Dynamic shared memory a block of the on-chip path may take (opted in above 48 KiB).
constexpr std::size_t tiled_on_chip_max_bytes = 96 * 1024;

/// Cycle following runs its instances in waves whose states take at most this many bytes (at
/// least one instance per wave), the workspace being reused from wave to wave.
constexpr std::size_t tiled_cycle_wave_state_bytes = std::size_t{32} << 20;

/// Bytes between consecutive rows of an instance in the on-chip path's shared memory, for rows
/// of `row_bytes` bytes moved in words of `word_bytes` (1, 2, 4, 8 or 16): row_bytes itself for
/// rows of at most 4 bytes (a warp's transposed reads then span at most 128 bytes), else the
/// least odd multiple of max(word_bytes, 4) not below row_bytes, so that a warp reading one word
/// from each of consecutive rows meets every bank once.
std::size_t tiled_on_chip_pitch(std::size_t row_bytes, std::size_t word_bytes);

/// Shared bytes one instance of `s` takes in the on-chip path: rows x the largest pitch any
/// word size the super-element allows gives (the choice does not depend on the pointer).
std::size_t tiled_on_chip_instance_bytes(const stage& s);

/// The path `automatic` takes for `s`: on_chip where an instance fits tiled_on_chip_max_bytes,
/// else cycle_following.
tiled_path choose_tiled_path(const stage& s);

/// Device workspace bytes launch_tiled_transpose needs for `s` (flags etc.); 0 when none. The
/// on-chip path needs none; cycle following needs, per instance and column chunk of the
/// super-element (tiled_cycle_chunks), 2 bits of state per super-element in 32-bit words
/// (4 * ceil(rows * cols / 16) bytes), for as many instances and chunks as one wave holds
/// (tiled_cycle_wave_state_bytes, at least one). Stages that move nothing (rows or cols 1, batch
/// 0) need none.
std::size_t tiled_transpose_workspace(const stage& s);
/// The same for a given path (automatic: choose_tiled_path's).
std::size_t tiled_transpose_workspace_for_path(const stage& s, tiled_path path);

/// Column chunks cycle following cuts each super-element of `s` into: a chunk is moved by one
/// group of lanes holding it in registers, and each chunk column is an independent instance of
/// the same permutation with its own states. 1 for super-elements of up to 256 words.
std::int64_t tiled_cycle_chunks(const stage& s);

/// Enqueues stage `s` on the matrix at `data` (device pointer), with `workspace` of at least
/// tiled_transpose_workspace(s) bytes (device memory; the launcher clears what it needs with
/// cudaMemsetAsync on `stream`), without synchronizing. Throws xpose::error(internal_error) for a
/// stage that is not a valid tiled_transpose (super_bytes 0, negative sizes) or a missing
/// workspace, before touching the device.
void launch_tiled_transpose(void* data, const stage& s, void* workspace, cudaStream_t stream);

/// launch_tiled_transpose on the given path (tests); `workspace` holds at least
/// tiled_transpose_workspace_for_path(s, path) bytes. Forcing on_chip on an instance that does
/// not fit throws xpose::error(internal_error).
void launch_tiled_transpose_path(void* data, const stage& s, void* workspace, cudaStream_t stream,
                                 tiled_path path);

}  // namespace xpose::detail::cuda
