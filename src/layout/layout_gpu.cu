// GPU layout steps (layout_gpu.hpp): each is one launch of the in-place tiled transposition
// (src/cuda/inplace/tiled_transpose.hpp) on the path of the conversion's variant: automatically
// the on-chip barrier-sync kernel where a tile of T x S fields fits in shared memory (DL sec.
// 4.2), the chains for SoA <-> ASTA; forced, the same kernels the tiled transposition's tests
// force, so that barrier-sync, PTTWAC and P-IPT (the chains' kernel on whole cycles) are
// measured on the same conversion. PTTWAC runs with its flags in shared memory, a block per group
// of tiles (DL sec. 4.4), where the tiles' flags fit and there are enough of them
// (choose_pttwac_path); else with claims in global memory (cycle following, DL sec. 4.3).
#include <cuda_runtime.h>

#include "cuda/backend/cuda_backend.hpp"
#include "cuda/backend/cuda_check.hpp"
#include "cuda/inplace/skinny_remainder.hpp"
#include "cuda/inplace/tiled_transpose.hpp"
#include "layout/layout_gpu.hpp"

namespace xpose::detail::layout_gpu {
namespace {

cuda::tiled_path path_of(const stage& s, layout_variant variant) {
  switch (variant) {
    case layout_variant::barrier_sync:
      return cuda::tiled_path::on_chip;
    case layout_variant::pttwac:
      return cuda::choose_pttwac_path(s);
    case layout_variant::chains:
      return cuda::tiled_path::chains;
    case layout_variant::through_scratch:
      return cuda::tiled_path::through_scratch;
    case layout_variant::pipt:
      return cuda::tiled_path::whole_cycles;
    case layout_variant::automatic:
      break;
  }
  return cuda::tiled_path::automatic;
}

std::string size_text(const stage& s) {
  return std::to_string(s.rows) + " x " + std::to_string(s.cols) + " x " +
         std::to_string(s.super_bytes) + " B";
}

}  // namespace

std::string tiled_refusal(const stage& s, layout_variant variant) {
  const auto positions = static_cast<std::uint64_t>(s.rows) * static_cast<std::uint64_t>(s.cols);
  switch (path_of(s, variant)) {
    case cuda::tiled_path::on_chip:
      if (cuda::tiled_on_chip_instance_bytes(s) > cuda::tiled_on_chip_max_bytes)
        return "an instance of " + size_text(s) + " does not fit the barrier-sync kernel's " +
               std::to_string(cuda::tiled_on_chip_max_bytes) + " bytes of shared memory";
      return "";
    case cuda::tiled_path::chains:
    case cuda::tiled_path::whole_cycles:
      if (positions > cuda::chain_max_positions || s.super_bytes < cuda::chain_min_super_bytes)
        return "the chains take instances of at most " + std::to_string(cuda::chain_max_positions) +
               " super-elements, got " + size_text(s);
      return "";
    case cuda::tiled_path::through_scratch:
      if (positions * s.super_bytes > cuda::tiled_scratch_max_bytes)
        return "an instance of " + size_text(s) + " exceeds the scratch's " +
               std::to_string(cuda::tiled_scratch_max_bytes) + " bytes";
      return "";
    default:
      return "";
  }
}

const char* tiled_path_name(const stage& s, layout_variant variant) {
  const cuda::tiled_path path = path_of(s, variant);
  return cuda::tiled_path_name(path == cuda::tiled_path::automatic ? cuda::choose_tiled_path(s)
                                                                   : path);
}

std::shared_ptr<void> allocate(std::size_t bytes) {
  return cuda::allocate_workspace(bytes == 0 ? 1 : bytes);  // out_of_memory, error cleared
}

std::shared_ptr<void> prepare_tiled(const stage& s, layout_variant variant, std::size_t& bytes) {
  const cuda::tiled_path path = path_of(s, variant);
  bytes = cuda::tiled_transpose_workspace_for_path(s, path);
  std::shared_ptr<void> workspace = allocate(bytes);
  cuda::prepare_tiled_workspace(s, path, workspace.get());
  return workspace;
}

void launch_tiled(void* data, const stage& s, layout_variant variant, void* workspace,
                  void* stream) {
  cuda::launch_tiled_transpose_path(data, s, workspace, static_cast<cudaStream_t>(stream),
                                    path_of(s, variant));
}

std::size_t remainder_held_bytes(const stage& s) {
  return cuda::skinny_remainder_held_bytes(s);
}
std::size_t remainder_scratch_bytes(const stage& s) {
  return cuda::skinny_remainder_scratch_bytes(s);
}
void launch_remainder(void* data, const stage& s, void* held, void* scratch, void* stream) {
  cuda::launch_skinny_remainder(data, s, held, scratch, static_cast<cudaStream_t>(stream));
}

void copy_async(void* dst, const void* src, std::size_t bytes, bool to_device, void* stream) {
  cuda::check_cuda(
      cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                      static_cast<cudaStream_t>(stream)),
      "cudaMemcpyAsync (layout_buffer)");
}

}  // namespace xpose::detail::layout_gpu
