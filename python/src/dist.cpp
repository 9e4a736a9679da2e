// xpose.dist's compiled side: see dist.hpp. Every call that may wait on other processes
// (ncclCommInitRank) or on the GPU releases the GIL.
#include "dist.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xpose/error.hpp"

#if defined(XPOSE_HAVE_NCCL)
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <optional>

#include "device.hpp"
#include "xpose/dist.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace xpose_python {

namespace {

bool has_nccl() noexcept {
#if defined(XPOSE_HAVE_NCCL)
  return true;
#else
  return false;
#endif
}

#if defined(XPOSE_HAVE_NCCL)

[[noreturn]] void invalid(const std::string& message) {
  throw xpose::error(xpose::status::invalid_argument, message);
}

void check_nccl(ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return;
  throw xpose::error(xpose::status::device_error,
                     std::string(what) + " failed: " + ncclGetErrorString(result));
}

/// A fresh ncclUniqueId as bytes, for one process to make and the others to receive.
nb::bytes nccl_unique_id() {
  ncclUniqueId id;
  check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return nb::bytes(id.internal, sizeof(id.internal));
}

/// One rank's NCCL communicator on `device`, joined with the other ranks through `id`.
class nccl_communicator {
 public:
  nccl_communicator(const std::string& id, int ranks, int rank, int device)
      : ranks_(ranks), rank_(rank), device_(device) {
    if (id.size() != sizeof(ncclUniqueId::internal))
      invalid("an NCCL unique id has " + std::to_string(sizeof(ncclUniqueId::internal)) +
              " bytes, got " + std::to_string(id.size()));
    if (ranks < 1 || rank < 0 || rank >= ranks)
      invalid("rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " ranks");
    ncclUniqueId unique;
    std::memcpy(unique.internal, id.data(), sizeof(unique.internal));
    const device_guard on(device);
    check_nccl(ncclCommInitRank(&comm_, ranks, unique, rank), "ncclCommInitRank");
  }
  ~nccl_communicator() { destroy(); }
  nccl_communicator(const nccl_communicator&) = delete;
  nccl_communicator& operator=(const nccl_communicator&) = delete;

  /// Frees the communicator (every rank should, the same way); later use is an error.
  void destroy() noexcept {
    if (comm_ == nullptr) return;
    int previous = -1;
    static_cast<void>(cudaGetDevice(&previous));
    static_cast<void>(cudaSetDevice(device_));
    static_cast<void>(ncclCommDestroy(comm_));
    if (previous >= 0) static_cast<void>(cudaSetDevice(previous));
    comm_ = nullptr;
  }
  ncclComm_t get() const {
    if (comm_ == nullptr) invalid("the communicator was destroyed");
    return comm_;
  }
  int ranks() const noexcept { return ranks_; }
  int rank() const noexcept { return rank_; }
  int device() const noexcept { return device_; }

 private:
  ncclComm_t comm_ = nullptr;
  int ranks_, rank_, device_;
};

xpose::dist::scheme scheme_named(const std::string& name) {
  using xpose::dist::scheme;
  for (scheme s : {scheme::automatic, scheme::rows_even, scheme::cols_even, scheme::any_split})
    if (name == xpose::dist::to_string(s)) return s;
  invalid("unknown scheme '" + name + "': automatic, rows_even, cols_even or any_split");
}

xpose::dist::distributed_matrix describe_matrix(std::int64_t rows, std::int64_t cols,
                                                std::size_t elem_size, int ranks,
                                                const std::vector<std::int64_t>& row_split,
                                                const std::vector<std::int64_t>& col_split) {
  xpose::dist::distributed_matrix m;
  m.rows = rows;
  m.cols = cols;
  m.elem_size = elem_size;
  m.ranks = ranks;
  m.row_split = row_split;
  m.col_split = col_split;
  m.validate();
  return m;
}

/// Per rank: (row_first, row_count, col_first, col_count, capacity_bytes) of the description;
/// raises the library's InvalidArgumentError when the description is not valid.
std::vector<std::vector<std::int64_t>> dist_layout(std::int64_t rows, std::int64_t cols,
                                                   std::size_t elem_size, int ranks,
                                                   const std::vector<std::int64_t>& row_split,
                                                   const std::vector<std::int64_t>& col_split) {
  const auto m = describe_matrix(rows, cols, elem_size, ranks, row_split, col_split);
  std::vector<std::vector<std::int64_t>> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back({m.row_first(r), m.row_count(r), m.col_first(r), m.col_count(r),
                   static_cast<std::int64_t>(m.capacity_bytes(r))});
  return out;
}

/// One rank's xpose::dist::plan, made on `device` with its stages on `stream`.
class dist_plan_handle {
 public:
  dist_plan_handle(std::int64_t rows, std::int64_t cols, std::size_t elem_size, int ranks, int rank,
                   const std::vector<std::int64_t>& row_split,
                   const std::vector<std::int64_t>& col_split, int device, std::uintptr_t stream,
                   const std::string& scheme, std::size_t chunk_bytes, int peers_at_once)
      : device_(device) {
    const auto m = describe_matrix(rows, cols, elem_size, ranks, row_split, col_split);
    xpose::dist::options opts;
    opts.local = scheme_named(scheme);
    opts.chunk_bytes = chunk_bytes;
    opts.peers_at_once = peers_at_once;
    const device_guard on(device);
    plan_.emplace(xpose::dist::plan_inplace(m, rank, reinterpret_cast<cudaStream_t>(stream), opts));
  }
  ~dist_plan_handle() {
    // The plan frees its scratch on its device.
    const device_guard on(device_);
    plan_.reset();
  }
  dist_plan_handle(const dist_plan_handle&) = delete;
  dist_plan_handle& operator=(const dist_plan_handle&) = delete;

  void execute(std::uintptr_t local, const nccl_communicator& comm) const {
    plan_->execute(reinterpret_cast<void*>(local), comm.get());
  }
  std::string describe() const { return plan_->describe(); }
  std::string scheme() const { return xpose::dist::to_string(plan_->chosen_scheme()); }
  std::size_t chunk_bytes() const noexcept { return plan_->chunk_bytes(); }
  int peers_at_once() const noexcept { return plan_->peers_at_once(); }
  std::size_t workspace_bytes() const noexcept { return plan_->workspace_bytes(); }
  std::size_t memory_bound_bytes() const noexcept { return plan_->memory_bound_bytes(); }
  int rank() const noexcept { return plan_->rank(); }
  int device() const noexcept { return device_; }

 private:
  std::optional<xpose::dist::plan> plan_;
  int device_;
};

#endif

}  // namespace

void bind_dist(nb::module_& m) {
  m.def("has_nccl", &has_nccl,
        "Whether this build has the distributed transposition (xpose.dist, through NCCL).");
#if defined(XPOSE_HAVE_NCCL)
  m.def("nccl_unique_id", &nccl_unique_id, "A fresh ncclUniqueId, as bytes.");
  m.def("dist_layout", &dist_layout, "rows"_a, "cols"_a, "elem_size"_a, "ranks"_a, "row_split"_a,
        "col_split"_a, "Per rank: [row_first, row_count, col_first, col_count, capacity_bytes].");

  nb::class_<nccl_communicator>(m, "NcclComm", "One rank's NCCL communicator on a CUDA device.")
      .def(
          "__init__",
          [](nccl_communicator* self, nb::bytes id, int ranks, int rank, int device) {
            const std::string unique(id.c_str(), id.size());
            nb::gil_scoped_release released;
            new (self) nccl_communicator(unique, ranks, rank, device);
          },
          "unique_id"_a, "ranks"_a, "rank"_a, "device"_a)
      .def("destroy", &nccl_communicator::destroy, nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("ranks", &nccl_communicator::ranks)
      .def_prop_ro("rank", &nccl_communicator::rank)
      .def_prop_ro("device", &nccl_communicator::device);

  nb::class_<dist_plan_handle>(m, "DistPlan", "One rank's plan of a distributed transposition.")
      .def(
          "__init__",
          [](dist_plan_handle* self, std::int64_t rows, std::int64_t cols, std::size_t elem_size,
             int ranks, int rank, const std::vector<std::int64_t>& row_split,
             const std::vector<std::int64_t>& col_split, int device, std::uintptr_t stream,
             const std::string& scheme, std::size_t chunk_bytes, int peers_at_once) {
            nb::gil_scoped_release released;
            new (self) dist_plan_handle(rows, cols, elem_size, ranks, rank, row_split, col_split,
                                        device, stream, scheme, chunk_bytes, peers_at_once);
          },
          "rows"_a, "cols"_a, "elem_size"_a, "ranks"_a, "rank"_a, "row_split"_a, "col_split"_a,
          "device"_a, "stream"_a, "scheme"_a, "chunk_bytes"_a, "peers_at_once"_a = 0)
      .def("execute", &dist_plan_handle::execute, "local"_a, "comm"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("describe", &dist_plan_handle::describe)
      .def_prop_ro("scheme", &dist_plan_handle::scheme)
      .def_prop_ro("chunk_bytes", &dist_plan_handle::chunk_bytes)
      .def_prop_ro("peers_at_once", &dist_plan_handle::peers_at_once)
      .def_prop_ro("workspace_bytes", &dist_plan_handle::workspace_bytes)
      .def_prop_ro("memory_bound_bytes", &dist_plan_handle::memory_bound_bytes)
      .def_prop_ro("rank", &dist_plan_handle::rank)
      .def_prop_ro("device", &dist_plan_handle::device);
#endif
}

}  // namespace xpose_python
