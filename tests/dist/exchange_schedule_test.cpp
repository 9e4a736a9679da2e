// The exchange of a distributed transposition replayed on host memory, every rank at once, with
// the GPU's ordering rules: the transfers of one wave (the same round key and index on every rank
// that takes part) happen together; the copies made after a wave run right away or as late as a
// later wave's wait allows; a wave waits for the copies its slots' last user made. The replay
// checks that no send reads a byte already overwritten, that no copy writes a byte not yet sent,
// that no copy reads a slot already reused, and that every segment ends where it belongs. With
// the local stages replayed by a naive host transposition, the whole pipeline must give the
// transpose. Every check runs with one peer at a time, two, and all at once. No GPU is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dist/exchange_schedule.hpp"
#include "dist/local_stages.hpp"
#include "test_util.hpp"
#include "xpose/dist.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::dist {
namespace {

using u64 = std::uint64_t;
using xpose::dist::scheme;

/// A byte of segment (from, to) at position k: varied enough that a misplaced run shows.
unsigned char tag(int from, int to, u64 k) {
  u64 h = (static_cast<u64>(from) * 1000003u + static_cast<u64>(to)) * 0x9E3779B97F4A7C15ull + k;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<unsigned char>(h);
}

constexpr std::int64_t still_live = INT64_MAX;

struct rank_memory {
  std::vector<unsigned char> buffer;
  /// The wave whose transfers sent each byte (-1: beyond the block; still_live: not yet sent).
  std::vector<std::int64_t> sent_at;
  std::vector<bool> written;
  std::vector<unsigned char> slots;      ///< slot_count x lanes x slot_stride
  std::vector<std::int64_t> slot_holds;  ///< the wave whose chunk each slot holds
  std::vector<unsigned char> arena;
  std::size_t next = 0;  ///< next wave to run
  /// Waves whose copies are still to run, oldest first.
  std::vector<std::size_t> pending;
  std::int64_t copied_through = -1;  ///< copies of waves up to this one have run
};

/// Replays the exchange of every rank's schedule on `memory` (the buffers laid out for sending).
/// `late`: the copies made after a wave run only when a later wave waits for them, or at the end
/// (as late as the GPU may run them), instead of right after their own transfers. Returns the
/// first violation found, or "".
std::string replay(const split_layout& layout, const std::vector<exchange_schedule>& schedules,
                   std::vector<rank_memory>& memory, bool late) {
  const int ranks = layout.ranks;
  std::string failure;
  const auto fail = [&](const std::string& what) {
    if (failure.empty()) failure = what;
  };
  const auto run_copies = [&](int r, std::size_t w) {
    rank_memory& m = memory[r];
    const exchange_schedule& s = schedules[r];
    for (const copy_op& c : s.waves[w].copies) {
      const unsigned char* from = nullptr;
      if (c.kind == copy_kind::arena_to_buffer) {
        from = m.arena.data() + c.src;
      } else {
        if (m.slot_holds[c.slot] != static_cast<std::int64_t>(w))
          fail("rank " + std::to_string(r) + " wave " + std::to_string(w) +
               " reads a slot that holds wave " + std::to_string(m.slot_holds[c.slot]));
        from = m.slots.data() + c.slot * s.slot_stride + c.src;
      }
      if (c.kind == copy_kind::slot_to_arena) {
        std::memcpy(m.arena.data() + c.dst, from, c.bytes);
        continue;
      }
      // A byte may be written by the copies of the wave that sent it or of a later one: those
      // of an earlier wave may run while it is being sent.
      for (u64 x = c.dst; x < c.dst + c.bytes; ++x)
        if (m.sent_at[x] > static_cast<std::int64_t>(w) || m.written[x])
          fail("rank " + std::to_string(r) + " wave " + std::to_string(w) + " writes byte " +
               std::to_string(x) + (m.written[x] ? ", already written" : ", not yet sent"));
      std::memcpy(m.buffer.data() + c.dst, from, c.bytes);
      for (u64 x = c.dst; x < c.dst + c.bytes; ++x) m.written[x] = true;
    }
    m.copied_through = static_cast<std::int64_t>(w);
  };
  const auto flush = [&](int r, std::int64_t through) {
    rank_memory& m = memory[r];
    while (!m.pending.empty() && static_cast<std::int64_t>(m.pending.front()) <= through) {
      run_copies(r, m.pending.front());
      m.pending.erase(m.pending.begin());
    }
  };
  const auto key_of = [&](int r) {
    const exchange_schedule& s = schedules[r];
    const step& first = s.steps[s.waves[memory[r].next].first];
    return std::pair<int, std::int64_t>{first.round, first.index};
  };

  for (;;) {
    std::pair<int, std::int64_t> key{0, 0};
    bool any = false;
    for (int r = 0; r < ranks; ++r) {
      if (memory[r].next == schedules[r].waves.size()) continue;
      const std::pair<int, std::int64_t> k = key_of(r);
      if (!any || k < key) key = k;
      any = true;
    }
    if (!any) break;
    std::vector<int> now;
    for (int r = 0; r < ranks; ++r)
      if (memory[r].next < schedules[r].waves.size() && key_of(r) == key) now.push_back(r);
    // Waits: the copies out of this wave's slots run first.
    for (int r : now) {
      const wave& wv = schedules[r].waves[memory[r].next];
      flush(r, wv.wait_copies);
      if (memory[r].copied_through < wv.wait_copies) fail("a wait found its copies not run");
    }
    // Transfers: read every sender's chunks first, then deliver.
    std::map<std::pair<int, int>, std::vector<unsigned char>> in_flight;  // (to, from) -> bytes
    for (int r : now) {
      const exchange_schedule& x = schedules[r];
      const wave& wv = x.waves[memory[r].next];
      rank_memory& m = memory[r];
      for (std::size_t g = wv.first; g < wv.first + wv.count; ++g) {
        const step& st = x.steps[g];
        if (st.round != key.first || st.index != key.second) fail("a wave of mixed steps");
        if (st.send_bytes == 0) continue;
        for (u64 b = st.send_offset; b < st.send_offset + st.send_bytes; ++b) {
          if (m.sent_at[b] != still_live || m.written[b])
            fail("rank " + std::to_string(r) + " sends byte " + std::to_string(b) +
                 (m.written[b] ? " already overwritten" : " a second time"));
          m.sent_at[b] = static_cast<std::int64_t>(m.next);
        }
        if (in_flight.count({st.peer, r}) != 0)
          fail("rank " + std::to_string(r) + " sends to rank " + std::to_string(st.peer) +
               " twice in one wave");
        in_flight[{st.peer, r}] = std::vector<unsigned char>(
            m.buffer.begin() + static_cast<std::ptrdiff_t>(st.send_offset),
            m.buffer.begin() + static_cast<std::ptrdiff_t>(st.send_offset + st.send_bytes));
      }
    }
    for (int r : now) {
      const exchange_schedule& x = schedules[r];
      const wave& wv = x.waves[memory[r].next];
      rank_memory& m = memory[r];
      std::vector<bool> lane_used(static_cast<std::size_t>(x.lanes), false);
      for (std::size_t g = wv.first; g < wv.first + wv.count; ++g) {
        const step& st = x.steps[g];
        const int set = static_cast<int>(memory[r].next % slot_count);
        if (st.slot < set * x.lanes || st.slot >= (set + 1) * x.lanes ||
            lane_used[static_cast<std::size_t>(st.slot - set * x.lanes)])
          fail("rank " + std::to_string(r) + " wave " + std::to_string(m.next) +
               " receives into slot " + std::to_string(st.slot) + ", not a free one of its set");
        else
          lane_used[static_cast<std::size_t>(st.slot - set * x.lanes)] = true;
        if (st.recv_bytes == 0) continue;
        const auto it = in_flight.find({r, st.peer});
        if (it == in_flight.end() || it->second.size() != st.recv_bytes) {
          fail("rank " + std::to_string(r) + " receives " + std::to_string(st.recv_bytes) +
               " bytes from rank " + std::to_string(st.peer) + ", which sends " +
               std::to_string(it == in_flight.end() ? 0 : it->second.size()));
        } else {
          std::memcpy(m.slots.data() + st.slot * x.slot_stride, it->second.data(), st.recv_bytes);
          m.slot_holds[st.slot] = static_cast<std::int64_t>(m.next);
        }
      }
      m.pending.push_back(m.next);
      if (!late) flush(r, static_cast<std::int64_t>(m.next));
      ++m.next;
    }
    if (!failure.empty()) return failure;
  }
  for (int r = 0; r < ranks; ++r) flush(r, static_cast<std::int64_t>(memory[r].next));
  return failure;
}

/// Buffers laid out for sending: segment (r, p) tagged, beyond the block marked outside.
std::vector<rank_memory> tagged_memory(const split_layout& layout,
                                       const std::vector<exchange_schedule>& schedules) {
  std::vector<rank_memory> memory(static_cast<std::size_t>(layout.ranks));
  for (int r = 0; r < layout.ranks; ++r) {
    rank_memory& m = memory[r];
    const u64 capacity = layout.capacity_bytes(r);
    m.buffer.assign(capacity, 0xEE);
    m.sent_at.assign(capacity, -1);
    m.written.assign(capacity, false);
    for (int p = 0; p < layout.ranks; ++p)
      for (u64 k = 0; k < layout.send_bytes(r, p); ++k) {
        m.buffer[layout.send_offset(r, p) + k] = tag(r, p, k);
        m.sent_at[layout.send_offset(r, p) + k] = still_live;
      }
    const auto slots = static_cast<std::size_t>(slot_count * schedules[r].lanes);
    m.slots.assign(slots * schedules[r].slot_stride, 0);
    m.slot_holds.assign(slots, -1);
    m.arena.assign(schedules[r].arena_bytes, 0);
  }
  return memory;
}

std::string layout_name(const split_layout& l, u64 chunk) {
  std::string text = std::to_string(l.rows) + " x " + std::to_string(l.cols) + " x " +
                     std::to_string(l.elem) + " over " + std::to_string(l.ranks) + ", rows";
  for (auto c : l.row_count) text += " " + std::to_string(c);
  text += ", cols";
  for (auto c : l.col_count) text += " " + std::to_string(c);
  return text + ", chunk " + std::to_string(chunk);
}

void check_exchange(const split_layout& layout, u64 chunk, const exchange_order& order);

/// The exchange alone, in the plain order and the chosen one: every segment must arrive at its
/// place.
void check_exchange(const split_layout& layout, u64 chunk) {
  SCOPED_TRACE(layout_name(layout, chunk));
  for (int width : {1, 2, 0}) {
    SCOPED_TRACE("rounds at once: " + std::to_string(width));
    for (int chosen = 0; chosen < 2; ++chosen) {
      SCOPED_TRACE(chosen ? "chosen order" : "plain order");
      exchange_order order;
      if (chosen)
        order = choose_order(layout, chunk, width);
      else
        order.width = width;
      check_exchange(layout, chunk, order);
    }
  }
}

void check_exchange(const split_layout& layout, u64 chunk, const exchange_order& order) {
  std::vector<exchange_schedule> schedules;
  for (int r = 0; r < layout.ranks; ++r)
    schedules.push_back(build_schedule(layout, r, chunk, order));
  for (bool late : {false, true}) {
    SCOPED_TRACE(late ? "copies late" : "copies at once");
    std::vector<rank_memory> memory = tagged_memory(layout, schedules);
    const std::string failure = replay(layout, schedules, memory, late);
    ASSERT_EQ(failure, "");
    for (int r = 0; r < layout.ranks; ++r)
      for (int p = 0; p < layout.ranks; ++p)
        for (u64 k = 0; k < layout.recv_bytes(r, p); ++k)
          ASSERT_EQ(memory[r].buffer[layout.recv_offset(r, p) + k], tag(p, r, k))
              << "rank " << r << ", segment from " << p << ", byte " << k;
  }
}

split_layout layout_of(std::int64_t rows, std::int64_t cols, std::size_t e,
                       std::vector<std::int64_t> row_count, std::vector<std::int64_t> col_count) {
  return make_layout(rows, cols, e, row_count, col_count);
}

split_layout even_layout(std::int64_t rows, std::int64_t cols, std::size_t e, int ranks) {
  return make_layout(rows, cols, e, xpose::dist::even_split(rows, ranks),
                     xpose::dist::even_split(cols, ranks));
}

/// A split of n over `ranks` with counts drawn at random (zeros possible).
std::vector<std::int64_t> random_split(std::int64_t n, int ranks, std::mt19937_64& rng) {
  std::vector<std::int64_t> cuts{0, n};
  for (int i = 1; i < ranks; ++i) cuts.push_back(static_cast<std::int64_t>(rng() % (n + 1)));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::int64_t> split;
  for (int i = 0; i < ranks; ++i) split.push_back(cuts[i + 1] - cuts[i]);
  return split;
}

TEST(DistSchedule, PartnersFormPairingRounds) {
  for (int ranks = 1; ranks <= 17; ++ranks) {
    std::vector<std::vector<int>> met(ranks, std::vector<int>(ranks, 0));
    for (int round = 1; round <= pairing_rounds(ranks); ++round) {
      int idle = 0;
      for (int r = 0; r < ranks; ++r) {
        const int p = round_partner(r, round, ranks);
        ASSERT_GE(p, 0);
        ASSERT_LT(p, ranks);
        ASSERT_EQ(round_partner(p, round, ranks), r) << ranks << " ranks, round " << round;
        if (p == r)
          ++idle;
        else
          ++met[r][p];
      }
      EXPECT_EQ(idle, ranks % 2) << ranks << " ranks, round " << round;
    }
    for (int r = 0; r < ranks; ++r)
      for (int p = 0; p < ranks; ++p) EXPECT_EQ(met[r][p], r == p ? 0 : 1);
  }
}

TEST(DistSchedule, EvenSplitsParkNothingAndKeepTheOwnSegment) {
  for (int ranks : {1, 2, 3, 4, 8}) {
    const split_layout l = even_layout(24 * ranks, 40 * ranks, 4, ranks);
    for (u64 chunk : {u64{100}, u64{1} << 20})
      for (int width : {1, 2, 0})
        for (int r = 0; r < ranks; ++r) {
          exchange_order order;
          order.width = width;
          const exchange_schedule s = build_schedule(l, r, chunk, order);
          EXPECT_EQ(s.parked_bytes, 0u);
          EXPECT_EQ(s.self_bytes, 0u);
          EXPECT_EQ(s.lanes, order.rounds_at_once(ranks));
          for (const wave& w : s.waves)
            for (const copy_op& c : w.copies) EXPECT_EQ(c.kind, copy_kind::slot_to_buffer);
        }
  }
}

TEST(DistSchedule, ExchangeEvenSplits) {
  for (int ranks : {1, 2, 3, 4, 5, 8})
    for (u64 chunk : {u64{1}, u64{7}, u64{96}, u64{4096}}) {
      check_exchange(even_layout(8 * ranks, 6 * ranks, 4, ranks), chunk);
      check_exchange(even_layout(3 * ranks, 5 * ranks, 12, ranks), chunk);
    }
}

TEST(DistSchedule, ExchangeDefaultUnevenSplits) {
  for (int ranks : {2, 3, 4, 5, 7, 8})
    for (u64 chunk : {u64{1}, u64{13}, u64{256}, u64{100000}}) {
      check_exchange(even_layout(37, 41, 1, ranks), chunk);
      check_exchange(even_layout(53, 29, 8, ranks), chunk);
      check_exchange(even_layout(24, 31, 2, ranks), chunk);
    }
}

TEST(DistSchedule, ExchangeRandomSplitsZerosIncluded) {
  std::mt19937_64 rng(43);
  for (int trial = 0; trial < 120; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 6);
    const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 40);
    const std::int64_t cols = 1 + static_cast<std::int64_t>(rng() % 40);
    const std::size_t e = std::vector<std::size_t>{1, 2, 3, 4, 8, 12, 16}[rng() % 7];
    const u64 chunk = std::vector<u64>{1, 5, 64, 333, 1 << 20}[rng() % 5];
    check_exchange(
        layout_of(rows, cols, e, random_split(rows, ranks, rng), random_split(cols, ranks, rng)),
        chunk);
  }
}

/// rows x cols matrices of `unit`-byte units, `batch` of them from `data`, transposed in place
/// on the host.
void host_transpose(unsigned char* data, const local_op& op) {
  const u64 matrix = static_cast<u64>(op.rows) * static_cast<u64>(op.cols) * op.unit;
  std::vector<unsigned char> copy(matrix);
  for (std::int64_t b = 0; b < op.batch; ++b) {
    unsigned char* at = data + op.offset + b * matrix;
    xpose::test::reference_transpose(at, copy.data(), op.rows, op.cols, op.unit, op.cols, op.rows);
    std::memcpy(at, copy.data(), matrix);
  }
}

/// The whole pipeline on the host: local stages, exchange, local stages; the result compared
/// with the transpose.
void check_pipeline(const split_layout& layout, scheme chosen, u64 chunk, int width) {
  SCOPED_TRACE(layout_name(layout, chunk) + ", scheme " + xpose::dist::to_string(chosen) +
               ", rounds at once " + std::to_string(width));
  const std::size_t e = layout.elem;
  const auto matrix = xpose::test::random_bytes(
      static_cast<std::size_t>(layout.rows * layout.cols) * e, 1234 + layout.rows);
  const auto transpose = xpose::test::reference_transpose(matrix, layout.rows, layout.cols, e);
  std::vector<exchange_schedule> schedules;
  const exchange_order order = choose_order(layout, chunk, width);
  for (int r = 0; r < layout.ranks; ++r)
    schedules.push_back(build_schedule(layout, r, chunk, order));
  std::vector<rank_memory> memory = tagged_memory(layout, schedules);
  std::vector<local_stages> stages;
  for (int r = 0; r < layout.ranks; ++r) {
    stages.push_back(plan_local_stages(layout, r, chosen));
    std::copy(
        matrix.begin() + static_cast<std::ptrdiff_t>(layout.row_first[r] * layout.cols * e),
        matrix.begin() + static_cast<std::ptrdiff_t>(layout.row_first[r + 1] * layout.cols * e),
        memory[r].buffer.begin());
    for (const local_op& op : stages[r].before) host_transpose(memory[r].buffer.data(), op);
  }
  ASSERT_EQ(replay(layout, schedules, memory, true), "");
  for (int r = 0; r < layout.ranks; ++r) {
    for (const local_op& op : stages[r].after) host_transpose(memory[r].buffer.data(), op);
    const std::size_t bytes = static_cast<std::size_t>(layout.col_count[r] * layout.rows) * e;
    const auto from =
        transpose.begin() + static_cast<std::ptrdiff_t>(layout.col_first[r] * layout.rows * e);
    ASSERT_TRUE(
        std::equal(from, from + static_cast<std::ptrdiff_t>(bytes), memory[r].buffer.begin()))
        << "rank " << r;
  }
}

TEST(DistSchedule, PipelineEverySchemeThatApplies) {
  std::mt19937_64 rng(7);
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes{
      {12, 20}, {37, 41}, {1, 9}, {9, 1}, {24, 24}, {31, 8}, {8, 31}};
  for (int ranks : {1, 2, 3, 4, 6})
    for (const auto& [rows, cols] : shapes)
      for (std::size_t e : {1, 2, 4, 8, 12, 16})
        for (int split = 0; split < 2; ++split) {
          const split_layout l = split == 0
                                     ? even_layout(rows, cols, e, ranks)
                                     : layout_of(rows, cols, e, random_split(rows, ranks, rng),
                                                 random_split(cols, ranks, rng));
          for (scheme s : {scheme::rows_even, scheme::cols_even, scheme::any_split}) {
            if (s == scheme::rows_even && !all_equal(l.row_count)) continue;
            if (s == scheme::cols_even && !all_equal(l.col_count)) continue;
            const u64 chunk = 1 + rng() % 200;
            for (int width : {1, 0}) check_pipeline(l, s, chunk, width);
          }
        }
}

TEST(DistSchedule, SchemesResolveByTheSplits) {
  EXPECT_EQ(resolve_scheme(even_layout(8, 8, 4, 4), scheme::automatic), scheme::rows_even);
  EXPECT_EQ(resolve_scheme(even_layout(9, 8, 4, 4), scheme::automatic), scheme::cols_even);
  EXPECT_EQ(resolve_scheme(even_layout(9, 9, 4, 4), scheme::automatic), scheme::any_split);
  EXPECT_THROW(resolve_scheme(even_layout(9, 8, 4, 4), scheme::rows_even), xpose::error);
  EXPECT_THROW(resolve_scheme(even_layout(8, 9, 4, 4), scheme::cols_even), xpose::error);
}

TEST(DistSchedule, LargeMatricesStayWithinTheirScratch) {
  // Sizes only (no replay): the automatic chunk and the parking arena of large matrices, even
  // and as even as possible, against the bound of 64 MiB + 1 % of each rank's buffer less the
  // reserve for the local stages' tables.
  for (int ranks : {2, 3, 4, 8})
    for (auto [rows, cols, e] :
         std::vector<std::tuple<std::int64_t, std::int64_t, std::size_t>>{{65536, 65536, 4},
                                                                          {100003, 100019, 8},
                                                                          {50021, 40009, 4},
                                                                          {1 << 20, 4099, 2},
                                                                          {7, 1 << 26, 4},
                                                                          {40000, 40000, 16}}) {
      const split_layout l = even_layout(rows, cols, e, ranks);
      for (int width : {0, 1}) {
        const exchange_choice choice = choose_exchange(l, 0, width, 0);
        const u64 chunk = choice.chunk;
        const exchange_order& order = choice.order;
        for (int r = 0; r < ranks; ++r) {
          const exchange_schedule s = build_schedule(l, r, chunk, order);
          const u64 bound = (u64{64} << 20) + l.capacity_bytes(r) / 100;
          EXPECT_LE(s.arena_bytes, automatic_park_limit(l, r))
              << rows << " x " << cols << " x " << e << " over " << ranks << ", rank " << r
              << ", rounds at once " << width;
          EXPECT_LE(s.scratch_bytes() + local_tables_reserve, bound)
              << rows << " x " << cols << " x " << e << " over " << ranks << ", rank " << r
              << ", rounds at once " << width;
          if (r == 0)
            std::printf(
                "%7lld x %-9lld x %2zu over %d, %d at once: chunk %6.2f MiB, arena %8.3f MiB, "
                "parked %8.3f MiB, buffer %8.1f MiB\n",
                static_cast<long long>(rows), static_cast<long long>(cols), e, ranks, s.lanes,
                chunk / 1048576.0, s.arena_bytes / 1048576.0, s.parked_bytes / 1048576.0,
                l.capacity_bytes(r) / 1048576.0);
        }
      }
    }
}

TEST(DistDescription, SplitsAndCapacities) {
  EXPECT_EQ(xpose::dist::even_split(10, 4), (std::vector<std::int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(xpose::dist::even_split(2, 4), (std::vector<std::int64_t>{1, 1, 0, 0}));
  xpose::dist::distributed_matrix m;
  m.rows = 10;
  m.cols = 7;
  m.elem_size = 8;
  m.ranks = 4;
  m.validate();
  EXPECT_EQ(m.row_first(2), 6);
  EXPECT_EQ(m.col_count(0), 2);
  EXPECT_EQ(m.col_first(3), 6);
  EXPECT_EQ(m.capacity_elements(0), std::max<std::int64_t>(3 * 7, 2 * 10));
  EXPECT_EQ(m.capacity_bytes(3), 8u * std::max<std::int64_t>(2 * 7, 1 * 10));
  const xpose::dist::distributed_matrix t = m.transposed();
  EXPECT_EQ(t.rows, 7);
  EXPECT_EQ(t.row_count(3), 1);
  EXPECT_EQ(t.col_count(0), 3);
}

TEST(DistDescription, RefusesBadDescriptions) {
  const auto code_of = [](const auto& call) {
    try {
      call();
    } catch (const xpose::error& e) {
      return e.code();
    }
    return xpose::status::success;
  };
  xpose::dist::distributed_matrix m;
  m.rows = 10;
  m.cols = 7;
  m.elem_size = 4;
  m.ranks = 2;
  auto with = [&](auto change) {
    xpose::dist::distributed_matrix c = m;
    change(c);
    return code_of([&] { c.validate(); });
  };
  using xpose::status;
  EXPECT_EQ(with([](auto& c) { c.row_split = {5, 4}; }), status::invalid_argument);
  EXPECT_EQ(with([](auto& c) { c.row_split = {11, -1}; }), status::invalid_argument);
  EXPECT_EQ(with([](auto& c) { c.col_split = {7}; }), status::invalid_argument);
  EXPECT_EQ(with([](auto& c) { c.ranks = 0; }), status::invalid_argument);
  EXPECT_EQ(with([](auto& c) { c.elem_size = 0; }), status::invalid_argument);
  EXPECT_EQ(with([](auto& c) { c.rows = 0; }), status::invalid_argument);
  EXPECT_EQ(with([](auto& c) { c.row_split = {0, 10}; }), status::success);
  // Refused at planning, before any device is touched: a scheme whose split is uneven, a rank
  // out of range, an element too large, and splits that would park more than the limit.
  xpose::dist::options rows_even;
  rows_even.local = scheme::rows_even;
  m.row_split = {3, 7};
  EXPECT_EQ(code_of([&] { xpose::dist::plan_inplace(m, 0, nullptr, rows_even); }),
            status::invalid_argument);
  EXPECT_EQ(code_of([&] { xpose::dist::plan_inplace(m, 2); }), status::invalid_argument);
  xpose::dist::options negative_peers;
  negative_peers.peers_at_once = -1;
  EXPECT_EQ(code_of([&] { xpose::dist::plan_inplace(m, 0, nullptr, negative_peers); }),
            status::invalid_argument);
  xpose::dist::distributed_matrix big = m;
  big.elem_size = 2048;
  EXPECT_EQ(code_of([&] { xpose::dist::plan_inplace(big, 0); }), status::unsupported);
  xpose::dist::distributed_matrix skewed;
  skewed.rows = 8192;
  skewed.cols = 8192;
  skewed.elem_size = 8;
  skewed.ranks = 3;
  skewed.row_split = {2369, 3589, 2234};
  skewed.col_split = {2715, 1632, 3845};
  EXPECT_EQ(code_of([&] { xpose::dist::plan_inplace(skewed, 0); }), status::unsupported);
}

TEST(DistSchedule, TwoRanksParkNothingWhateverTheSplits) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 100; ++trial) {
    const split_layout l =
        layout_of(4096, 4096, 8, random_split(4096, 2, rng), random_split(4096, 2, rng));
    const u64 chunk = automatic_chunk_bytes(l);
    const exchange_order order = choose_order(l, chunk);
    for (int r = 0; r < 2; ++r) EXPECT_EQ(build_schedule(l, r, chunk, order).arena_bytes, 0u);
  }
}

TEST(DistSchedule, ManySmallChunksPlanQuickly) {
  // 100 MiB per rank in chunks of 4 KiB: the order search keeps to a few candidates.
  const split_layout l = even_layout(10007, 5003, 8, 4);
  for (int width : {1, 0}) {
    const exchange_order order = choose_order(l, 4096, width);
    const exchange_schedule s = build_schedule(l, 1, 4096, order);
    EXPECT_GT(s.steps.size(), 10000u);
    EXPECT_LE(s.arena_bytes, automatic_park_limit(l, 1));
  }
}

TEST(DistSchedule, AllAtOnceEachWaveTalksToEveryPeer) {
  for (int ranks : {2, 3, 4, 5, 8}) {
    const split_layout l = even_layout(64 * ranks, 48 * ranks, 4, ranks);
    const u64 chunk = 1000;
    exchange_order order;
    order.width = 0;
    for (int r = 0; r < ranks; ++r) {
      const exchange_schedule s = build_schedule(l, r, chunk, order);
      const u64 segment = l.send_bytes(r, (r + 1) % ranks);
      ASSERT_EQ(s.lanes, pairing_rounds(ranks));
      ASSERT_EQ(s.waves.size(), (segment + chunk - 1) / chunk);
      EXPECT_EQ(s.arena_offset(), 2 * s.lanes * s.slot_stride);
      for (std::size_t w = 0; w < s.waves.size(); ++w) {
        const wave& wv = s.waves[w];
        ASSERT_EQ(wv.count, static_cast<std::size_t>(ranks - 1)) << "rank " << r << " wave " << w;
        std::vector<bool> peer_seen(static_cast<std::size_t>(ranks), false);
        for (std::size_t g = wv.first; g < wv.first + wv.count; ++g) {
          const step& st = s.steps[g];
          EXPECT_NE(st.peer, r);
          EXPECT_FALSE(peer_seen[static_cast<std::size_t>(st.peer)]);
          peer_seen[static_cast<std::size_t>(st.peer)] = true;
          EXPECT_EQ(st.slot / s.lanes, static_cast<int>(w % slot_count));
        }
        EXPECT_EQ(wv.wait_copies, static_cast<std::int64_t>(w) - slot_count < 0
                                      ? -1
                                      : static_cast<std::int64_t>(w) - slot_count);
      }
    }
  }
}

}  // namespace
}  // namespace xpose::detail::dist
