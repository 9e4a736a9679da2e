// Wisdom (xpose/plan.hpp): the routes measured plans chose, kept per process, keyed by the device
// and the matrix.
#pragma once

#include <optional>
#include <string>

#include "plan/plan_data.hpp"

namespace xpose::detail {

/// The key of a validated, normalized in-place plan: target, device (the GPU's name, or the CPU
/// thread count), shape, element size, order, leading dimension and batch.
std::string wisdom_key(const plan_data& p);
std::optional<route> wisdom_route(const std::string& key);
/// Whether any wisdom is held (plans skip making their key otherwise).
bool have_wisdom();
void record_wisdom(const std::string& key, route r);

}  // namespace xpose::detail
