// Layout conversions (AoS, SoA, ASTA) and the marshaling runtime on the CPU: every conversion and
// its inverse against a naive reference, round trips, partial tiles, field sizes 1..16 and odd
// ones, 1..64 fields, the views, layout_buffer and its registry, and bad inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "layout/layout_route.hpp"
#include "layout_reference.hpp"
#include "test_util.hpp"
#include "xpose/layout.hpp"

namespace xpose::test {
namespace {

/// Converts the reference `from` bytes to `to` in place and compares with the reference `to`.
void check_conversion(layout from, layout to, std::int64_t n, std::int64_t S, std::size_t e,
                      std::uint64_t seed, int threads = 0) {
  const auto aos = random_bytes(static_cast<std::size_t>(n * S) * e, seed);
  std::vector<unsigned char> data = arrange(aos, from, n, S, e);
  plan_options options;
  options.threads = threads;
  convert_layout(data.data(), from, to, n, S, e, options);
  ASSERT_TRUE(data == arrange(aos, to, n, S, e)) << describe_case(from, to, n, S, e);
}

TEST(LayoutIndex, MatchesTheReference) {
  for (std::int64_t n : {1, 5, 32, 37})
    for (std::int64_t S : {1, 3})
      for (layout l : all_test_layouts())
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t f = 0; f < S; ++f)
            ASSERT_EQ(layout_index(l.kind, l.tile, n, S, i, f), reference_index(l, n, S, i, f))
                << to_string(l) << " n " << n << " i " << i << " f " << f;
}

TEST(LayoutConvert, EveryPairSmall) {
  std::uint64_t seed = 1;
  for (std::int64_t n : {0, 1, 2, 5, 16, 32, 33, 100})
    for (std::int64_t S : {1, 2, 3, 5, 8})
      for (layout from : all_test_layouts())
        for (layout to : all_test_layouts()) check_conversion(from, to, n, S, 4, seed++);
}

TEST(LayoutConvert, FieldSizes) {
  std::uint64_t seed = 100;
  std::vector<std::size_t> sizes;
  for (std::size_t e = 1; e <= 16; ++e) sizes.push_back(e);
  for (std::size_t e : {20, 24, 36, 100}) sizes.push_back(e);
  for (std::size_t e : sizes)
    for (std::int64_t n : {96, 101, 1000})
      for (std::int64_t S : {3, 7, 16})
        for (const auto& [a, b] : sweep_test_pairs()) {
          check_conversion(a, b, n, S, e, seed++);
          check_conversion(b, a, n, S, e, seed++);
        }
}

TEST(LayoutConvert, FieldCounts) {
  std::uint64_t seed = 1000;
  for (std::int64_t S = 1; S <= 64; ++S)
    for (std::int64_t n : {128, 130})
      for (const auto& [a, b] : sweep_test_pairs()) {
        check_conversion(a, b, n, S, 4, seed++);
        check_conversion(b, a, n, S, 4, seed++);
      }
}

TEST(LayoutConvert, WideStructsWithPartialTiles) {
  // More fields than the skinny route's own limit: the remainder steps still set the partial
  // tile aside and place it (the DL paper's Table 1 widths 197 and 215 among them).
  std::uint64_t seed = 3000;
  for (std::int64_t S : {65, 100, 197, 215})
    for (std::int64_t T : {16, 32, 64})
      for (std::int64_t n : {3 * T + 1, 7 * T + T - 1}) {
        check_conversion(layout::soa(), layout::asta(T), n, S, 4, seed++);
        check_conversion(layout::asta(T), layout::soa(), n, S, 4, seed++);
        check_conversion(layout::aos(), layout::asta(T), n, S, 4, seed++);
        check_conversion(layout::asta(T), layout::aos(), n, S, 4, seed++);
      }
}

TEST(LayoutConvert, CycleFollowingSizesAllThreadCounts) {
  // Large enough that the stages follow cycles (more than the in-cache limit per instance) and
  // share one instance among threads.
  std::uint64_t seed = 5000;
  for (int threads : {1, 4})
    for (const auto& [a, b] : sweep_test_pairs()) {
      check_conversion(a, b, 20000, 9, 4, seed++, threads);
      check_conversion(b, a, 20011, 9, 4, seed++, threads);
    }
}

TEST(LayoutConvert, RoundTrip) {
  const std::int64_t n = 100003, S = 9;
  const std::size_t e = 4;
  const auto aos = random_bytes(static_cast<std::size_t>(n * S) * e, 77);
  std::vector<unsigned char> data = aos;
  const std::vector<layout> chain = {layout::aos(),    layout::asta(32), layout::soa(),
                                     layout::asta(16), layout::asta(64), layout::asta(10),
                                     layout::aos()};
  for (std::size_t k = 1; k < chain.size(); ++k) {
    convert_layout(data.data(), chain[k - 1], chain[k], n, S, e);
    ASSERT_TRUE(data == arrange(aos, chain[k], n, S, e)) << to_string(chain[k]);
  }
  EXPECT_TRUE(data == aos);
}

TEST(LayoutRoute, StepsOfEachConversion) {
  const struct_array_desc d{1024, 5, 4};
  const auto steps = [&](layout from, layout to) {
    return detail::layout_route(d, from, to).size();
  };
  EXPECT_EQ(steps(layout::aos(), layout::asta(32)), 1u);     // one 010 stage
  EXPECT_EQ(steps(layout::soa(), layout::asta(32)), 1u);     // one 100 stage on tiles
  EXPECT_EQ(steps(layout::aos(), layout::soa()), 1u);        // a full transposition
  EXPECT_EQ(steps(layout::asta(16), layout::asta(64)), 1u);  // one 0100 stage
  EXPECT_EQ(steps(layout::asta(64), layout::asta(16)), 1u);
  // 24 does not divide 1024: through aos, asta(24)'s full tiles and partial tile, then aos ->
  // asta(32).
  EXPECT_EQ(steps(layout::asta(24), layout::asta(32)), 3u);
  EXPECT_EQ(detail::layout_route({960, 5, 4}, layout::asta(24), layout::asta(32)).size(), 2u);
  EXPECT_EQ(steps(layout::asta(1), layout::aos()), 0u);
  EXPECT_EQ(steps(layout::asta(1024), layout::soa()), 0u);
  EXPECT_EQ(steps(layout::asta(5000), layout::soa()), 0u);

  const struct_array_desc odd{1000, 5, 4};  // 1000 = 31 x 32 + 8
  const auto odd_route = detail::layout_route(odd, layout::aos(), layout::asta(32));
  ASSERT_EQ(odd_route.size(), 2u);  // full tiles, then the partial tile
  EXPECT_EQ(odd_route[0].tiled.batch, 31);
  EXPECT_EQ(odd_route[1].offset_bytes, 31u * 32u * 5u * 4u);
  EXPECT_EQ(odd_route[1].tiled.rows, 8);
  // soa -> asta with a partial tile: the skinny route's split and place around the tile stage,
  // then the partial tile's own stage; without the remainder steps through aos: a full
  // transposition, then aos -> asta.
  EXPECT_EQ(detail::layout_route(odd, layout::soa(), layout::asta(32)).size(), 4u);
  EXPECT_EQ(detail::layout_route(odd, layout::asta(32), layout::soa()).size(), 4u);
  EXPECT_EQ(detail::layout_route(odd, layout::soa(), layout::asta(32), false).size(), 3u);
  EXPECT_EQ(detail::layout_route(odd, layout::asta(32), layout::soa(), false).size(), 3u);
}

TEST(LayoutConvert, DescribeNamesTheRoute) {
  const layout_conversion c = plan_layout_conversion({1000, 5, 4}, layout::aos(), layout::asta(32));
  const std::string text = c.describe();
  EXPECT_NE(text.find("aos -> asta(32)"), std::string::npos) << text;
  EXPECT_NE(text.find("partial tile"), std::string::npos) << text;
  EXPECT_EQ(c.steps(), 2u);
  EXPECT_GT(c.predicted_passes(), 0.0);
  const layout_conversion none = plan_layout_conversion({1000, 1, 4}, layout::aos(), layout::soa());
  EXPECT_EQ(none.steps(), 0u);
}

void expect_invalid(const std::function<void()>& call, const std::string& names) {
  try {
    call();
    ADD_FAILURE() << "expected xpose::error naming " << names;
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(LayoutConvert, BadInputsLeaveTheDataUntouched) {
  const auto original = random_bytes(64 * 4 * 4, 9);
  std::vector<unsigned char> data = original;
  void* p = data.data();
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::soa(), -1, 4, 4); }, "structs");
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::soa(), 64, 0, 4); }, "fields");
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::soa(), 64, 4, 0); }, "field_bytes");
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::soa(), 64, 4, 1025); },
                 "field_bytes");
  expect_invalid([&] { convert_layout(p, layout::aos(), layout::asta(0), 64, 4, 4); }, "tile");
  expect_invalid([&] { convert_layout(p, layout::asta(-3), layout::aos(), 64, 4, 4); }, "tile");
  expect_invalid(
      [&] {
        convert_layout(p, layout{static_cast<layout_kind>(7), 0}, layout::aos(), 64, 4, 4);
      },
      "layout kind");
  expect_invalid([&] { convert_layout(nullptr, layout::aos(), layout::soa(), 64, 4, 4); }, "data");
  expect_invalid(
      [&] { convert_layout(p, layout::aos(), layout::soa(), std::int64_t{1} << 40, 1 << 20, 64); },
      "overflows");
  plan_options negative_threads;
  negative_threads.threads = -2;
  expect_invalid(
      [&] { convert_layout(p, layout::aos(), layout::soa(), 64, 4, 4, negative_threads); },
      "threads");
  EXPECT_TRUE(data == original);
}

TEST(LayoutVariant, NamesRoundTrip) {
  for (const layout_variant v :
       {layout_variant::automatic, layout_variant::barrier_sync, layout_variant::pttwac,
        layout_variant::chains, layout_variant::through_scratch, layout_variant::pipt})
    EXPECT_EQ(layout_variant_from_string(to_string(v)), v) << to_string(v);
  EXPECT_FALSE(layout_variant_from_string("p_ipt").has_value());
  EXPECT_FALSE(layout_variant_from_string("").has_value());
}

TEST(LayoutVariant, CpuTargetTakesOnlyAutomatic) {
  // The variants name GPU kernels: on the CPU a forced one is refused (unsupported) at planning,
  // before the data is touched; automatic plans and runs as without a variant.
  const std::int64_t n = 1000, S = 5;
  const auto aos = random_bytes(static_cast<std::size_t>(n * S) * 4, 31);
  std::vector<unsigned char> data = aos;
  for (const layout_variant v :
       {layout_variant::barrier_sync, layout_variant::pttwac, layout_variant::chains,
        layout_variant::through_scratch, layout_variant::pipt}) {
    try {
      plan_layout_conversion({n, S, 4}, layout::aos(), layout::asta(32), {}, v);
      ADD_FAILURE() << "expected unsupported for " << to_string(v);
    } catch (const error& e) {
      EXPECT_EQ(e.code(), status::unsupported) << e.what();
      EXPECT_NE(std::string(e.what()).find(to_string(v)), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(data == aos);
  const layout_conversion c = plan_layout_conversion({n, S, 4}, layout::aos(), layout::asta(32), {},
                                                     layout_variant::automatic);
  EXPECT_EQ(c.variant(), layout_variant::automatic);
  c.execute(data.data());
  EXPECT_TRUE(data == arrange(aos, layout::asta(32), n, S, 4));
  expect_invalid(
      [&] {
        plan_layout_conversion({n, S, 4}, layout::aos(), layout::asta(32), {},
                               static_cast<layout_variant>(42));
      },
      "variant");
}

TEST(LayoutConvert, StepLabelsNameTheStages) {
  const layout_conversion aos_asta =
      plan_layout_conversion({1000, 5, 4}, layout::aos(), layout::asta(32));
  ASSERT_EQ(aos_asta.steps(), 2u);
  EXPECT_EQ(aos_asta.step_label(0), "010");
  EXPECT_EQ(aos_asta.step_label(1), "10");
  const layout_conversion soa_asta =
      plan_layout_conversion({1000, 5, 4}, layout::soa(), layout::asta(32));
  ASSERT_EQ(soa_asta.steps(), 4u);
  EXPECT_EQ(soa_asta.step_label(0), "remainder split");
  EXPECT_EQ(soa_asta.step_label(1), "100");
  EXPECT_EQ(soa_asta.step_label(2), "remainder place");
  const layout_conversion aos_soa =
      plan_layout_conversion({1000, 5, 4}, layout::aos(), layout::soa());
  ASSERT_EQ(aos_soa.steps(), 1u);
  EXPECT_EQ(aos_soa.step_label(0).rfind("full ", 0), 0u) << aos_soa.step_label(0);
  expect_invalid([&] { (void)aos_soa.step_label(1); }, "step");
}

// ---- views -------------------------------------------------------------------------------------

struct particle {
  float x, y, z, mass;
};

TEST(LayoutView, SameValuesInEveryLayout) {
  constexpr int S = 4;
  const std::int64_t n = 1000;  // not a multiple of 32: the last tile is partial
  layout_buffer buffer({n, S, sizeof(float)}, layout::aos());
  std::vector<particle> host(n);
  for (std::int64_t i = 0; i < n; ++i)
    host[i] = {float(i), float(2 * i), float(3 * i), float(i % 7)};
  buffer.copy_from_host(host.data());

  const auto check = [&](auto view) {
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(view(i, 0), host[i].x) << i;
      ASSERT_EQ(view(i, 1), host[i].y) << i;
      ASSERT_EQ(view(i, 2), host[i].z) << i;
      ASSERT_EQ(view(i, 3), host[i].mass) << i;
    }
  };
  check(buffer.view<aos_view<float, S>>());
  check(buffer.view<asta_view<float, S, 32>>());
  EXPECT_EQ(buffer.current(), layout::asta(32));
  check(buffer.view<soa_view<float, S>>());
  check(buffer.view<asta_view<float, S, 16>>());
  check(buffer.view<asta_view<float, S, 64>>());

  // Writes through a view land where the layout says; the copy back restores AoS.
  auto asta = buffer.view<asta_view<float, S, 64>>();
  for (std::int64_t i = 0; i < n; ++i) asta(i, 3) += 1.0f;
  std::vector<particle> back(n);
  buffer.copy_to_host(back.data());
  EXPECT_EQ(buffer.current(), layout::aos());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(back[i].mass, host[i].mass + 1.0f) << i;
}

// ---- the runtime -------------------------------------------------------------------------------

TEST(LayoutBuffer, ConvertsOnlyWhenTheLayoutDiffers) {
  const std::int64_t n = 256, S = 3;
  layout_buffer buffer({n, S, 4}, layout::aos());
  const auto aos = random_bytes(buffer.bytes(), 31);
  buffer.copy_from_host(aos.data());
  const auto bytes_now = [&] {
    const auto* p = static_cast<const unsigned char*>(buffer.data());
    return std::vector<unsigned char>(p, p + buffer.bytes());
  };
  buffer.view<asta_view<std::uint32_t, S, 32>>();
  const auto once = bytes_now();
  EXPECT_TRUE(once == arrange(aos, layout::asta(32), n, S, 4));
  buffer.view<asta_view<std::uint32_t, S, 32>>();  // same layout: nothing moves
  EXPECT_TRUE(bytes_now() == once);
  EXPECT_EQ(registered_layout(buffer.data()), layout::asta(32));
  buffer.convert_to(layout::soa());
  EXPECT_TRUE(bytes_now() == arrange(aos, layout::soa(), n, S, 4));
  EXPECT_EQ(registered_layout(buffer.data()), layout::soa());
}

TEST(LayoutBuffer, HomeLayoutIsWhatTheHostSees) {
  const std::int64_t n = 300, S = 6;
  layout_buffer buffer({n, S, 8}, layout::soa());
  const auto aos = random_bytes(buffer.bytes(), 41);
  const auto soa = arrange(aos, layout::soa(), n, S, 8);
  buffer.copy_from_host(soa.data());
  buffer.convert_to(layout::asta(32));
  buffer.convert_to(layout::aos());
  EXPECT_EQ(buffer.current(), layout::aos());
  std::vector<unsigned char> back(buffer.bytes());
  buffer.copy_to_host(back.data());
  EXPECT_TRUE(back == soa);
  EXPECT_EQ(buffer.current(), layout::soa());
}

TEST(LayoutBuffer, ViewOfTheWrongShapeIsRefused) {
  layout_buffer buffer({64, 4, 4}, layout::aos());
  expect_invalid([&] { buffer.view<aos_view<double, 4>>(); }, "fields");
  expect_invalid([&] { buffer.view<asta_view<float, 5, 32>>(); }, "fields");
  EXPECT_EQ(buffer.current(), layout::aos());
  expect_invalid([&] { buffer.convert_to(layout::asta(0)); }, "tile");
  expect_invalid([] { layout_buffer bad({-1, 4, 4}, layout::aos()); }, "structs");
}

TEST(LayoutBuffer, RegistryForgetsDestroyedBuffers) {
  const void* memory = nullptr;
  {
    layout_buffer buffer({64, 4, 4}, layout::asta(16));
    memory = buffer.data();
    EXPECT_EQ(registered_layout(memory), layout::asta(16));
    layout_buffer moved = std::move(buffer);
    EXPECT_EQ(moved.data(), memory);
    EXPECT_EQ(registered_layout(memory), layout::asta(16));
  }
  expect_invalid([&] { registered_layout(memory); }, "layout_buffer");
}

TEST(LayoutBuffer, ThreadsShareTheRegistryAndOneBuffer) {
  const std::int64_t n = 512, S = 5;
  layout_buffer shared({n, S, 4}, layout::aos());
  const auto aos = random_bytes(shared.bytes(), 51);
  shared.copy_from_host(aos.data());
  std::vector<std::thread> workers;
  for (int t = 0; t < 8; ++t)
    workers.emplace_back([&, t] {
      layout_buffer own({n, S, 4}, layout::aos());
      own.copy_from_host(aos.data());
      for (int k = 0; k < 20; ++k) {
        const layout target = (k + t) % 3 == 0   ? layout::soa()
                              : (k + t) % 3 == 1 ? layout::asta(32)
                                                 : layout::asta(16);
        shared.convert_to(target);
        own.convert_to(target);
        EXPECT_EQ(registered_layout(own.data()), target);
      }
      std::vector<unsigned char> back(own.bytes());
      own.copy_to_host(back.data());
      EXPECT_TRUE(back == aos);
    });
  for (std::thread& w : workers) w.join();
  std::vector<unsigned char> back(shared.bytes());
  shared.copy_to_host(back.data());
  EXPECT_TRUE(back == aos);
}

}  // namespace
}  // namespace xpose::test
