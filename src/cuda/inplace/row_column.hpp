// The row/column decomposition's phases on the GPU (stage kinds row_column_pre_rotate,
// row_column_row_shuffle, row_column_column_shuffle; Catanzaro, Keller, Garland, "A Decomposition
// for In-place Matrix Transposition", PPoPP'14, sec. 3-4): the route that needs no useful factors
// of the dimensions, for two primes among others. Kernels in row_column_kernel.cuh.
//  - row shuffle: rows of up to row_on_chip_max_bytes are permuted in shared memory, one pass;
//    longer rows through a scratch of whole rows, copied back. A pre-rotation before it is fused
//    into it where the rows fit on chip (row_column_fuses_pre_rotation).
//  - pre-rotation and column shuffle, on sm_90: one pass. Each column block (128-, 64- or 32-byte
//    row segments) is held whole by a thread-block cluster of up to 16 blocks, rotated on its way
//    into their shared memory and written back with the rows permuted, reading other blocks'
//    shared memory where the permutation crosses them (cluster_columns says when it applies).
//  - otherwise (before sm_90, or columns too tall for a cluster): groups of column blocks rotated
//    out of place into a scratch by skewed tiles in shared memory, then copied back, the column
//    shuffle's row permutation applied by that copy: two passes.
// Any element size, any m, n < 2^31; the data pointer may have any alignment (words of the widest
// power of two up to 16 dividing the element and the pointer). Workspace: a scratch, or none.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "plan/plan_data.hpp"

namespace xpose::detail::cuda {

/// Rows of at most this many bytes are permuted in one block's shared memory.
constexpr std::size_t row_on_chip_max_bytes = 192 * 1024;
/// The scratch of the column phases and of the row shuffle of long rows, at most (at least one
/// column block of one element's width, or one row).
constexpr std::size_t row_column_scratch_max_bytes = std::size_t{24} << 20;
/// The halos of the pre-rotation fused into the row shuffle, at most: room for a band on every
/// block an SM holds where gcd(m, n) is small, within the GPU's workspace floor of 64 MiB.
constexpr std::size_t rotated_halos_max_bytes = std::size_t{48} << 20;

/// How column_cluster_kernel takes a column phase: column blocks of block_cols columns, each held
/// by a cluster of `ranks` blocks of rows_per_block rows (shared_bytes of shared memory each).
struct cluster_shape {
  int ranks = 1;
  std::uint32_t rows_per_block = 1;
  std::int64_t block_cols = 1;
  std::size_t shared_bytes = 0;
};

/// The cluster shape that holds a column block of the column phase `s` in distributed shared
/// memory (128-, 64- or 32-byte row segments, clusters of up to 16 blocks), or none: not a
/// column phase, no clusters on the current device (before sm_90), or columns too tall.
std::optional<cluster_shape> cluster_columns(const stage& s);

/// Whether `s` is one of the row_column phases.
bool is_row_column_stage(const stage& s);

/// Why the kernels cannot take `s` (rows or cols of 2^31 or more, a row of 4 GiB or more), or
/// empty when they can. Checked at plan time; the planner passes over a route they cannot take.
std::string row_column_limits(const stage& s);

/// Columns per block of the column phases of `s`: 128 bytes of row where m such rows fit
/// row_column_scratch_max_bytes, fewer otherwise, at least 1, at most n.
std::int64_t row_column_block_cols(const stage& s);

/// Device bytes of scratch a launch of `s` overwrites (0 for a row shuffle on chip).
std::size_t row_column_scratch_bytes(const stage& s);

/// Predicted passes over memory of `s` (the inverse of its speed relative to a copy).
double row_column_stage_passes(const stage& s);

/// What describe() says runs `s`.
std::string row_column_kernel_text(const stage& s);

/// Whether the GPU runs the pre-rotation `pre` and the row shuffle `row` that follows it as one
/// pass (launch_row_column_pair): the row shuffle gathers each row from the rows the pre-rotation
/// would move into it, band by band from the last row down, the rows below each band saved first
/// (gcd(m, n) - 1 of them; the pre-rotation's scratch). Rows that fit shared memory, and halos
/// within rotated_halos_max_bytes.
bool row_column_fuses_pre_rotation(const stage& pre, const stage& row);

/// Enqueues `pre` and `row` as one pass (row_column_fuses_pre_rotation(pre, row) must hold) with
/// `scratch` of row_column_scratch_bytes(pre) bytes on `stream`, without synchronizing.
void launch_row_column_pair(void* data, const stage& pre, const stage& row, void* scratch,
                            cudaStream_t stream);

/// Enqueues phase `s` on the matrix at `data` (device pointer) with `scratch` of
/// row_column_scratch_bytes(s) bytes on `stream`, without synchronizing. Throws
/// xpose::error(internal_error) for a stage that is not a row_column phase or a size beyond the
/// kernels' limits, before touching the device.
void launch_row_column(void* data, const stage& s, void* scratch, cudaStream_t stream);

}  // namespace xpose::detail::cuda
