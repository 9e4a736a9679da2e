#pragma once

namespace xpose {
inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;
inline constexpr int version_patch = 0;
bool built_with_cuda() noexcept;
}  // namespace xpose
