// The CUDA backend's entry points (cuda_backend.hpp): checks a plan's stages at plan time and
// runs them on the caller's stream. Out-of-place stages run what the dispatch decides
// (dispatch/copy_dispatch.hpp), which is also what a plan's text names; square in-place stages
// run inplace/square_swap.cu, the tiled transpositions of the other in-place routes
// inplace/tiled_transpose.cu, the skinny route's remainder steps inplace/skinny_remainder.cu, the
// row/column route's phases inplace/row_column.cu.
#include "cuda/backend/cuda_backend.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "cuda/backend/cuda_check.hpp"
#include "cuda/copy/launchers.hpp"
#include "cuda/dispatch/copy_dispatch.hpp"
#include "cuda/inplace/row_column.hpp"
#include "cuda/inplace/skinny_remainder.hpp"
#include "cuda/inplace/tiled_transpose.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cuda {

namespace {

bool is_gpu_copy_variant(route r) {
  return r == route::automatic || r == route::copy_naive || r == route::copy_shared_tiles ||
         r == route::copy_padded_tiles || r == route::copy_multi_element || r == route::copy_tuned;
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

bool runs_on_gpu(const stage& s) {
  switch (s.kind) {
    case stage_kind::copy_transpose:
      return is_gpu_copy_variant(s.variant);
    case stage_kind::square_swap:
      return s.variant == route::square_tile_swap || s.variant == route::square_naive;
    case stage_kind::tiled_transpose:
      return true;
    case stage_kind::row_column_pre_rotate:
    case stage_kind::row_column_row_shuffle:
    case stage_kind::row_column_column_shuffle:
      return row_column_limits(s).empty();
    case stage_kind::skinny_remainder_split:
    case stage_kind::skinny_remainder_place:
    case stage_kind::skinny_remainder_take:
    case stage_kind::skinny_remainder_spread:
      return true;
    default:
      return false;
  }
}

namespace {

bool is_skinny_remainder_stage(const stage& s) {
  return s.kind == stage_kind::skinny_remainder_split ||
         s.kind == stage_kind::skinny_remainder_place ||
         s.kind == stage_kind::skinny_remainder_take ||
         s.kind == stage_kind::skinny_remainder_spread;
}

}  // namespace

double stage_passes(const stage& s) {
  if (s.kind == stage_kind::tiled_transpose) return tiled_stage_passes(s);
  if (is_row_column_stage(s)) return row_column_stage_passes(s);
  return s.passes;
}

namespace {

/// The workspace of an in-place plan: each tiled stage's table in turn (256-byte aligned), the
/// block the skinny route's remainder steps hold from one step to the next (one per matrix of the
/// batch, each 256-byte aligned; every remainder stage's table_offset), then one scratch as large
/// as the largest stage's. Sets the offsets when `assign`.
std::size_t lay_out_workspace(plan_data& plan, bool assign) {
  std::size_t tables = 0, scratch = 0, held = 0;
  for (stage& s : plan.stages) {
    if (!runs_on_gpu(s)) return std::numeric_limits<std::size_t>::max();
    if (is_row_column_stage(s)) scratch = std::max(scratch, row_column_scratch_bytes(s));
    if (is_skinny_remainder_stage(s)) {
      held = std::max(held, (skinny_remainder_held_bytes(s) + 255) / 256 * 256);
      scratch = std::max(scratch, skinny_remainder_scratch_bytes(s));
    }
    if (s.kind != stage_kind::tiled_transpose) continue;
    const std::size_t table = tiled_table_bytes(s);
    if (assign) s.table_offset = tables;
    tables += (table + 255) / 256 * 256;
    scratch = std::max(scratch, tiled_scratch_bytes(s));
  }
  if (held > 0) {
    if (assign)
      for (stage& s : plan.stages)
        if (is_skinny_remainder_stage(s)) s.table_offset = tables;
    tables += held * static_cast<std::size_t>(plan.desc.batch);
  }
  if (assign) plan.scratch_offset = tables;
  return tables + scratch;
}

}  // namespace

std::size_t inplace_workspace_bytes(const plan_data& plan) {
  plan_data copy = plan;
  return lay_out_workspace(copy, false);
}

std::size_t prepare(plan_data& plan) {
  // Every stage is checked before any is sized: sizing may ask the device (its multiprocessors),
  // and a route the GPU cannot run is refused by name, with or without a device.
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
      case stage_kind::row_column_pre_rotate:
      case stage_kind::row_column_row_shuffle:
      case stage_kind::row_column_column_shuffle:
        if (!runs_on_gpu(s))
          throw error(status::unsupported, "in-place route " + std::string(to_string(plan.chosen)) +
                                               ": " + row_column_limits(s));
        break;
      default:
        if (!runs_on_gpu(s))
          throw error(status::unsupported,
                      "in-place route " + std::string(to_string(plan.chosen)) + " (stage " +
                          s.label +
                          ") runs on the CPU only; the GPU runs the in-place routes three_stage, "
                          "four_stage, row_column, cycle_following and skinny_chunks");
    }
  }
  for (stage& s : plan.stages) {
    if (s.kind == stage_kind::tiled_transpose) {
      s.method = choose_tiled_path(s) == tiled_path::on_chip ? tiled_method::in_cache
                                                             : tiled_method::cycle_following;
      // The GPU runs every stage on its own: the CPU's slab-by-slab fusion of 0010 and 0100
      // keeps a slab in a core's cache, which a grid of blocks does not share.
      s.fused_with_next = false;
    }
    if (s.kind == stage_kind::tiled_transpose || is_row_column_stage(s)) s.passes = stage_passes(s);
  }
  plan.predicted_passes = 0;
  for (const stage& s : plan.stages) plan.predicted_passes += s.passes;
  return lay_out_workspace(plan, true);
}

void prepare_workspace(const plan_data& plan) {
  auto* workspace = static_cast<unsigned char*>(plan.workspace.get());
  for (const stage& s : plan.stages)
    if (s.kind == stage_kind::tiled_transpose && tiled_table_bytes(s) > 0)
      prepare_tiled_table(s, tiled_path::automatic, workspace + s.table_offset);
}

std::string kernel_text(const stage& s) {
  const int w = word_bytes_for(s.super_bytes, nullptr, nullptr);
  const std::int64_t k = static_cast<std::int64_t>(s.super_bytes) / w;
  if (s.kind == stage_kind::copy_transpose)
    return describe_copy(copy_args_of(s, nullptr, nullptr), s.super_bytes, s.variant,
                         current_device_class());
  if (is_row_column_stage(s)) return row_column_kernel_text(s);
  if (s.kind == stage_kind::tiled_transpose) switch (choose_tiled_path(s)) {
      case tiled_path::on_chip:
        return "tiled_transpose on chip: whole instances per block through shared memory, "
               "written back transposed after a barrier";
      case tiled_path::through_scratch:
        return "tiled_transpose through a scratch: groups of instances transposed out of "
               "place by the copy kernels, then copied back";
      case tiled_path::chains:
        return "tiled_transpose by chains: long cycles cut into chains of " +
               std::to_string(tiled_chain_length(s)) +
               " (every cycle listed in a table made at plan time, the first super-element of "
               "each cut chain saved aside); loads run ahead of stores along each chain";
      case tiled_path::pttwac:
        return "tiled_transpose by PTTWAC: a block per group of instances, one flag bit per "
               "super-element in shared memory, each moved once along its cycle in place";
      default:
        return "tiled_transpose by cycle following: every super-element claimed through "
               "2-bit states in the workspace, moved once along its cycle";
    }
  const std::string word = std::to_string(w) + (w == 1 ? " byte" : " bytes");
  if (k != 1)
    return "super-element tile swap, each " + std::to_string(s.super_bytes) + "-byte element as " +
           std::to_string(k) + " words of " + word + " (pointers aligned to " + word + ")";
  if (s.variant == route::square_naive) return "square_naive, one thread per element pair";
  return "square_tile_swap, tile pairs through shared memory: 16-byte vector paths when every "
         "row starts on 16 bytes; otherwise whole tiles funnel-shifted in registers and tiles cut "
         "by the edges shifted in shared memory (pointers aligned to " +
         word + ")";
}

std::shared_ptr<void> allocate_workspace(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* memory = nullptr;
  const cudaError_t failed = cudaMalloc(&memory, bytes);
  if (failed != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls do not report it
    throw error(failed == cudaErrorMemoryAllocation ? status::out_of_memory : status::device_error,
                "cannot allocate " + std::to_string(bytes) +
                    " bytes of device workspace: " + cudaGetErrorString(failed));
  }
  return std::shared_ptr<void>(memory, [](void* p) { cudaFree(p); });
}

void execute_inplace(const plan_data& plan, void* data, std::size_t first, std::size_t last) {
  take_earlier_error();
  auto* workspace = static_cast<unsigned char*>(plan.workspace.get());
  // The scratch every stage may overwrite: after the tables, or the caller's
  // (plan_inplace_sharing_scratch).
  unsigned char* scratch = plan.caller_scratch ? static_cast<unsigned char*>(*plan.caller_scratch)
                           : workspace == nullptr ? nullptr
                                                  : workspace + plan.scratch_offset;
  if (plan.caller_scratch && scratch == nullptr && plan.scratch_bytes > 0)
    throw error(status::internal_error, "GPU in-place plan: the caller's scratch is not set");
  const std::size_t matrix_bytes =
      static_cast<std::size_t>(plan.batch_stride) * plan.desc.elem_size;
  const std::size_t end = std::min(last, plan.stages.size());
  for (std::size_t i = first; i < end; ++i) {
    const stage& s = plan.stages[i];
    if (s.kind == stage_kind::square_swap) {
      const int w = word_bytes_for(s.super_bytes, data, data);
      square_args a;
      a.n = s.rows;
      a.ld = s.lda;
      if (s.batch <= 1) {
        // The whole matrix: every matrix of the plan's batch in one launch.
        a.data = data;
        a.batch = plan.desc.batch;
        a.stride = plan.batch_stride;
        launch_square_swap(a, w, static_cast<std::int64_t>(s.super_bytes) / w, s.variant,
                           stream_of(plan));
      } else {
        // Square blocks one after another within each matrix.
        a.batch = s.batch;
        a.stride = s.rows * s.lda;
        for (std::int64_t b = 0; b < plan.desc.batch; ++b) {
          a.data = static_cast<std::byte*>(data) + b * matrix_bytes;
          launch_square_swap(a, w, static_cast<std::int64_t>(s.super_bytes) / w, s.variant,
                             stream_of(plan));
        }
      }
    } else if (s.kind == stage_kind::tiled_transpose) {
      // The stages apply to each matrix of the batch in turn; a stage's own batch is its
      // instances within one matrix.
      for (std::int64_t b = 0; b < plan.desc.batch; ++b)
        launch_tiled_transpose_parts(static_cast<std::byte*>(data) + b * matrix_bytes, s,
                                     workspace == nullptr ? nullptr : workspace + s.table_offset,
                                     scratch, stream_of(plan));
    } else if (is_skinny_remainder_stage(s)) {
      const std::size_t held = (skinny_remainder_held_bytes(s) + 255) / 256 * 256;
      for (std::int64_t b = 0; b < plan.desc.batch; ++b)
        launch_skinny_remainder(static_cast<std::byte*>(data) + b * matrix_bytes, s,
                                workspace + s.table_offset + b * held, scratch, stream_of(plan));
    } else if (is_row_column_stage(s)) {
      // A pre-rotation and the row shuffle after it run as one pass where they fuse.
      const bool pair = i + 1 < end && row_column_fuses_pre_rotation(s, plan.stages[i + 1]);
      for (std::int64_t b = 0; b < plan.desc.batch; ++b) {
        std::byte* matrix = static_cast<std::byte*>(data) + b * matrix_bytes;
        if (pair)
          launch_row_column_pair(matrix, s, plan.stages[i + 1], scratch, stream_of(plan));
        else
          launch_row_column(matrix, s, scratch, stream_of(plan));
      }
      if (pair) ++i;
    } else {
      throw error(status::internal_error, "GPU in-place plan holds a stage prepare() rejects");
    }
  }
}

std::string device_name() {
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&props, device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // no device: the plan's own checks say so
    return "no device";
  }
  return props.name;
}

void synchronize(const plan_data& plan) {
  check_cuda(cudaStreamSynchronize(stream_of(plan)), "cudaStreamSynchronize");
}

void execute_copy(const plan_data& plan, const void* src, void* dst) {
  take_earlier_error();
  const device_class device = current_device_class();
  for (const stage& s : plan.stages) {
    if (s.kind != stage_kind::copy_transpose)
      throw error(status::internal_error, "GPU out-of-place plan holds an in-place stage");
    const copy_args a = copy_args_of(s, src, dst);
    run_copy(decide_copy(a, s.super_bytes, s.variant, device), a, stream_of(plan));
  }
}

}  // namespace xpose::detail::cuda
