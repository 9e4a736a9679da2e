// The exchange of a distributed in-place transposition as data, made on the host at plan time
// and the same on every rank: which chunk goes to which peer in which step, and when each received
// chunk is copied from its slot to its place. No CUDA or NCCL here: the plan (dist_plan.cpp)
// enqueues the steps, the tests replay them on host memory.
//
// Layout: after the local stages before the exchange, rank r's buffer holds the segment for peer
// p at send_offset(r, p), send_bytes(r, p) long, the segments in order of p and tiling
// [0, before_bytes(r)). Before the local stages after it, the segment from peer p sits at
// recv_offset(r, p), recv_bytes(r, p) long, tiling [0, after_bytes(r)). With even splits the two
// coincide: what comes from p lands where what went to p was.
//
// Steps: pairing rounds in which every rank exchanges with one partner (a 1-factorization of the
// complete graph: P - 1 rounds for even P; P for odd P, each rank idle in one), and a self move
// among them where rank r's own segment moves (uneven splits). A round is cut into chunks of
// `chunk` bytes: a step sends chunk i of the outgoing segment and receives chunk i of the
// incoming one into a slot of the scratch. The rounds run `width` at a time: a wave is step i of
// each round of a group of `width` consecutive rounds of the order, one NCCL group that talks to
// that many peers at once (every peer when the group is all the rounds, as an all-to-all does:
// one peer at a time leaves most of the NVLink switch idle), each step into a slot of its own
// (its lane). Waves take the slots of lane set (wave % slot_count) in turn.
//
// In place: a byte of the buffer may be written only once the wave that sends it has completed
// (it is "dead"). A received piece whose place is dead when its wave completes is copied there
// from the slot after that wave; one whose place is still live is parked in an arena of the
// scratch and copied to its place after the wave that frees it. With even splits nothing is parked;
// with near-even ones only thin edges of the segments are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xpose::detail::dist {

/// The row and column splits of a distributed matrix, resolved (counts and prefix sums).
struct split_layout {
  int ranks = 1;
  std::int64_t rows = 0, cols = 0;
  std::size_t elem = 0;
  std::vector<std::int64_t> row_count, row_first;  ///< row_first has ranks + 1 entries
  std::vector<std::int64_t> col_count, col_first;  ///< col_first has ranks + 1 entries

  std::uint64_t send_offset(int r, int p) const;
  std::uint64_t send_bytes(int r, int p) const;
  std::uint64_t recv_offset(int r, int p) const;
  std::uint64_t recv_bytes(int r, int p) const;
  std::uint64_t before_bytes(int r) const;
  std::uint64_t after_bytes(int r) const;
  std::uint64_t capacity_bytes(int r) const;
};

split_layout make_layout(std::int64_t rows, std::int64_t cols, std::size_t elem,
                         const std::vector<std::int64_t>& row_count,
                         const std::vector<std::int64_t>& col_count);

/// Sets of slots of the scratch (one slot per lane each) that receive the waves in turn: a wave
/// waits for the copies out of its set made slot_count waves before, so copies overlap the next
/// transfer.
inline constexpr int slot_count = 2;
/// Offsets in the scratch are multiples of this.
inline constexpr std::uint64_t scratch_alignment = 256;

/// Pairing rounds for `ranks` ranks: ranks - 1 when even, ranks when odd (0 for one rank).
int pairing_rounds(int ranks);
/// Rank `rank`'s partner in pairing round `round` (1..pairing_rounds): an involution, so the
/// partner's partner is `rank`; `rank` itself when it is idle in that round (odd counts).
int round_partner(int rank, int round, int ranks);

enum class copy_kind {
  slot_to_buffer,   ///< a received piece to its place
  slot_to_arena,    ///< a received piece whose place is live, parked
  arena_to_buffer,  ///< a parked piece to its place, once free
};

struct copy_op {
  copy_kind kind = copy_kind::slot_to_buffer;
  int slot = 0;           ///< slot_to_*: the slot read
  std::uint64_t src = 0;  ///< offset in the slot or in the arena
  std::uint64_t dst = 0;  ///< offset in the buffer or in the arena
  std::uint64_t bytes = 0;
};

/// One transfer: a chunk to a peer and a chunk from it (or the self move's local copy).
struct step {
  int round = 0;           ///< key of its group of rounds in the exchange order (build_schedule)
  std::int64_t index = 0;  ///< position in the round (all ranks of a pair agree)
  int peer = 0;            ///< the partner; this rank for the self move
  std::uint64_t send_offset = 0, send_bytes = 0;  ///< what leaves the buffer (0 bytes: none)
  std::uint64_t recv_offset = 0, recv_bytes = 0;  ///< where the received chunk belongs
  int slot = 0;  ///< the slot it is received into: (wave % slot_count) * lanes + its lane
};

/// Steps that run together: one NCCL group (every step of a wave has the same round key and
/// index, on every rank that takes part), then the copies out of their slots.
struct wave {
  std::size_t first = 0, count = 0;  ///< its steps: steps[first, first + count)
  /// Before the transfers: the copies made after this wave must have completed (-1: none).
  std::int64_t wait_copies = -1;
  /// After the transfers, in this order.
  std::vector<copy_op> copies;
};

struct exchange_schedule {
  int rank = 0;
  std::uint64_t chunk = 0;
  std::uint64_t slot_stride = 0;  ///< chunk rounded up to scratch_alignment
  int lanes = 1;                  ///< slots per wave: the rounds that run at once
  std::vector<step> steps;        ///< in order of waves
  std::vector<wave> waves;
  std::uint64_t arena_bytes = 0;   ///< peak of the parking arena
  std::uint64_t parked_bytes = 0;  ///< all bytes parked, over the whole exchange
  std::uint64_t self_bytes = 0;    ///< bytes of the self move (0: the own segment stays)

  /// Slots then arena.
  std::uint64_t scratch_bytes() const;
  std::uint64_t arena_offset() const {
    return static_cast<std::uint64_t>(slot_count) * static_cast<std::uint64_t>(lanes) * slot_stride;
  }
};

/// Whether the pair (r, p) sends its chunks from the end of the segments to their start: chosen
/// from both ranks' layouts so that both agree, the way that parks fewer bytes.
bool pair_descending(const split_layout& layout, int r, int p);

/// The order of the exchange: which pairing round runs in which position (the same on every
/// rank), how many run at once, and where each rank's self move comes among them (its own choice:
/// the move is local). Any order is a valid exchange; with uneven splits the order decides how
/// much is parked.
struct exchange_order {
  std::vector<int> rounds;  ///< a permutation of 1..pairing_rounds(P); empty: in turn
  /// Pairing rounds that run at once (consecutive in `rounds`); 0: all of them.
  int width = 1;
  /// Per rank, how many pairing rounds precede its self move (0, a multiple of the width, or all
  /// of them); empty: none (the move first).
  std::vector<int> self_after;
  /// P x P, symmetric: whether pair (r, p) sends from the end; empty: pair_descending's choice.
  std::vector<unsigned char> descending;

  bool from_end(const struct split_layout& layout, int r, int p) const;
  /// The rounds that run at once for `ranks` ranks: `width`, or all of them when it is 0 or
  /// ranks - 1 or more (an odd count has as many rounds as ranks, each rank idle in one).
  int rounds_at_once(int ranks) const;
};

/// Rank `rank`'s schedule with chunks of `chunk` bytes (>= 1) in `order`. A step's `round` is
/// the key of its group in the order: 2 i + 2 for the group whose first pairing round is in
/// position i, 2 j + 1 for a self move after j pairing rounds.
exchange_schedule build_schedule(const split_layout& layout, int rank, std::uint64_t chunk,
                                 const exchange_order& order = {});

/// The order that parks least with `width` rounds at once (0: all): the rounds in every order for
/// up to 6 ranks, else their rotations and reverses (up to 16 ranks; in turn and reversed beyond,
/// or when the schedules have millions of steps; in turn alone when all run at once), each rank's
/// self move at its best place; then each pair's direction flipped where that lowers the larger
/// arena of the two. Least is the smallest largest arena over
/// the ranks, then the fewest bytes parked. Even splits park nothing and get the plain order.
exchange_order choose_order(const split_layout& layout, std::uint64_t chunk, int width = 1);

/// The extra device memory a rank may use: 64 MiB + 1 % of its buffer of `capacity` bytes.
std::uint64_t memory_bound(std::uint64_t capacity);

/// Device memory the automatic chunk leaves within the memory bound for the local stages' tables.
inline constexpr std::uint64_t local_tables_reserve = std::uint64_t{8} << 20;

/// The chunk size when none is given, with `width` rounds at once (0: all), from the smallest
/// buffer over the ranks so that every rank gets the same, between 256 KiB and 128 MiB and no
/// larger than the largest transfer: the slots (slot_count per lane) take what the memory bound
/// (64 MiB + 1 % of the buffer) leaves after the parking arena and local_tables_reserve, where
/// every rank's schedule with that chunk still fits; otherwise half the bound together.
std::uint64_t automatic_chunk_bytes(const split_layout& layout, int width = 1);

/// The parking arena allowed to rank `rank` when no limit is given.
std::uint64_t automatic_park_limit(const split_layout& layout, int rank);

/// An exchange's chunk and order.
struct exchange_choice {
  std::uint64_t chunk = 0;
  exchange_order order;
};

/// The chunk (`chunk`, or automatic_chunk_bytes when 0) and order for `width` rounds at once;
/// with width 0, the most rounds at once (all, then half as many, down to one) for which every
/// rank parks at most `park_limit` (0: automatic_park_limit) and its scratch, with
/// local_tables_reserve, stays within the memory bound. Running all rounds at once leaves the order
/// no freedom, so very uneven splits can park much more than one round at a time would (7 x 2^26
/// over 3 ranks: 89 MiB against nothing).
exchange_choice choose_exchange(const split_layout& layout, std::uint64_t chunk, int width,
                                std::uint64_t park_limit);

}  // namespace xpose::detail::dist
