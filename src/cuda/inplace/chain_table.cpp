// build_chain_table (chain_table.hpp).
#include "cuda/inplace/chain_table.hpp"

#include <mutex>
#include <tuple>

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
    if (length == 1) continue;
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

std::shared_ptr<const chain_table> shared_chain_table(std::uint32_t rows, std::uint32_t cols,
                                                      std::uint32_t chain_length) {
  using key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
  static std::mutex lock;
  static std::vector<std::pair<key, std::shared_ptr<const chain_table>>> kept;
  constexpr std::size_t kept_tables = 8;
  const key wanted{rows, cols, chain_length};
  {
    const std::lock_guard<std::mutex> guard(lock);
    for (const auto& [k, table] : kept)
      if (k == wanted) return table;
  }
  auto made = std::make_shared<const chain_table>(build_chain_table(rows, cols, chain_length));
  const std::lock_guard<std::mutex> guard(lock);
  if (kept.size() == kept_tables) kept.erase(kept.begin());
  kept.emplace_back(wanted, made);
  return made;
}

}  // namespace xpose::detail::cuda
