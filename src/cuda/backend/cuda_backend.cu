// The CUDA backend's entry points (backend/cuda_backend.hpp): checks a plan's stages at plan time and
// runs them on the caller's stream. Element sizes become machine words: the widest of 16, 8,
// 4, 2, 1 bytes that divides the element size and the data's alignment; elements of 3 to 15 bytes
// that are not powers of two run copy_full_height (short, wide shapes), skinny_any_size (skinny
// shapes) or copy_any_size out of place,
// and other elements of several words (12 bytes = three 4-byte words in place, 24 bytes = three
// 8-byte words) the super-element kernels.
#include "cuda/backend/cuda_backend.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "cuda/copy/launchers.hpp"
#include "cuda/backend/cuda_check.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

bool is_gpu_copy_variant(route r) {
  return r == route::automatic || r == route::copy_naive || r == route::copy_shared_tiles ||
         r == route::copy_padded_tiles || r == route::copy_multi_element || r == route::copy_tuned;
}

/// Widest word (<= 16 bytes, a power of two) dividing the element size and every address.
int word_bytes_for(std::size_t elem_size, std::initializer_list<const void*> pointers) {
  std::uintptr_t bits = elem_size;
  for (const void* p : pointers) bits |= reinterpret_cast<std::uintptr_t>(p);
  int w = 16;
  while (w > 1 && (bits & static_cast<std::uintptr_t>(w - 1)) != 0) w /= 2;
  return w;
}

/// The out-of-place stage `s` from `src` to `dst`, in elements of its super_bytes.
copy_args copy_args_of(const stage& s, const void* src, void* dst) {
  copy_args a;
  a.src = src;
  a.dst = dst;
  a.batch = s.batch;
  a.rows = s.rows;
  a.cols = s.cols;
  a.lda = s.lda;
  a.ldb = s.ldb;
  a.src_stride = s.src_batch_stride;
  a.dst_stride = s.dst_batch_stride;
  return a;
}

cudaStream_t stream_of(const plan_data& plan) {
  return static_cast<cudaStream_t>(plan.options.stream);
}

/// Takes the error an earlier CUDA call of the caller's left pending in the runtime, so that
/// check_launch after each launch reports only what that launch caused: left there, a failed
/// cudaMalloc of the caller's would be reported as a failed launch of a kernel already queued
/// to write the destination. An error that spoils the context stays, and the first launch fails
/// on it, before any data is touched.
void take_earlier_error() {
  static_cast<void>(cudaGetLastError());
}

}  // namespace

std::size_t prepare(plan_data& plan) {
  for (const stage& s : plan.stages) {
    switch (s.kind) {
      case stage_kind::copy_transpose:
        if (!is_gpu_copy_variant(s.variant))
          throw error(status::unsupported, "out-of-place variant " +
                                               std::string(to_string(s.variant)) +
                                               " does not run on the GPU");
        break;
      case stage_kind::square_swap:
        if (s.variant != route::square_tile_swap && s.variant != route::square_naive)
          throw error(status::unsupported, "square variant " + std::string(to_string(s.variant)) +
                                               " runs on the CPU only; the GPU runs "
                                               "square_tile_swap and square_naive");
        break;
      default:
        if (plan.rows == plan.cols)
          throw error(status::unsupported, "in-place route " + std::string(to_string(plan.chosen)) +
                                               " runs on the CPU only; in place, the GPU runs "
                                               "square_tile_swap and square_naive");
        throw error(status::unsupported,
                    "in-place transposition of non-square matrices is not yet implemented on "
                    "the GPU (stage " +
                        s.label + ")");
    }
  }
  return 0;
}

namespace {

/// kernel_text but the tile order.
std::string kernel_choice_text(const stage& s) {
  const int w = word_bytes_for(s.super_bytes, {});
  const std::int64_t k = static_cast<std::int64_t>(s.super_bytes) / w;
  const std::string word = std::to_string(w) + (w == 1 ? " byte" : " bytes");
  const std::string words = " (pointers aligned to " + word + ")";
  // Null pointers: the best alignment the leading dimensions allow.
  const copy_args at_best = copy_args_of(s, nullptr, nullptr);
  if (s.kind == stage_kind::copy_transpose &&
      (s.variant == route::automatic || s.variant == route::copy_tuned) &&
      copy_any_size_takes(s.super_bytes)) {
    const std::string bytes = std::to_string(s.super_bytes);
    // The kernel for elements of `word_bytes` words, or "" for the super-element kernel.
    const auto any_size_kernel = [&](const copy_args& a, int word_bytes) -> std::string {
      if (full_height_any_size_chosen(a, s.super_bytes, word_bytes))
        return "copy_full_height, short rows that tiles would cut: one tile covers every row, "
               "each " +
               bytes +
               "-byte element as a run of bytes, 16-byte accesses, each block writing whole "
               "destination rows (one run when they are dense)";
      if (skinny_any_size_chosen(a, s.super_bytes, word_bytes))
        return "skinny_any_size slabs (at most " + std::to_string(skinny_any_size_max_side) +
               " rows or columns, copy_any_size's column tiles at most 3/4 full): each " + bytes +
               "-byte element as a run of bytes, 16-byte global accesses, elements moved four "
               "at a time between two shared-memory slabs";
      if (copy_any_size_chosen(a, s.super_bytes, word_bytes))
        return "copy_any_size, each " + bytes +
               "-byte element as a run of bytes: rows shifted in registers and kept column by "
               "column in shared memory, 16-byte accesses, whole 32-byte destination sectors, " +
               any_size_tiles_text(a, s.super_bytes);
      return "";
    };
    // What `other` adds to `first`: from its tiles on where both are copy_any_size (only the
    // tiles differ between alignments), else all of it.
    const auto after = [](const std::string& first, const std::string& other) {
      const std::string::size_type tiles = other.find("tiles of ");
      return tiles != std::string::npos && first.compare(0, tiles, other, 0, tiles) == 0
                 ? other.substr(tiles)
                 : other;
    };
    const std::string at_best_kernel = any_size_kernel(at_best, w);
    if (!at_best_kernel.empty()) {
      // The rows' alignment at execute: 12-byte shapes of 32 to 47 rows on the super-element
      // kernel's aligned chunks go to copy_full_height, full tiles to copy_any_size.
      copy_args off_source = at_best, off_destination = at_best;
      off_source.src = reinterpret_cast<const void*>(std::uintptr_t{1});
      off_destination.dst = reinterpret_cast<void*>(std::uintptr_t{1});
      const std::string source_off = any_size_kernel(off_source, 1);
      const std::string destination_off = any_size_kernel(off_destination, 1);
      if (source_off == at_best_kernel && destination_off == at_best_kernel) return at_best_kernel;
      return at_best_kernel + " when " +
             (source_off == at_best_kernel
                  ? "the destination rows start on 32 bytes"
                  : "the source rows start on 16 bytes and the destination rows on 32") +
             " at execute, else " +
             after(at_best_kernel,
                   destination_off == at_best_kernel ? source_off : destination_off);
    }
    if (super_elements_aligned(at_best, s.super_bytes, w)) {
      copy_args unaligned = at_best;  // pointers off their words: single-byte words
      unaligned.src = reinterpret_cast<const void*>(std::uintptr_t{1});
      const std::string otherwise = any_size_kernel(unaligned, 1);
      unaligned.dst = reinterpret_cast<void*>(std::uintptr_t{1});
      const std::string destination_off = any_size_kernel(unaligned, 1);
      if (!otherwise.empty())
        return "super-element transpose, each " + bytes + "-byte element as " + std::to_string(k) +
               " words of " + word +
               " in aligned 16-byte chunks with whole 32-byte destination sectors when the "
               "source rows start on 16 bytes and the destination rows on 32 at execute, else " +
               otherwise +
               (destination_off == otherwise
                    ? std::string()
                    : " where the destination rows start on 32 bytes, and " +
                          after(otherwise, destination_off) + " where they do not");
    }
  }
  if (k != 1)
    return std::string(s.kind == stage_kind::square_swap ? "super-element tile swap"
                                                         : "super-element transpose") +
           ", each " + std::to_string(s.super_bytes) + "-byte element as " + std::to_string(k) +
           " words of " + word + words +
           (s.kind == stage_kind::square_swap ? std::string()
            : super_elements_in_chunks(w, k)
                ? std::string("; aligned 16-byte chunks with whole 32-byte destination sectors")
                : std::string("; one word per access"));
  if (s.kind == stage_kind::square_swap)
    return s.variant == route::square_naive
               ? "square_naive, one thread per element pair"
               : "square_tile_swap, tile pairs through shared memory: 16-byte vector paths when "
                 "every row starts on 16 bytes, rows shifted in shared memory otherwise" +
                     words;
  if (s.variant != route::automatic && s.variant != route::copy_tuned)
    return std::string(to_string(s.variant)) + ", the seed slides' kernel";
  switch (choose_copy_kernel(at_best, w)) {
    case copy_kernel::skinny:
      return "skinny slabs, the columns fewer than copy_tuned's tile or the rows too few to "
             "fill the tiles enough; plain slabs (16-byte accesses where rows start on 16 bytes) "
             "or shifted ones (aligned chunks shifted in shared memory) as the shape and "
             "alignment at execute call for" +
             words;
    case copy_kernel::full_width:
      return "copy_full_width, short rows that column tiles would leave too empty: one tile "
             "covers every column (where the alignment at execute still calls for it; else the "
             "tiles or slabs it calls for)" +
             words;
    case copy_kernel::full_height:
      return "copy_full_height, short rows that tiles would cut: one tile covers every row, so "
             "each block writes whole destination rows (one run when they are dense; where the "
             "alignment at execute still calls for it; else the tiles or slabs it calls for)" +
             words;
    case copy_kernel::tuned: {
      copy_args off_sectors = at_best;  // what runs when the destination is not, at execute
      off_sectors.dst = reinterpret_cast<void*>(std::uintptr_t{16});
      const copy_kernel otherwise = choose_copy_kernel(off_sectors, w);
      return "copy_tuned's " + tuned_tiles_text(at_best, w) +
             " when the source is 16-byte and the destination 32-byte aligned at execute, "
             "else " +
             (otherwise == copy_kernel::skinny        ? "the skinny slabs"
              : otherwise == copy_kernel::sectors     ? "copy_sectors"
              : otherwise == copy_kernel::full_height ? "copy_full_height"
              : otherwise == copy_kernel::full_width  ? "copy_full_width"
                                                      : "copy_unaligned") +
             words;
    }
    case copy_kernel::sectors:
      return "copy_sectors, the leading dimensions leaving rows unaligned: one element per "
             "lane, whole 32-byte destination sectors" +
             words;
    case copy_kernel::unaligned:
      break;
  }
  return "copy_unaligned, the leading dimensions leaving rows unaligned: rows shifted in "
         "registers and kept column by column in shared memory, whole 32-byte destination "
         "sectors, " +
         unaligned_tiles_text(at_best, w) + words;
}

}  // namespace

std::string kernel_text(const stage& s) {
  std::string text = kernel_choice_text(s);
  if (s.kind != stage_kind::copy_transpose ||
      (s.variant != route::automatic && s.variant != route::copy_tuned))
    return text;
  // The regions of the kernel the best alignment runs, the one the text names first (the skinny
  // slabs, copy_full_width, copy_tuned's whole tiles and the super-element kernel take none; a
  // kernel named for other alignments may take another number).
  const copy_args a = copy_args_of(s, nullptr, nullptr);
  const int w = word_bytes_for(s.super_bytes, {});
  int regions = 1;
  if (copy_any_size_takes(s.super_bytes)) {
    if (full_height_any_size_chosen(a, s.super_bytes, w))
      regions = full_height_regions(a, s.super_bytes);
    else if (!skinny_any_size_chosen(a, s.super_bytes, w) &&
             copy_any_size_chosen(a, s.super_bytes, w))
      regions = tile_regions(a, s.super_bytes);
  } else if (static_cast<int>(s.super_bytes) == w) {
    const copy_kernel kernel = choose_copy_kernel(a, w);
    if (kernel == copy_kernel::full_height)
      regions = full_height_regions(a, s.super_bytes);
    else if (kernel != copy_kernel::skinny && kernel != copy_kernel::full_width &&
             !(kernel == copy_kernel::tuned && is_whole(choose_tuned_tiles(a, w))))
      regions = tile_regions(a, s.super_bytes);
  }
  if (regions > 1)
    text +=
        "; the rows resonate with this device's memory (a few of them span a whole number "
        "of 1.25 MiB), so the kernel named first hands its tiles out in " +
        std::to_string(regions) + " interleaved regions";
  return text;
}

std::shared_ptr<void> allocate_workspace(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* memory = nullptr;
  if (cudaMalloc(&memory, bytes) != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls do not report it
    throw error(status::out_of_memory,
                "cannot allocate " + std::to_string(bytes) + " bytes of device workspace");
  }
  return std::shared_ptr<void>(memory, [](void* p) { cudaFree(p); });
}

void execute_inplace(const plan_data& plan, void* data) {
  take_earlier_error();
  for (const stage& s : plan.stages) {
    if (s.kind != stage_kind::square_swap)
      throw error(status::internal_error, "GPU in-place plan holds a stage prepare() rejects");
    const int w = word_bytes_for(s.super_bytes, {data});
    square_args a;
    a.data = data;
    a.batch = plan.desc.batch;
    a.n = s.rows;
    a.ld = s.lda;
    a.stride = plan.batch_stride;
    launch_square_swap(a, w, static_cast<std::int64_t>(s.super_bytes) / w, s.variant,
                       stream_of(plan));
  }
}

void execute_copy(const plan_data& plan, const void* src, void* dst) {
  take_earlier_error();
  for (const stage& s : plan.stages) {
    if (s.kind != stage_kind::copy_transpose)
      throw error(status::internal_error, "GPU out-of-place plan holds an in-place stage");
    const int w = word_bytes_for(s.super_bytes, {src, dst});
    const std::int64_t k = static_cast<std::int64_t>(s.super_bytes) / w;
    const copy_args a = copy_args_of(s, src, dst);
    const bool tuned = s.variant == route::copy_tuned || s.variant == route::automatic;
    if (tuned && full_height_any_size_chosen(a, s.super_bytes, w)) {
      launch_copy_full_height_any_size(a, s.super_bytes, stream_of(plan));
    } else if (tuned && skinny_any_size_chosen(a, s.super_bytes, w)) {
      launch_copy_skinny_any_size(a, s.super_bytes, stream_of(plan));
    } else if (tuned && copy_any_size_chosen(a, s.super_bytes, w)) {
      launch_copy_any_size(a, s.super_bytes, stream_of(plan));
    } else if (k != 1) {
      launch_copy_super_elements(a, w, k, stream_of(plan));
    } else if (tuned) {
      launch_copy_tuned(a, w, stream_of(plan));
    } else {
      launch_copy_seed_variant(a, w, s.variant, stream_of(plan));
    }
  }
}

}  // namespace xpose::detail::cuda
