// Matrix descriptions: dimensions, element size, storage order, leading dimension, batch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpose {

enum class storage_order { row_major, col_major };

/// A batch of dense or strided matrices of `rows` x `cols` elements of `elem_size` bytes.
/// The element type is a size, not a C++ type: any size from 1 to max_elem_size bytes works.
struct matrix_desc {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::size_t elem_size = 0;
  storage_order order = storage_order::row_major;
  /// Elements between the starts of consecutive rows (row-major) or columns (column-major);
  /// 0 means dense (cols for row-major, rows for column-major).
  std::int64_t ld = 0;
  std::int64_t batch = 1;
  /// Elements between the starts of consecutive matrices of the batch; 0 means dense.
  std::int64_t batch_stride = 0;
};

/// Largest element size in bytes accepted by the planner.
inline constexpr std::size_t max_elem_size = 1024;

}  // namespace xpose
