// How fast pageable host memory can be made DMA-able in place (cudaHostRegister), against the
// staging of src/host/staging.hpp: registration of a touched, pageable buffer that does not start
// on a page, whole on one thread and cut at page boundaries into one piece per thread on 2 to 16
// threads (registered concurrently), then H2D and D2H of every piece and unregistration, each
// timed alone; a pinned H2D and a pageable cudaMemcpy both ways for scale. A copy may not cross
// from one registered piece into the next (the runtime refuses it: invalid argument), so the
// pieces are copied one by one.
//   usage: xpose_registration_probe [GIB]   (default 4)
#include <cuda_runtime.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(result));
  std::exit(1);
}

constexpr std::uintptr_t page = 4096;

}  // namespace

int main(int argc, char** argv) {
  const std::size_t bytes = static_cast<std::size_t>(argc > 1 ? std::atoi(argv[1]) : 4) << 30;
  std::vector<char> storage(bytes + page);
  char* host = storage.data() + 64;  // off a page boundary, as a caller's array may be
  std::memset(host, 1, bytes);
  char* device = nullptr;
  check(cudaMalloc(&device, bytes), "cudaMalloc");
  char* pinned = nullptr;
  const std::size_t pinned_bytes = std::size_t{1} << 30;
  check(cudaMallocHost(&pinned, pinned_bytes), "cudaMallocHost");
  double t0 = seconds();
  for (int i = 0; i < 3; ++i)
    check(cudaMemcpy(device, pinned, pinned_bytes, cudaMemcpyHostToDevice), "pinned H2D");
  std::printf("%zu GiB; pinned H2D %.1f GB/s\n", bytes >> 30,
              3.0 * pinned_bytes / (seconds() - t0) / 1e9);
  for (const int threads : {1, 2, 4, 8, 16}) {
    std::vector<char*> cut(static_cast<std::size_t>(threads) + 1);
    for (int t = 0; t <= threads; ++t) {
      auto at = reinterpret_cast<std::uintptr_t>(host) + bytes / threads * t;
      if (t > 0 && t < threads) at = (at + page - 1) / page * page;
      cut[t] = t == threads ? host + bytes : reinterpret_cast<char*>(at);
    }
    int failed = 0;
    t0 = seconds();
#pragma omp parallel for num_threads(threads) reduction(+ : failed)
    for (int t = 0; t < threads; ++t)
      if (cudaHostRegister(cut[t], cut[t + 1] - cut[t], cudaHostRegisterDefault) != cudaSuccess)
        ++failed;
    const double registering = seconds() - t0;
    if (failed > 0) {
      std::printf("threads %2d: %d registrations failed\n", threads, failed);
      return 1;
    }
    double copies[2];
    for (int way = 0; way < 2; ++way) {
      t0 = seconds();
      for (int t = 0; t < threads; ++t) {
        char* on_device = device + (cut[t] - host);
        check(way == 0 ? cudaMemcpyAsync(on_device, cut[t], cut[t + 1] - cut[t],
                                         cudaMemcpyHostToDevice, nullptr)
                       : cudaMemcpyAsync(cut[t], on_device, cut[t + 1] - cut[t],
                                         cudaMemcpyDeviceToHost, nullptr),
              "copy of a registered piece");
      }
      check(cudaDeviceSynchronize(), "copies");
      copies[way] = seconds() - t0;
    }
    t0 = seconds();
#pragma omp parallel for num_threads(threads)
    for (int t = 0; t < threads; ++t) cudaHostUnregister(cut[t]);
    const double unregistering = seconds() - t0;
    std::printf(
        "threads %2d: register %.1f GB/s, H2D %.1f GB/s, D2H %.1f GB/s, unregister %.1f GB/s\n",
        threads, bytes / registering / 1e9, bytes / copies[0] / 1e9, bytes / copies[1] / 1e9,
        bytes / unregistering / 1e9);
  }
  t0 = seconds();
  check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "pageable H2D");
  const double h2d = seconds() - t0;
  t0 = seconds();
  check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "pageable D2H");
  std::printf("pageable cudaMemcpy: H2D %.1f GB/s, D2H %.1f GB/s\n", bytes / h2d / 1e9,
              bytes / (seconds() - t0) / 1e9);
  cudaFreeHost(pinned);
  cudaFree(device);
  return 0;
}
