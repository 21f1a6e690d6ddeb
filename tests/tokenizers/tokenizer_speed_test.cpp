// Encoding speed on the whole KJV (data/corpora/kjv.txt, 4.1 MB, from scripts/get_corpus.sh; skipped
// when absent): one thread, each family, printed; docs/tokenizers.md quotes it. In an optimized build
// without sanitizers each family must stay under 10 s. Not run under AddressSanitizer: there it would
// measure nothing (about a minute, no time bound) and the round trip is the Release pass's; the
// tokenizers' memory safety is the reference-id tests' and the tokenizer fuzz harness's.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "tests/tokenizers/tokenizer_fixtures.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;

TEST(TokenizerSpeed, WholeKjvEncodesInUnderTenSecondsPerFamily) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a speed measurement: not under AddressSanitizer (the Release pass runs it)";
#endif
  const auto path = std::filesystem::path(SINKLAB_SOURCE_DIR) / "data/corpora/kjv.txt";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path << " (scripts/get_corpus.sh writes it)";
  const std::string text = st::read_binary(path);
  for (const std::string family : {"gpt2", "llama2", "mistral", "llama3", "qwen3"}) {
    const Tokenizer& tok = st::family_tokenizer(family);
    const auto start = std::chrono::steady_clock::now();
    const auto ids = tok.encode(text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-8s %zu bytes -> %zu tokens in %.2f s (%.2f MB/s)\n", family.c_str(), text.size(), ids.size(),
                seconds, static_cast<double>(text.size()) / seconds / 1e6);
    EXPECT_EQ(tok.decode(ids, true), text) << family;  // these vocabularies round-trip plain text
#if defined(NDEBUG)
    EXPECT_LT(seconds, 10.0) << family;
#endif
  }
}

}  // namespace
}  // namespace sinklab
