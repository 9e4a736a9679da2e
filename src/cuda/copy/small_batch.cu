// copy_small_batch's host side: which batches it takes, how it groups their matrices, and its
// launcher, which runs the kernel of copy/small_batch_kernel.cuh for the element size and the
// read its source's alignment allows (native where the source is aligned to 1-, 2-, 4-, 8- or
// 16-byte elements, words4 for 12-byte elements on 4 bytes, funnel otherwise) on as many blocks
// as fit on the device at once, at most one per group. One row or one column is a plain copy.
#include "cuda/copy/small_batch.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/backend/occupancy.hpp"
#include "cuda/copy/small_batch_kernel.cuh"
#include "cuda/tuning/small_batch.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

constexpr int gcd_int(int a, int b) {
  while (b != 0) {
    const int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

constexpr bool power_of_two(std::size_t e) {
  return (e & (e - 1)) == 0;
}

/// f(integral_constant<int, E>) for elem_bytes = E, 1 to 16.
template <class F>
void with_small_batch_size(std::size_t elem_bytes, F&& f) {
  switch (elem_bytes) {
#define XPOSE_SMALL_BATCH_CASE(n) \
  case n:                         \
    return f(std::integral_constant<int, n>{});
    XPOSE_SMALL_BATCH_CASE(1)
    XPOSE_SMALL_BATCH_CASE(2)
    XPOSE_SMALL_BATCH_CASE(3)
    XPOSE_SMALL_BATCH_CASE(4)
    XPOSE_SMALL_BATCH_CASE(5)
    XPOSE_SMALL_BATCH_CASE(6)
    XPOSE_SMALL_BATCH_CASE(7)
    XPOSE_SMALL_BATCH_CASE(8)
    XPOSE_SMALL_BATCH_CASE(9)
    XPOSE_SMALL_BATCH_CASE(10)
    XPOSE_SMALL_BATCH_CASE(11)
    XPOSE_SMALL_BATCH_CASE(12)
    XPOSE_SMALL_BATCH_CASE(13)
    XPOSE_SMALL_BATCH_CASE(14)
    XPOSE_SMALL_BATCH_CASE(15)
    XPOSE_SMALL_BATCH_CASE(16)
#undef XPOSE_SMALL_BATCH_CASE
    default:
      throw error(status::internal_error, "copy_small_batch: element size " +
                                              std::to_string(elem_bytes) + " is not 1 to 16");
  }
}

template <int E>
using small_batch_policy_for =
    std::conditional_t<small_batch_element<E>::direct, small_batch_direct_policy,
                       small_batch_staged_policy>;

/// The read copy_small_batch_kernel takes for a source at `src`.
template <int E>
small_batch_read read_for(const void* src) {
  const auto at = reinterpret_cast<std::uintptr_t>(src);
  if constexpr (small_batch_element<E>::direct)
    return at % E == 0 ? small_batch_read::native : small_batch_read::funnel;
  if constexpr (E == 12) return at % 4 == 0 ? small_batch_read::words4 : small_batch_read::funnel;
  return small_batch_read::funnel;
}

/// f(kernel) for E-byte elements read as read_for gives.
template <int E, class F>
decltype(auto) with_kernel(const void* src, F&& f) {
  using policy = small_batch_policy_for<E>;
  switch (read_for<E>(src)) {
    case small_batch_read::native:
      if constexpr (small_batch_element<E>::direct)
        return f(copy_small_batch_kernel<E, small_batch_read::native, policy>);
      break;
    case small_batch_read::words4:
      if constexpr (E == 12) return f(copy_small_batch_kernel<E, small_batch_read::words4, policy>);
      break;
    case small_batch_read::funnel:
      if constexpr (E > 1) return f(copy_small_batch_kernel<E, small_batch_read::funnel, policy>);
      break;
  }
  throw error(status::internal_error, "copy_small_batch: no kernel for element size " +
                                          std::to_string(E) + " and this alignment");
}

constexpr const char* launch_name = "copy_small_batch_kernel launch";

/// The layout `kernel` (for E-byte elements) runs `a` in on the current device, and the blocks
/// that fit on it at once in the policy's layout (more than in the balanced one).
struct launch_plan {
  small_batch_layout layout;
  std::int64_t resident = 0;
};
template <int E, class Kernel>
launch_plan plan_launch(const copy_args& a, Kernel kernel) {
  const small_batch_layout widest = small_batch_layout_for(a, E);
  allow_dynamic_shared(kernel, widest.shared_bytes, launch_name);
  const std::int64_t resident =
      resident_blocks(kernel, small_batch_policy_for<E>::threads, widest.shared_bytes, launch_name);
  return {small_batch_layout_for(a, E, resident), resident};
}

template <int E, class Kernel>
void launch_with(const copy_args& a, Kernel kernel, cudaStream_t stream) {
  const launch_plan plan = plan_launch<E>(a, kernel);
  const small_batch_layout& layout = plan.layout;
  small_batch_params p;
  p.src = static_cast<const unsigned char*>(a.src);
  p.dst = static_cast<unsigned char*>(a.dst);
  p.batch = a.batch;
  p.groups = layout.groups;
  p.group = static_cast<int>(layout.group);
  p.rows = static_cast<int>(a.rows);
  p.cols = static_cast<int>(a.cols);
  p.row_bytes = p.cols * E;
  p.matrix_elements = p.rows * p.cols;
  p.matrix_bytes = p.matrix_elements * E;
  p.rows_reciprocal = small_batch_reciprocal(static_cast<unsigned>(p.rows));
  p.matrix_reciprocal = small_batch_reciprocal(static_cast<unsigned>(p.matrix_elements));
  p.buffer_bytes = layout.buffer_bytes;
  p.buffers = layout.buffers;
  p.piece_units = layout.piece_units;
  kernel<<<grid_for(layout.groups < plan.resident ? layout.groups : plan.resident),
           small_batch_policy_for<E>::threads, layout.shared_bytes, stream>>>(p);
  check_launch(launch_name);
}

}  // namespace

bool small_batch_takes(const copy_args& a, std::size_t elem_bytes) {
  return elem_bytes >= 1 && elem_bytes <= small_batch_most_element_bytes && a.batch >= 2 &&
         a.rows >= 1 && a.rows <= small_batch_most_side && a.cols >= 1 &&
         a.cols <= small_batch_most_side && a.lda == a.cols && a.ldb == a.rows &&
         a.src_stride == a.rows * a.cols && a.dst_stride == a.rows * a.cols;
}

small_batch_layout small_batch_layout_for(const copy_args& a, std::size_t elem_bytes,
                                          std::int64_t resident) {
  small_batch_layout l;
  if (a.rows == 1 || a.cols == 1) {
    l.copy = true;
    return l;
  }
  const int e = static_cast<int>(elem_bytes);
  const bool direct = power_of_two(elem_bytes);
  const int target =
      direct ? small_batch_direct_policy::group_bytes : small_batch_staged_policy::group_bytes;
  const int least = direct ? small_batch_direct_policy::least_group_bytes
                           : small_batch_staged_policy::least_group_bytes;
  const int matrix = static_cast<int>(a.rows * a.cols) * e;
  // Groups of a whole number of 16-byte chunks, so that every group's runs start as the first
  // one's, where such groups stay within twice the policy's bytes.
  const int per_chunk = 16 / gcd_int(matrix, 16);
  const int fit = target / matrix;
  std::int64_t group = fit / per_chunk * per_chunk;
  bool whole_chunks = true;
  if (group == 0) {
    whole_chunks = per_chunk * matrix <= 2 * target;
    group = whole_chunks ? per_chunk : (fit > 0 ? fit : 1);
  }
  if (resident > 0) {
    // As many rounds of the resident blocks as the policy's groups take, each group as small as
    // that allows: the last round is full.
    const std::int64_t rounds = ((a.batch + group - 1) / group + resident - 1) / resident;
    std::int64_t even = (a.batch + resident * rounds - 1) / (resident * rounds);
    const std::int64_t fewest = (least + matrix - 1) / matrix;
    if (even < fewest) even = fewest;
    if (whole_chunks) even = (even + per_chunk - 1) / per_chunk * per_chunk;
    if (even < group) group = even;
  }
  if (group > a.batch) group = a.batch;
  l.group = group;
  l.groups = (a.batch + group - 1) / group;
  l.group_bytes = static_cast<int>(group) * matrix;
  // Room for the run's offset in its first chunk and for word reads past its end, in whole
  // 128-byte lines (the swizzle moves chunks within a line).
  l.buffer_bytes = (15 + l.group_bytes + 16 + 127) / 128 * 128;
  int double_most = small_batch_direct_policy::double_buffer_most;
  if (!direct) {
    const int unit = 4 / gcd_int(e, 4), unit_bytes = unit * e;
    const int per_piece = 16 / gcd_int(unit_bytes, 16);  // units in a whole number of chunks
    const int units =
        (static_cast<int>(group) * static_cast<int>(a.rows * a.cols) + unit - 1) / unit;
    int piece = small_batch_staged_policy::staging_bytes / (unit_bytes * per_piece) * per_piece;
    if (piece < per_piece) piece = per_piece;
    l.piece_units = units < piece ? units : piece;
    l.image_bytes = (l.piece_units * unit_bytes + 32 + 15) / 16 * 16;
    double_most = small_batch_staged_policy::double_buffer_most;
  }
  l.buffers = 2 * l.buffer_bytes + l.image_bytes <= double_most ? 2 : 1;
  l.shared_bytes = l.buffers * l.buffer_bytes + l.image_bytes;
  return l;
}

small_batch_layout small_batch_launch_layout(const copy_args& a, std::size_t elem_bytes) {
  if (!small_batch_takes(a, elem_bytes) || a.rows == 1 || a.cols == 1)
    return small_batch_layout_for(a, elem_bytes);
  small_batch_layout layout;
  with_small_batch_size(elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    with_kernel<E>(a.src, [&](auto kernel) { layout = plan_launch<E>(a, kernel).layout; });
  });
  return layout;
}

void launch_copy_small_batch(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream) {
  if (!small_batch_takes(a, elem_bytes))
    throw error(status::internal_error,
                "copy_small_batch: takes dense batches of two or more matrices of 1 to 64 rows "
                "and columns and elements of 1 to 16 bytes, not " +
                    std::to_string(a.batch) + " x " + std::to_string(a.rows) + " x " +
                    std::to_string(a.cols) + " of " + std::to_string(elem_bytes) + " bytes");
  if (a.rows == 1 || a.cols == 1) {
    // One row or one column: the transpose has the same bytes.
    check_cuda(cudaMemcpyAsync(a.dst, a.src,
                               static_cast<std::size_t>(a.batch * a.rows * a.cols) * elem_bytes,
                               cudaMemcpyDefault, stream),
               "copy_small_batch: cudaMemcpyAsync");
    return;
  }
  with_small_batch_size(elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    with_kernel<E>(a.src, [&](auto kernel) { launch_with<E>(a, kernel, stream); });
  });
}

}  // namespace xpose::detail::cuda
