// build_chain_table (chain_table.hpp).
#include "cuda/inplace/chain_table.hpp"

#include "plan/permutation.hpp"

namespace xpose::detail::cuda {

chain_table build_chain_table(std::uint32_t rows, std::uint32_t cols, std::uint32_t chain_length) {
  const std::uint64_t size = std::uint64_t{rows} * cols;
  std::vector<std::uint8_t> flags(flag_bytes(static_cast<std::int64_t>(size)), 0);
  std::vector<chain_entry> closed;
  chain_table table;
  std::vector<std::uint32_t> heads;
  for (std::uint64_t leader = 0; leader < size; ++leader) {
    if (flag_is_set(flags.data(), static_cast<std::int64_t>(leader))) continue;
    heads.clear();
    std::uint64_t length = 0;
    std::uint64_t k = leader;
    do {
      set_flag(flags.data(), static_cast<std::int64_t>(k));
      if (length % chain_length == 0) heads.push_back(static_cast<std::uint32_t>(k));
      ++length;
      const std::uint64_t a = k / rows;
      k = (k - a * rows) * cols + a;  // the gather order's source, as in chains_kernel.cuh
    } while (k != leader);
    if (length <= chain_short_limit) continue;
    if (length <= chain_length) {
      closed.push_back(
          {static_cast<std::uint32_t>(leader), static_cast<std::uint32_t>(length), -1, 0});
      continue;
    }
    const auto first = static_cast<std::int32_t>(table.entries.size());
    const auto count = static_cast<std::int32_t>(heads.size());
    for (std::int32_t i = 0; i < count; ++i) {
      const std::uint64_t done = std::uint64_t{chain_length} * static_cast<std::uint64_t>(i);
      const std::uint64_t steps = length - done < chain_length ? length - done : chain_length;
      table.entries.push_back({heads[static_cast<std::size_t>(i)],
                               static_cast<std::uint32_t>(steps), first + (i + 1) % count, 0});
    }
  }
  table.split_chains = static_cast<std::uint32_t>(table.entries.size());
  table.entries.insert(table.entries.end(), closed.begin(), closed.end());
  return table;
}

std::size_t chain_entries_bound(std::uint64_t size, std::uint32_t chain_length) {
  return static_cast<std::size_t>(size / chain_short_limit + size / chain_length + 1);
}

std::size_t chain_slots_bound(std::uint64_t size, std::uint32_t chain_length) {
  return static_cast<std::size_t>(2 * size / chain_length + 1);
}

}  // namespace xpose::detail::cuda
