#include "host/host_schedule.hpp"
#include "plan/bytes_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "xpose/error.hpp"
#include "xpose/shape.hpp"

namespace xpose::detail::host {

namespace {

/// In core, slabs of about a quarter of the matrix per stream (enough pieces to overlap), within
/// these bounds.
constexpr double min_slab_target = 1 << 20;
constexpr double max_slab_target = 256.0 * (1 << 20);

std::vector<std::int64_t> factors(std::int64_t x) {
  std::vector<std::int64_t> found;
  for (std::int64_t d = 2; d * d <= x; ++d) {
    if (x % d) continue;
    found.push_back(d);
    if (d != x / d) found.push_back(x / d);
  }
  std::sort(found.begin(), found.end());
  return found;
}

struct candidate {
  host_scheme scheme = host_scheme::whole;
  std::int64_t factor = 0;
  piece_shape slab, super;
  std::uint64_t slab_bytes = 0;
  std::int64_t slabs = 0;
};

/// The slab and super-element shapes of each factor that keeps the super-element within
/// max_super_bytes().
std::vector<candidate> candidates(std::int64_t M, std::int64_t N, std::size_t e) {
  std::vector<candidate> all;
  for (std::int64_t m : factors(M)) {
    if (static_cast<std::uint64_t>(m) * e > max_super_bytes()) continue;
    candidate c;
    c.scheme = host_scheme::slabs_first;
    c.factor = m;
    c.slab = {m, N, e, true};
    c.super = {M / m, N, static_cast<std::size_t>(m) * e, true};
    c.slab_bytes = static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(N) * e;
    c.slabs = M / m;
    all.push_back(c);
  }
  for (std::int64_t n : factors(N)) {
    if (static_cast<std::uint64_t>(n) * e > max_super_bytes()) continue;
    candidate c;
    c.scheme = host_scheme::super_first;
    c.factor = n;
    c.slab = {M, n, e, true};
    c.super = {M, N / n, static_cast<std::size_t>(n) * e, true};
    c.slab_bytes = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(n) * e;
    c.slabs = N / n;
    all.push_back(c);
  }
  return all;
}

schedule_op op(op_kind kind, int stream, int buffer, int shape, std::uint64_t host_offset,
               std::uint64_t device_offset, std::uint64_t bytes) {
  schedule_op o;
  o.kind = kind;
  o.stream = stream;
  o.buffer = buffer;
  o.shape = shape;
  o.host_offset = host_offset;
  o.device_offset = device_offset;
  o.bytes = bytes;
  return o;
}

void schedule_whole(host_schedule& s) {
  const std::uint64_t S = s.matrix_bytes();
  s.scheme = host_scheme::whole;
  s.streams = 1;
  s.buffer_bytes = {S};
  s.shapes = {{s.rows, s.cols, s.elem, true}};
  s.ops = {op(op_kind::copy_in, 0, 0, 0, 0, 0, S), op(op_kind::transpose, 0, 0, 0, 0, 0, 0),
           op(op_kind::copy_out, 0, 0, 0, 0, 0, S), op(op_kind::barrier, 0, 0, 0, 0, 0, 0)};
}

void schedule_in_core(host_schedule& s, const candidate& c) {
  const std::uint64_t S = s.matrix_bytes();
  s.scheme = c.scheme;
  s.factor = c.factor;
  s.buffer_bytes = {S};
  s.shapes = {c.slab, c.super};  // 0: slab, 1: super
  const int Q = s.streams;
  s.ops.clear();
  if (c.scheme == host_scheme::slabs_first) {
    for (std::int64_t i = 0; i < c.slabs; ++i) {
      const int q = static_cast<int>(i % Q);
      const std::uint64_t at = static_cast<std::uint64_t>(i) * c.slab_bytes;
      s.ops.push_back(op(op_kind::copy_in, q, 0, 0, at, at, c.slab_bytes));
      s.ops.push_back(op(op_kind::transpose, q, 0, 0, 0, at, 0));
    }
    s.ops.push_back(op(op_kind::barrier, 0, 0, 0, 0, 0, 0));
    s.ops.push_back(op(op_kind::transpose, 0, 0, 1, 0, 0, 0));
    s.ops.push_back(op(op_kind::copy_out, 0, 0, 0, 0, 0, S));
  } else {
    s.ops.push_back(op(op_kind::copy_in, 0, 0, 0, 0, 0, S));
    s.ops.push_back(op(op_kind::transpose, 0, 0, 1, 0, 0, 0));
    s.ops.push_back(op(op_kind::barrier, 0, 0, 0, 0, 0, 0));
    for (std::int64_t j = 0; j < c.slabs; ++j) {
      const int q = static_cast<int>(j % Q);
      const std::uint64_t at = static_cast<std::uint64_t>(j) * c.slab_bytes;
      s.ops.push_back(op(op_kind::transpose, q, 0, 0, 0, at, 0));
      s.ops.push_back(op(op_kind::copy_out, q, 0, 0, at, at, c.slab_bytes));
    }
  }
  s.ops.push_back(op(op_kind::barrier, 0, 0, 0, 0, 0, 0));
}

void schedule_out_of_core(host_schedule& s, const candidate& c) {
  s.scheme = c.scheme;
  s.factor = c.factor;
  s.in_core = false;
  s.buffer_bytes.assign(static_cast<std::size_t>(s.streams), c.slab_bytes);
  piece_shape super = c.super;
  super.on_gpu = false;
  s.shapes = {c.slab, super};
  s.ops.clear();
  if (c.scheme == host_scheme::super_first)
    s.ops.push_back(op(op_kind::cpu_transpose, 0, 0, 1, 0, 0, 0));
  for (std::int64_t i = 0; i < c.slabs; ++i) {
    const int q = static_cast<int>(i % s.streams);
    const std::uint64_t at = static_cast<std::uint64_t>(i) * c.slab_bytes;
    s.ops.push_back(op(op_kind::copy_in, q, q, 0, at, 0, c.slab_bytes));
    s.ops.push_back(op(op_kind::transpose, q, q, 0, 0, 0, 0));
    s.ops.push_back(op(op_kind::copy_out, q, q, 0, at, 0, c.slab_bytes));
  }
  s.ops.push_back(op(op_kind::barrier, 0, 0, 0, 0, 0, 0));
  if (c.scheme == host_scheme::slabs_first)
    s.ops.push_back(op(op_kind::cpu_transpose, 0, 0, 1, 0, 0, 0));
}

}  // namespace

std::size_t max_super_bytes() {
  return max_elem_size;
}

std::uint64_t host_schedule::slab_bytes() const {
  if (scheme == host_scheme::whole) return matrix_bytes();
  return static_cast<std::uint64_t>(shapes[0].rows) * static_cast<std::uint64_t>(shapes[0].cols) *
         shapes[0].elem;
}

host_schedule make_schedule(const schedule_request& r) {
  if (r.rows < 2 || r.cols < 2 || r.elem < 1 || r.streams < 1)
    throw error(status::internal_error, "a host schedule needs a matrix of 2 x 2 or more");
  host_schedule s;
  s.rows = r.rows;
  s.cols = r.cols;
  s.elem = r.elem;
  s.streams = r.streams;
  const std::uint64_t S = s.matrix_bytes();
  const std::uint64_t G = r.gpu_budget;
  const piece_shape full{r.rows, r.cols, r.elem, true};
  const std::vector<candidate> all = candidates(r.rows, r.cols, r.elem);

  // In core: the matrix and the workspaces of the plans that run at once fit the budget.
  if (r.overlap) {
    const double target =
        std::clamp(static_cast<double>(S) / (4.0 * r.streams), min_slab_target, max_slab_target);
    const candidate* best = nullptr;
    double best_score = 0;
    for (const candidate& c : all) {
      if (c.slabs < 2) continue;
      const std::uint64_t need =
          S + static_cast<std::uint64_t>(r.streams) * r.workspace(c.slab) + r.workspace(c.super);
      if (need > G) continue;
      const double score = std::fabs(std::log(static_cast<double>(c.slab_bytes) / target));
      if (best == nullptr || score < best_score - 1e-9) {
        best = &c;
        best_score = score;
      }
    }
    if (best != nullptr) {
      schedule_in_core(s, *best);
      return s;
    }
  }
  if (S + r.workspace(full) <= G) {
    schedule_whole(s);
    return s;
  }

  // Out of core: a slab and its plan's workspace per stream; the largest super-element (the
  // host's 100 stage moves whole super-elements), on a tie the slabs_first scheme.
  const candidate* best = nullptr;
  int best_streams = 0;
  std::uint64_t smallest = 0;
  for (const candidate& c : all) {
    const std::uint64_t piece = c.slab_bytes + r.workspace(c.slab);
    if (smallest == 0 || piece < smallest) smallest = piece;
    const std::uint64_t fit = G / piece;
    if (fit < 1) continue;
    if (best == nullptr || c.super.elem > best->super.elem) {
      best = &c;
      best_streams = static_cast<int>(std::min<std::uint64_t>(r.streams, fit));
    }
  }
  if (best == nullptr)
    throw error(
        status::unsupported,
        "the " + std::to_string(r.rows) + " x " + std::to_string(r.cols) + " matrix (" +
            bytes_text(static_cast<double>(S)) + ") does not fit the GPU budget of " +
            bytes_text(static_cast<double>(G)) +
            (smallest == 0
                 ? std::string(", and neither dimension has a factor f with f x " +
                               std::to_string(r.elem) + " <= " + std::to_string(max_super_bytes()) +
                               " bytes to cut it into slabs")
                 : ", and its smallest slab with a plan's workspace needs " +
                       bytes_text(static_cast<double>(smallest))));
  s.streams = best_streams;
  schedule_out_of_core(s, *best);
  return s;
}

std::string host_schedule::describe() const {
  std::ostringstream out;
  const std::uint64_t S = matrix_bytes();
  out << "  through the GPU, " << (in_core ? "in core" : "out of core") << ": ";
  if (scheme == host_scheme::whole) {
    out << "the matrix copied in, transposed by one GPU plan, copied out (one stream)\n";
  } else {
    const piece_shape& slab = shapes[0];
    const piece_shape& super = shapes[1];
    const std::int64_t slabs = static_cast<std::int64_t>(S / slab_bytes());
    const std::string slab_text = std::to_string(slabs) + " slabs of " + std::to_string(slab.rows) +
                                  " x " + std::to_string(slab.cols) + " (" +
                                  bytes_text(static_cast<double>(slab_bytes())) + ")";
    const std::string super_text = "100 on the " + std::to_string(super.rows) + " x " +
                                   std::to_string(super.cols) + " matrix of " +
                                   std::to_string(super.elem) + "-byte super-elements " +
                                   (super.on_gpu ? "on the GPU" : "on the host CPU");
    const std::string streams_text =
        " over " + std::to_string(streams) + " stream" + (streams == 1 ? "" : "s");
    if (!in_core) {
      if (scheme == host_scheme::super_first) out << super_text << ", then ";
      out << slab_text << " each copied in, transposed (010) and copied back" << streams_text;
      if (scheme == host_scheme::slabs_first) out << ", then " << super_text;
    } else if (scheme == host_scheme::slabs_first) {
      out << slab_text << " each copied in and transposed (010)" << streams_text << ", then "
          << super_text << ", then copied out";
    } else {
      out << "copied in, " << super_text << ", then " << slab_text
          << " each transposed (010) and copied out" << streams_text;
    }
    out << "\n";
  }
  std::uint64_t buffers = 0;
  for (std::uint64_t b : buffer_bytes) buffers += b;
  out << "  device buffers: " << bytes_text(static_cast<double>(buffers)) << " ("
      << buffer_bytes.size() << ")\n";
  return out.str();
}

}  // namespace xpose::detail::host
