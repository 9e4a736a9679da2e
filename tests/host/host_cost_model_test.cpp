// The host plans' cost model (host/cost_model.hpp) and the staging chunks' geometry
// (host/staging.hpp), on the CPU with made-up bandwidths: the GPU against the CPU, and for
// pageable memory registration against staging on the plan's threads.
#include <gtest/gtest.h>

#include <cstdint>

#include "host/cost_model.hpp"
#include "host/staging.hpp"

namespace xpose::test {
namespace {

using detail::host::bandwidths;
using detail::host::choose_staging;
using detail::host::cost_estimate;
using detail::host::cost_inputs;
using detail::host::estimate_costs;
using detail::host::pageable_access;
using detail::host::staging_geometry;

constexpr double GB = 1e9;
constexpr double GiB = 1073741824.0;

/// Rates of the H200 machine: 55 GB/s each way, registration 16.7 GB/s, memcpy on 16 threads.
bandwidths h200_host(double cpu_copy = 130 * GB) {
  bandwidths b;
  b.have_device = true;
  b.device_name = "test device";
  b.h2d = b.d2h = 55 * GB;
  b.both = 100 * GB;
  b.gpu_copy = 3100 * GB;
  b.cpu_copy = cpu_copy;
  b.host_register = 16.7 * GB;
  b.cpu_threads = 16;
  return b;
}

cost_inputs one_gib(bool in_core = true) {
  cost_inputs in;
  in.bytes = GiB;
  in.in_core = in_core;
  in.cpu_passes = 3;
  in.kernel_seconds = 2.4e-3;
  return in;
}

TEST(HostCostModel, StagingOnManyThreadsHidesBehindTheCopies) {
  const cost_estimate c = estimate_costs(h200_host(), one_gib());
  EXPECT_EQ(c.pageable, pageable_access::staged);
  // 130 GB/s of memcpy (2 x bytes) moves 1 GiB in 16.5 ms, under the link's 19.5 ms a way.
  EXPECT_NEAR(c.staged_seconds, c.pinned_seconds, 1e-9);
  EXPECT_GT(c.registered_seconds, c.staged_seconds + 0.05);
  EXPECT_TRUE(c.gpu);
  EXPECT_NE(c.describe(h200_host()).find("the GPU runs it"), std::string::npos);
}

TEST(HostCostModel, RegistrationWhenTheThreadsCopySlowly) {
  // One thread's memcpy (10 GB/s counted both ways): staging costs 4 x 1 GiB / 10 GB/s.
  const cost_estimate c = estimate_costs(h200_host(10 * GB), one_gib());
  EXPECT_EQ(c.pageable, pageable_access::registered);
  EXPECT_LT(c.registered_seconds, c.staged_seconds);
}

TEST(HostCostModel, TheCpuWhenItsPassesAreCheaperThanTheLink) {
  bandwidths slow_link = h200_host(400 * GB);
  slow_link.h2d = slow_link.d2h = 8 * GB;
  slow_link.both = 12 * GB;
  const cost_estimate c = estimate_costs(slow_link, one_gib());
  EXPECT_FALSE(c.gpu);
  EXPECT_NE(c.describe(slow_link).find("the CPU runs it"), std::string::npos);
  cost_inputs forced = one_gib();
  forced.always = true;
  EXPECT_TRUE(estimate_costs(slow_link, forced).gpu);
}

TEST(HostCostModel, ThePinningOptionFixesThePageableAccess) {
  cost_inputs in = one_gib();
  in.pinning = host_pinning::register_memory;
  const cost_estimate registered = estimate_costs(h200_host(), in);
  EXPECT_EQ(registered.pageable, pageable_access::registered);
  EXPECT_DOUBLE_EQ(registered.gpu_seconds, registered.registered_seconds);
  in.pinning = host_pinning::staged;
  const cost_estimate staged = estimate_costs(h200_host(10 * GB), in);
  EXPECT_EQ(staged.pageable, pageable_access::staged);
  EXPECT_DOUBLE_EQ(staged.gpu_seconds, staged.staged_seconds);
}

TEST(HostCostModel, OutOfCoreOverlapsTheDirectionsOnlyWithoutStaging) {
  const cost_estimate c = estimate_costs(h200_host(), one_gib(false));
  // Pinned: both directions at once (100 GB/s together); staged: one after the other.
  EXPECT_NEAR(c.pinned_seconds, 2 * GiB / (100 * GB) + 2.4e-3, 1e-9);
  EXPECT_NEAR(c.staged_seconds, 2 * GiB / (55 * GB) + 2.4e-3, 1e-9);
}

TEST(HostStaging, ChunksOfAtMostTheRequestedSizeInWholePages) {
  const staging_geometry big = choose_staging(std::uint64_t{1} << 30, 16, 0);
  EXPECT_EQ(big.threads, 16);
  EXPECT_EQ(big.chunk_bytes, detail::host::default_staging_chunk);
  EXPECT_EQ(big.pinned_bytes(), 2 * 16 * detail::host::default_staging_chunk);
  const staging_geometry asked = choose_staging(std::uint64_t{1} << 30, 8, 3 << 20);
  EXPECT_EQ(asked.chunk_bytes, std::size_t{3} << 20);
  // A small matrix: chunks shrink so that two per thread about cover it, not below 64 KiB.
  const staging_geometry small = choose_staging(10 << 20, 16, 0);
  EXPECT_LE(small.pinned_bytes(), std::uint64_t{10 << 20} + 2 * 16 * 4096);
  EXPECT_EQ(small.chunk_bytes % 4096, 0u);
  const staging_geometry tiny = choose_staging(1000, 4, 0);
  EXPECT_EQ(tiny.chunk_bytes, std::size_t{64} << 10);
  EXPECT_EQ(choose_staging(1000, 0, 0).threads, 1);
}

}  // namespace
}  // namespace xpose::test
