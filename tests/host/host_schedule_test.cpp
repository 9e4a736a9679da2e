// The schedules of host plans through the GPU (host/host_schedule.hpp), run on the CPU: copies as
// memcpy between the host matrix and emulated device buffers, transpositions as CPU plans of the
// same shapes, in the order the ops are issued. Every scheme, in core and out of core, for
// several shapes, element sizes, budgets and stream counts must give the transpose; and between
// two barriers, ops on different streams must touch disjoint bytes (so that any interleaving of
// the streams gives the same result), with the host CPU's stage only where every stream is idle.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "host/host_schedule.hpp"
#include "test_util.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace xpose::test {
namespace {

using detail::host::host_schedule;
using detail::host::op_kind;
using detail::host::piece_shape;
using detail::host::schedule_op;
using detail::host::schedule_request;

std::uint64_t shape_bytes(const piece_shape& s) {
  return static_cast<std::uint64_t>(s.rows) * static_cast<std::uint64_t>(s.cols) * s.elem;
}

void run_on_cpu(const host_schedule& s, std::vector<unsigned char>& host) {
  std::vector<std::vector<unsigned char>> buffers;
  for (std::uint64_t bytes : s.buffer_bytes) buffers.emplace_back(bytes, 0xA5);
  for (const schedule_op& op : s.ops) {
    switch (op.kind) {
      case op_kind::copy_in:
        ASSERT_LE(op.host_offset + op.bytes, host.size());
        ASSERT_LE(op.device_offset + op.bytes, buffers[op.buffer].size());
        std::memcpy(buffers[op.buffer].data() + op.device_offset, host.data() + op.host_offset,
                    op.bytes);
        break;
      case op_kind::copy_out:
        ASSERT_LE(op.host_offset + op.bytes, host.size());
        ASSERT_LE(op.device_offset + op.bytes, buffers[op.buffer].size());
        std::memcpy(host.data() + op.host_offset, buffers[op.buffer].data() + op.device_offset,
                    op.bytes);
        break;
      case op_kind::transpose: {
        const piece_shape& shape = s.shapes[op.shape];
        ASSERT_TRUE(shape.on_gpu);
        ASSERT_LE(op.device_offset + shape_bytes(shape), buffers[op.buffer].size());
        plan_inplace({shape.rows, shape.cols, shape.elem})
            .execute(buffers[op.buffer].data() + op.device_offset);
        break;
      }
      case op_kind::cpu_transpose: {
        const piece_shape& shape = s.shapes[op.shape];
        ASSERT_FALSE(shape.on_gpu);
        ASSERT_LE(op.host_offset + shape_bytes(shape), host.size());
        plan_inplace({shape.rows, shape.cols, shape.elem}).execute(host.data() + op.host_offset);
        break;
      }
      case op_kind::barrier:
        break;
    }
  }
}

/// Byte ranges an op reads or writes: (space, begin, end, writes); space -1 is the host.
struct touch {
  int space;
  std::uint64_t begin, end;
  bool writes;
};

std::vector<touch> touches(const host_schedule& s, const schedule_op& op) {
  switch (op.kind) {
    case op_kind::copy_in:
      return {{-1, op.host_offset, op.host_offset + op.bytes, false},
              {op.buffer, op.device_offset, op.device_offset + op.bytes, true}};
    case op_kind::copy_out:
      return {{op.buffer, op.device_offset, op.device_offset + op.bytes, false},
              {-1, op.host_offset, op.host_offset + op.bytes, true}};
    case op_kind::transpose:
      return {
          {op.buffer, op.device_offset, op.device_offset + shape_bytes(s.shapes[op.shape]), true}};
    default:
      return {};
  }
}

/// Ops on different streams between two barriers touch disjoint bytes (where one writes); the
/// host CPU's stage comes where no stream has work.
void expect_streams_independent(const host_schedule& s) {
  std::vector<const schedule_op*> since_barrier;
  for (const schedule_op& op : s.ops) {
    if (op.kind == op_kind::barrier) {
      since_barrier.clear();
      continue;
    }
    if (op.kind == op_kind::cpu_transpose) {
      EXPECT_TRUE(since_barrier.empty()) << "the host stage runs while streams have work";
      continue;
    }
    for (const schedule_op* other : since_barrier) {
      if (other->stream == op.stream) continue;
      for (const touch& a : touches(s, op))
        for (const touch& b : touches(s, *other))
          if (a.space == b.space && (a.writes || b.writes))
            EXPECT_TRUE(a.end <= b.begin || b.end <= a.begin)
                << "streams " << op.stream << " and " << other->stream << " race on space "
                << a.space << " [" << a.begin << ", " << a.end << ") and [" << b.begin << ", "
                << b.end << ")\n"
                << s.describe();
    }
    since_barrier.push_back(&op);
  }
  ASSERT_FALSE(s.ops.empty());
  EXPECT_EQ(s.ops.back().kind == op_kind::barrier || s.ops.back().kind == op_kind::cpu_transpose,
            true)
      << "a schedule ends with every stream's work done";
}

void check(std::int64_t rows, std::int64_t cols, std::size_t e, std::uint64_t budget, int streams,
           bool overlap, std::uint64_t workspace, std::uint64_t seed, bool expect_in_core) {
  schedule_request r;
  r.rows = rows;
  r.cols = cols;
  r.elem = e;
  r.gpu_budget = budget;
  r.streams = streams;
  r.overlap = overlap;
  r.workspace = [workspace](const piece_shape&) { return workspace; };
  const host_schedule s = detail::host::make_schedule(r);
  const std::string what = std::to_string(rows) + " x " + std::to_string(cols) + " of " +
                           std::to_string(e) + " bytes, budget " + std::to_string(budget) + ", " +
                           std::to_string(streams) + " streams\n" + s.describe();
  EXPECT_EQ(s.in_core, expect_in_core) << what;
  std::uint64_t device = 0;
  for (std::uint64_t b : s.buffer_bytes) device += b;
  EXPECT_LE(device, budget) << what;
  EXPECT_LE(s.streams, streams) << what;
  for (const piece_shape& shape : s.shapes) EXPECT_LE(shape.elem, max_elem_size) << what;
  expect_streams_independent(s);
  std::vector<unsigned char> host = random_bytes(static_cast<std::size_t>(rows * cols) * e, seed);
  const std::vector<unsigned char> expected = reference_transpose(host, rows, cols, e);
  run_on_cpu(s, host);
  EXPECT_TRUE(host == expected) << what;
}

TEST(HostSchedule, InCoreEveryScheme) {
  std::uint64_t seed = 1;
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{720, 180},
                                   {1000, 64},
                                   {64, 1000},
                                   {360, 250},
                                   {97, 89},
                                   {300, 300}})
    for (std::size_t e : {1, 4, 8, 12})
      for (int streams : {1, 3})
        for (bool overlap : {true, false})
          check(rows, cols, e, 64 << 20, streams, overlap, 4096, ++seed, true);
}

TEST(HostSchedule, OutOfCoreEveryScheme) {
  std::uint64_t seed = 100;
  for (const auto& [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{720, 180}, {1024, 96}, {96, 1024}, {360, 250}})
    for (std::size_t e : {1, 4, 8})
      for (int streams : {1, 2, 4}) {
        const std::uint64_t matrix = static_cast<std::uint64_t>(rows * cols) * e;
        // Room for a quarter of the matrix: out of core, a few slabs per stream.
        check(rows, cols, e, matrix / 4, streams, true, 0, ++seed, false);
        check(rows, cols, e, matrix / 2 + 1000, streams, false, 1000, ++seed, false);
      }
}

TEST(HostSchedule, OutOfCorePrefersTheLargestSuperElement) {
  schedule_request r;
  r.rows = 4096;
  r.cols = 1000;
  r.elem = 4;
  r.gpu_budget = 4 << 20;  // a quarter of the matrix
  r.streams = 2;
  r.workspace = [](const piece_shape&) { return std::uint64_t{0}; };
  const host_schedule s = detail::host::make_schedule(r);
  EXPECT_FALSE(s.in_core);
  EXPECT_EQ(s.shapes[1].elem, 1024u) << s.describe();  // m = 256 rows of 4 bytes
}

TEST(HostSchedule, RefusesWhatNoPieceFits) {
  schedule_request r;
  r.rows = 97;  // prime: no slabs
  r.cols = 89;
  r.elem = 4;
  r.gpu_budget = 1000;
  r.workspace = [](const piece_shape&) { return std::uint64_t{0}; };
  try {
    detail::host::make_schedule(r);
    FAIL() << "expected a refusal";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::unsupported);
    EXPECT_NE(std::string(e.what()).find("factor"), std::string::npos) << e.what();
  }
  r.rows = 1024;
  r.cols = 1024;
  r.gpu_budget = 4096;  // the smallest slab (2 x 1024 x 4 bytes) is larger
  EXPECT_THROW(detail::host::make_schedule(r), error);
}

}  // namespace
}  // namespace xpose::test
