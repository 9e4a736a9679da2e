// A rank's distributed plan: planning (local stages, every rank's exchange schedule, the scratch),
// execution on one communicator, and describe().
#include <cuda.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "api/shared_scratch.hpp"
#include "cuda/backend/cuda_backend.hpp"
#include "cuda/inplace/tiled_transpose.hpp"
#include "dist/plan_state.hpp"
#include "plan/bytes_text.hpp"
#include "plan/staged_routes.hpp"
#include "xpose/dist.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"
#include "xpose/route.hpp"
#include "xpose/shape.hpp"

namespace xpose::detail::dist {

using xpose::dist::scheme;

void check_nccl(ncclResult_t result, const char* what, ncclComm_t comm) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  std::string message = std::string(what) + " failed: " + ncclGetErrorString(result);
  if (comm != nullptr) {
    const char* last = ncclGetLastError(comm);
    if (last != nullptr && *last != '\0') message += " (" + std::string(last) + ")";
  }
  throw error(status::device_error, message);
}

nccl_group::nccl_group(ncclComm_t comm) : comm_(comm) {
  check_nccl(ncclGroupStart(), "ncclGroupStart", comm);
}

nccl_group::~nccl_group() {
  if (open_) ncclGroupEnd();  // an exception left it open; the first error is the one reported
}

void nccl_group::end(const std::vector<ncclComm_t>& comms) {
  open_ = false;
  const ncclResult_t ended = ncclGroupEnd();
  check_nccl(ended, "ncclGroupEnd", comm_);
  if (ended != ncclInProgress) return;
  for (ncclComm_t comm : comms) {
    ncclResult_t state = ncclInProgress;
    while (state == ncclInProgress)
      check_nccl(ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError", comm);
    if (state != ncclSuccess) check_nccl(state, "ncclGroupEnd (non-blocking)", comm);
  }
}

void check_cuda(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  static_cast<void>(cudaGetLastError());  // a later call should not report this one
  throw error(result == cudaErrorMemoryAllocation ? status::out_of_memory : status::device_error,
              std::string(what) + " failed: " + cudaGetErrorString(result));
}

device_scope::device_scope(int device) {
  int current = 0;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  if (current == device) return;
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  previous_ = current;
}

device_scope::~device_scope() {
  if (previous_ >= 0) static_cast<void>(cudaSetDevice(previous_));
}

plan_state::~plan_state() {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  if (current != device) static_cast<void>(cudaSetDevice(device));
  if (copy_stream != nullptr) {
    static_cast<void>(cudaStreamSynchronize(copy_stream));
    static_cast<void>(cudaStreamDestroy(copy_stream));
  }
  for (cudaEvent_t e : received)
    if (e != nullptr) static_cast<void>(cudaEventDestroy(e));
  for (cudaEvent_t e : copied)
    if (e != nullptr) static_cast<void>(cudaEventDestroy(e));
  scratch.reset();
  before.clear();
  after.clear();
  if (current != device) static_cast<void>(cudaSetDevice(current));
}

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw error(status::invalid_argument, message);
}

std::string fixed(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

local_runner make_runner(const local_op& op, cudaStream_t stream,
                         const std::shared_ptr<void*>& scratch) {
  local_runner r;
  r.op = op;
  if (!op.super) {
    matrix_desc desc;
    desc.rows = op.rows;
    desc.cols = op.cols;
    desc.elem_size = op.unit;
    desc.batch = op.batch;
    plan_options options;
    options.target = device::cuda;
    options.stream = stream;
    r.elements = plan_inplace_sharing_scratch(desc, options, scratch, r.scratch_bytes);
    r.passes = r.elements->predicted_passes();
    return r;
  }
  r.tiled.kind = stage_kind::tiled_transpose;
  r.tiled.label = "010";
  r.tiled.batch = op.batch;
  r.tiled.rows = op.rows;
  r.tiled.cols = op.cols;
  r.tiled.super_bytes = op.unit;
  r.table_bytes = cuda::tiled_table_bytes(r.tiled);
  r.scratch_bytes = cuda::tiled_scratch_bytes(r.tiled);
  r.passes = cuda::tiled_stage_passes(r.tiled);
  if (r.table_bytes > 0) {
    r.table = cuda::allocate_workspace(r.table_bytes);
    cuda::prepare_tiled_table(r.tiled, cuda::tiled_path::automatic, r.table.get());
  }
  return r;
}

/// The allocation holding `pointer` (through the driver's cuMemGetAddressRange, looked up at
/// run time so that the library does not link the driver): its end, or 0 when not known.
std::uintptr_t allocation_end(const void* pointer) {
  using range_function = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
  static range_function get_range = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &function, 12000,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      static_cast<void>(cudaGetLastError());
      return static_cast<range_function>(nullptr);
    }
    return reinterpret_cast<range_function>(function);
  }();
  if (get_range == nullptr) return 0;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (get_range(&base, &size, reinterpret_cast<CUdeviceptr>(pointer)) != CUDA_SUCCESS) return 0;
  return static_cast<std::uintptr_t>(base) + size;
}

double seconds_of(const std::vector<local_runner>& stages, double copy) {
  double seconds = 0;
  for (const local_runner& r : stages)
    seconds += r.passes * 2.0 * static_cast<double>(r.op.bytes()) / copy;
  return seconds;
}

void describe_stages(std::ostringstream& out, const std::vector<local_runner>& stages,
                     int& number) {
  if (stages.empty()) out << "    none (nothing moves)\n";
  for (const local_runner& r : stages) {
    out << "    " << number++ << ". " << r.op.what << "\n       ";
    if (r.op.batch > 1) out << r.op.batch << " x ";
    out << "[" << r.op.rows << " x " << r.op.cols << "] of " << r.op.unit << "-byte "
        << (r.op.super ? "super-elements" : "elements") << " at byte " << r.op.offset << ": ";
    if (r.elements) {
      out << "xpose plan, route " << to_string(r.elements->chosen_route()) << ", "
          << r.elements->stage_count() << " stage" << (r.elements->stage_count() == 1 ? "" : "s")
          << ", tables " << bytes_text(static_cast<double>(r.elements->workspace_bytes()))
          << ", scratch " << bytes_text(static_cast<double>(r.scratch_bytes))
          << " (shared with the exchange)";
    } else {
      out << "elementary tiled transposition (" << cuda::kernel_text(r.tiled) << "), table "
          << bytes_text(static_cast<double>(r.table_bytes)) << ", scratch "
          << bytes_text(static_cast<double>(r.scratch_bytes)) << " (shared with the exchange)";
    }
    out << ", " << fixed(r.passes, 2) << " passes\n";
  }
}

}  // namespace

void check_arguments(const plan_state& s, void* local, ncclComm_t comm) {
  if (local == nullptr) invalid("local is null");
  if (comm == nullptr) invalid("comm is null");
  int count = 0, rank = 0, device = 0;
  check_nccl(ncclCommCount(comm, &count), "ncclCommCount", comm);
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm);
  check_nccl(ncclCommCuDevice(comm, &device), "ncclCommCuDevice", comm);
  if (count != s.matrix.ranks)
    invalid("the communicator has " + std::to_string(count) + " ranks, the matrix is spread over " +
            std::to_string(s.matrix.ranks));
  if (rank != s.rank)
    invalid("the plan is rank " + std::to_string(s.rank) + "'s, the communicator's rank is " +
            std::to_string(rank));
  if (device != s.device)
    invalid("the plan was made on device " + std::to_string(s.device) +
            ", the communicator runs on device " + std::to_string(device));
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, local) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    invalid("local is not a pointer the CUDA runtime knows");
  }
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
    invalid("local must point to device memory");
  if (attributes.type == cudaMemoryTypeDevice && attributes.device != s.device)
    invalid("local is memory of device " + std::to_string(attributes.device) +
            ", the plan's device is " + std::to_string(s.device));
  const std::uintptr_t end = allocation_end(local);
  const std::size_t needed = s.layout.capacity_bytes(s.rank);
  if (end != 0 && end < reinterpret_cast<std::uintptr_t>(local) + needed)
    invalid(
        "local's allocation ends " + std::to_string(end - reinterpret_cast<std::uintptr_t>(local)) +
        " bytes after local; rank " + std::to_string(s.rank) + " needs " + std::to_string(needed) +
        " (capacity_bytes: the larger of its blocks before and after)");
}

void run_local(const plan_state& s, const std::vector<local_runner>& stages, unsigned char* local) {
  for (const local_runner& r : stages) {
    unsigned char* at = local + r.op.offset;
    if (r.elements)
      r.elements->execute(at);
    else
      cuda::launch_tiled_transpose_parts(at, r.tiled, r.table.get(), s.scratch.get(), s.stream);
  }
}

void enqueue_wait(const plan_state& s, std::size_t w) {
  const wave& wv = s.schedule.waves[w];
  if (wv.wait_copies >= 0)
    check_cuda(cudaStreamWaitEvent(s.stream, s.copied[wv.wait_copies % slot_count], 0),
               "cudaStreamWaitEvent (exchange slot)");
}

bool is_self_move(const plan_state& s, std::size_t w) {
  const wave& wv = s.schedule.waves[w];
  return wv.count == 1 && s.schedule.steps[wv.first].peer == s.rank;
}

void enqueue_transfers(const plan_state& s, std::size_t w, unsigned char* local, ncclComm_t comm) {
  const wave& wv = s.schedule.waves[w];
  for (std::size_t g = wv.first; g < wv.first + wv.count; ++g) {
    const step& st = s.schedule.steps[g];
    if (st.peer == s.rank) {
      check_cuda(cudaMemcpyAsync(s.slot(st.slot), local + st.send_offset, st.send_bytes,
                                 cudaMemcpyDeviceToDevice, s.stream),
                 "cudaMemcpyAsync (self move)");
      continue;
    }
    if (st.send_bytes > 0)
      check_nccl(
          ncclSend(local + st.send_offset, st.send_bytes, ncclUint8, st.peer, comm, s.stream),
          "ncclSend", comm);
    if (st.recv_bytes > 0)
      check_nccl(ncclRecv(s.slot(st.slot), st.recv_bytes, ncclUint8, st.peer, comm, s.stream),
                 "ncclRecv", comm);
  }
}

void enqueue_copies(const plan_state& s, std::size_t w, unsigned char* local) {
  const wave& wv = s.schedule.waves[w];
  const int k = static_cast<int>(w % slot_count);
  check_cuda(cudaEventRecord(s.received[k], s.stream), "cudaEventRecord (exchange)");
  check_cuda(cudaStreamWaitEvent(s.copy_stream, s.received[k], 0), "cudaStreamWaitEvent (copies)");
  for (const copy_op& c : wv.copies) {
    const unsigned char* from =
        c.kind == copy_kind::arena_to_buffer ? s.arena() + c.src : s.slot(c.slot) + c.src;
    unsigned char* to = c.kind == copy_kind::slot_to_arena ? s.arena() + c.dst : local + c.dst;
    check_cuda(cudaMemcpyAsync(to, from, c.bytes, cudaMemcpyDeviceToDevice, s.copy_stream),
               "cudaMemcpyAsync (exchange placement)");
  }
  check_cuda(cudaEventRecord(s.copied[k], s.copy_stream), "cudaEventRecord (copies)");
}

void enqueue_exchange_end(const plan_state& s) {
  const std::size_t waves = s.schedule.waves.size();
  if (waves == 0) return;
  check_cuda(cudaStreamWaitEvent(s.stream, s.copied[(waves - 1) % slot_count], 0),
             "cudaStreamWaitEvent (exchange end)");
}

namespace {

void run_exchange(const plan_state& s, unsigned char* local, ncclComm_t comm) {
  for (std::size_t w = 0; w < s.schedule.waves.size(); ++w) {
    enqueue_wait(s, w);
    if (!is_self_move(s, w)) {
      nccl_group group(comm);
      enqueue_transfers(s, w, local, comm);
      group.end({comm});
    } else {
      enqueue_transfers(s, w, local, comm);
    }
    enqueue_copies(s, w, local);
  }
  enqueue_exchange_end(s);
}

}  // namespace

}  // namespace xpose::detail::dist

namespace xpose::dist {

using namespace xpose::detail::dist;
using xpose::detail::bytes_text;

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw error(status::invalid_argument, message);
}

std::string counts_text(const std::vector<std::int64_t>& counts) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(counts.size(), 16);
  for (std::size_t i = 0; i < shown; ++i) text += (i ? " " : "") + std::to_string(counts[i]);
  if (shown < counts.size()) text += " ... (" + std::to_string(counts.size()) + " ranks)";
  return text;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

}  // namespace

plan::plan(std::shared_ptr<plan_state> state) : state_(std::move(state)) {}

plan plan_inplace(const distributed_matrix& matrix, int rank, cudaStream_t stream,
                  const options& opts) {
  matrix.validate();
  if (matrix.elem_size > max_elem_size)
    throw error(status::unsupported, "elem_size " + std::to_string(matrix.elem_size) +
                                         " exceeds the largest element size of the local "
                                         "transpositions (" +
                                         std::to_string(max_elem_size) + " bytes)");
  if (rank < 0 || rank >= matrix.ranks)
    invalid("rank must be in [0, " + std::to_string(matrix.ranks) + "), got " +
            std::to_string(rank));
  auto s = std::make_shared<plan_state>();
  s->matrix = matrix;
  s->rank = rank;
  s->opts = opts;
  s->stream = stream;
  const int ranks = matrix.ranks;
  std::vector<std::int64_t> row_count(static_cast<std::size_t>(ranks)),
      col_count(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    row_count[static_cast<std::size_t>(r)] = matrix.row_count(r);
    col_count[static_cast<std::size_t>(r)] = matrix.col_count(r);
  }
  s->layout = make_layout(matrix.rows, matrix.cols, matrix.elem_size, row_count, col_count);
  s->chosen = resolve_scheme(s->layout, opts.local);
  if (opts.peers_at_once < 0)
    invalid("options.peers_at_once must be 0 (every peer) or positive, got " +
            std::to_string(opts.peers_at_once));
  const exchange_choice exchange =
      choose_exchange(s->layout, opts.chunk_bytes, opts.peers_at_once, opts.park_limit_bytes);
  const std::uint64_t chunk = exchange.chunk;

  // Every rank's schedule, so that a split too uneven for the parking limit is refused by all.
  s->order = exchange.order;
  for (int r = 0; r < ranks; ++r) {
    exchange_schedule schedule = build_schedule(s->layout, r, chunk, s->order);
    const std::uint64_t limit =
        opts.park_limit_bytes > 0 ? opts.park_limit_bytes : automatic_park_limit(s->layout, r);
    if (schedule.arena_bytes > limit)
      throw error(status::unsupported,
                  "the row and column splits are too uneven for the bounded scratch: rank " +
                      std::to_string(r) + " would park " + std::to_string(schedule.arena_bytes) +
                      " bytes received before their place is free, over its limit of " +
                      std::to_string(limit) +
                      " (options.park_limit_bytes; by default the larger of 16 MiB and 1/256 of "
                      "the rank's buffer). Even splits park nothing, near-even ones (as "
                      "even_split gives) little, and two ranks nothing whatever the splits; "
                      "raise options.park_limit_bytes to allow more scratch");
    s->self_move_bytes = std::max(s->self_move_bytes, static_cast<double>(schedule.self_bytes));
    if (r == rank) s->schedule = std::move(schedule);
  }
  const int rounds = pairing_rounds(ranks), width = s->order.rounds_at_once(ranks);
  for (int first = 0; first < rounds; first += width) {
    std::uint64_t largest = 0;
    for (int r = 0; r < ranks; ++r) {
      std::uint64_t sent = 0, got = 0;
      for (int q = first; q < std::min(rounds, first + width); ++q) {
        const int p = round_partner(r, s->order.rounds[static_cast<std::size_t>(q)], ranks);
        if (p == r) continue;
        sent += s->layout.send_bytes(r, p);
        got += s->layout.recv_bytes(r, p);
      }
      largest = std::max({largest, sent, got});
    }
    (width == 1 ? s->one_peer_bytes : s->several_peers_bytes) += static_cast<double>(largest);
  }

  check_cuda(cudaGetDevice(&s->device), "cudaGetDevice");
  // Both splits even: cols_even where the column block it transposes after the exchange (M x n)
  // is square blocks (one side a multiple of the other: about 2.3 passes on the GPU) and the row
  // block rows_even transposes before it (m x N) is not; rows_even otherwise. A rule on the
  // shapes alone, so that every rank, whatever its GPU, makes the same choice.
  if (opts.local == scheme::automatic && s->chosen == scheme::rows_even && ranks > 1 &&
      all_equal(s->layout.col_count)) {
    const std::int64_t m = s->layout.row_count[0], n = s->layout.col_count[0];
    const bool row_blocks = !detail::square_blocks_stages(m, matrix.cols, matrix.elem_size).empty();
    const bool col_blocks = !detail::square_blocks_stages(matrix.rows, n, matrix.elem_size).empty();
    if (col_blocks && !row_blocks) s->chosen = scheme::cols_even;
  }
  const local_stages stages = plan_local_stages(s->layout, rank, s->chosen);
  for (int side = 0; side < 2; ++side)
    for (const local_op& op : side == 0 ? stages.before : stages.after)
      (side == 0 ? s->before : s->after).push_back(make_runner(op, stream, s->local_scratch));
  std::size_t local_scratch = 0;
  bool any_tiled = false;
  for (const auto* side : {&s->before, &s->after})
    for (const local_runner& made : *side) {
      if (made.elements) {
        s->local_plan_bytes += made.elements->workspace_bytes();
      } else {
        any_tiled = true;
        s->local_plan_bytes += made.table_bytes;
      }
      local_scratch = std::max(local_scratch, made.scratch_bytes);
    }
  s->scratch_bytes = std::max<std::size_t>(s->schedule.scratch_bytes(), local_scratch);
  if (any_tiled) s->scratch_bytes = std::max<std::size_t>(s->scratch_bytes, scratch_alignment);
  if (s->scratch_bytes > 0) s->scratch = xpose::detail::cuda::allocate_workspace(s->scratch_bytes);
  *s->local_scratch = s->scratch.get();
  check_cuda(cudaStreamCreateWithFlags(&s->copy_stream, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags (copies)");
  for (int k = 0; k < slot_count; ++k) {
    check_cuda(
        cudaEventCreateWithFlags(&s->received[static_cast<std::size_t>(k)], cudaEventDisableTiming),
        "cudaEventCreate");
    check_cuda(
        cudaEventCreateWithFlags(&s->copied[static_cast<std::size_t>(k)], cudaEventDisableTiming),
        "cudaEventCreate");
  }
  return plan(std::move(s));
}

void plan::execute(void* local, ncclComm_t comm) const {
  const plan_state& s = *state_;
  check_arguments(s, local, comm);
  const std::lock_guard<std::mutex> serialized(state_->lock);
  const device_scope on(s.device);
  auto* bytes = static_cast<unsigned char*>(local);
  run_local(s, s.before, bytes);
  run_exchange(s, bytes, comm);
  run_local(s, s.after, bytes);
}

void plan::execute_part(part which, void* local, ncclComm_t comm) const {
  const plan_state& s = *state_;
  check_arguments(s, local, comm);
  const std::lock_guard<std::mutex> serialized(state_->lock);
  const device_scope on(s.device);
  auto* bytes = static_cast<unsigned char*>(local);
  switch (which) {
    case part::local_before:
      return run_local(s, s.before, bytes);
    case part::exchange:
      return run_exchange(s, bytes, comm);
    case part::local_after:
      return run_local(s, s.after, bytes);
  }
  invalid("part must be local_before, exchange or local_after, got " +
          std::to_string(static_cast<int>(which)));
}

int plan::rank() const noexcept {
  return state_->rank;
}
int plan::device() const noexcept {
  return state_->device;
}
const distributed_matrix& plan::matrix() const noexcept {
  return state_->matrix;
}
scheme plan::chosen_scheme() const noexcept {
  return state_->chosen;
}
std::size_t plan::chunk_bytes() const noexcept {
  return state_->schedule.chunk;
}

int plan::peers_at_once() const noexcept {
  const int ranks = state_->layout.ranks;
  return std::min(state_->order.rounds_at_once(ranks), ranks - 1);
}

std::size_t plan::workspace_bytes() const noexcept {
  return state_->local_plan_bytes + state_->scratch_bytes;
}
std::size_t plan::exchange_scratch_bytes() const noexcept {
  return state_->schedule.scratch_bytes();
}
std::size_t plan::parked_bytes() const noexcept {
  return state_->schedule.parked_bytes;
}
std::size_t plan::arena_bytes() const noexcept {
  return state_->schedule.arena_bytes;
}
std::size_t plan::memory_bound_bytes() const noexcept {
  return memory_bound(state_->layout.capacity_bytes(state_->rank));
}

double plan::predicted_local_passes() const noexcept {
  const plan_state& s = *state_;
  const double capacity = static_cast<double>(s.layout.capacity_bytes(s.rank));
  if (capacity == 0) return 0;
  double passes = 0;
  for (const auto* stages : {&s.before, &s.after})
    for (const local_runner& r : *stages)
      passes += r.passes * static_cast<double>(r.op.bytes()) / capacity;
  return passes;
}

namespace {

/// The exchange's predicted seconds: each group of rounds as long as its busiest rank's bytes over
/// the link (one peer) or link_all_peers (several), the self move at copy speed; 0 when a
/// bandwidth it needs is not known.
double exchange_seconds(const plan_state& s, const bandwidths& bw) {
  if (bw.copy <= 0 || (s.one_peer_bytes > 0 && bw.link <= 0) ||
      (s.several_peers_bytes > 0 && bw.link_all_peers <= 0))
    return 0;
  return (s.one_peer_bytes > 0 ? s.one_peer_bytes / bw.link : 0) +
         (s.several_peers_bytes > 0 ? s.several_peers_bytes / bw.link_all_peers : 0) +
         4.0 * s.self_move_bytes / bw.copy;
}

}  // namespace

double plan::predicted_seconds() const noexcept {
  const plan_state& s = *state_;
  const bandwidths& bw = s.opts.measured;
  const double exchange = exchange_seconds(s, bw);
  if (bw.copy <= 0 || (exchange <= 0 && s.one_peer_bytes + s.several_peers_bytes > 0)) return 0;
  return seconds_of(s.before, bw.copy) + exchange + seconds_of(s.after, bw.copy);
}

std::string plan::describe() const {
  const plan_state& s = *state_;
  const split_layout& l = s.layout;
  const int r = s.rank;
  std::ostringstream out;
  out << "xpose dist plan: rank " << r << " of " << l.ranks << " (device " << s.device
      << "), in-place transposition of a " << l.rows << " x " << l.cols << " row-major matrix of "
      << l.elem << "-byte elements ("
      << bytes_text(static_cast<double>(l.rows) * static_cast<double>(l.cols) * l.elem) << ")\n";
  out << "  rows per rank before: " << counts_text(l.row_count) << "; this rank: " << l.row_count[r]
      << " x " << l.cols << " (" << bytes_text(static_cast<double>(l.before_bytes(r))) << ")\n";
  out << "  rows of the transpose per rank after: " << counts_text(l.col_count)
      << "; this rank: " << l.col_count[r] << " x " << l.rows << " ("
      << bytes_text(static_cast<double>(l.after_bytes(r))) << ")\n";
  out << "  buffer: at least " << l.capacity_bytes(r) / l.elem << " elements ("
      << bytes_text(static_cast<double>(l.capacity_bytes(r))) << ")\n";
  out << "  scheme: " << to_string(s.chosen)
      << (s.opts.local == scheme::automatic ? " (automatic)" : "") << "\n";
  int number = 1;
  out << "  before the exchange:\n";
  describe_stages(out, s.before, number);

  const exchange_schedule& x = s.schedule;
  out << "  exchange: ";
  if (x.steps.empty()) {
    out << "none (nothing leaves this rank)\n";
  } else {
    const int width = s.order.rounds_at_once(l.ranks);
    out << pairing_rounds(l.ranks) << " pairing round" << (pairing_rounds(l.ranks) == 1 ? "" : "s")
        << ", " << width << " at once (" << x.waves.size() << " waves, each one group of "
        << "ncclSend/ncclRecv), chunks of " << bytes_text(static_cast<double>(x.chunk))
        << " received into " << slot_count << " x " << x.lanes
        << " slots and copied into place on a second stream\n";
    const int self_after = s.order.self_after.empty() ? 0 : s.order.self_after[r];
    const std::size_t positions = s.order.rounds.size();
    for (std::size_t position = 0; position <= positions; ++position) {
      if (static_cast<int>(position) == self_after && x.self_bytes > 0)
        out << "    own segment moved " << bytes_text(static_cast<double>(x.self_bytes))
            << " within the buffer, after " << position << " round" << (position == 1 ? "" : "s")
            << "\n";
      if (position == positions) break;
      if (position >= 8) {
        if (position == 8) out << "    ... (" << positions - 8 << " more rounds)\n";
        continue;
      }
      const int p = round_partner(r, s.order.rounds[position], l.ranks);
      out << "    round " << position + 1;
      if (width > 1) out << " (group " << position / static_cast<std::size_t>(width) + 1 << ")";
      out << ": ";
      if (p == r) {
        out << "idle\n";
        continue;
      }
      const std::uint64_t sent = l.send_bytes(r, p), got = l.recv_bytes(r, p);
      const std::uint64_t chunks = (std::max(sent, got) + x.chunk - 1) / x.chunk;
      out << "with rank " << p << ": send " << bytes_text(static_cast<double>(sent)) << ", receive "
          << bytes_text(static_cast<double>(got)) << ", " << chunks << " chunk"
          << (chunks == 1 ? "" : "s") << (s.order.from_end(l, r, p) ? ", from the end" : "")
          << "\n";
    }
    out << "    parked (received before their place was free): "
        << bytes_text(static_cast<double>(x.parked_bytes)) << " in all, arena "
        << bytes_text(static_cast<double>(x.arena_bytes)) << "\n";
  }
  out << "  after the exchange:\n";
  describe_stages(out, s.after, number);

  const std::size_t total = workspace_bytes(), bound = memory_bound_bytes();
  out << "  device memory: local plans and tables "
      << bytes_text(static_cast<double>(s.local_plan_bytes)) << " + scratch "
      << bytes_text(static_cast<double>(s.scratch_bytes)) << " (exchange "
      << bytes_text(static_cast<double>(x.scratch_bytes()))
      << ") = " << bytes_text(static_cast<double>(total))
      << "; bound 64 MiB + 1 % of the buffer = " << bytes_text(static_cast<double>(bound)) << ": "
      << (total <= bound ? "within" : "OVER") << "\n";
  out << "  predicted local passes: " << fixed(predicted_local_passes(), 2) << " over the buffer\n";
  const bandwidths& bw = s.opts.measured;
  if (predicted_seconds() > 0) {
    out << "  predicted: " << milliseconds(seconds_of(s.before, bw.copy)) << " before + "
        << milliseconds(exchange_seconds(s, bw)) << " exchange + "
        << milliseconds(seconds_of(s.after, bw.copy))
        << " after = " << milliseconds(predicted_seconds()) << " (copy " << bytes_text(bw.copy)
        << "/s, link " << bytes_text(bw.link) << "/s, to every peer at once "
        << bytes_text(bw.link_all_peers) << "/s; this rank's local stages, each group of rounds "
        << "as long as the bytes of its busiest rank)\n";
  } else {
    out << "  predicted time: no bandwidths known (options.measured, from measure_bandwidths)\n";
  }
  return out.str();
}

void transpose_inplace(const distributed_matrix& matrix, void* local, ncclComm_t comm,
                       cudaStream_t stream, const options& opts) {
  if (comm == nullptr) invalid("comm is null");
  int rank = 0, device = 0;
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm);
  check_nccl(ncclCommCuDevice(comm, &device), "ncclCommCuDevice", comm);
  const device_scope on(device);
  const plan p = plan_inplace(matrix, rank, stream, opts);
  p.execute(local, comm);
  // The plan's scratch is freed on return: the transfers and copies that use it end first.
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

}  // namespace xpose::dist
