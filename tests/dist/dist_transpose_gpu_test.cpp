// Distributed in-place transposition through NCCL on the visible GPUs: every rank's block after
// the transposition compared byte for byte with the host's transpose of the gathered matrix, and
// transposed back to the original. One process drives all ranks (device_group, group_plan), or
// one thread per rank drives its own communicator and plan, as one process per GPU would. Tests
// that need more GPUs than are visible skip. NVLink multicast stays off (main sets
// NCCL_NVLS_ENABLE=0 before any NCCL call).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"
#include "xpose/dist.hpp"
#include "xpose/error.hpp"

namespace xpose::dist {
namespace {

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return 0;
  }
  return count;
}

#define XPOSE_REQUIRE_GPUS(n)                                                       \
  do {                                                                              \
    if (visible_gpus() < (n))                                                       \
      GTEST_SKIP() << "needs " << (n) << " GPUs, " << visible_gpus() << " visible"; \
  } while (0)

/// Device groups made once per list of devices (communicator setup takes a while), destroyed
/// before the CUDA runtime goes.
class groups : public ::testing::Environment {
 public:
  static const device_group& of(const std::vector<int>& devices) {
    auto& made = instances();
    auto it = made.find(devices);
    if (it == made.end()) it = made.emplace(devices, std::make_unique<device_group>(devices)).first;
    return *it->second;
  }
  void TearDown() override { instances().clear(); }

 private:
  static std::map<std::vector<int>, std::unique_ptr<device_group>>& instances() {
    static std::map<std::vector<int>, std::unique_ptr<device_group>> made;
    return made;
  }
};

std::vector<int> first_devices(int count) {
  std::vector<int> devices;
  for (int d = 0; d < count; ++d) devices.push_back(d);
  return devices;
}

/// A rank's buffer: device memory of capacity_bytes, the rest poisoned.
class rank_buffer {
 public:
  rank_buffer(int device, std::size_t bytes) : device_(device), bytes_(bytes) {
    EXPECT_EQ(cudaSetDevice(device), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(ptr_, 0xA5, bytes), cudaSuccess);
  }
  ~rank_buffer() {
    cudaSetDevice(device_);
    cudaFree(ptr_);
  }
  rank_buffer(const rank_buffer&) = delete;
  rank_buffer& operator=(const rank_buffer&) = delete;
  void* get() const { return ptr_; }
  void upload(const unsigned char* host, std::size_t bytes) const {
    cudaSetDevice(device_);
    ASSERT_EQ(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<unsigned char> download(std::size_t bytes) const {
    cudaSetDevice(device_);
    std::vector<unsigned char> host(bytes);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr_, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  int device_;
  std::size_t bytes_;
  void* ptr_ = nullptr;
};

std::string describe_case(const distributed_matrix& m, const options& o,
                          const std::vector<int>& devices) {
  std::string text = std::to_string(m.rows) + " x " + std::to_string(m.cols) + " x " +
                     std::to_string(m.elem_size) + " on devices";
  for (int d : devices) text += " " + std::to_string(d);
  text += ", rows";
  for (int r = 0; r < m.ranks; ++r) text += " " + std::to_string(m.row_count(r));
  text += ", cols";
  for (int r = 0; r < m.ranks; ++r) text += " " + std::to_string(m.col_count(r));
  text += ", scheme " + std::string(to_string(o.local)) + ", chunk " +
          std::to_string(o.chunk_bytes) + ", peers at once " + std::to_string(o.peers_at_once);
  return text;
}

/// Compares rank r's block of `matrix` (rows [first, first + count) of the rows x cols matrix
/// `whole`) with the buffer's first bytes.
void expect_block(const rank_buffer& buffer, const std::vector<unsigned char>& whole,
                  std::int64_t first, std::int64_t count, std::int64_t cols, std::size_t e,
                  int rank, const char* when) {
  const std::size_t bytes = static_cast<std::size_t>(count * cols) * e;
  const std::vector<unsigned char> got = buffer.download(bytes);
  const unsigned char* want = whole.data() + static_cast<std::size_t>(first * cols) * e;
  for (std::size_t i = 0; i < bytes; ++i)
    if (got[i] != want[i]) {
      ADD_FAILURE() << when << ": rank " << rank << " differs first at byte " << i << " (element "
                    << i / e << " of its " << count << " x " << cols << " block)";
      return;
    }
}

/// The matrix through group_plan on `devices` (rank r on devices[r]), then back.
void check_group(const distributed_matrix& m, const options& o, const std::vector<int>& devices,
                 bool within_bound = true) {
  SCOPED_TRACE(describe_case(m, o, devices));
  const device_group& group = groups::of(devices);
  const std::size_t e = m.elem_size;
  const auto matrix =
      test::random_bytes(static_cast<std::size_t>(m.rows * m.cols) * e, 17 + m.rows + e);
  const auto transpose = test::reference_transpose(matrix, m.rows, m.cols, e);
  std::vector<std::unique_ptr<rank_buffer>> buffers;
  std::vector<void*> locals;
  for (int r = 0; r < m.ranks; ++r) {
    buffers.push_back(std::make_unique<rank_buffer>(group.device(r), m.capacity_bytes(r)));
    buffers.back()->upload(matrix.data() + static_cast<std::size_t>(m.row_first(r) * m.cols) * e,
                           static_cast<std::size_t>(m.row_count(r) * m.cols) * e);
    locals.push_back(buffers.back()->get());
  }
  const group_plan forward(m, group, o);
  EXPECT_FALSE(forward.describe().empty());
  for (int r = 0; r < m.ranks && within_bound; ++r)
    EXPECT_LE(forward.rank_plan(r).workspace_bytes(), forward.rank_plan(r).memory_bound_bytes())
        << "rank " << r << ":\n"
        << forward.rank_plan(r).describe();
  forward.execute(locals);
  group.synchronize();
  for (int r = 0; r < m.ranks; ++r)
    expect_block(*buffers[r], transpose, m.col_first(r), m.col_count(r), m.rows, e, r,
                 "transposed");

  options back_options = o;
  back_options.local = scheme::automatic;
  transpose_inplace(m.transposed(), locals, group, back_options);
  for (int r = 0; r < m.ranks; ++r)
    expect_block(*buffers[r], matrix, m.row_first(r), m.row_count(r), m.cols, e, r, "back");
}

distributed_matrix even(std::int64_t rows, std::int64_t cols, std::size_t e, int ranks) {
  distributed_matrix m;
  m.rows = rows;
  m.cols = cols;
  m.elem_size = e;
  m.ranks = ranks;
  return m;
}

distributed_matrix split(std::int64_t rows, std::int64_t cols, std::size_t e,
                         std::vector<std::int64_t> row_split, std::vector<std::int64_t> col_split) {
  distributed_matrix m = even(rows, cols, e, static_cast<int>(row_split.size()));
  m.row_split = std::move(row_split);
  m.col_split = std::move(col_split);
  return m;
}

/// Rank counts to try: 2, 3 and 4 where visible (1 in the single-GPU test).
std::vector<int> rank_counts() {
  std::vector<int> counts;
  for (int p : {2, 3, 4})
    if (p <= visible_gpus()) counts.push_back(p);
  return counts;
}

const std::size_t element_sizes[] = {1, 2, 4, 8, 16, 12};

// With both splits even the automatic scheme weighs rows_even against cols_even: the local block
// whose long side is a multiple of its short one goes by the GPU's square blocks. Plans only (no
// data, no communicator): every rank's plan is made on one GPU.
TEST(DistTranspose, AutomaticSchemeWeighsBothEvenSchemes) {
  XPOSE_REQUIRE_GPUS(1);
  for (int rank : {0, 1}) {
    // 50000 x 20000 rows per rank (2.5: no square blocks), 100000 x 10000 columns (10 blocks).
    const plan tall = plan_inplace(even(100000, 20000, 8, 2), rank);
    EXPECT_EQ(tall.chosen_scheme(), scheme::cols_even) << tall.describe();
    // 32768 x 65536 rows per rank (2 blocks) and 65536 x 32768 columns: rows_even on the tie.
    const plan square = plan_inplace(even(65536, 65536, 4, 2), rank);
    EXPECT_EQ(square.chosen_scheme(), scheme::rows_even) << square.describe();
    options forced;
    forced.local = scheme::rows_even;
    EXPECT_EQ(plan_inplace(even(100000, 20000, 8, 2), rank, nullptr, forced).chosen_scheme(),
              scheme::rows_even);
  }
}

TEST(DistTranspose, OneGpu) {
  XPOSE_REQUIRE_GPUS(1);
  for (std::size_t e : element_sizes) check_group(even(1009, 997, e, 1), {}, {0});
  check_group(even(64, 48, 12, 1), {}, {0});
}

TEST(DistTranspose, EvenSplitsEverySchemeAndElementSize) {
  XPOSE_REQUIRE_GPUS(2);
  for (int p : rank_counts())
    for (std::size_t e : element_sizes)
      for (scheme s : {scheme::automatic, scheme::cols_even, scheme::any_split}) {
        options o;
        o.local = s;
        check_group(even(240, 360, e, p), o, first_devices(p));
      }
}

TEST(DistTranspose, PrimesAsEvenAsPossible) {
  XPOSE_REQUIRE_GPUS(2);
  for (int p : rank_counts())
    for (std::size_t e : element_sizes) check_group(even(1009, 997, e, p), {}, first_devices(p));
}

TEST(DistTranspose, OneSplitEvenTheOtherNot) {
  XPOSE_REQUIRE_GPUS(2);
  for (int p : rank_counts())
    for (std::size_t e : {std::size_t{4}, std::size_t{12}}) {
      check_group(even(240, 1001, e, p), {}, first_devices(p));  // rows_even
      check_group(even(1001, 240, e, p), {}, first_devices(p));  // cols_even
    }
}

TEST(DistTranspose, ChosenUnevenSplitsAndSmallChunks) {
  XPOSE_REQUIRE_GPUS(2);
  options o;
  o.park_limit_bytes = std::size_t{1} << 30;
  for (int peers : {0, 1})
    for (std::size_t chunk : {std::size_t{0}, std::size_t{1000}, std::size_t{65536}}) {
      o.chunk_bytes = chunk;
      o.peers_at_once = peers;
      check_group(split(1001, 997, 4, {100, 901}, {700, 297}), o, {0, 1}, false);
      check_group(split(500, 300, 8, {0, 500}, {150, 150}), o, {0, 1}, false);
      check_group(split(257, 263, 2, {257, 0}, {0, 263}), o, {0, 1}, false);
      if (visible_gpus() >= 3)
        check_group(split(331, 317, 12, {5, 300, 26}, {100, 1, 216}), o, {0, 1, 2}, false);
      if (visible_gpus() >= 4)
        check_group(split(1001, 997, 16, {5, 300, 17, 679}, {100, 1, 500, 396}), o, {0, 1, 2, 3},
                    false);
    }
}

TEST(DistTranspose, PeersAtOnceOneTwoAndAll) {
  XPOSE_REQUIRE_GPUS(2);
  for (int p : rank_counts())
    for (int peers : {1, 2, 0}) {
      options o;
      o.peers_at_once = peers;
      check_group(even(1009, 997, 4, p), o, first_devices(p));
      check_group(even(480, 360, 12, p), o, first_devices(p));
      o.chunk_bytes = 1000;
      check_group(even(331, 317, 8, p), o, first_devices(p));
      const group_plan plan(even(1009, 997, 4, p), groups::of(first_devices(p)), o);
      EXPECT_EQ(plan.rank_plan(0).peers_at_once(), peers == 0 ? p - 1 : std::min(peers, p - 1));
    }
}

TEST(DistTranspose, RanksOnOtherDevicesAndSubsets) {
  XPOSE_REQUIRE_GPUS(2);
  const int n = visible_gpus();
  check_group(even(1009, 997, 8, 2), {}, {1, 0});
  check_group(even(1009, 997, 8, 2), {}, {n - 1, n - 2});
  if (n >= 4) {
    check_group(even(1009, 997, 4, 3), {}, {3, 1, 2});
    check_group(even(1009, 997, 4, 2), {}, {0, 3});
  }
}

TEST(DistTranspose, LargerMatrixManyChunks) {
  XPOSE_REQUIRE_GPUS(2);
  for (int p : rank_counts()) {
    options o;
    o.chunk_bytes = std::size_t{1} << 20;
    check_group(even(4099, 2053, 4, p), o, first_devices(p));
    check_group(even(4096, 2048, 8, p), {}, first_devices(p));
  }
}

/// One thread per rank, each with its communicator (ncclCommInitRank) and its plan, as one
/// process per GPU would run; then the one-call form back.
void check_threads(const distributed_matrix& m, const options& o) {
  SCOPED_TRACE(describe_case(m, o, first_devices(m.ranks)));
  const std::size_t e = m.elem_size;
  const auto matrix = test::random_bytes(static_cast<std::size_t>(m.rows * m.cols) * e, 5);
  const auto transpose = test::reference_transpose(matrix, m.rows, m.cols, e);
  ncclUniqueId id;
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  std::vector<std::string> failures(static_cast<std::size_t>(m.ranks));
  std::vector<std::unique_ptr<rank_buffer>> buffers(static_cast<std::size_t>(m.ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < m.ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        cudaSetDevice(r);
        ncclComm_t comm = nullptr;
        if (ncclCommInitRank(&comm, m.ranks, id, r) != ncclSuccess)
          throw std::runtime_error("ncclCommInitRank failed");
        cudaStream_t stream = nullptr;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        buffers[r] = std::make_unique<rank_buffer>(r, m.capacity_bytes(r));
        buffers[r]->upload(matrix.data() + static_cast<std::size_t>(m.row_first(r) * m.cols) * e,
                           static_cast<std::size_t>(m.row_count(r) * m.cols) * e);
        options measured = o;
        measured.measured = measure_bandwidths(comm, stream, std::size_t{8} << 20);
        if (measured.measured.copy <= 0 || measured.measured.link <= 0 ||
            measured.measured.link_all_peers <= 0)
          throw std::runtime_error("measure_bandwidths gave no bandwidth");
        const plan p = plan_inplace(m, r, stream, measured);
        if (p.predicted_seconds() <= 0) throw std::runtime_error("no predicted time");
        p.execute(buffers[r]->get(), comm);
        cudaStreamSynchronize(stream);
        const std::size_t bytes = static_cast<std::size_t>(m.col_count(r) * m.rows) * e;
        const auto got = buffers[r]->download(bytes);
        if (std::memcmp(got.data(),
                        transpose.data() + static_cast<std::size_t>(m.col_first(r) * m.rows) * e,
                        bytes) != 0)
          throw std::runtime_error("rank " + std::to_string(r) + ": transposed block differs");
        transpose_inplace(m.transposed(), buffers[r]->get(), comm, stream);
        const std::size_t back = static_cast<std::size_t>(m.row_count(r) * m.cols) * e;
        const auto original = buffers[r]->download(back);
        if (std::memcmp(original.data(),
                        matrix.data() + static_cast<std::size_t>(m.row_first(r) * m.cols) * e,
                        back) != 0)
          throw std::runtime_error("rank " + std::to_string(r) + ": block back differs");
        cudaStreamDestroy(stream);
        ncclCommDestroy(comm);
      } catch (const std::exception& e) {
        failures[r] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < m.ranks; ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
  buffers.clear();
}

TEST(DistTranspose, OneThreadPerRank) {
  XPOSE_REQUIRE_GPUS(2);
  for (int p : rank_counts()) {
    check_threads(even(1009, 997, 8, p), {});
    check_threads(even(480, 360, 4, p), {});
  }
}

TEST(DistTranspose, BandwidthsGiveAPredictedTime) {
  XPOSE_REQUIRE_GPUS(2);
  const device_group& group = groups::of({0, 1});
  options o;
  o.measured = measure_bandwidths(group, std::size_t{16} << 20);
  EXPECT_GT(o.measured.copy, 0);
  EXPECT_GT(o.measured.link, 0);
  EXPECT_GT(o.measured.link_all_peers, 0);
  const group_plan p(even(4096, 4096, 4, 2), group, o);
  EXPECT_GT(p.rank_plan(0).predicted_seconds(), 0);
  const std::string text = p.describe();
  EXPECT_NE(text.find("predicted:"), std::string::npos) << text;
  std::printf("%s", text.c_str());
  if (visible_gpus() >= 3) {
    const int n = std::min(visible_gpus(), 4);
    const device_group& more = groups::of(first_devices(n));
    options all;
    all.measured = measure_bandwidths(more, std::size_t{16} << 20);
    EXPECT_GT(all.measured.link_all_peers, 0);
    const group_plan q(even(4096, 4096, 4, n), more, all);
    EXPECT_EQ(q.rank_plan(0).peers_at_once(), n - 1);
    EXPECT_GT(q.rank_plan(0).predicted_seconds(), 0);
    std::printf("%s", q.describe().c_str());
  }
}

TEST(DistTranspose, RefusesWrongArguments) {
  XPOSE_REQUIRE_GPUS(2);
  const device_group& group = groups::of({0, 1});
  const distributed_matrix m = even(300, 200, 4, 2);
  const group_plan p(m, group, {});
  rank_buffer a(0, m.capacity_bytes(0)), b(1, m.capacity_bytes(1));
  rank_buffer small(1, m.capacity_bytes(1) / 2);
  const auto code_of = [](const auto& call) {
    try {
      call();
    } catch (const error& e) {
      return e.code();
    }
    return status::success;
  };
  EXPECT_EQ(code_of([&] { p.execute({a.get()}); }), status::invalid_argument);
  EXPECT_EQ(code_of([&] { p.execute({a.get(), nullptr}); }), status::invalid_argument);
  EXPECT_EQ(code_of([&] { p.execute({b.get(), a.get()}); }), status::invalid_argument);
  EXPECT_EQ(code_of([&] { p.execute({a.get(), small.get()}); }), status::invalid_argument);
  EXPECT_EQ(code_of([&] { p.rank_plan(0).execute(a.get(), group.comm(1)); }),
            status::invalid_argument);
  EXPECT_EQ(code_of([&] { group_plan(even(300, 200, 4, 3), group, {}); }),
            status::invalid_argument);
}

}  // namespace
}  // namespace xpose::dist

int main(int argc, char** argv) {
  // NVLink multicast off for every NCCL communicator of this process (the device machines
  // require it), before any NCCL call.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new xpose::dist::groups);
  return RUN_ALL_TESTS();
}
