// Names of statuses, routes and devices (used by describe(), the CLI and the C API).
#include <array>
#include <utility>

#include "xpose/error.hpp"
#include "xpose/route.hpp"
#include "xpose/version.hpp"

namespace xpose {

namespace {
constexpr std::array<std::pair<route, std::string_view>, 17> route_names{{
    {route::automatic, "automatic"},
    {route::identity, "identity"},
    {route::cycle_following, "cycle_following"},
    {route::four_stage, "four_stage"},
    {route::three_stage, "three_stage"},
    {route::row_column, "row_column"},
    {route::skinny_chunks, "skinny_chunks"},
    {route::square_tile_swap, "square_tile_swap"},
    {route::square_naive, "square_naive"},
    {route::square_prefetch, "square_prefetch"},
    {route::square_recursive, "square_recursive"},
    {route::copy_blocked, "copy_blocked"},
    {route::copy_naive, "copy_naive"},
    {route::copy_shared_tiles, "copy_shared_tiles"},
    {route::copy_padded_tiles, "copy_padded_tiles"},
    {route::copy_multi_element, "copy_multi_element"},
    {route::copy_tuned, "copy_tuned"},
}};
}  // namespace

const char* to_string(status s) noexcept {
  switch (s) {
    case status::success:
      return "success";
    case status::invalid_argument:
      return "invalid argument";
    case status::unsupported:
      return "unsupported";
    case status::out_of_memory:
      return "out of memory";
    case status::device_error:
      return "device error";
    case status::internal_error:
      return "internal error";
  }
  return "unknown status";
}

std::string_view to_string(route r) noexcept {
  for (const auto& [value, name] : route_names)
    if (value == r) return name;
  return "unknown";
}

std::optional<route> route_from_string(std::string_view name) noexcept {
  for (const auto& [value, known] : route_names)
    if (known == name) return value;
  return std::nullopt;
}

std::string_view to_string(device d) noexcept {
  return d == device::cpu ? "cpu" : "cuda";
}

bool built_with_cuda() noexcept {
#ifdef XPOSE_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace xpose
