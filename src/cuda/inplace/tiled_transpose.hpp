// Elementary tiled transposition on the GPU (stage_kind::tiled_transpose; "In-Place Transposition
// of Rectangular Matrices on Accelerators", PPoPP'14, sec. 4-5): `batch` independent instances,
// each a rows x cols matrix of super_bytes-byte super-elements, transposed in place to cols x rows.
// Five paths (kernels in tiled_transpose_kernel.cuh and chains_kernel.cuh):
//  - on_chip: the barrier-sync kernel of sec. 3 (Fig. 1) and 5.1: a block loads one or several
//    whole instances into shared memory, synchronizes, and writes them back transposed. Taken
//    where one instance, rows padded (tiled_on_chip_pitch), fits tiled_on_chip_max_bytes.
//    Instances of at most 64 x 64 elements of up to 16 bytes run the same protocol in the
//    out-of-place copies' small-batch kernel (copy/small_batch.hpp) with its source as its
//    destination.
//  - through_scratch: groups of whole instances transposed out of place into a scratch of at
//    most tiled_scratch_max_bytes (by the out-of-place dispatch, copy_dispatch.hpp), then copied
//    back. Instances up to that size. (The copy back reads the scratch from DRAM on the H200: the
//    L2 does not keep it; 0.41-0.52 x copy.)
//  - chains: the cycles of eq. 1 moved by groups of threads with their loads in flight ahead of
//    their stores, every cycle listed in a table made at plan time (chain_table.hpp), long ones
//    cut into chains. Instances of up to chain_max_positions super-elements.
//  - pttwac: PTTWAC with the flags in shared memory (sec. 5.1: compact flags, spreading,
//    padding; the DL paper's sec. 4.4): one block per group of whole instances, the elements moved
//    along their cycles directly in global memory, several chains in flight per group of lanes.
//    Instances whose flags fit pttwac_flag_max_bytes.
//  - cycle_following: the cycles followed in global memory with per-element claim states
//    (PTTWAC with the flags in global memory, sec. 4 and 5.1; one group of lanes per
//    super-element as in sec. 5.2.1), for the rest.
//  - whole_cycles: the chains path with no cycle cut, one group of lanes per whole cycle: the DL
//    paper's P-IPT (sec. 4.3), whose long cycles leave most groups idle (its Figure 7). Forced
//    only (layout_variant::pipt), to measure that contrast.
// Workspace: a table (chains and whole_cycles), made once by prepare_tiled_table and kept between
// launches, and a scratch that every launch overwrites (shared by the stages of a plan). Any
// super_bytes >= 1, any rows, cols >= 1, any batch; the data pointer may have any alignment.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "plan/plan_data.hpp"

namespace xpose::detail::cuda {

/// Which kernel runs a tiled_transpose stage. `automatic` is choose_tiled_path's; tests force the
/// others on the same shapes.
enum class tiled_path {
  automatic,
  on_chip,
  through_scratch,
  chains,
  cycle_following,
  pttwac,
  whole_cycles
};

/// The path's name ("on_chip", "through_scratch", "chains", "cycle_following", "pttwac",
/// "whole_cycles", "automatic").
const char* tiled_path_name(tiled_path path);

/// Dynamic shared memory a block of the on-chip path may take (opted in above 48 KiB).
constexpr std::size_t tiled_on_chip_max_bytes = 96 * 1024;

/// The through_scratch path's scratch: whole instances, as many as fit this (at least one). H200:
/// 4 MiB 0.26-0.33 x copy, 8 MiB 0.32-0.39, 24 MiB 0.37-0.51, 40 MiB 0.40-0.52 (fewer rounds).
constexpr std::size_t tiled_scratch_max_bytes = std::size_t{24} << 20;
/// The chains path takes instances of at most this many super-elements (the table is made by a
/// walk over every position on the host, about a second at this size) and super-elements of at
/// least this many bytes.
constexpr std::uint64_t chain_max_positions = std::uint64_t{1} << 28;
constexpr std::size_t chain_min_super_bytes = 1;
/// From this size chains beat the scratch (H200: 64-byte super-elements 0.47-0.51 x copy,
/// through the scratch 0.41-0.44).
constexpr std::size_t chain_fast_super_bytes = 64;
/// The chains path's scratch for the heads of cut cycles, at most (chains are made long enough).
constexpr std::size_t chain_heads_max_bytes = std::size_t{16} << 20;

/// Cycle following runs its instances in waves whose states take at most this many bytes (at
/// least one instance per wave), the workspace being reused from wave to wave.
constexpr std::size_t tiled_cycle_wave_state_bytes = std::size_t{32} << 20;

/// The pttwac path takes instances whose flags (one bit per super-element, a word of padding per
/// 32) fit this much shared memory (no opt-in above the default 48 KiB).
constexpr std::size_t pttwac_flag_max_bytes = 48 * 1024;
/// It spreads the flags (up to one position per word) as far as this many bytes allow: more
/// would cost resident blocks.
constexpr std::size_t pttwac_spread_bytes = 16 * 1024;
/// A block takes a group of whole instances of about this many positions in all (at least one).
constexpr std::uint32_t pttwac_group_positions = 4096;
/// One block per group: where an instance is larger than pttwac_small_instance_bytes,
/// choose_pttwac_path wants this many instances to spread over the GPU.
constexpr std::int64_t pttwac_min_batch = 128;
constexpr std::size_t pttwac_small_instance_bytes = 64 * 1024;

/// Bytes between consecutive rows of an instance in the on-chip path's shared memory, for rows
/// of `row_bytes` bytes moved in words of `word_bytes` (1, 2, 4, 8 or 16): row_bytes itself for
/// rows of at most 4 bytes (a warp's transposed reads then span at most 128 bytes), else the
/// least odd multiple of max(word_bytes, 4) not below row_bytes, so that a warp reading one word
/// from each of consecutive rows meets every bank once.
std::size_t tiled_on_chip_pitch(std::size_t row_bytes, std::size_t word_bytes);

/// Shared bytes one instance of `s` takes in the on-chip path: rows x the largest pitch any
/// word size the super-element allows gives (the choice does not depend on the pointer).
std::size_t tiled_on_chip_instance_bytes(const stage& s);

/// The path `automatic` takes for `s`: on_chip where an instance fits tiled_on_chip_max_bytes;
/// else chains where they apply on super-elements of chain_fast_super_bytes or more; else the
/// cheaper by tiled_path_passes of through_scratch (where an instance fits
/// tiled_scratch_max_bytes) and pttwac (where choose_pttwac_path takes it); else chains where
/// they apply; else cycle_following.
tiled_path choose_tiled_path(const stage& s);

/// Whether the pttwac path can take `s`: one instance's flags fit pttwac_flag_max_bytes.
bool tiled_pttwac_fits(const stage& s);

/// The path of PTTWAC for `s`: pttwac (flags in shared memory, one block per group of instances)
/// where it fits and either the batch has pttwac_min_batch instances or they are small enough for
/// one block each; else cycle_following (flags in global memory, any number of blocks per
/// instance).
tiled_path choose_pttwac_path(const stage& s);

/// Predicted passes over memory of `s` on `path` (automatic: choose_tiled_path's): the inverse of
/// the path's speed relative to a copy of the same bytes (H200, xpose_inplace_stages; pttwac's a
/// guess from its memory pattern).
double tiled_path_passes(const stage& s, tiled_path path);
/// The same on the automatic path.
double tiled_stage_passes(const stage& s);

/// Positions per chain of the chains path for `s`: cut cycles give chains of this length, cycles
/// up to it are closed chains. Long enough that the heads' scratch stays within
/// chain_heads_max_bytes, short enough for about 64Ki groups of work.
std::uint32_t tiled_chain_length(const stage& s);

/// Device bytes of the table prepare_tiled_table makes for `s` on `path` (automatic:
/// choose_tiled_path's): a bound on the chains' entries, 0 for the other paths.
std::size_t tiled_table_bytes(const stage& s, tiled_path path = tiled_path::automatic);
/// Device bytes of scratch a launch of `s` on `path` overwrites: cycle following's states (per
/// instance and column chunk of the super-element (tiled_cycle_chunks), 2 bits per super-element
/// in 32-bit words, for as many as one wave of tiled_cycle_wave_state_bytes holds, at least
/// one), through_scratch's group of instances, the heads of the chains' cut cycles; 0 on chip, for
/// pttwac (its flags are in shared memory) and for stages that move nothing (rows or cols 1,
/// batch 0).
std::size_t tiled_scratch_bytes(const stage& s, tiled_path path = tiled_path::automatic);

/// Makes the table of `s` on `path` and copies it to `table` (device memory of
/// tiled_table_bytes(s, path) bytes) synchronously: at plan time, once. Nothing for paths
/// without a table.
void prepare_tiled_table(const stage& s, tiled_path path, void* table);

/// Enqueues stage `s` on the matrix at `data` (device pointer) on `path`, with its prepared
/// `table` and `scratch` of tiled_scratch_bytes(s, path) bytes (device memory; the launcher
/// clears what it needs on `stream`), without synchronizing. Throws
/// xpose::error(internal_error) for a stage that is not a valid tiled_transpose (super_bytes 0,
/// negative sizes), a path that cannot take it, or a missing table or scratch, before touching
/// the device.
void launch_tiled_transpose_parts(void* data, const stage& s, const void* table, void* scratch,
                                  cudaStream_t stream, tiled_path path = tiled_path::automatic);

/// One workspace with both parts, for callers of a single stage (tests, the stage timer): the
/// table (its size rounded up to 256 bytes), then the scratch.
std::size_t tiled_transpose_workspace(const stage& s);
/// The same for a given path (automatic: choose_tiled_path's).
std::size_t tiled_transpose_workspace_for_path(const stage& s, tiled_path path);
/// prepare_tiled_table into the table part of such a workspace.
void prepare_tiled_workspace(const stage& s, tiled_path path, void* workspace);

/// Column chunks cycle following cuts each super-element of `s` into: a chunk is moved by one
/// group of lanes holding it in registers, and each chunk column is an independent instance of
/// the same permutation with its own states. 1 for super-elements of up to 256 words.
std::int64_t tiled_cycle_chunks(const stage& s);

/// launch_tiled_transpose_parts with a workspace of tiled_transpose_workspace(s) bytes prepared by
/// prepare_tiled_workspace.
void launch_tiled_transpose(void* data, const stage& s, void* workspace, cudaStream_t stream);
/// The same on a given path (tests), with tiled_transpose_workspace_for_path(s, path) bytes
/// prepared for that path.
void launch_tiled_transpose_path(void* data, const stage& s, void* workspace, cudaStream_t stream,
                                 tiled_path path);

}  // namespace xpose::detail::cuda
