// The table of the chains path (chains_kernel.cuh): the long cycles of the transposition of a
// rows x cols instance, cut into chains, made on the host at plan time and uploaded once into the
// plan's workspace. Host code; the entry layout is shared with the kernels.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// Cycles of at most this many positions are found on the device, not listed in the table.
constexpr std::uint32_t chain_short_limit = 64;

/// Entries of the cycles of more than chain_short_limit positions: the chains of cycles longer
/// than chain_length first (cut into chains of chain_length positions, the last shorter; chain i's
/// scratch slot is i), then one closed chain per cycle of at most chain_length positions.
struct chain_table {
  std::vector<chain_entry> entries;
  std::uint32_t split_chains = 0;
};

/// Walks every cycle of the transposition of a rows x cols instance (rows * cols < 2^32) once,
/// with a bit per position: O(rows * cols) time, rows * cols / 8 bytes of flags.
chain_table build_chain_table(std::uint32_t rows, std::uint32_t cols, std::uint32_t chain_length);

/// At most how many entries build_chain_table gives: a cycle of L > chain_short_limit positions
/// gives ceil(L / chain_length) <= 1 + L / chain_length entries, and there are fewer than
/// size / chain_short_limit such cycles.
std::size_t chain_entries_bound(std::uint64_t size, std::uint32_t chain_length);
/// At most how many of them are chains of cut cycles (with a scratch slot): ceil(L / length) <=
/// 2 L / length for L > length.
std::size_t chain_slots_bound(std::uint64_t size, std::uint32_t chain_length);

}  // namespace xpose::detail::cuda
