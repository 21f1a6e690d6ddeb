#pragma once
// Generated documentation (a key table, a statistics table) must appear verbatim in its docs page.
// When it does not, the current text is written to the build folder for pasting, and the test fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sinklab::testing {

// doc: a path below the source folder ("docs/config.md"); fresh_name: the file written to the build
// folder when the page is stale.
inline void expect_docs_embed(const std::string& doc, const std::string& generated, const std::string& fresh_name) {
  std::ifstream in(std::filesystem::path(SINKLAB_SOURCE_DIR) / doc);
  ASSERT_TRUE(in) << doc << " is missing";
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().find(generated) != std::string::npos) return;
  const auto fresh = std::filesystem::path(SINKLAB_BINARY_DIR) / fresh_name;
  std::ofstream(fresh) << generated;
  ADD_FAILURE() << doc << " does not contain the current generated table; paste " << fresh.string() << " into it";
}

}  // namespace sinklab::testing
