// Reference in-place transposition by cycle following (PPoPP'14 sec. 3, eq. 1): every cycle of
// the index permutation is walked once in gather order, data[k] = data[source(k)], starting at
// its smallest index; one bit flag per element marks the elements already moved. Sequential and
// deliberately simple: the other routes are tested against it.
#include <cstring>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "plan/permutation.hpp"

namespace xpose::detail::cpu {

void cycle_following_reference(std::byte* data, std::int64_t rows, std::int64_t cols,
                               std::size_t elem_size, std::byte* flags) {
  const transpose_permutation perm(rows, cols);
  auto* bits = reinterpret_cast<std::uint8_t*>(flags);
  std::memset(bits, 0, flag_bytes(perm.size()));
  std::vector<std::byte> saved(elem_size);
  auto element = [&](std::int64_t k) { return data + static_cast<std::size_t>(k) * elem_size; };
  for (std::int64_t leader = 0; leader < perm.size(); ++leader) {
    if (flag_is_set(bits, leader)) continue;
    std::memcpy(saved.data(), element(leader), elem_size);
    std::int64_t k = leader;
    for (;;) {
      set_flag(bits, k);
      const std::int64_t from = perm.source(k);
      if (from == leader) break;
      std::memcpy(element(k), element(from), elem_size);
      k = from;
    }
    std::memcpy(element(k), saved.data(), elem_size);
  }
}

}  // namespace xpose::detail::cpu
