// One-call helpers over plan_inplace / plan_copy, and typed template wrappers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xpose/plan.hpp"

namespace xpose {

/// Transposes the dense row-major rows x cols matrix at `data` in place (it becomes cols x rows).
void transpose_inplace(void* data, std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                       const plan_options& options = {});
/// Writes the transpose of the dense row-major rows x cols matrix `src` to `dst` (cols x rows).
void transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
               std::size_t elem_size, const plan_options& options = {});

template <typename T>
void transpose_inplace(T* data, std::int64_t rows, std::int64_t cols,
                       const plan_options& options = {}) {
  transpose_inplace(static_cast<void*>(data), rows, cols, sizeof(T), options);
}

template <typename T>
void transpose(const T* src, T* dst, std::int64_t rows, std::int64_t cols,
               const plan_options& options = {}) {
  transpose(static_cast<const void*>(src), static_cast<void*>(dst), rows, cols, sizeof(T), options);
}

}  // namespace xpose
