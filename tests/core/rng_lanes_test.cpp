// RngLanes must reproduce, lane by lane and bit for bit, the scalar Rng seeded with the lane's seed.
#include "core/rng_lanes.h"

#include <gtest/gtest.h>

namespace sinklab {
namespace {

TEST(RngLanes, EachLaneIsTheScalarStreamOfItsSeed) {
  const std::array<uint64_t, RngLanes::kLanes> seeds{0, 1, 2, 42, 0xdeadbeefULL, 7, 1ULL << 63, 12345678901ULL};
  RngLanes lanes(seeds);
  std::array<Rng, RngLanes::kLanes> scalar{Rng(seeds[0]), Rng(seeds[1]), Rng(seeds[2]), Rng(seeds[3]),
                                           Rng(seeds[4]), Rng(seeds[5]), Rng(seeds[6]), Rng(seeds[7])};
  float out[RngLanes::kLanes];
  for (int draw = 0; draw < 1000; ++draw) {
    const float lo = draw % 2 ? -1.0f : 0.25f, hi = draw % 2 ? 1.0f : 3.0f;
    lanes.uniform(lo, hi, out);
    for (int l = 0; l < RngLanes::kLanes; ++l) {
      const float expected = scalar[static_cast<size_t>(l)].uniform(lo, hi);
      ASSERT_EQ(out[l], expected) << "lane " << l << " draw " << draw;
    }
  }
}

TEST(RngLanes, LanesAreIndependentStreams) {
  RngLanes lanes({5, 6, 7, 8, 9, 10, 11, 12});
  float out[RngLanes::kLanes];
  lanes.uniform(0.0f, 1.0f, out);
  for (int l = 1; l < RngLanes::kLanes; ++l) EXPECT_NE(out[l], out[0]) << "lane " << l;
}

}  // namespace
}  // namespace sinklab
