// The table of the chains path (chains_kernel.cuh): the cycles of the transposition of a rows x
// cols instance, long ones cut into chains, made on the host at plan time and uploaded once into
// the plan's workspace. Host code; the entry layout is shared with the kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace xpose::detail::cuda {

/// One chain: positions head, src(head), ... (length of them, src of eq. 1's gather order); its
/// last position receives the super-element in scratch slot next_slot, or, for a closed chain
/// (next_slot < 0, a whole cycle), the original of head.
struct chain_entry {
  std::uint32_t head = 0;
  std::uint32_t length = 0;
  std::int32_t next_slot = -1;
  std::uint32_t unused = 0;
};

/// Entries of every cycle of two positions or more: the chains of cycles longer than
/// chain_length first (cut into chains of chain_length positions, the last shorter; chain i's
/// scratch slot is i), then one closed chain per cycle of at most chain_length positions.
struct chain_table {
  std::vector<chain_entry> entries;
  std::uint32_t split_chains = 0;
};

/// Walks every cycle of the transposition of a rows x cols instance (rows * cols < 2^32) once,
/// with a bit per position: O(rows * cols) time, rows * cols / 8 bytes of flags.
chain_table build_chain_table(std::uint32_t rows, std::uint32_t cols, std::uint32_t chain_length);

/// build_chain_table's result, shared: the last few tables made are kept (a plan asks for its
/// tables' sizes while the planner weighs routes, then for the tables themselves).
std::shared_ptr<const chain_table> shared_chain_table(std::uint32_t rows, std::uint32_t cols,
                                                      std::uint32_t chain_length);

}  // namespace xpose::detail::cuda
