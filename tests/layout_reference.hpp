// Naive reference of the data layouts for the layout tests (CPU and GPU): where each field of
// each structure lives, written out apart from the library's layout_index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "xpose/layout.hpp"

namespace xpose::test {

/// Element index of field f of structure i in layout l (n structures of S fields).
inline std::int64_t reference_index(layout l, std::int64_t n, std::int64_t S, std::int64_t i,
                                    std::int64_t f) {
  switch (l.kind) {
    case layout_kind::aos:
      return i * S + f;
    case layout_kind::soa:
      return f * n + i;
    case layout_kind::asta: {
      const std::int64_t T = l.tile, tiles = n / T;
      const std::int64_t tile = i / T, lane = i % T;
      if (tile < tiles) return tile * S * T + f * T + lane;
      const std::int64_t r = n - tiles * T;  // the partial tile, a mini SoA
      return tiles * S * T + f * r + lane;
    }
  }
  return -1;
}

/// The bytes of `aos` (n structures of S fields of e bytes, in AoS) laid out in `l`.
inline std::vector<unsigned char> arrange(const std::vector<unsigned char>& aos, layout l,
                                          std::int64_t n, std::int64_t S, std::size_t e) {
  std::vector<unsigned char> out(aos.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t f = 0; f < S; ++f)
      std::memcpy(out.data() + reference_index(l, n, S, i, f) * e, aos.data() + (i * S + f) * e, e);
  return out;
}

inline std::string describe_case(layout from, layout to, std::int64_t n, std::int64_t S,
                                 std::size_t e) {
  return to_string(from) + " -> " + to_string(to) + ", n " + std::to_string(n) + ", S " +
         std::to_string(S) + ", e " + std::to_string(e);
}

/// Layouts every pair of which the small sweeps convert between.
inline const std::vector<layout>& all_test_layouts() {
  static const std::vector<layout> layouts = {layout::aos(),    layout::soa(),     layout::asta(1),
                                              layout::asta(4),  layout::asta(7),   layout::asta(16),
                                              layout::asta(32), layout::asta(1000)};
  return layouts;
}

/// The conversions the size sweeps run, each with its inverse.
inline const std::vector<std::pair<layout, layout>>& sweep_test_pairs() {
  static const std::vector<std::pair<layout, layout>> pairs = {
      {layout::aos(), layout::asta(32)},   {layout::soa(), layout::asta(32)},
      {layout::aos(), layout::soa()},      {layout::asta(16), layout::asta(32)},
      {layout::asta(8), layout::asta(12)}, {layout::asta(64), layout::asta(16)}};
  return pairs;
}

}  // namespace xpose::test
