// The corpus bigram chain: counts, triggers (ties by byte value), the empty-row fallback and the
// entropies, computed by hand on tiny corpora, and sampling frequencies that follow the tables.
#include "data/bigram_chain.h"

#include <gtest/gtest.h>

#include <cmath>

#include "data/task.h"

namespace sinklab {
namespace {

// "aaabbc": a 3, b 2, c 1; pairs aa 2, ab 1, bb 1, bc 1; c starts no pair. ids: a 1, b 2, c 3.
constexpr int32_t a = 1, b = 2, c = 3;

TEST(BigramChain, CountsMarginalAndConditionalsByHand) {
  const BigramChain chain("aaabbc", 1);
  EXPECT_EQ(chain.vocab_size(), 4);
  EXPECT_DOUBLE_EQ(chain.marginal(a), 3.0 / 6);
  EXPECT_DOUBLE_EQ(chain.marginal(b), 2.0 / 6);
  EXPECT_DOUBLE_EQ(chain.marginal(c), 1.0 / 6);
  EXPECT_DOUBLE_EQ(chain.conditional(a, a), 2.0 / 3);
  EXPECT_DOUBLE_EQ(chain.conditional(a, b), 1.0 / 3);
  EXPECT_DOUBLE_EQ(chain.conditional(a, c), 0.0);
  EXPECT_DOUBLE_EQ(chain.conditional(b, b), 0.5);
  EXPECT_DOUBLE_EQ(chain.conditional(b, c), 0.5);
  EXPECT_TRUE(chain.bigram_observed(a, b));
  EXPECT_FALSE(chain.bigram_observed(b, a));
  // c only ends the file: its row is the marginal.
  EXPECT_TRUE(chain.row_empty(c));
  EXPECT_FALSE(chain.row_empty(a));
  EXPECT_DOUBLE_EQ(chain.conditional(c, a), 0.5);
  EXPECT_DOUBLE_EQ(chain.conditional(c, c), 1.0 / 6);
  EXPECT_EQ(chain.triggers(), std::vector<int32_t>{a});
  EXPECT_TRUE(chain.is_trigger(a));
  EXPECT_FALSE(chain.is_trigger(b));
}

TEST(BigramChain, EntropiesByHand) {
  const BigramChain chain("aaabbc", 1);
  EXPECT_NEAR(chain.row_entropy(a), -(2.0 / 3 * std::log(2.0 / 3) + 1.0 / 3 * std::log(1.0 / 3)), 1e-12);
  EXPECT_NEAR(chain.row_entropy(b), std::log(2.0), 1e-12);
  EXPECT_NEAR(chain.row_entropy(c), -(0.5 * std::log(0.5) + std::log(1.0 / 3) / 3 + std::log(1.0 / 6) / 6), 1e-12);
}

TEST(BigramChain, TriggersAreTheMostFrequentBytesTiesBrokenBySmallerByte) {
  // counts: x 3, m 2, b 2, a 1, z 2 -> order x, b, m, z, a.
  const BigramChain chain("xmbxzazbxm", 3);
  const auto& v = chain.vocabulary();
  EXPECT_EQ(chain.triggers(), (std::vector<int32_t>{v.id_of('x'), v.id_of('b'), v.id_of('m')}));
  const BigramChain two("ba", 1);
  EXPECT_EQ(two.triggers(), std::vector<int32_t>{two.vocabulary().id_of('a')});
}

TEST(BigramChain, TooFewDistinctBytesForTheTriggersNamesTheKeys) {
  try {
    BigramChain("abab", 2);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), (std::vector<std::string>{"task.triggers", "task.corpus"}));
    EXPECT_NE(std::string(e.what()).find("2 distinct bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(BigramChain("abc", 0), TaskError);
  EXPECT_NO_THROW(BigramChain("abc", 2));
}

TEST(BigramChain, SamplingFollowsTheTables) {
  const BigramChain chain("aaabbc", 1);
  Rng rng(7);
  constexpr int n = 60000;
  int first_b = 0, first_a = 0, b_then_c = 0, c_then_a = 0, a_then_c = 0;
  for (int i = 0; i < n; ++i) {
    const int32_t f = chain.sample_first(rng);
    first_b += f == b;
    first_a += f == a;  // a trigger: never first
    b_then_c += chain.sample_next(b, rng) == c;
    c_then_a += chain.sample_next(c, rng) == a;
    a_then_c += chain.sample_next(a, rng) == c;  // never observed
  }
  const double tol = 4 * std::sqrt(0.25 / n);
  EXPECT_EQ(first_a, 0);
  EXPECT_EQ(a_then_c, 0);
  EXPECT_NEAR(first_b / double(n), 2.0 / 3, tol);  // marginal without the trigger: b 2/3, c 1/3
  EXPECT_NEAR(b_then_c / double(n), 0.5, tol);
  EXPECT_NEAR(c_then_a / double(n), 0.5, tol);      // the empty row samples the marginal
}

}  // namespace
}  // namespace sinklab
