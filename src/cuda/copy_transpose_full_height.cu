// copy_full_height: out-of-place transposition of short, wide matrices of 1-, 2-, 4- and 8-byte
// elements whose tile covers every row (see copy_transpose_full_height_kernel.cuh), with the
// tile width of the matrix's height (full_height_tile_width).
#include <string>

#include "cuda/copy_transpose_full_height_kernel.cuh"
#include "cuda/copy_transpose_launch.hpp"

namespace xpose::detail::cuda {

namespace {

template <int E>
void launch_for(const copy_args& a, int tile_width, cudaStream_t stream) {
  switch (tile_width) {
    case 512:
      return launch_full_height_with<E, full_height_policy<512, 256>>(a, stream);
    case 256:
      return launch_full_height_with<E, full_height_policy<256, 256>>(a, stream);
    case 128:
      return launch_full_height_with<E, full_height_policy<128, 256>>(a, stream);
    default:
      return launch_full_height_with<E, full_height_policy<64, 256>>(a, stream);
  }
}

}  // namespace

int full_height_tile_width(std::int64_t rows) {
  const std::int64_t padded = (rows + 7) / 8 * 8;
  for (int width = 512; width >= 64; width /= 2)
    if (width * padded <= full_height_tile_budget) return width;
  return 0;
}

bool full_height_fits(std::int64_t rows, int word_bytes) {
  return rows * word_bytes >= 16 && full_height_tile_width(rows) != 0;
}

void launch_copy_full_height(const copy_args& a, int word_bytes, cudaStream_t stream) {
  if (!full_height_fits(a.rows, word_bytes))
    throw error(status::internal_error, "copy_full_height: " + std::to_string(a.rows) +
                                            " rows of " + std::to_string(word_bytes) +
                                            "-byte words do not fit one tile");
  const int width = full_height_tile_width(a.rows);
  switch (word_bytes) {
    case 1:
      return launch_for<1>(a, width, stream);
    case 2:
      return launch_for<2>(a, width, stream);
    case 4:
      return launch_for<4>(a, width, stream);
    case 8:
      return launch_for<8>(a, width, stream);
    default:
      throw error(status::internal_error, "copy_full_height: word size " +
                                              std::to_string(word_bytes) + " is not 1, 2, 4 or 8");
  }
}

}  // namespace xpose::detail::cuda
