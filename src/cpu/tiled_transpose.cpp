// Elementary tiled transpositions on the CPU (PPoPP'14 sec. 4: 100, 010, 1000, 0100, 0010 are all
// `batch` in-place transpositions of rows x cols matrices of super-elements, see stage_kind), and
// the fused 0010 + 0100 pair of the 3-stage route (sec. 4.2) run slab by slab while in cache.
// Two methods per stage:
//  - in_cache: each instance is gathered transposed into a per-thread scratch and copied back
//    (4-byte elements: 8 x 8 AVX2 / 4 x 4 SSE register transposes, chosen at run time);
//  - cycle_following: the cycles of eq. 1 (sec. 3) over super-elements, one bit flag each. With
//    many instances, each thread follows whole instances. With few (the 100 and 1000 stages have
//    one), one thread runs a sequential pre-pass that cuts every cycle longer than chunk_steps
//    into chunks, saves the original value of each chunk's first position and publishes the
//    chunks; all threads meanwhile claim published chunks and move them in gather order
//    (data[k] = data[source(k)]), ending with the saved value of the following chunk. Shorter
//    cycles are marked in a leader bitmap, published in ranges of about one chunk of work and
//    followed whole. Large super-elements are also cut into byte slices moved independently.
//    Sources are prefetched prefetch_steps positions ahead along the cycle. Where the plan made
//    the pre-pass's work list at plan time (a table: build_tiled_transpose_table), every thread
//    first saves its share of the chunks' first values and then all claim the listed work: no
//    thread walks the cycles at run time (at 16 threads that walk, a division per position
//    along each cycle, is most of a 100 stage's time).
// Assumes: data of one matrix dense as the stage describes; workspace of the size returned by
// the *_workspace functions (kernels never allocate); 64-bit index math throughout.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "cpu/element_size_dispatch.hpp"
#include "plan/permutation.hpp"

namespace xpose::detail::cpu {
namespace {

/// Positions per chunk when one instance's cycles are split among threads. Saved values take at
/// most 2/chunk_steps of the instance.
constexpr std::int64_t chunk_steps = 1024;
/// Cycle positions prefetched ahead of the one being moved.
constexpr int prefetch_steps = 8;
/// Super-elements at least this large are cut into byte slices moved by different threads.
constexpr std::size_t slice_min_bytes = 2048;
constexpr std::size_t align_bytes = 64;
/// Square block of the in-cache transposition.
constexpr std::int64_t in_cache_block = 16;

std::size_t align_up(std::size_t n) {
  return (n + align_bytes - 1) / align_bytes * align_bytes;
}

/// Copies a super-element (or a slice of one): fixed sizes compile to plain loads and stores.
template <std::size_t Bytes>
struct fixed_mover {
  std::size_t bytes() const { return Bytes; }
  void copy(std::byte* dst, const std::byte* src) const { std::memcpy(dst, src, Bytes); }
};
struct runtime_mover {
  std::size_t size;
  std::size_t bytes() const { return size; }
  void copy(std::byte* dst, const std::byte* src) const { std::memcpy(dst, src, size); }
};

/// Calls body with the mover for `bytes`: a fixed_mover for 1, 2, 4, 8, 16, else a runtime_mover.
template <class Body>
void with_mover(std::size_t bytes, Body&& body) {
  dispatch_element_size(bytes, [&](auto size) {
    if constexpr (decltype(size)::value != 0)
      body(fixed_mover<decltype(size)::value>{});
    else
      body(runtime_mover{bytes});
  });
}

void prefetch_element(const std::byte* p, std::size_t bytes) {
  const std::size_t lines = std::min<std::size_t>((bytes + 63) / 64, 8);
  for (std::size_t line = 0; line < lines; ++line) __builtin_prefetch(p + line * 64, 1, 0);
}

/// One instance of a tiled transposition: rows x cols super-elements of `stride` bytes at
/// `base` (of which the mover copies its `bytes()`, the whole element or one slice).
struct instance_view {
  std::byte* base;
  std::int64_t rows, cols;
  std::size_t stride;
  std::byte* at(std::int64_t k) const { return base + static_cast<std::size_t>(k) * stride; }
};

// ---- in_cache ---------------------------------------------------------------------------------

template <class Mover>
void transpose_in_cache(const instance_view& v, Mover mv, std::byte* scratch) {
  const std::size_t s = v.stride;
  for (std::int64_t i0 = 0; i0 < v.rows; i0 += in_cache_block) {
    const std::int64_t i1 = std::min(v.rows, i0 + in_cache_block);
    for (std::int64_t j0 = 0; j0 < v.cols; j0 += in_cache_block) {
      const std::int64_t j1 = std::min(v.cols, j0 + in_cache_block);
      for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t i = i0; i < i1; ++i)
          mv.copy(scratch + static_cast<std::size_t>(j * v.rows + i) * s,
                  v.base + static_cast<std::size_t>(i * v.cols + j) * s);
    }
  }
  std::memcpy(v.base, scratch, static_cast<std::size_t>(v.rows * v.cols) * s);
}

/// Rows [i0, i1) x columns [j0, j1) of the rows x cols matrix `src` into `dst` (cols x rows):
/// 4 x 4 blocks transposed in SSE registers, scalar edges.
void transpose_floats_sse(const float* src, float* dst, std::int64_t rows, std::int64_t cols,
                          std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
  const std::int64_t i4 = i0 + (i1 - i0) / 4 * 4, j4 = j0 + (j1 - j0) / 4 * 4;
  for (std::int64_t i = i0; i < i4; i += 4)
    for (std::int64_t j = j0; j < j4; j += 4) {
      __m128 r0 = _mm_loadu_ps(src + i * cols + j);
      __m128 r1 = _mm_loadu_ps(src + (i + 1) * cols + j);
      __m128 r2 = _mm_loadu_ps(src + (i + 2) * cols + j);
      __m128 r3 = _mm_loadu_ps(src + (i + 3) * cols + j);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(dst + j * rows + i, r0);
      _mm_storeu_ps(dst + (j + 1) * rows + i, r1);
      _mm_storeu_ps(dst + (j + 2) * rows + i, r2);
      _mm_storeu_ps(dst + (j + 3) * rows + i, r3);
    }
  for (std::int64_t i = i0; i < i1; ++i)
    for (std::int64_t j = i < i4 ? j4 : j0; j < j1; ++j) dst[j * rows + i] = src[i * cols + j];
}

/// The whole matrix with 8 x 8 blocks in AVX2 registers, the edges by transpose_floats_sse.
__attribute__((target("avx2"))) void transpose_floats_avx2(const float* src, float* dst,
                                                           std::int64_t rows, std::int64_t cols) {
  const std::int64_t rows8 = rows / 8 * 8, cols8 = cols / 8 * 8;
  for (std::int64_t i = 0; i < rows8; i += 8)
    for (std::int64_t j = 0; j < cols8; j += 8) {
      __m256 r[8], t[8];
      for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src + (i + k) * cols + j);
      for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
      }
      for (int k = 0; k < 8; k += 4) {
        r[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
        r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
        r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
        r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
      }
      for (int k = 0; k < 4; ++k) {
        _mm256_storeu_ps(dst + (j + k) * rows + i, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
        _mm256_storeu_ps(dst + (j + k + 4) * rows + i,
                         _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
      }
    }
  transpose_floats_sse(src, dst, rows, cols, 0, rows8, cols8, cols);
  transpose_floats_sse(src, dst, rows, cols, rows8, rows, 0, cols);
}

/// 4-byte elements: register transposes (AVX2 when the CPU has it), then copy back.
void transpose_in_cache(const instance_view& v, fixed_mover<4>, std::byte* scratch) {
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  const auto* src = reinterpret_cast<const float*>(v.base);
  auto* dst = reinterpret_cast<float*>(scratch);
  if (has_avx2)
    transpose_floats_avx2(src, dst, v.rows, v.cols);
  else
    transpose_floats_sse(src, dst, v.rows, v.cols, 0, v.rows, 0, v.cols);
  std::memcpy(v.base, scratch, static_cast<std::size_t>(v.rows * v.cols) * 4);
}

// ---- cycle following, one thread per instance --------------------------------------------------

/// Moves the cycle through `leader` in gather order; `saved` holds one super-element.
template <class Mover>
void follow_cycle(const instance_view& v, const transpose_permutation& perm, Mover mv,
                  std::int64_t leader, std::byte* saved, std::uint8_t* flags) {
  mv.copy(saved, v.at(leader));
  std::int64_t ahead = leader;
  for (int step = 0; step < prefetch_steps; ++step) ahead = perm.source(ahead);
  std::int64_t k = leader;
  for (;;) {
    if (flags) set_flag(flags, k);
    const std::int64_t from = perm.source(k);
    if (from == leader) break;
    prefetch_element(v.at(ahead), mv.bytes());
    ahead = perm.source(ahead);
    mv.copy(v.at(k), v.at(from));
    k = from;
  }
  mv.copy(v.at(k), saved);
}

template <class Mover>
void transpose_by_cycles(const instance_view& v, Mover mv, std::uint8_t* flags, std::byte* saved) {
  const transpose_permutation perm(v.rows, v.cols);
  const std::int64_t size = perm.size();
  std::memset(flags, 0, flag_bytes(size));
  for (std::int64_t leader = 1; leader < size - 1; ++leader) {
    if (flag_is_set(flags, leader)) continue;
    if (perm.source(leader) == leader) continue;
    follow_cycle(v, perm, mv, leader, saved, flags);
  }
}

/// Per-thread bytes to transpose one instance of `s` on its own.
std::size_t instance_scratch_bytes(const stage& s) {
  const std::int64_t size = s.rows * s.cols;
  if (s.method == tiled_method::in_cache)
    return align_up(static_cast<std::size_t>(size) * s.super_bytes);
  return align_up(flag_bytes(size)) + align_up(s.super_bytes);
}

void transpose_instance(std::byte* base, const stage& s, std::byte* scratch) {
  const instance_view v{base, s.rows, s.cols, s.super_bytes};
  with_mover(s.super_bytes, [&](auto mv) {
    if (s.method == tiled_method::in_cache) {
      transpose_in_cache(v, mv, scratch);
    } else {
      auto* flags = reinterpret_cast<std::uint8_t*>(scratch);
      transpose_by_cycles(v, mv, flags, scratch + align_up(flag_bytes(s.rows * s.cols)));
    }
  });
}

// ---- cycle following, all threads in one instance
// ------------------------------------------------

/// A unit of work of the shared mode: one chunk of a long cycle, or a range of leaders of short
/// cycles (each followed whole).
struct work_item {
  bool is_range;
  std::int64_t first;  ///< chunk: first position (gather order); range: first leader index
  std::int64_t count;  ///< chunk: positions moved; range: leader indices covered
  std::int64_t slot;   ///< chunk: saved-value slot of its own first position
  std::int64_t next;   ///< chunk: saved-value slot of the following chunk on its cycle
};

struct shared_layout {
  std::int64_t size;       ///< super-elements in the instance
  std::int64_t max_slots;  ///< bound on chunks of cycles longer than chunk_steps
  std::int64_t max_items;  ///< bound on chunks plus leader ranges
  std::size_t slices;      ///< byte slices per super-element
  std::size_t slice_bytes;
  std::size_t visited_offset, leaders_offset, items_offset, saved_offset, thread_saved_offset;
  std::size_t total;
};

shared_layout plan_shared(const stage& s, int threads) {
  shared_layout l{};
  l.size = s.rows * s.cols;
  // A cycle of length L > chunk_steps gives ceil(L / chunk_steps) < 2 L / chunk_steps chunks;
  // a leader range closes once it holds chunk_steps positions; one more item is written while a
  // cycle is walked.
  l.max_slots = 2 * l.size / chunk_steps + 1;
  l.max_items = l.max_slots + l.size / chunk_steps + 2;
  l.slices = 1;
  if (s.super_bytes >= 2 * slice_min_bytes)
    l.slices =
        std::min<std::size_t>(static_cast<std::size_t>(threads), s.super_bytes / slice_min_bytes);
  l.slice_bytes = align_up((s.super_bytes + l.slices - 1) / l.slices);
  if (l.slice_bytes >= s.super_bytes) {
    l.slices = 1;
    l.slice_bytes = s.super_bytes;
  } else {
    l.slices = (s.super_bytes + l.slice_bytes - 1) / l.slice_bytes;
  }
  std::size_t offset = 0;
  l.visited_offset = offset;
  offset += align_up(flag_bytes(l.size));
  l.leaders_offset = offset;
  offset += align_up(flag_bytes(l.size));
  l.items_offset = offset;
  offset += align_up(static_cast<std::size_t>(l.max_items) * sizeof(work_item));
  l.saved_offset = offset;
  offset += align_up(static_cast<std::size_t>(l.max_slots) * s.super_bytes);
  l.thread_saved_offset = offset;
  offset += static_cast<std::size_t>(threads) * align_up(l.slice_bytes);
  l.total = offset;
  return l;
}

/// Work items published by the pre-pass (one thread) and claimed by all threads meanwhile.
struct work_queue {
  work_item* items;
  std::atomic<std::int64_t> published{0};
  std::atomic<bool> finished{false};
  std::atomic<std::int64_t> claimed{0};
};

/// Sequential pre-pass, run by one thread while the others already move what it publishes:
/// cuts the cycles longer than chunk_steps into chunks (saving each chunk's first value before
/// publishing them), marks the leaders of the shorter ones and publishes them in ranges of
/// about chunk_steps positions. A range ends on a flag-byte boundary so that the leader bytes it
/// covers are never written once it is published.
void find_work(const instance_view& whole, const transpose_permutation& perm, std::uint8_t* visited,
               std::uint8_t* leaders, std::byte* saved, std::size_t saved_stride,
               work_queue& queue) {
  // saved == nullptr: a table made ahead of the data (the first values are saved at run time).
  const std::int64_t size = perm.size();
  std::memset(visited, 0, flag_bytes(size));
  std::memset(leaders, 0, flag_bytes(size));
  work_item* items = queue.items;
  std::int64_t count = 0, slots = 0;
  std::int64_t range_begin = 0, range_positions = 0, range_end = -1;
  auto close_range = [&](std::int64_t end) {
    items[count++] = work_item{true, range_begin, end - range_begin, 0, 0};
    queue.published.store(count, std::memory_order_release);
    range_begin = end;
    range_positions = 0;
    range_end = -1;
  };
  for (std::int64_t leader = 1; leader < size - 1; ++leader) {
    if (leader == range_end) close_range(leader);
    if (flag_is_set(visited, leader)) continue;
    const std::int64_t first_slot = slots;
    std::int64_t length = 0;
    std::int64_t k = leader;
    do {
      if (length % chunk_steps == 0) {
        items[count + (slots - first_slot)] = work_item{false, k, 0, 0, 0};
        ++slots;
      }
      set_flag(visited, k);
      ++length;
      k = perm.source(k);
    } while (k != leader);
    if (length == 1) {
      slots = first_slot;
    } else if (length <= chunk_steps) {
      slots = first_slot;
      set_flag(leaders, leader);
      range_positions += length;
      if (range_positions >= chunk_steps && range_end < 0) range_end = (leader + 8) / 8 * 8;
    } else {
      const std::int64_t chunks = slots - first_slot;
      for (std::int64_t c = 0; c < chunks; ++c) {
        work_item& item = items[count + c];
        item.slot = first_slot + c;
        item.count = std::min(chunk_steps, length - c * chunk_steps);
        item.next = c + 1 < chunks ? item.slot + 1 : first_slot;
        if (saved != nullptr)
          std::memcpy(saved + item.slot * saved_stride, whole.at(item.first), whole.stride);
      }
      count += chunks;
      queue.published.store(count, std::memory_order_release);
    }
  }
  if (range_positions > 0) close_range(size);
  queue.finished.store(true, std::memory_order_release);
}

/// Claims the next (item, slice) pair; false when the pre-pass is done and all are claimed.
bool claim(work_queue& queue, std::int64_t slices, std::int64_t& claimed) {
  claimed = queue.claimed.fetch_add(1, std::memory_order_relaxed);
  for (int spins = 1;; ++spins) {
    const bool finished = queue.finished.load(std::memory_order_acquire);
    const std::int64_t published = queue.published.load(std::memory_order_acquire);
    if (claimed < published * slices) return true;
    if (finished) return false;
    // More threads than cores: let the pre-pass thread run.
    if (spins % 64 == 0) std::this_thread::yield();
    _mm_pause();
  }
}

template <class Mover>
void move_chunk(const instance_view& v, const transpose_permutation& perm, Mover mv,
                const work_item& c, const std::byte* saved_next) {
  std::int64_t ahead = c.first;
  for (int step = 0; step < prefetch_steps; ++step) ahead = perm.source(ahead);
  std::int64_t k = c.first;
  for (std::int64_t step = 1; step < c.count; ++step) {
    prefetch_element(v.at(ahead), mv.bytes());
    ahead = perm.source(ahead);
    const std::int64_t from = perm.source(k);
    mv.copy(v.at(k), v.at(from));
    k = from;
  }
  mv.copy(v.at(k), saved_next);
}

/// The table of the shared mode, made ahead of the data: the count of work items, the items,
/// then the leaders bitmap.
struct table_layout {
  std::size_t items_offset, leaders_offset, total;
};

table_layout plan_table(const shared_layout& l) {
  table_layout t{};
  t.items_offset = align_up(sizeof(std::int64_t));
  t.leaders_offset =
      t.items_offset + align_up(static_cast<std::size_t>(l.max_items) * sizeof(work_item));
  t.total = t.leaders_offset + align_up(flag_bytes(l.size));
  return t;
}

template <class Mover>
void run_shared(const instance_view& whole, const shared_layout& l, std::size_t super_bytes,
                Mover slice_mover, Mover last_slice_mover, std::byte* workspace, int threads,
                const std::byte* table) {
  const transpose_permutation perm(whole.rows, whole.cols);
  auto* visited = reinterpret_cast<std::uint8_t*>(workspace + l.visited_offset);
  const std::uint8_t* leaders = reinterpret_cast<std::uint8_t*>(workspace + l.leaders_offset);
  std::byte* saved = workspace + l.saved_offset;
  const std::size_t saved_stride = super_bytes;
  const auto slices = static_cast<std::int64_t>(l.slices);
  work_queue queue;
  queue.items = reinterpret_cast<work_item*>(workspace + l.items_offset);
  if (table != nullptr) {
    const table_layout t = plan_table(l);
    std::int64_t count = 0;
    std::memcpy(&count, table, sizeof count);
    queue.items = reinterpret_cast<work_item*>(const_cast<std::byte*>(table + t.items_offset));
    leaders = reinterpret_cast<const std::uint8_t*>(table + t.leaders_offset);
    queue.published.store(count, std::memory_order_relaxed);
    queue.finished.store(true, std::memory_order_relaxed);
  }

#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num();
    std::byte* thread_saved = workspace + l.thread_saved_offset + thread * align_up(l.slice_bytes);
    if (table == nullptr) {
      if (thread == 0)
        find_work(whole, perm, visited, const_cast<std::uint8_t*>(leaders), saved, saved_stride,
                  queue);
    } else {
      // Every chunk's first value saved before any chunk moves (the one before it on its cycle
      // ends with it).
      const std::int64_t count = queue.published.load(std::memory_order_relaxed);
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < count; ++i)
        if (!queue.items[i].is_range)
          std::memcpy(saved + queue.items[i].slot * saved_stride, whole.at(queue.items[i].first),
                      whole.stride);
    }
    std::int64_t claimed = 0;
    while (claim(queue, slices, claimed)) {
      const std::int64_t slice = claimed % slices;
      const work_item& item = queue.items[claimed / slices];
      const std::size_t offset = static_cast<std::size_t>(slice) * l.slice_bytes;
      const instance_view v{whole.base + offset, whole.rows, whole.cols, whole.stride};
      const Mover mv = slice + 1 == slices ? last_slice_mover : slice_mover;
      if (!item.is_range) {
        move_chunk(v, perm, mv, item, saved + item.next * saved_stride + offset);
      } else {
        for (std::int64_t leader = item.first; leader < item.first + item.count; ++leader)
          if (flag_is_set(leaders, leader))
            follow_cycle(v, perm, mv, leader, thread_saved, nullptr);
      }
    }
  }
}

void transpose_instance_shared(std::byte* base, const stage& s, std::byte* workspace, int threads,
                               const std::byte* table) {
  const shared_layout l = plan_shared(s, threads);
  const instance_view v{base, s.rows, s.cols, s.super_bytes};
  if (l.slices == 1) {
    with_mover(s.super_bytes, [&](auto mv) {
      run_shared(v, l, s.super_bytes, mv, mv, workspace, threads, table);
    });
  } else {
    const runtime_mover slice{l.slice_bytes};
    const runtime_mover last{s.super_bytes - (l.slices - 1) * l.slice_bytes};
    run_shared(v, l, s.super_bytes, slice, last, workspace, threads, table);
  }
}

/// True when the threads share each instance (few large instances, cycle following).
bool shares_instances(const stage& s, int threads) {
  return s.method == tiled_method::cycle_following && threads > 1 && s.batch < 2 * threads &&
         s.rows * s.cols > chunk_steps;
}

int usable_threads(int threads) {
  return std::max(1, threads);
}

}  // namespace

std::size_t tiled_transpose_workspace(const stage& s, int threads) {
  threads = usable_threads(threads);
  if (shares_instances(s, threads)) return plan_shared(s, threads).total;
  const auto workers = static_cast<std::size_t>(std::min<std::int64_t>(threads, s.batch));
  return workers * instance_scratch_bytes(s);
}

std::size_t tiled_transpose_table_bytes(const stage& s, int threads) {
  threads = usable_threads(threads);
  if (s.rows <= 1 || s.cols <= 1 || !shares_instances(s, threads)) return 0;
  return plan_table(plan_shared(s, threads)).total;
}

void build_tiled_transpose_table(const stage& s, int threads, std::byte* table) {
  threads = usable_threads(threads);
  const shared_layout l = plan_shared(s, threads);
  const table_layout t = plan_table(l);
  const transpose_permutation perm(s.rows, s.cols);
  std::vector<std::uint8_t> visited(flag_bytes(l.size));
  work_queue queue;
  queue.items = reinterpret_cast<work_item*>(table + t.items_offset);
  const instance_view none{nullptr, s.rows, s.cols, s.super_bytes};
  find_work(none, perm, visited.data(), reinterpret_cast<std::uint8_t*>(table + t.leaders_offset),
            nullptr, s.super_bytes, queue);
  const std::int64_t count = queue.published.load(std::memory_order_relaxed);
  std::memcpy(table, &count, sizeof count);
}

void tiled_transpose(std::byte* data, const stage& s, std::byte* workspace, int threads,
                     const std::byte* table) {
  threads = usable_threads(threads);
  if (s.rows <= 1 || s.cols <= 1 || s.batch <= 0) return;
  const std::size_t instance_bytes = static_cast<std::size_t>(s.rows * s.cols) * s.super_bytes;
  if (shares_instances(s, threads)) {
    for (std::int64_t b = 0; b < s.batch; ++b)
      transpose_instance_shared(data + b * instance_bytes, s, workspace, threads, table);
    return;
  }
  const std::size_t scratch_bytes = instance_scratch_bytes(s);
  const int workers = static_cast<int>(std::min<std::int64_t>(threads, s.batch));
#pragma omp parallel num_threads(workers)
  {
    std::byte* scratch = workspace + omp_get_thread_num() * scratch_bytes;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < s.batch; ++b)
      transpose_instance(data + b * instance_bytes, s, scratch);
  }
}

std::size_t tiled_transpose_fused_workspace(const stage& first, const stage& second, int threads) {
  threads = usable_threads(threads);
  const auto workers = static_cast<std::size_t>(std::min<std::int64_t>(threads, second.batch));
  return workers * (instance_scratch_bytes(first) + instance_scratch_bytes(second));
}

void tiled_transpose_fused(std::byte* data, const stage& first, const stage& second,
                           std::byte* workspace, int threads) {
  threads = usable_threads(threads);
  if (second.batch <= 0) return;
  const std::size_t first_instance =
      static_cast<std::size_t>(first.rows * first.cols) * first.super_bytes;
  const std::size_t slab = static_cast<std::size_t>(second.rows * second.cols) * second.super_bytes;
  const std::int64_t per_slab = first.batch / second.batch;
  const std::size_t first_scratch = instance_scratch_bytes(first);
  const std::size_t scratch_bytes = first_scratch + instance_scratch_bytes(second);
  const bool first_moves = first.rows > 1 && first.cols > 1;
  const bool second_moves = second.rows > 1 && second.cols > 1;
  const int workers = static_cast<int>(std::min<std::int64_t>(threads, second.batch));
#pragma omp parallel num_threads(workers)
  {
    std::byte* scratch = workspace + omp_get_thread_num() * scratch_bytes;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < second.batch; ++k) {
      std::byte* base = data + k * slab;
      if (first_moves)
        for (std::int64_t i = 0; i < per_slab; ++i)
          transpose_instance(base + i * first_instance, first, scratch);
      if (second_moves) transpose_instance(base, second, scratch + first_scratch);
    }
  }
}

}  // namespace xpose::detail::cpu
