#include "bench_cases.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace xpose_cli {

namespace {

using xpose::route;

constexpr std::size_t mib = std::size_t{1} << 20;

struct shape_and_elem {
  std::int64_t rows, cols;
  std::size_t elem_size;
};

/// SplitMix64 (Steele, Lea and Flood): the same sequence on every platform, unlike the standard
/// distributions.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void add(std::vector<bench_case>& cases, const std::string& group, xpose::device target,
         bool in_place, route r, std::initializer_list<shape_and_elem> shapes) {
  for (const auto& s : shapes)
    cases.push_back({group, target, in_place, r, s.rows, s.cols, s.elem_size});
}

/// Dense batches of small matrices, out of place: `batch` is the count that makes about
/// `total_bytes` in all.
void add_batches(std::vector<bench_case>& cases, const std::string& group, xpose::device target,
                 route r, std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                 std::size_t total_bytes) {
  const std::size_t matrix = static_cast<std::size_t>(rows * cols) * elem_size;
  const auto batch = static_cast<std::int64_t>(std::max<std::size_t>(1, total_bytes / matrix));
  cases.push_back({group, target, false, r, rows, cols, elem_size, batch});
}

void add_square_variants(std::vector<bench_case>& cases, const std::string& group,
                         xpose::device target, std::initializer_list<route> routes, std::int64_t n,
                         std::size_t elem_size) {
  for (const route r : routes) cases.push_back({group, target, true, r, n, n, elem_size});
}

/// The DL paper's Table 1: ELL matrices of rows x width, i.e. arrays of `rows` structures of
/// `width` fields ("DL: A Data Layout Transformation System for Heterogeneous Computing", sec. 6).
constexpr std::pair<std::int64_t, std::int64_t> dl_table1[] = {
    {11948, 40}, {17281, 62}, {35588, 197}, {44609, 215}, {90449, 59}, {49152, 39}};

void add_layout(std::vector<bench_case>& cases, const std::string& group, xpose::device target,
                std::int64_t n, std::int64_t S, xpose::layout from, xpose::layout to,
                xpose::layout_variant variant = xpose::layout_variant::automatic,
                bool on_request = false) {
  bench_case c{group, target, true, route::automatic, n, S, 4};
  c.layout = true;
  c.from = from;
  c.to = to;
  c.variant = variant;
  c.on_request = on_request;
  cases.push_back(c);
}

/// The conversions of one array of n structures of S fp32 fields: aos -> asta(T) and soa ->
/// asta(T) for T = 16, 32, 64 (on the GPU aos -> asta both barrier-sync and PTTWAC); asta(T) ->
/// aos and -> soa for `back_tiles`; aos <-> soa. On the GPU, soa -> asta with a partial tile goes
/// through aos, so soa -> asta is also measured on n rounded down to a multiple of 64, where it is
/// the tile-granularity stage of DL sec. 4.3, automatic (the chains) and PTTWAC.
void add_layout_set(std::vector<bench_case>& cases, const std::string& group, xpose::device target,
                    std::int64_t n, std::int64_t S, std::initializer_list<std::int64_t> back_tiles,
                    bool on_request) {
  using xpose::layout;
  using xpose::layout_variant;
  const bool gpu = target == xpose::device::cuda;
  for (const std::int64_t T : {16, 32, 64}) {
    if (gpu) {
      add_layout(cases, group, target, n, S, layout::aos(), layout::asta(T),
                 layout_variant::barrier_sync, on_request);
      add_layout(cases, group, target, n, S, layout::aos(), layout::asta(T), layout_variant::pttwac,
                 on_request);
    } else {
      add_layout(cases, group, target, n, S, layout::aos(), layout::asta(T),
                 layout_variant::automatic, on_request);
    }
    add_layout(cases, group, target, n, S, layout::soa(), layout::asta(T),
               layout_variant::automatic, on_request);
  }
  if (gpu) {
    const std::int64_t whole = n / 64 * 64;
    for (const std::int64_t T : {16, 32, 64}) {
      if (whole != n)
        add_layout(cases, group, target, whole, S, layout::soa(), layout::asta(T),
                   layout_variant::automatic, on_request);
      add_layout(cases, group, target, whole, S, layout::soa(), layout::asta(T),
                 layout_variant::pttwac, on_request);
      // The DL paper's Figure 7: P-IPT against PTTWAC on the same conversion.
      add_layout(cases, group, target, whole, S, layout::soa(), layout::asta(T),
                 layout_variant::pipt, on_request);
    }
  }
  for (const std::int64_t T : back_tiles) {
    add_layout(cases, group, target, n, S, layout::asta(T), layout::aos(),
               layout_variant::automatic, on_request);
    add_layout(cases, group, target, n, S, layout::asta(T), layout::soa(),
               layout_variant::automatic, on_request);
  }
  add_layout(cases, group, target, n, S, layout::aos(), layout::soa(), layout_variant::automatic,
             on_request);
  add_layout(cases, group, target, n, S, layout::soa(), layout::aos(), layout_variant::automatic,
             on_request);
}

/// Small arrays with partial tiles for --quick: every kind of conversion, and on the GPU each
/// variant that applies.
void add_quick_layouts(std::vector<bench_case>& cases, const std::string& group,
                       xpose::device target) {
  using xpose::layout;
  using xpose::layout_variant;
  for (const auto& [n, S] : {std::pair<std::int64_t, std::int64_t>{1001, 7}, {2000, 40}}) {
    add_layout(cases, group, target, n, S, layout::aos(), layout::asta(32));
    add_layout(cases, group, target, n, S, layout::soa(), layout::asta(16));
    add_layout(cases, group, target, n, S, layout::asta(32), layout::soa());
    add_layout(cases, group, target, n, S, layout::aos(), layout::soa());
  }
  if (target == xpose::device::cuda)
    for (const layout_variant v :
         {layout_variant::barrier_sync, layout_variant::pttwac, layout_variant::chains,
          layout_variant::through_scratch, layout_variant::pipt}) {
      add_layout(cases, group, target, 2000, 40, layout::aos(), layout::asta(32), v);
      add_layout(cases, group, target, 2048, 40, layout::soa(), layout::asta(16), v);
    }
}

std::vector<bench_case> default_cpu_cases() {
  const auto cpu = xpose::device::cpu;
  std::vector<bench_case> cases;
  // PPoPP'14 Table 2 shapes, two shapes with a prime dimension, one fp64 shape.
  add(cases, "cpu in-place rectangular", cpu, true, route::automatic,
      {{7200, 1800, 4},
       {5100, 2500, 4},
       {4000, 3200, 4},
       {3300, 3900, 4},
       {2500, 5100, 4},
       {1800, 7200, 4},
       {7919, 1800, 4},
       {4999, 3001, 4},
       {5100, 2500, 8}});
  const std::string square = "cpu in-place square";
  add_square_variants(cases, square, cpu,
                      {route::square_tile_swap, route::square_naive, route::square_prefetch,
                       route::square_recursive},
                      4096, 4);
  add_square_variants(cases, square, cpu, {route::square_tile_swap}, 8192, 4);
  add(cases, "cpu out-of-place", cpu, false, route::copy_blocked,
      {{8192, 8192, 1},
       {4000, 3200, 2},
       {7200, 1800, 4},
       {4999, 3001, 4},
       {2500, 5100, 8},
       {3000, 2000, 16}});
  for (const auto& [n, S] : dl_table1) add_layout_set(cases, "cpu layout", cpu, n, S, {32}, false);
  return cases;
}

std::vector<bench_case> quick_cpu_cases() {
  const auto cpu = xpose::device::cpu;
  std::vector<bench_case> cases;
  add(cases, "cpu in-place rectangular", cpu, true, route::automatic,
      {{360, 180, 4}, {97, 61, 4}, {250, 510, 8}});
  add_square_variants(cases, "cpu in-place square", cpu,
                      {route::square_tile_swap, route::square_naive, route::square_prefetch,
                       route::square_recursive},
                      256, 4);
  add(cases, "cpu out-of-place", cpu, false, route::copy_blocked,
      {{100, 37, 1}, {100, 37, 2}, {100, 37, 4}, {100, 37, 8}, {100, 37, 16}});
  // A batch, so that the tests check batched plans and their reference too.
  add_batches(cases, "cpu out-of-place", cpu, route::copy_blocked, 24, 40, 12, mib / 4);
  add_quick_layouts(cases, "cpu layout", cpu);
  return cases;
}

std::vector<bench_case> default_cuda_cases() {
  const auto cuda = xpose::device::cuda;
  std::vector<bench_case> cases;
  // copy_tuned on >= 64 MiB matrices for every element size: square, dimensions that are not
  // multiples of 32, and the two skinny shapes (AoS <-> SoA of 32 fields).
  // 8208 x 8176: rows 16-byte aligned, dimensions not multiples of 32; 10007 x 7001: odd.
  for (const std::size_t elem : {1, 2, 4, 8, 16})
    add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
        {{8192, 8192, elem},
         {8208, 8176, elem},
         {10007, 7001, elem},
         {32, 4000000, elem},
         {4000000, 32, elem}});
  // 256 MiB of 1- and 2-byte elements: copy_tuned's large tiles (from 256 MiB and 8192 rows),
  // copy_unaligned on odd shapes (its large policy from 192 MiB and 8192 rows: squares, tall and
  // 512 MiB; two 4-byte shapes too, and 352 rows, which it takes by their row fill; 240 rows go
  // to copy_full_height); short, wide ones of 130 to 512 MB in one to four tile rows, aligned and
  // odd (tiles walked down, tiles_walk_down; copy_full_height where tiles would cut the
  // destination rows).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{16384, 16384, 1}, {16383, 16385, 1}, {23169, 23171, 1}, {32767, 8193, 1},  {16384, 8192, 2},
       {11583, 11585, 2}, {16383, 8193, 2},  {16383, 8193, 4},  {200003, 401, 4},  {240, 150001, 4},
       {352, 109219, 4},  {128, 4000000, 1}, {64, 4000000, 2},  {224, 1000000, 1}, {96, 1000000, 2},
       {160, 1000000, 1}, {416, 400000, 1},  {417, 400001, 1},  {208, 400000, 2},  {209, 400001, 2},
       {81, 414001, 4},   {81, 207001, 8},   {41, 204001, 16}});
  // Fewer rows than copy_tuned's tile, in tiles full enough, or copy_full_height.
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{96, 1400000, 1}, {48, 1400001, 2}, {48, 700000, 4}, {24, 350001, 16}});
  // Skinny shapes of 1- and 2-byte elements with odd long sides (the shifted slabs), of 33 rows or
  // columns (the plain slabs' rows spread over the banks), and of 1-byte elements past 64 rows.
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{33, 4000000, 1},
       {4000000, 33, 1},
       {33, 4000001, 1},
       {4000001, 33, 1},
       {8, 16000001, 1},
       {16000001, 8, 1},
       {100, 1342177, 1},
       {33, 2033601, 2},
       {2033601, 33, 2}});
  // Just past copy_tuned's tile: short rows that copy_unaligned would take (copy_full_height; 2-,
  // 4- and 8-byte ones past 640, 640 and 1024 bytes too), tall, narrow matrices whose column tiles
  // would be mostly empty (copy_full_width); few odd rows that copy_full_height takes.
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{129, 1040417, 1},
       {1040417, 129, 1},
       {255, 526337, 1},
       {300, 447393, 1},
       {41, 1636801, 2},
       {29, 578497, 8},
       {65, 1032417, 2},
       {1032417, 65, 2},
       {528417, 127, 2},
       {209697, 160, 4},
       {248447, 161, 4},
       {350, 200001, 2},
       {175, 228571, 4},
       {190, 105263, 8},
       {207105, 81, 8},
       {65, 516193, 4},
       {65, 258081, 8}});
  // The narrowest skinny shapes, and element sizes that are not powers of two: copy_any_size
  // (3 to 15 bytes) on odd and square shapes and tall ones of wide rows, skinny_any_size on
  // skinny shapes (2 to 64 rows or columns), copy_full_height on short, wide ones, the
  // super-element kernel on aligned 12-byte rows.
  for (const std::size_t elem : {1, 2})
    add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
        {{3, 24000000, elem}, {24000000, 3, elem}});
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{8192, 8192, 12},
       {4095, 4097, 12},
       {8192, 8192, 3},
       {2, 16000000, 3},
       {16000000, 2, 3},
       {32, 4000000, 3},
       {4000000, 32, 3}});
  for (const std::size_t elem : {5, 12})
    add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
        {{8, 4000000, elem}, {4000000, 8, elem}});
  for (const std::size_t elem : {3, 7, 15})
    add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
        {{64, 1000000, elem}, {1000000, 64, elem}});
  // Skinny shapes of odd long sides (destination rows off 16 bytes) and odd short sides; tall
  // rows of more than 384 bytes whose copy_any_size column tiles would be at most 3/4 full.
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{2000001, 17, 3},
       {1398101, 24, 3},
       {33, 1016801, 3},
       {1000001, 33, 5},
       {1000001, 48, 7},
       {1000001, 33, 9},
       {1000001, 57, 9},
       {1000001, 40, 13}});
  // 3-byte shapes on destination rows on 32 bytes, each of copy_any_size's tiles for them: tall,
  // narrow ones past the skinny shapes (96 x 42 tiles 0.79 full; 96 x 32 ones, which fill 128
  // columns 1/4 better than 42-column ones), large squares, odd columns and 8192 x 4096 (128 x
  // 42).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{1000000, 100, 3}, {1000000, 128, 3}, {8192, 4096, 3}, {16384, 16384, 3}, {8192, 8193, 3}});
  // Tall, narrow ones of larger elements, destination rows on 32 bytes (copy_any_size's tall
  // tiles).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{1000000, 65, 5}, {700000, 100, 11}});
  // 6-byte ones whose 128-row tall tiles' columns would be under 0.9 full (96-row tiles).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned, {{1000000, 65, 6}});
  // Destination rows off 32 bytes (odd rows): copy_any_size's halo tiles (from 6 bytes, 256-byte
  // rows where 128-byte ones fill the columns no better: 6-byte x 65, 7-byte x 65).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{1000001, 100, 3},
       {1000001, 128, 3},
       {16385, 4096, 3},
       {1000001, 65, 6},
       {1000001, 65, 7},
       {700001, 100, 11}});
  // From 6 bytes, where 128-byte tile rows fill the columns at least 1/10 better than 256-byte
  // ones: copy_any_size's halo tiles (odd rows) and tall tiles of 96 rows (even rows) of 128 bytes.
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{1000001, 65, 9}, {1000001, 75, 7}, {1000000, 76, 10}});
  // Short, wide ones past the skinny shapes (48 to 320 rows): copy_full_height (146 and 75 rows:
  // two load steps of 320 threads), copy_any_size's tiles where from 7 bytes they make four tile
  // rows or more at least 9/10 full (300 and 290 rows, destination rows off 32 bytes).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{65, 688297, 3},
       {100, 268435, 5},
       {68, 131587, 15},
       {250, 178957, 3},
       {139, 137943, 7},
       {100, 111849, 12},
       {146, 150001, 6},
       {75, 200001, 14},
       {300, 30001, 11},
       {290, 42441, 13}});
  for (const std::size_t elem : {3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15})
    add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
        {{6001, 7001, elem}});
  // Source rows a third or a quarter of 1.25 MiB long (5 x 2^18 bytes): on the H100 80GB every
  // kernel falls 0.03-0.11 x copy behind its neighbouring shapes in the plain tile order, so the
  // tile kernels (the first three) and copy_full_height (the last two) take interleaved regions
  // there (tile_regions, full_height_regions; docs/performance.md).
  add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned,
      {{2048, 81920, 4}, {700, 436912, 1}, {353, 145635, 3}, {350, 218456, 2}, {480, 327681, 1}});
  // Batches of small matrices, about 64 MiB in all, for every element size the kernels treat
  // differently (words of 1 to 16 bytes, 3 and 12 bytes): squares, both skinny orientations and
  // sides that are not powers of two; 32 x 32 fp32 also at 8 MiB, where the launch and the
  // ramp-up weigh, and at 1 GiB.
  const std::string batched = "gpu batched small";
  for (const std::size_t elem : {1, 2, 4, 8, 16, 3, 12})
    for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{16, 16},
                                     {32, 32},
                                     {64, 64},
                                     {16, 64},
                                     {64, 16},
                                     {24, 40}})
      add_batches(cases, batched, cuda, route::copy_tuned, rows, cols, elem, 64 * mib);
  add_batches(cases, batched, cuda, route::copy_tuned, 32, 32, 4, 8 * mib);
  add_batches(cases, batched, cuda, route::copy_tuned, 32, 32, 4, 1024 * mib);
  // 12-byte elements (three floats: xyz points) in skinny shapes of a million rows or columns:
  // AoS <-> SoA of 2 to 64 fields.
  for (const std::int64_t narrow : {2, 3, 4, 8, 16, 32, 64})
    add(cases, "gpu skinny 12-byte", cuda, false, route::copy_tuned, {{1000000, narrow, 12}});
  for (const std::int64_t narrow : {2, 8, 32})
    add(cases, "gpu skinny 12-byte", cuda, false, route::copy_tuned, {{narrow, 1000000, 12}});
  // In place, non-square: the PPoPP'14 paper's Table 2 shapes, primes, other element sizes, and
  // the 4-stage route next to the 3-stage one.
  const std::string rectangular = "cuda in-place rectangular";
  add(cases, rectangular, cuda, true, route::automatic,
      {{7200, 1800, 4},
       {5100, 2500, 4},
       {4000, 3200, 4},
       {3300, 3900, 4},
       {2500, 5100, 4},
       {1800, 7200, 4},
       {20000, 5000, 4},
       {7919, 1800, 4},
       {7919, 10007, 4},
       {7200, 1800, 8},
       {7200, 1800, 2},
       {7200, 1800, 1},
       {1000000, 16, 4},
       {32, 1000000, 4}});
  add(cases, rectangular, cuda, true, route::four_stage,
      {{7200, 1800, 4},
       {5100, 2500, 4},
       {4000, 3200, 4},
       {3300, 3900, 4},
       {2500, 5100, 4},
       {1800, 7200, 4}});
  // 40 random shapes, both dimensions in [1000, 20000] (SplitMix64, seed 39; listed in
  // docs/performance.md), fp32.
  std::uint64_t state = 39;
  for (int i = 0; i < 40; ++i) {
    const auto rows = static_cast<std::int64_t>(1000 + splitmix64(state) % 19001);
    const auto cols = static_cast<std::int64_t>(1000 + splitmix64(state) % 19001);
    add(cases, "cuda in-place random", cuda, true, route::automatic, {{rows, cols, 4}});
  }
  // Skinny both ways: AoS <-> SoA of 2 to 64 fields of fp32.
  for (const std::int64_t narrow : {2, 3, 4, 8, 16, 32, 64}) {
    add(cases, "cuda in-place skinny", cuda, true, route::automatic, {{1000000, narrow, 4}});
    add(cases, "cuda in-place skinny", cuda, true, route::automatic, {{narrow, 1000000, 4}});
  }
  // A prime dimension, or two.
  add(cases, "cuda in-place primes", cuda, true, route::automatic,
      {{7919, 1800, 4}, {1800, 7919, 4}, {10007, 4096, 4}, {12007, 6000, 4}, {7919, 10007, 4}});
  for (const route r : {route::copy_naive, route::copy_shared_tiles, route::copy_padded_tiles,
                        route::copy_multi_element, route::copy_tuned})
    cases.push_back({"cuda out-of-place seed variants", cuda, false, r, 4096, 4096, 4});
  for (const std::int64_t n : {4096, 8192, 16384, 32768})
    for (const std::size_t elem : {4, 8})
      add_square_variants(cases, "cuda in-place square", cuda,
                          {route::square_tile_swap, route::square_naive}, n, elem);
  // Square sizes that are not multiples of the tile, 1000 to 40000: rows on 16 bytes (10000,
  // 40000), on 8 (15002) or on 4 (odd sizes); other element sizes, rows on 16 bytes or not.
  for (const std::int64_t n : {1000, 1999, 5003, 10000, 10007, 15002, 20011, 30001, 40000})
    add(cases, "cuda in-place square any size", cuda, true, route::automatic, {{n, n, 4}});
  add(cases, "cuda in-place square any size", cuda, true, route::automatic,
      {{5003, 5003, 8},
       {20011, 20011, 8},
       {10000, 10000, 2},
       {10007, 10007, 2},
       {10000, 10000, 1},
       {10007, 10007, 1}});
  // Layout conversions on the DL paper's Table 1 arrays (2-38 MB, within the L2), and on request
  // (--group 'cuda layout') the same widths with 100 x the structures (0.2-3.8 GB).
  for (const auto& [n, S] : dl_table1)
    add_layout_set(cases, "cuda layout", cuda, n, S, {16, 32, 64}, false);
  for (const auto& [n, S] : dl_table1)
    add_layout_set(cases, "cuda layout 100x rows", cuda, 100 * n, S, {32}, true);
  return cases;
}

std::vector<bench_case> quick_cuda_cases() {
  const auto cuda = xpose::device::cuda;
  std::vector<bench_case> cases;
  for (const std::size_t elem : {1, 2, 4, 8, 16})
    add(cases, "cuda out-of-place copy_tuned", cuda, false, route::copy_tuned, {{1000, 37, elem}});
  add_batches(cases, "gpu batched small", cuda, route::copy_tuned, 32, 32, 4, mib);
  add_batches(cases, "gpu batched small", cuda, route::copy_tuned, 24, 40, 12, mib);
  add_square_variants(cases, "cuda in-place square", cuda,
                      {route::square_tile_swap, route::square_naive}, 512, 4);
  add_quick_layouts(cases, "cuda layout", cuda);
  return cases;
}

}  // namespace

std::vector<bench_case> cases_for_device(const bench_options& options, xpose::device target) {
  if (!options.shapes.empty()) {
    std::vector<bench_case> cases;
    for (const auto& s : options.shapes) {
      bench_case c{std::string(xpose::to_string(target)) + " custom",
                   target,
                   options.in_place,
                   options.route,
                   s.rows,
                   s.cols,
                   options.elem_size,
                   options.batch};
      if (options.layout) {
        c.layout = true;
        c.from = options.from;
        c.to = options.to;
        c.variant = options.variant;
      }
      cases.push_back(c);
    }
    return cases;
  }
  std::vector<bench_case> cases = target == xpose::device::cpu
                                      ? (options.quick ? quick_cpu_cases() : default_cpu_cases())
                                      : (options.quick ? quick_cuda_cases() : default_cuda_cases());
  cases.erase(std::remove_if(cases.begin(), cases.end(),
                             [&](const bench_case& c) {
                               return options.group.empty()
                                          ? c.on_request
                                          : c.group.find(options.group) == std::string::npos;
                             }),
              cases.end());
  return cases;
}

}  // namespace xpose_cli
