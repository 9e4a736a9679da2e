// The exchange schedule (exchange_schedule.hpp): steps, the dead map of the buffer, placement
// and parking of received pieces, the arena, and the search for the order that parks least.
#include "dist/exchange_schedule.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <string>

#include "xpose/error.hpp"

namespace xpose::detail::dist {

namespace {

using u64 = std::uint64_t;

constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();

[[noreturn]] void internal(const std::string& message) {
  throw error(status::internal_error, "distributed exchange schedule: " + message);
}

u64 round_up(u64 value, u64 unit) {
  return (value + unit - 1) / unit * unit;
}

u64 ceil_div(u64 a, u64 b) {
  return (a + b - 1) / b;
}

/// A byte range of the buffer and the step at which its contents have been sent.
struct dead_range {
  u64 lo = 0, hi = 0;
  std::int64_t dead = 0;  ///< the step; -1 from the start; `never` for the own segment in place
};

/// First-fit allocation in the parking arena, offsets aligned to scratch_alignment.
class arena_allocator {
 public:
  u64 allocate(u64 bytes) {
    bytes = round_up(bytes, scratch_alignment);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      const u64 at = it->first;
      const u64 left = it->second - bytes;
      free_.erase(it);
      if (left > 0) free_[at + bytes] = left;
      return at;
    }
    const u64 at = top_;
    top_ += bytes;
    return at;
  }
  void release(u64 at, u64 bytes) {
    bytes = round_up(bytes, scratch_alignment);
    auto next = free_.lower_bound(at);
    if (next != free_.end() && at + bytes == next->first) {
      bytes += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto before = std::prev(next);
      if (before->first + before->second == at) {
        before->second += bytes;
        return;
      }
    }
    free_[at] = bytes;
  }
  u64 peak() const { return top_; }

 private:
  std::map<u64, u64> free_;
  u64 top_ = 0;
};

/// One transfer of a group: its peer, segments, direction and lane.
struct transfer {
  int peer = 0;
  u64 send_offset = 0, send_bytes = 0, recv_offset = 0, recv_bytes = 0;
  bool descending = false;
  int lane = 0;
};

/// A group of transfers cut into chunks, one wave per chunk index: step i of each transfer that
/// has one, in `s.steps` and `s.waves`. `slot` holds the lane until the waves are numbered.
void add_group(exchange_schedule& s, int key, const std::vector<transfer>& group, u64 chunk) {
  std::vector<u64> counts;
  u64 longest = 0;
  for (const transfer& t : group) {
    counts.push_back(std::max(ceil_div(t.send_bytes, chunk), ceil_div(t.recv_bytes, chunk)));
    longest = std::max(longest, counts.back());
  }
  for (u64 position = 0; position < longest; ++position) {
    const std::size_t first = s.steps.size();
    for (std::size_t k = 0; k < group.size(); ++k) {
      if (position >= counts[k]) continue;
      const transfer& t = group[k];
      const u64 i = t.descending ? counts[k] - 1 - position : position;
      step st;
      st.round = key;
      st.index = static_cast<std::int64_t>(position);
      st.peer = t.peer;
      if (i * chunk < t.send_bytes) {
        st.send_offset = t.send_offset + i * chunk;
        st.send_bytes = std::min(chunk, t.send_bytes - i * chunk);
      }
      if (i * chunk < t.recv_bytes) {
        st.recv_offset = t.recv_offset + i * chunk;
        st.recv_bytes = std::min(chunk, t.recv_bytes - i * chunk);
      }
      st.slot = t.lane;
      s.steps.push_back(st);
    }
    wave w;
    w.first = first;
    w.count = s.steps.size() - first;
    s.waves.push_back(std::move(w));
  }
}

}  // namespace

u64 split_layout::send_offset(int r, int p) const {
  return elem * static_cast<u64>(row_count[r]) * static_cast<u64>(col_first[p]);
}
u64 split_layout::send_bytes(int r, int p) const {
  return elem * static_cast<u64>(row_count[r]) * static_cast<u64>(col_count[p]);
}
u64 split_layout::recv_offset(int r, int p) const {
  return elem * static_cast<u64>(col_count[r]) * static_cast<u64>(row_first[p]);
}
u64 split_layout::recv_bytes(int r, int p) const {
  return elem * static_cast<u64>(row_count[p]) * static_cast<u64>(col_count[r]);
}
u64 split_layout::before_bytes(int r) const {
  return elem * static_cast<u64>(row_count[r]) * static_cast<u64>(cols);
}
u64 split_layout::after_bytes(int r) const {
  return elem * static_cast<u64>(col_count[r]) * static_cast<u64>(rows);
}
u64 split_layout::capacity_bytes(int r) const {
  return std::max(before_bytes(r), after_bytes(r));
}

split_layout make_layout(std::int64_t rows, std::int64_t cols, std::size_t elem,
                         const std::vector<std::int64_t>& row_count,
                         const std::vector<std::int64_t>& col_count) {
  split_layout l;
  l.ranks = static_cast<int>(row_count.size());
  l.rows = rows;
  l.cols = cols;
  l.elem = elem;
  l.row_count = row_count;
  l.col_count = col_count;
  l.row_first.assign(row_count.size() + 1, 0);
  l.col_first.assign(col_count.size() + 1, 0);
  for (std::size_t r = 0; r < row_count.size(); ++r) {
    l.row_first[r + 1] = l.row_first[r] + row_count[r];
    l.col_first[r + 1] = l.col_first[r] + col_count[r];
  }
  return l;
}

u64 exchange_schedule::scratch_bytes() const {
  if (steps.empty()) return 0;
  return arena_offset() + round_up(arena_bytes, scratch_alignment);
}

int pairing_rounds(int ranks) {
  if (ranks <= 1) return 0;
  return ranks % 2 == 0 ? ranks - 1 : ranks;
}

int round_partner(int rank, int round, int ranks) {
  if (ranks <= 1 || round < 1 || round > pairing_rounds(ranks)) return rank;
  const int j = round - 1;
  if (ranks % 2 == 1) {
    // Circle method: r and (j - r) mod P meet; the rank with 2r = j (mod P) sits out.
    return ((j - rank) % ranks + ranks) % ranks;
  }
  // Even P: the circle method on P - 1 ranks, the one that would sit out meets rank P - 1.
  const int n = ranks - 1;
  if (rank == n) return static_cast<int>((static_cast<long long>(j) * (ranks / 2)) % n);
  const int p = ((j - rank) % n + n) % n;
  return p == rank ? n : p;
}

bool pair_descending(const split_layout& layout, int r, int p) {
  // Sending from the start, a rank whose incoming segment starts after its outgoing one
  // (shift > 0) receives each chunk a little ahead of the space its sends free; sending from the
  // end, one whose shift is negative does. The order that parks less over both ranks wins; ties
  // go to the start.
  const auto shift = [&](int a, int b) {
    return static_cast<long double>(layout.recv_offset(a, b)) -
           static_cast<long double>(layout.send_offset(a, b));
  };
  const long double a = shift(r, p), b = shift(p, r);
  const long double ascending = std::max<long double>(0, a) + std::max<long double>(0, b);
  const long double descending = std::max<long double>(0, -a) + std::max<long double>(0, -b);
  return descending < ascending;
}

exchange_schedule build_schedule(const split_layout& layout, int rank, u64 chunk,
                                 const exchange_order& order) {
  if (chunk == 0) internal("chunk of 0 bytes");
  exchange_schedule s;
  s.rank = rank;
  s.chunk = chunk;
  s.slot_stride = round_up(chunk, scratch_alignment);
  const int ranks = layout.ranks;
  std::vector<int> rounds = order.rounds;
  if (rounds.empty())
    for (int round = 1; round <= pairing_rounds(ranks); ++round) rounds.push_back(round);
  const int count = static_cast<int>(rounds.size());
  if (count != pairing_rounds(ranks)) internal("order of wrong length");
  const int width = order.rounds_at_once(ranks);
  s.lanes = width;
  const int self_after =
      order.self_after.empty() ? 0 : order.self_after[static_cast<std::size_t>(rank)];
  if (self_after < 0 || self_after > count || (self_after % width != 0 && self_after != count))
    internal("a self move inside a group of rounds");

  // The self move (the own segment from its place before to its place after) and the groups of
  // pairing rounds, in order.
  const u64 own_from = layout.send_offset(rank, rank), own_to = layout.recv_offset(rank, rank);
  const u64 own_bytes = layout.send_bytes(rank, rank);
  for (int position = 0;; position += width) {
    if (position >= self_after && position - width < self_after && own_bytes > 0 &&
        own_from != own_to) {
      s.self_bytes = own_bytes;
      add_group(s, 2 * self_after + 1,
                {{rank, own_from, own_bytes, own_to, own_bytes, own_to > own_from, 0}}, chunk);
    }
    if (position >= count) break;
    std::vector<transfer> group;
    for (int q = position; q < std::min(count, position + width); ++q) {
      const int p = round_partner(rank, rounds[static_cast<std::size_t>(q)], ranks);
      if (p == rank) continue;
      group.push_back({p, layout.send_offset(rank, p), layout.send_bytes(rank, p),
                       layout.recv_offset(rank, p), layout.recv_bytes(rank, p),
                       order.from_end(layout, rank, p), q - position});
    }
    add_group(s, 2 * position + 2, group, chunk);
  }
  std::vector<std::int64_t> wave_of(s.steps.size());
  for (std::size_t w = 0; w < s.waves.size(); ++w) {
    wave& wv = s.waves[w];
    wv.wait_copies = static_cast<std::int64_t>(w) - slot_count;
    if (wv.wait_copies < 0) wv.wait_copies = -1;
    const int set = static_cast<int>(w % slot_count);
    for (std::size_t g = wv.first; g < wv.first + wv.count; ++g) {
      wave_of[g] = static_cast<std::int64_t>(w);
      s.steps[g].slot += set * width;
    }
  }

  // When each byte of the buffer is dead: the wave that sends it. The segments tile
  // [0, before_bytes); what lies beyond holds nothing to send.
  const u64 before = layout.before_bytes(rank);
  std::vector<dead_range> dead;
  for (std::size_t g = 0; g < s.steps.size(); ++g)
    if (s.steps[g].send_bytes > 0)
      dead.push_back(
          {s.steps[g].send_offset, s.steps[g].send_offset + s.steps[g].send_bytes, wave_of[g]});
  if (own_bytes > 0 && own_from == own_to) dead.push_back({own_from, own_from + own_bytes, never});
  std::sort(dead.begin(), dead.end(),
            [](const dead_range& a, const dead_range& b) { return a.lo < b.lo; });
  u64 covered = 0;
  for (const dead_range& d : dead) {
    if (d.lo != covered) internal("the outgoing segments do not tile the block");
    covered = d.hi;
  }
  if (covered != before) internal("the outgoing segments do not cover the block");

  // Received pieces: to their place after the wave that completes last of their own and the ones
  // that free the place; parked in the arena when that is a later wave (their slot is reused).
  const std::size_t waves = s.waves.size();
  std::vector<std::vector<copy_op>> early(waves), late(waves);
  std::vector<std::vector<std::pair<u64, u64>>> frees(waves);
  arena_allocator arena;
  for (std::size_t w = 0; w < waves; ++w) {
    for (const auto& [at, bytes] : frees[w]) arena.release(at, bytes);
    for (std::size_t g = s.waves[w].first; g < s.waves[w].first + s.waves[w].count; ++g) {
      const step& st = s.steps[g];
      if (st.recv_bytes == 0) continue;
      const u64 d0 = st.recv_offset, d1 = st.recv_offset + st.recv_bytes;
      // Walk the destination through the dead ranges: pieces with the wave that frees them.
      std::vector<std::pair<dead_range, std::int64_t>> pieces;  // range, wave it can be placed
      u64 x = d0;
      auto it = std::upper_bound(dead.begin(), dead.end(), x,
                                 [](u64 v, const dead_range& d) { return v < d.lo; });
      if (it != dead.begin()) --it;
      while (x < d1) {
        dead_range piece;
        piece.lo = x;
        if (x >= before) {
          piece.hi = d1;
          piece.dead = -1;
        } else {
          while (it != dead.end() && it->hi <= x) ++it;
          if (it == dead.end() || it->lo > x) internal("a received byte falls outside the block");
          piece.hi = std::min(d1, it->hi);
          piece.dead = it->dead;
        }
        if (piece.dead == never)
          internal("a received piece lands on the own segment left in place");
        const std::int64_t place = std::max<std::int64_t>(static_cast<std::int64_t>(w), piece.dead);
        if (!pieces.empty() && pieces.back().second == place && pieces.back().first.hi == piece.lo)
          pieces.back().first.hi = piece.hi;
        else
          pieces.push_back({piece, place});
        x = piece.hi;
      }
      for (const auto& [piece, place] : pieces) {
        const u64 bytes = piece.hi - piece.lo;
        if (place == static_cast<std::int64_t>(w)) {
          late[w].push_back({copy_kind::slot_to_buffer, st.slot, piece.lo - d0, piece.lo, bytes});
          continue;
        }
        const u64 at = arena.allocate(bytes);
        late[w].push_back({copy_kind::slot_to_arena, st.slot, piece.lo - d0, at, bytes});
        early[static_cast<std::size_t>(place)].push_back(
            {copy_kind::arena_to_buffer, 0, at, piece.lo, bytes});
        frees[static_cast<std::size_t>(place)].push_back({at, bytes});
        s.parked_bytes += bytes;
      }
    }
  }
  for (std::size_t w = 0; w < waves; ++w) {
    // Placements out of the arena first: the arena space they free may be parked into next.
    s.waves[w].copies = std::move(early[w]);
    s.waves[w].copies.insert(s.waves[w].copies.end(), late[w].begin(), late[w].end());
  }
  s.arena_bytes = arena.peak();
  return s;
}

bool exchange_order::from_end(const split_layout& layout, int r, int p) const {
  if (descending.empty()) return pair_descending(layout, r, p);
  return descending[static_cast<std::size_t>(r) * static_cast<std::size_t>(layout.ranks) +
                    static_cast<std::size_t>(p)] != 0;
}

int exchange_order::rounds_at_once(int ranks) const {
  // With an odd count every rank sits out one round: P - 1 peers at once is all P rounds.
  const int rounds = std::max(pairing_rounds(ranks), 1);
  return width <= 0 || width >= ranks - 1 ? rounds : width;
}

namespace {

/// What an order costs: the largest arena over the ranks it was computed for, then the bytes
/// parked over them.
struct order_cost {
  u64 arena = 0, parked = 0;
  bool operator<(const order_cost& o) const {
    return arena != o.arena ? arena < o.arena : parked < o.parked;
  }
};

/// Rank r's self move placed where it parks least (`o.self_after[r]` set); its cost.
order_cost place_self(const split_layout& layout, int r, u64 chunk, exchange_order& o,
                      bool narrow) {
  const int rounds = pairing_rounds(layout.ranks), width = o.rounds_at_once(layout.ranks);
  const bool moves =
      layout.send_bytes(r, r) > 0 && layout.send_offset(r, r) != layout.recv_offset(r, r);
  order_cost best;
  int best_after = 0;
  for (int after = 0; after <= (moves ? rounds : 0); ++after) {
    if (after % width != 0 && after != rounds) continue;  // between groups of rounds only
    if (narrow && after != 0 && after != rounds) continue;
    o.self_after[static_cast<std::size_t>(r)] = after;
    const exchange_schedule s = build_schedule(layout, r, chunk, o);
    const order_cost c{s.arena_bytes, s.parked_bytes};
    if (after == 0 || c < best) {
      best = c;
      best_after = after;
    }
    if (best.arena == 0 && best.parked == 0) break;
  }
  o.self_after[static_cast<std::size_t>(r)] = best_after;
  return best;
}

}  // namespace

exchange_order choose_order(const split_layout& layout, u64 chunk, int width) {
  const int ranks = layout.ranks, rounds = pairing_rounds(ranks);
  exchange_order shape;
  shape.width = width;
  const bool all_at_once = shape.rounds_at_once(ranks) == std::max(rounds, 1);
  std::vector<int> plain;
  for (int round = 1; round <= rounds; ++round) plain.push_back(round);
  // The search builds schedules of every rank for each candidate: with many steps (small chunks
  // of a large matrix) it keeps to the plain order and its reverse, the self move first or last.
  u64 steps = 0;
  for (int r = 0; r < ranks; ++r)
    for (int p = 0; p < ranks; ++p)
      steps += ceil_div(std::max(layout.send_bytes(r, p), layout.recv_bytes(r, p)), chunk);
  const bool narrow = steps * static_cast<u64>(4 * (rounds + 1) * (rounds + 1)) > 20'000'000;
  std::vector<std::vector<int>> candidates;
  if (all_at_once) {
    candidates.push_back(plain);  // every order makes the same waves
  } else if (ranks <= 6 && !narrow) {
    std::vector<int> o = plain;
    do candidates.push_back(o);
    while (std::next_permutation(o.begin(), o.end()));
  } else {
    const int rotations = ranks <= 16 && !narrow ? std::max(rounds, 1) : 1;
    for (int reverse = 0; reverse < 2; ++reverse)
      for (int shift = 0; shift < rotations; ++shift) {
        std::vector<int> o;
        for (int i = 0; i < rounds; ++i)
          o.push_back(plain[static_cast<std::size_t>((i + shift) % rounds)]);
        if (reverse) std::reverse(o.begin(), o.end());
        candidates.push_back(o);
      }
  }
  exchange_order best;
  order_cost best_cost;
  bool first = true;
  for (const std::vector<int>& rounds_order : candidates) {
    exchange_order o = shape;
    o.rounds = rounds_order;
    o.self_after.assign(static_cast<std::size_t>(ranks), 0);
    order_cost cost;
    for (int r = 0; r < ranks && (first || cost.arena <= best_cost.arena); ++r) {
      const order_cost c = place_self(layout, r, chunk, o, narrow);
      cost.arena = std::max(cost.arena, c.arena);
      cost.parked += c.parked;
    }
    if (first || cost < best_cost) {
      best = o;
      best_cost = cost;
      first = false;
    }
    if (best_cost.arena == 0 && best_cost.parked == 0) return best;
  }
  if (narrow) return best;
  // Directions: flip a pair where that lowers the larger arena of its two ranks (then their
  // bytes parked); the other ranks' schedules do not change.
  best.descending.assign(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks), 0);
  for (int r = 0; r < ranks; ++r)
    for (int p = 0; p < ranks; ++p)
      best.descending[static_cast<std::size_t>(r * ranks + p)] = pair_descending(layout, r, p);
  std::vector<order_cost> rank_cost(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) rank_cost[r] = place_self(layout, r, chunk, best, false);
  for (int sweep = 0; sweep < 2; ++sweep)
    for (int r = 0; r < ranks; ++r)
      for (int p = r + 1; p < ranks; ++p) {
        const order_cost before{std::max(rank_cost[r].arena, rank_cost[p].arena),
                                rank_cost[r].parked + rank_cost[p].parked};
        if (before.arena == 0 && before.parked == 0) continue;
        exchange_order trial = best;
        const unsigned char flipped = !trial.descending[static_cast<std::size_t>(r * ranks + p)];
        trial.descending[static_cast<std::size_t>(r * ranks + p)] = flipped;
        trial.descending[static_cast<std::size_t>(p * ranks + r)] = flipped;
        const order_cost cr = place_self(layout, r, chunk, trial, false);
        const order_cost cp = place_self(layout, p, chunk, trial, false);
        const order_cost after{std::max(cr.arena, cp.arena), cr.parked + cp.parked};
        if (after < before) {
          best = trial;
          rank_cost[r] = cr;
          rank_cost[p] = cp;
        }
      }
  return best;
}

u64 memory_bound(u64 capacity) {
  return (u64{64} << 20) + capacity / 100;
}

u64 automatic_chunk_bytes(const split_layout& layout, int width) {
  constexpr u64 mib = u64{1} << 20;
  u64 smallest = 0, largest_transfer = 0;
  for (int r = 0; r < layout.ranks; ++r) {
    const u64 capacity = layout.capacity_bytes(r);
    if (capacity > 0 && (smallest == 0 || capacity < smallest)) smallest = capacity;
    for (int p = 0; p < layout.ranks; ++p)
      largest_transfer = std::max(largest_transfer, layout.send_bytes(r, p));
  }
  const auto fit = [&](long double wanted) {
    const u64 chunk =
        static_cast<u64>(std::clamp<long double>(wanted, 256.0L * 1024, 128.0L * mib));
    return std::max<u64>(4096, std::min(chunk / 4096 * 4096, round_up(largest_transfer, 4096)));
  };
  const auto bound = memory_bound;
  exchange_order shape;
  shape.width = width;
  const auto slots = static_cast<long double>(slot_count * shape.rounds_at_once(layout.ranks));
  // First all slots within half the memory bound of the smallest buffer...
  const u64 first = fit(static_cast<long double>(bound(smallest)) / 2 / slots);
  // ...then as large as the bound leaves after the largest parking arena that chunk gives and the
  // local stages' tables: fewer, larger transfers. 2 H200s: the exchange of 65536^2 fp32 in
  // chunks of 16, 32, 64 and 128 MiB took 23.5, 20.3, 18.2 and 16.9 ms.
  u64 arena = 0;
  const exchange_order order = choose_order(layout, first, width);
  for (int r = 0; r < layout.ranks; ++r)
    arena = std::max(arena, build_schedule(layout, r, first, order).arena_bytes);
  const u64 room = bound(smallest) - std::min(bound(smallest), arena + local_tables_reserve);
  const u64 larger = fit(static_cast<long double>(room) / slots);
  if (larger <= first) return first;
  // A larger chunk parks differently: kept only where every rank's scratch still fits.
  const exchange_order larger_order = choose_order(layout, larger, width);
  for (int r = 0; r < layout.ranks; ++r)
    if (build_schedule(layout, r, larger, larger_order).scratch_bytes() + local_tables_reserve >
        bound(layout.capacity_bytes(r)))
      return first;
  return larger;
}

u64 automatic_park_limit(const split_layout& layout, int rank) {
  return std::max<u64>(u64{16} << 20, layout.capacity_bytes(rank) / 256);
}

exchange_choice choose_exchange(const split_layout& layout, u64 chunk, int width, u64 park_limit) {
  const auto make = [&](int w) {
    exchange_choice c;
    c.chunk = chunk > 0 ? chunk : automatic_chunk_bytes(layout, w);
    c.order = choose_order(layout, c.chunk, w);
    return c;
  };
  if (width > 0) return make(width);
  const int rounds = std::max(pairing_rounds(layout.ranks), 1);
  for (int w = rounds; w > 1; w = (w + 1) / 2) {
    exchange_choice c = make(w);
    bool fits = true;
    for (int r = 0; r < layout.ranks && fits; ++r) {
      const exchange_schedule s = build_schedule(layout, r, c.chunk, c.order);
      const u64 limit = park_limit > 0 ? park_limit : automatic_park_limit(layout, r);
      fits = s.arena_bytes <= limit &&
             s.scratch_bytes() + local_tables_reserve <= memory_bound(layout.capacity_bytes(r));
    }
    if (fits) return c;
  }
  return make(1);
}

}  // namespace xpose::detail::dist
