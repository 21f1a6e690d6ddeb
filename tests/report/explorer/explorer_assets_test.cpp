// The page's code compiled into the binary (report/explorer/explorer_assets.h) is the files in the
// repository, byte for byte: cmake/embed_file.cmake keeps every byte, '\0'-terminated.
#include "report/explorer/explorer_assets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

namespace sinklab {
namespace {

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(SINKLAB_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in) << relative;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ExplorerAssets, AreTheRepositoryFilesByteForByte) {
  for (const auto& [name, embedded] : {std::pair{"explorer.js", kExplorerJs}, std::pair{"explorer.css", kExplorerCss},
                                       std::pair{"explorer.html", kExplorerHtml}}) {
    const std::string file = source_file(std::string("report/explorer/") + name);
    EXPECT_GT(file.size(), 100u) << name;
    EXPECT_EQ(std::string(embedded), file) << name;
  }
}

}  // namespace
}  // namespace sinklab
