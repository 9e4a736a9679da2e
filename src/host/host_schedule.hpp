// The schedule of a host plan through the GPU, as data: the copies, transpositions and
// synchronizations that move a host matrix through device buffers and back (PPoPP'14 sec. 6:
// stages on independent pieces spread over Q streams so that the copies overlap the work, the
// paper's Figure 5). Backend-free: the CUDA executor (host_plan.cpp) runs it on streams, and the
// tests run it on the CPU with memcpy for copies and CPU plans for the transpositions.
//
// The M x N matrix of e-byte elements is transposed by the 3-stage route's two-pass forms
// (PPoPP'14 sec. 4.2), whose 010 stage works on contiguous, independent slabs:
//   slabs_first: M/m slabs of m x N transposed (010), then the (M/m) x N matrix of m*e-byte
//                super-elements transposed (100);
//   super_first: the M x (N/n) matrix of n*e-byte super-elements transposed (100), then N/n slabs
//                of M x n transposed (010);
//   whole:       one transposition of the matrix.
// In core (the matrix fits the GPU budget), the matrix lives in one device buffer: slabs_first
// copies each slab in and transposes it on stream (slab mod Q) while the next slab is copied,
// then the 100 stage and one copy out; super_first copies in, does the 100 stage, then transposes
// each slab and copies it out while the next slab is transposed. Out of core, each stream owns a
// buffer of one slab: each slab goes in, is transposed and comes back to where it was, the
// streams overlapping one slab's copy-in with another's copy-out; the 100 stage runs on the host
// CPU (cpu_transpose) before or after the slabs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xpose::detail::host {

enum class host_scheme { whole, slabs_first, super_first };

/// A transposition the schedule runs: a batch of rows x cols matrices of elem-byte elements.
struct piece_shape {
  std::int64_t rows = 0, cols = 0;
  std::size_t elem = 0;
  bool on_gpu = true;  ///< false: the host CPU runs it (out of core's 100 stage)
};

enum class op_kind {
  copy_in,        ///< host [host_offset, +bytes) -> buffer `buffer` at device_offset, on `stream`
  transpose,      ///< shapes[shape] in place in buffer `buffer` at device_offset, on `stream`
  copy_out,       ///< buffer at device_offset -> host at host_offset, on `stream`
  barrier,        ///< every stream's work done (the host waits)
  cpu_transpose,  ///< shapes[shape] in place on the host at host_offset (after a barrier)
};

struct schedule_op {
  op_kind kind = op_kind::barrier;
  int stream = 0;
  int buffer = 0;
  int shape = 0;
  std::uint64_t host_offset = 0, device_offset = 0, bytes = 0;
};

struct host_schedule {
  std::int64_t rows = 0, cols = 0;
  std::size_t elem = 0;
  bool in_core = true;
  host_scheme scheme = host_scheme::whole;
  std::int64_t factor = 0;  ///< m (slabs_first) or n (super_first)
  int streams = 1;
  std::vector<std::uint64_t> buffer_bytes;  ///< device buffers
  std::vector<piece_shape> shapes;
  std::vector<schedule_op> ops;

  std::uint64_t matrix_bytes() const {
    return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * elem;
  }
  std::uint64_t slab_bytes() const;
  /// The scheme, pieces, buffers and streams in words, for plan::describe().
  std::string describe() const;
};

/// Device workspace bytes a GPU plan of `shape` needs (the planner's bound, or the real one).
using workspace_bound = std::function<std::uint64_t(const piece_shape& shape)>;

struct schedule_request {
  std::int64_t rows = 0, cols = 0;
  std::size_t elem = 0;
  std::uint64_t gpu_budget = 0;  ///< device bytes for buffers and the GPU plans' workspaces
  int streams = 3;
  bool overlap = true;  ///< false: whole, one stream (in core only)
  workspace_bound workspace;
};

/// The schedule for `request`; throws xpose::error{unsupported} when no piece fits the budget
/// (naming the smallest budget that would do).
host_schedule make_schedule(const schedule_request& request);

/// The largest super-element a sub-plan takes (xpose::max_elem_size).
std::size_t max_super_bytes();

}  // namespace xpose::detail::host
