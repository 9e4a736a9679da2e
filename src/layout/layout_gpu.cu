// GPU layout steps (layout_gpu.hpp): each is one launch of the in-place tiled transposition
// (src/cuda/inplace/tiled_transpose.hpp), on its automatic path: the on-chip barrier-sync kernel
// where a tile of T x S fields fits in shared memory (DL sec. 4.2), the chains or cycle following
// (PTTWAC, DL sec. 4.3-4.4) for the larger ones and for SoA <-> ASTA.
#include <cuda_runtime.h>

#include "cuda/backend/cuda_backend.hpp"
#include "cuda/backend/cuda_check.hpp"
#include "cuda/inplace/tiled_transpose.hpp"
#include "layout/layout_gpu.hpp"

namespace xpose::detail::layout_gpu {

std::shared_ptr<void> allocate(std::size_t bytes) {
  return cuda::allocate_workspace(bytes == 0 ? 1 : bytes);  // out_of_memory, error cleared
}

std::shared_ptr<void> prepare_tiled(const stage& s, std::size_t& bytes) {
  bytes = cuda::tiled_transpose_workspace(s);
  std::shared_ptr<void> workspace = allocate(bytes);
  cuda::prepare_tiled_workspace(s, cuda::tiled_path::automatic, workspace.get());
  return workspace;
}

void launch_tiled(void* data, const stage& s, void* workspace, void* stream) {
  cuda::launch_tiled_transpose(data, s, workspace, static_cast<cudaStream_t>(stream));
}

void copy_async(void* dst, const void* src, std::size_t bytes, bool to_device, void* stream) {
  cuda::check_cuda(
      cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                      static_cast<cudaStream_t>(stream)),
      "cudaMemcpyAsync (layout_buffer)");
}

}  // namespace xpose::detail::layout_gpu
