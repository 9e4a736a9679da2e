// CPU backend (OpenMP): one function per stage kind, all working on raw bytes. These are the
// executable specification of the GPU kernels: same stages, same results, element by element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plan/plan_data.hpp"

namespace xpose::detail::cpu {

/// Scratch bytes tiled_transpose needs for `s` with `threads` threads (flags and tile buffers).
std::size_t tiled_transpose_workspace(const stage& s, int threads);
/// Elementary tiled transposition (stage_kind::tiled_transpose) of one matrix at `data`.
/// `table`: the work list of build_tiled_transpose_table for the same stage and threads, or
/// null (the cycles are then walked at run time).
void tiled_transpose(std::byte* data, const stage& s, std::byte* workspace, int threads,
                     const std::byte* table = nullptr);
/// Bytes of the work list tiled_transpose can take for `s` with `threads` threads, made ahead of
/// the data; 0 where it takes none (the threads do not share an instance).
std::size_t tiled_transpose_table_bytes(const stage& s, int threads);
/// Makes that work list (tiled_transpose_table_bytes of them at `table`): the cycles walked once,
/// long ones cut into chunks. O(rows * cols) time on one thread.
void build_tiled_transpose_table(const stage& s, int threads, std::byte* table);

/// Scratch bytes for the fused pair (first.fused_with_next == true) with `threads` threads.
std::size_t tiled_transpose_fused_workspace(const stage& first, const stage& second, int threads);
/// Runs `first` then `second` slab by slab: slab k is instance k of `second`, which spans
/// first.batch / second.batch instances of `first`. Same result as the two stages in sequence.
void tiled_transpose_fused(std::byte* data, const stage& first, const stage& second,
                           std::byte* workspace, int threads);

/// Reference: full in-place transposition of a rows x cols matrix of elem_size-byte elements by
/// following the cycles of eq. 1 (PPoPP'14 sec. 3), one bit flag per element in `flags`
/// ((rows*cols + 7) / 8 bytes, zeroed by the callee).
void cycle_following_reference(std::byte* data, std::int64_t rows, std::int64_t cols,
                               std::size_t elem_size, std::byte* flags);

/// Square in place (stage_kind::square_swap) on one n x n matrix with leading dimension s.lda.
void square_swap(std::byte* data, const stage& s, int threads);
/// square_swap runs matrices smaller than this on one thread.
inline constexpr std::int64_t square_parallel_min_bytes = std::int64_t{256} << 10;

/// Scratch bytes for the row/column decomposition stage `s` with `threads` threads.
std::size_t row_column_workspace(const stage& s, int threads);
/// One phase of the Catanzaro-Keller-Garland decomposition (stage_kind::row_column_*).
void row_column_phase(std::byte* data, const stage& s, std::byte* workspace, int threads);
/// The bands in which the pre-rotation `pre` runs fused into the row shuffle `row` right after
/// it (plan/row_column.hpp, row_column_rotated_bands), or 0 where they run apart.
std::int64_t row_column_fused_bands(const stage& pre, const stage& row, int threads);
/// Scratch bytes for the pre-rotation fused into the row shuffle `row` in `bands` bands.
std::size_t row_column_fused_workspace(const stage& row, int threads, std::int64_t bands);
/// The pre-rotation `pre` and the row shuffle `row` after it (same matrix, gcd > 1) in one pass
/// over `bands` bands of rows (1 <= bands); the same result as the two phases in sequence.
void row_column_fused_phases(std::byte* data, const stage& pre, const stage& row,
                             std::byte* workspace, int threads, std::int64_t bands);

/// Bytes of the r x m remainder block that a skinny_remainder_* stage `s` keeps in the workspace
/// from its first step (split / take) to its second (place / spread).
std::size_t skinny_remainder_held_bytes(const stage& s);
/// Scratch bytes the skinny_remainder_* stage `s` needs besides the held block.
std::size_t skinny_remainder_scratch_bytes(const stage& s, int threads);
/// One remainder step of the skinny_chunks route (stage_kind::skinny_remainder_*); `held` is the
/// remainder block (the same bytes for both steps), `scratch` the stage's own scratch.
void skinny_remainder(std::byte* data, const stage& s, std::byte* held, std::byte* scratch,
                      int threads);

/// Out of place (stage_kind::copy_transpose), all s.batch matrices.
void copy_transpose(const std::byte* src, std::byte* dst, const stage& s, int threads);

}  // namespace xpose::detail::cpu
