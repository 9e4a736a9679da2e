// copy_full_width: out-of-place transposition of tall, narrow matrices of 1-, 2-, 4- and 8-byte
// elements whose tile covers every column (see copy/full_width_kernel.cuh), with the
// row blocks full_width_row_blocks_for picks.
#include <string>

#include "cuda/copy/full_width_kernel.cuh"
#include "cuda/copy/launchers.hpp"

namespace xpose::detail::cuda {

namespace {

constexpr int full_width_threads = 256;

/// The tile's row blocks for `cols` columns (0: none fit): the most that load in one step of
/// the block's threads, if that is 16 or more (the halo then costs at most 1/9 of the loads);
/// else the most within 32 KiB of shared memory, if 10 or more; else the most within 48 KiB.
/// H100: 2-byte 2033601 x 33 0.95 x copy in one step vs 0.86 in two steps at 32 KiB.
template <int E>
int full_width_row_blocks_for(int cols) {
  using tile_t = full_width_tile<E, full_width_threads>;
  const int step = E == 8 ? 4 : 2;
  int one_step = 0;
  for (int b = 2; b <= full_width_most_row_blocks; b += step)
    if ((b + 2) * tile_t::P / tile_t::G * tile_t::chunks(cols) <= full_width_threads &&
        tile_t::shared_bytes(cols, b) <= 48 * 1024)
      one_step = b;
  if (one_step >= 16) return one_step;
  const int within_32k =
      full_width_row_blocks<E, full_width_threads>(cols, 32 * 1024, full_width_most_row_blocks);
  if (within_32k >= 10) return within_32k;
  return full_width_row_blocks<E, full_width_threads>(cols, 48 * 1024, full_width_most_row_blocks);
}

}  // namespace

bool full_width_fits(std::int64_t cols, int word_bytes) {
  if (cols * word_bytes < full_width_least_row_bytes ||
      cols * word_bytes > full_width_most_row_bytes)
    return false;
  return with_word(word_bytes, "copy_full_width", [&](auto e) {
    constexpr int E = decltype(e)::value;
    if constexpr (E == 16)
      return false;
    else
      return full_width_row_blocks_for<E>(static_cast<int>(cols)) != 0;
  });
}

void launch_copy_full_width(const copy_args& a, int word_bytes, cudaStream_t stream) {
  if (!full_width_fits(a.cols, word_bytes))
    throw error(status::internal_error, "copy_full_width: " + std::to_string(a.cols) +
                                            " columns of " + std::to_string(word_bytes) +
                                            "-byte words do not fit one tile");
  with_word(word_bytes, "copy_full_width", [&](auto e) {
    constexpr int E = decltype(e)::value;
    if constexpr (E != 16)
      launch_full_width_with<E, full_width_threads>(
          a, full_width_row_blocks_for<E>(static_cast<int>(a.cols)), stream);
  });
}

}  // namespace xpose::detail::cuda
