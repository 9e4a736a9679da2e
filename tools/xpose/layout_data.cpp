#include "layout_data.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace xpose_cli {

void arrange_on_host(const std::byte* aos, std::byte* out, std::int64_t n, std::int64_t S,
                     std::size_t e, xpose::layout l, int threads) {
  const auto bytes = static_cast<std::int64_t>(e);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t f = 0; f < S; ++f)
      std::memcpy(out + xpose::layout_index(l.kind, l.tile, n, S, i, f) * bytes,
                  aos + (i * S + f) * bytes, e);
}

std::string wrong_field_message(std::int64_t field_index, std::int64_t S, xpose::layout l) {
  return "wrong field " + std::to_string(field_index % S) + " of structure " +
         std::to_string(field_index / S) + " of the " + xpose::to_string(l) + " result";
}

std::string compare_on_host(const std::byte* result, const std::byte* aos, std::int64_t n,
                            std::int64_t S, std::size_t e, xpose::layout l, int threads) {
  const auto bytes = static_cast<std::int64_t>(e);
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t f = 0; f < S; ++f)
      if (std::memcmp(result + xpose::layout_index(l.kind, l.tile, n, S, i, f) * bytes,
                      aos + (i * S + f) * bytes, e) != 0) {
        first = std::min(first, i * S + f);
        break;
      }
  return first == std::numeric_limits<std::int64_t>::max() ? std::string()
                                                           : wrong_field_message(first, S, l);
}

}  // namespace xpose_cli
