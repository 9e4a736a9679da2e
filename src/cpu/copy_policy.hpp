// Tuning of the out-of-place CPU transposition (copy_transpose.cpp) as data: one policy struct,
// chosen by one function, and an entry point that runs a given policy, so that a benchmark can
// time candidates beside the chosen one (XPOSE_CPU_COPY_POLICIES in tools/xpose/cpu_bench.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "plan/plan_data.hpp"

namespace xpose::detail::cpu {

/// Which vector registers gather the line blocks.
enum class copy_isa { sse2, avx2 };
/// The order of a thread's tiles: across a band of source rows (each source row read left to
/// right; its pages stay in the TLB) or down a band of source columns (each destination row
/// written left to right, its lines completed across tiles).
enum class copy_order { across, down };
/// How the next tile's source is prefetched: not at all, into every cache level, or
/// non-temporal (into L1 alone, where the CPU has such a hint).
enum class copy_prefetch { none, temporal, non_temporal };

struct copy_policy {
  /// Tile width as bytes of one source row (rounded down to whole elements).
  std::int64_t src_segment_bytes = 256;
  /// Tile height as bytes of one destination row: a tile writes a segment this long to each of
  /// its destination rows (choose_copy_policy picks it).
  std::int64_t dst_segment_bytes = 256;
  /// H200 host, 16 threads, 7200 x 1800 fp32: down 0.84 x copy, across 1.10.
  copy_order order = copy_order::across;
  /// Same run: none 0.69 x copy, non-temporal 0.62, into every level (t0) 1.10.
  copy_prefetch prefetch = copy_prefetch::temporal;
  /// Destinations of at least this many bytes (the whole batch) take non-temporal stores
  /// (measured faster on 8000 x 8000 fp32, one thread); smaller ones stay in cache for the
  /// caller.
  std::int64_t streaming_min_bytes = std::int64_t{8} << 20;
  copy_isa isa = copy_isa::sse2;
};

/// Bytes of the per-thread tile buffer, on each thread's stack (execution allocates nothing); a
/// tile's columns are cut to fit it.
constexpr std::int64_t copy_tile_buffer_bytes = std::int64_t{64} << 10;

/// The policy copy_transpose runs for `s` into `dst` on `threads` threads: tiles by whether the
/// destination rows start on cache lines, AVX2 where the CPU has it.
copy_policy choose_copy_policy(const stage& s, const std::byte* dst, int threads);

/// The policy as text, "src=256 dst=1024 across t0 stream=8 avx2": what parse_copy_policy reads.
std::string to_string(const copy_policy& p);
/// Reads words separated by spaces or commas over `defaults`: src=BYTES, dst=BYTES,
/// stream=MIB, across|down, t0|nta|noprefetch, sse2|avx2. Throws xpose::error{invalid_argument}
/// naming a word it does not know.
copy_policy parse_copy_policy(const std::string& text, const copy_policy& defaults);

/// copy_transpose with policy `p` instead of the chosen one (tuning and tests). AVX2 on a CPU
/// without it runs SSE2.
void copy_transpose_with_policy(const std::byte* src, std::byte* dst, const stage& s,
                                const copy_policy& p, int threads);

}  // namespace xpose::detail::cpu
