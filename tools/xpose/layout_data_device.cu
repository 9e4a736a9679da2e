// The device versions of layout_data.hpp: one thread per field, grid-stride loops; the layouts'
// index arithmetic is xpose::layout_index, the same function the views use.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "layout_data.hpp"

namespace xpose_cli {
namespace {

constexpr int threads = 256;

__device__ std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void fill_kernel(unsigned char* data, std::uint64_t words, std::size_t bytes,
                            std::uint64_t seed) {
  for (std::uint64_t w = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; w < words;
       w += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = splitmix64(seed ^ (w * 0x632be59bd9b4e019ull));
    for (int b = 0; b < 8 && w * 8 + b < bytes; ++b)
      data[w * 8 + b] = static_cast<unsigned char>(1 + ((h >> (8 * b)) & 0xff) % 255);
  }
}

__global__ void arrange_kernel(const unsigned char* aos, unsigned char* out, std::int64_t n,
                               std::int64_t S, std::int64_t e, xpose::layout_kind kind,
                               std::int64_t tile) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < n * S;
       k += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t to = xpose::layout_index(kind, tile, n, S, k / S, k % S) * e;
    for (std::int64_t b = 0; b < e; ++b) out[to + b] = aos[k * e + b];
  }
}

__global__ void compare_kernel(const unsigned char* result, const unsigned char* aos,
                               std::int64_t n, std::int64_t S, std::int64_t e,
                               xpose::layout_kind kind, std::int64_t tile,
                               unsigned long long* first_wrong) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < n * S;
       k += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t at = xpose::layout_index(kind, tile, n, S, k / S, k % S) * e;
    for (std::int64_t b = 0; b < e; ++b)
      if (result[at + b] != aos[k * e + b]) {
        atomicMin(first_wrong, static_cast<unsigned long long>(k));
        break;
      }
  }
}

void check(cudaError_t result, const char* what) {
  if (result != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(result));
}

unsigned blocks_for(std::int64_t items) {
  const std::int64_t wanted = (items + threads - 1) / threads;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, 65536)));
}

}  // namespace

void fill_on_device(std::byte* data, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  const std::uint64_t words = (bytes + 7) / 8;
  fill_kernel<<<blocks_for(static_cast<std::int64_t>(words)), threads, 0, stream>>>(
      reinterpret_cast<unsigned char*>(data), words, bytes, seed);
  check(cudaGetLastError(), "fill_kernel");
}

void arrange_on_device(const std::byte* aos, std::byte* out, std::int64_t n, std::int64_t S,
                       std::size_t e, xpose::layout l, cudaStream_t stream) {
  arrange_kernel<<<blocks_for(n * S), threads, 0, stream>>>(
      reinterpret_cast<const unsigned char*>(aos), reinterpret_cast<unsigned char*>(out), n, S,
      static_cast<std::int64_t>(e), l.kind, l.tile);
  check(cudaGetLastError(), "arrange_kernel");
}

std::string compare_on_device(const std::byte* result, const std::byte* aos, std::int64_t n,
                              std::int64_t S, std::size_t e, xpose::layout l, cudaStream_t stream) {
  unsigned long long* first = nullptr;
  check(cudaMallocAsync(reinterpret_cast<void**>(&first), sizeof *first, stream),
        "cudaMallocAsync");
  unsigned long long host = ~0ull;
  cudaError_t status = cudaMemcpyAsync(first, &host, sizeof host, cudaMemcpyHostToDevice, stream);
  if (status == cudaSuccess) {
    compare_kernel<<<blocks_for(n * S), threads, 0, stream>>>(
        reinterpret_cast<const unsigned char*>(result), reinterpret_cast<const unsigned char*>(aos),
        n, S, static_cast<std::int64_t>(e), l.kind, l.tile, first);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess)
    status = cudaMemcpyAsync(&host, first, sizeof host, cudaMemcpyDeviceToHost, stream);
  cudaFreeAsync(first, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  check(status, "compare_kernel");
  return host == ~0ull ? std::string() : wrong_field_message(static_cast<std::int64_t>(host), S, l);
}

}  // namespace xpose_cli
