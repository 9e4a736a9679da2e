// copy_skinny_narrow's host side and kernel: which shapes it takes, the layout of a launch
// (stretch length, word size, shared-memory pitch, packed-side threads) and the launcher, which
// runs the kernel of the word size on as many blocks as fit on the device at once.
#include "cuda/copy/skinny_narrow.hpp"

#include <cstdint>
#include <string>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/backend/occupancy.hpp"
#include "cuda/copy/skinny_narrow_kernel.cuh"
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

/// The widest power of two up to 16 that divides `elem_bytes` and both pointers.
int narrow_word_bytes(std::size_t elem_bytes, const void* src, const void* dst) {
  const std::uintptr_t bits =
      elem_bytes | reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst);
  int w = 16;
  while (w > 1 && (bits & static_cast<std::uintptr_t>(w - 1)) != 0) w /= 2;
  return w;
}

[[noreturn]] void refuse(const std::string& why) {
  throw error(status::internal_error, "copy_skinny_narrow: " + why);
}

/// Long-side indices per stretch: about `stretch_bytes` of the matrix, a multiple of 16 whose
/// strided runs make whole 32-byte sectors (every stretch of a matrix then has its runs at the
/// same misalignment, and a sector the memory sees whole from one block where the runs start on
/// 32 bytes), whose chunks take no more rounds of skinny_narrow_chunks_in_flight per thread than
/// `stretch_bytes` of aligned chunks would (the cut chunks at the runs' ends would otherwise add
/// a round of loads for a few threads to a stretch of just those bytes), at the misalignments of
/// the first matrix (`a`: the packed run's in words, run_misalignment[j]: run j's); the whole long
/// side where that is shorter.
std::int64_t stretch_length(const skinny_narrow_params& p, int word_bytes, int stretch_bytes, int a,
                            const int (&run_misalignment)[skinny_narrow_most_short_side]) {
  const int v = 16 / word_bytes, k = p.words, e = k * word_bytes, c = p.short_side;
  const std::int64_t unit = e % 2 == 0 ? 16 : 32;
  const std::int64_t round = std::int64_t{skinny_narrow_chunks_in_flight} * skinny_narrow_threads;
  const std::int64_t rounds = (stretch_bytes / 16 + round - 1) / round;
  const auto fits = [&](std::int64_t length) {
    const std::int64_t packed_chunks = (a + length * c * k + v - 1) / v;
    std::int64_t run_chunks = 0;
    for (int j = 0; j < c; ++j) run_chunks += (run_misalignment[j] + length * k + v - 1) / v;
    return packed_chunks <= rounds * skinny_narrow_chunks_in_flight * p.packed_threads &&
           run_chunks <= rounds * round;
  };
  std::int64_t length = stretch_bytes / (c * e) / unit * unit;
  while (length > unit && !fits(length)) length -= unit;
  if (length < 16) length = 16;
  return p.long_side <= length ? p.long_side : length;
}

/// Shared words between the strided runs: room for a run of `run_words` at any misalignment, a
/// whole number of chunks (V words), and of the eight such pitches that put the runs in
/// different banks the one whose packed words of warp 0 (the side moved word by word: lane t
/// takes words t * V - a .. t * V - a + V - 1 of the packed run, the later warps alike) take the
/// fewest shared-memory wavefronts (bank conflicts: distinct 4-byte words in one bank, counted per
/// half-warp for 8-byte words and per quarter-warp for 16-byte ones). `a`: the packed run's
/// misalignment in words; run_misalignment[j]: run j's.
/// Model: 12-byte words of 4 bytes, 16 columns: 3.3 wavefronts per access vs 5.3 at the worst
/// pitch.
int narrow_pitch(const skinny_narrow_params& p, int word_bytes, int a,
                 const int (&run_misalignment)[skinny_narrow_most_short_side]) {
  const int v = 16 / word_bytes, k = p.words, row = p.short_side * k, back = (v + row - 1) / row;
  const int least = (p.length * k + 2 * (v - 1)) / v * v;
  // Lane t's word u lands at its run's pitch times run_of[t][u], plus offset_of[t][u].
  int run_of[32][16], offset_of[32][16];
  for (int t = 0; t < 32; ++t)
    for (int u = 0; u < v; ++u) {
      const int q = t * v - a + u + back * row;
      const int i = q / row, in_row = q - i * row, j = in_row / k;
      run_of[t][u] = j;
      offset_of[t][u] = run_misalignment[j] + (i - back) * k + (in_row - j * k);
    }
  const int lanes_per_phase = word_bytes <= 4 ? 32 : 128 / word_bytes;
  const int banks_per_word = word_bytes <= 4 ? 1 : word_bytes / 4;
  int best = least, best_wavefronts = -1;
  for (int candidate = least; candidate < least + 8 * v; candidate += v) {
    int wavefronts = 0;
    for (int u = 0; u < v; ++u)
      for (int first = 0; first < 32; first += lanes_per_phase) {
        int words_in[32][32], count[32] = {};  // the distinct 4-byte words of each bank
        int most = 0;
        for (int t = first; t < first + lanes_per_phase; ++t) {
          const int at = (run_of[t][u] * candidate + offset_of[t][u]) * word_bytes / 4;
          for (int b = 0; b < banks_per_word; ++b) {
            const int word = at + b, bank = word & 31;
            bool seen = false;
            for (int s = 0; s < count[bank] && !seen; ++s) seen = words_in[bank][s] == word;
            if (!seen) words_in[bank][count[bank]++] = word;
            if (count[bank] > most) most = count[bank];
          }
        }
        wavefronts += most;
      }
    if (best_wavefronts < 0 || wavefronts < best_wavefronts) {
      best = candidate;
      best_wavefronts = wavefronts;
    }
  }
  return best;
}

/// narrow_pitch's answer, kept per host thread for the last arguments asked (a plan executed in a
/// loop asks the same each time; counting takes 2-12 us of host time).
int chosen_pitch(const skinny_narrow_params& p, int word_bytes, int a,
                 const int (&run_misalignment)[skinny_narrow_most_short_side]) {
  struct answer {
    int word_bytes = 0, words = 0, short_side = 0, length = 0, a = 0;
    int run_misalignment[skinny_narrow_most_short_side] = {};
    int pitch = 0;
  };
  thread_local answer last;
  bool same = last.pitch > 0 && last.word_bytes == word_bytes && last.words == p.words &&
              last.short_side == p.short_side && last.length == p.length && last.a == a;
  for (int j = 0; j < skinny_narrow_most_short_side && same; ++j)
    same = last.run_misalignment[j] == run_misalignment[j];
  if (!same) {
    last.word_bytes = word_bytes;
    last.words = p.words;
    last.short_side = p.short_side;
    last.length = p.length;
    last.a = a;
    for (int j = 0; j < skinny_narrow_most_short_side; ++j)
      last.run_misalignment[j] = run_misalignment[j];
    last.pitch = narrow_pitch(p, word_bytes, a, run_misalignment);
  }
  return last.pitch;
}

/// The kernel for words of W bytes: blocks of skinny_narrow_threads loop over the stretches,
/// each loading its next stretch's leading chunks into registers while it writes the current one.
/// Three blocks per SM (80 registers): left free the kernels take 72 (W = 16) to 127 (W = 1), and
/// at four (64) they spill.
template <int W>
__global__ void __launch_bounds__(skinny_narrow_threads, 3)
    copy_skinny_narrow_kernel(const skinny_narrow_params p) {
  using thread_part = skinny_narrow_thread<W>;
  extern __shared__ uint4 shared_chunks[];
  auto* shared = reinterpret_cast<typename thread_part::word*>(shared_chunks);
  thread_part me(p, static_cast<int>(threadIdx.x));
  if (blockIdx.x < p.total_stretches) me.fetch(blockIdx.x);
  for (std::int64_t stretch = blockIdx.x; stretch < p.total_stretches; stretch += gridDim.x) {
    me.enter(stretch);
    me.to_shared(shared);
    __syncthreads();
    if (stretch + gridDim.x < p.total_stretches) me.fetch(stretch + gridDim.x);
    me.from_shared(shared);
    __syncthreads();
  }
}

/// Blocks of `kernel` with `shared` bytes of dynamic shared memory that fit on the device at once,
/// at most `work_items`.
template <class Kernel>
unsigned narrow_resident_grid(Kernel kernel, int shared, std::int64_t work_items,
                              const char* name) {
  const std::int64_t resident = resident_blocks(kernel, skinny_narrow_threads, shared, name);
  return grid_for(work_items < resident ? work_items : resident);
}

}  // namespace

skinny_narrow_layout skinny_narrow_layout_for(const copy_args& a, std::size_t elem_bytes,
                                              int stretch_bytes) {
  if (elem_bytes < 1 || elem_bytes > 16)
    refuse("element size " + std::to_string(elem_bytes) + " is not 1 to 16 bytes");
  if (a.batch < 1 || a.rows < 1 || a.cols < 1)
    refuse("empty batch " + std::to_string(a.batch) + " x " + std::to_string(a.rows) + " x " +
           std::to_string(a.cols));
  if (stretch_bytes == 0) stretch_bytes = skinny_narrow_stretch_bytes;
  if (stretch_bytes < 1 || stretch_bytes > skinny_narrow_most_stretch_bytes)
    refuse("stretch of " + std::to_string(stretch_bytes) + " bytes, not 1 to " +
           std::to_string(skinny_narrow_most_stretch_bytes));
  // Tall: the source rows hold the short side; a square matrix is tall where its source is dense.
  const bool tall = a.rows > a.cols || (a.rows == a.cols && a.lda == a.cols);
  const std::int64_t short_side = tall ? a.cols : a.rows, long_side = tall ? a.rows : a.cols;
  const std::int64_t packed_ld = tall ? a.lda : a.ldb, strided_ld = tall ? a.ldb : a.lda;
  if (short_side > skinny_narrow_most_short_side)
    refuse("short side " + std::to_string(short_side) + " is more than " +
           std::to_string(skinny_narrow_most_short_side));
  if (packed_ld != short_side)
    refuse("the packed side's rows are " + std::to_string(packed_ld) + " elements apart, not " +
           std::to_string(short_side));
  if (strided_ld < long_side)
    refuse("the strided side's rows are " + std::to_string(strided_ld) +
           " elements apart, fewer than " + std::to_string(long_side));

  skinny_narrow_layout l;
  l.word_bytes = narrow_word_bytes(elem_bytes, a.src, a.dst);
  const int e = static_cast<int>(elem_bytes), v = 16 / l.word_bytes;
  skinny_narrow_params& p = l.params;
  p.src = a.src;
  p.dst = a.dst;
  p.tall = tall;
  p.short_side = static_cast<int>(short_side);
  p.long_side = long_side;
  p.words = e / l.word_bytes;
  p.strided_ld = strided_ld * p.words;
  p.src_stride = a.src_stride * p.words;
  p.dst_stride = a.dst_stride * p.words;
  // T' * V a multiple of a packed row's words (c * K <= 256 = the block's threads).
  const int row = p.short_side * p.words, residues = row / gcd_int(row, v);
  p.packed_threads = skinny_narrow_threads / residues * residues;
  p.packed_step = p.packed_threads * v / p.short_side;
  // The first matrix's misalignments (in words) of its packed run and strided runs.
  const auto misalignment = [&](const void* at, std::int64_t words) {
    return static_cast<int>((reinterpret_cast<std::uintptr_t>(at) + words * l.word_bytes) & 15) /
           l.word_bytes;
  };
  const int packed_misalignment = misalignment(tall ? a.src : a.dst, 0);
  int run_misalignment[skinny_narrow_most_short_side] = {};
  for (int j = 0; j < p.short_side; ++j)
    run_misalignment[j] = misalignment(tall ? a.dst : a.src, j * p.strided_ld);
  p.length = static_cast<int>(
      stretch_length(p, l.word_bytes, stretch_bytes, packed_misalignment, run_misalignment));
  p.stretches_per_matrix = (long_side + p.length - 1) / p.length;
  p.total_stretches = p.stretches_per_matrix * a.batch;
  p.pitch = chosen_pitch(p, l.word_bytes, packed_misalignment, run_misalignment);
  l.shared_bytes = p.short_side * p.pitch * l.word_bytes;
  return l;
}

bool skinny_narrow_takes(const copy_args& a, std::size_t elem_bytes) {
  if (elem_bytes < skinny_narrow_least_element_bytes ||
      elem_bytes > skinny_narrow_most_element_bytes || a.batch < 1)
    return false;
  const bool tall = a.rows > a.cols;
  const std::int64_t short_side = tall ? a.cols : a.rows, long_side = tall ? a.rows : a.cols;
  const std::int64_t packed_ld = tall ? a.lda : a.ldb, strided_ld = tall ? a.ldb : a.lda;
  return short_side >= skinny_narrow_least_short_side &&
         short_side <= skinny_narrow_most_short_side &&
         long_side >= skinny_narrow_least_long_side && packed_ld == short_side &&
         strided_ld >= long_side;
}

void launch_copy_skinny_narrow(const copy_args& a, std::size_t elem_bytes, cudaStream_t stream,
                               int stretch_bytes) {
  const skinny_narrow_layout l = skinny_narrow_layout_for(a, elem_bytes, stretch_bytes);
  with_word(l.word_bytes, "copy_skinny_narrow", [&](auto w) {
    const auto kernel = copy_skinny_narrow_kernel<decltype(w)::value>;
    constexpr const char* name = "copy_skinny_narrow_kernel launch";
    allow_dynamic_shared(kernel, l.shared_bytes, name);
    const unsigned grid =
        narrow_resident_grid(kernel, l.shared_bytes, l.params.total_stretches, name);
    kernel<<<grid, skinny_narrow_threads, l.shared_bytes, stream>>>(l.params);
    check_launch(name);
  });
}

}  // namespace xpose::detail::cuda
