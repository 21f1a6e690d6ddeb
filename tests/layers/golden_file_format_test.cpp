// The golden-fixture reader against the committed fixtures (tools/make_golden.py) and broken copies.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/golden_file.h"
#include "tests/support/test_dir.h"

namespace {

namespace st = sinklab::testing;
using Shape = std::vector<int64_t>;

constexpr int64_t kB = 3, kT = 8, kD = 16;

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A scratch file of the test's own (the suite may run in two processes at once: tests/support/test_dir.h).
std::string write_scratch(const std::vector<char>& bytes, const std::string& tag) {
  const auto path = sinklab::testing::test_file(tag + ".bin");
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

void expect_load_error(const std::string& path, std::initializer_list<std::string> fragments) {
  try {
    st::GoldenFile::load(path);
    FAIL() << "loading " << path << " should have thrown";
  } catch (const st::GoldenFileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << "message does not name the path: " << message;
    for (const auto& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << message;
    }
  }
}

// Checks everything make_golden.py promises for one case: names, shapes, and param/grad pairing.
void expect_layout(const st::GoldenFile& g, int64_t layers, int64_t heads,
                   const std::vector<std::pair<std::string, Shape>>& params) {
  EXPECT_EQ(g.get("input").shape, (Shape{kB, kT, kD}));
  EXPECT_EQ(g.get("target").shape, (Shape{kB, kT, kD}));
  EXPECT_EQ(g.get("output").shape, (Shape{kB, kT, kD}));
  EXPECT_EQ(g.get("loss").shape, (Shape{1}));
  EXPECT_EQ(g.get("adam_losses").shape, (Shape{4}));
  for (int64_t l = 0; l < layers; ++l) {
    EXPECT_EQ(g.get("probs.layer" + std::to_string(l)).shape, (Shape{kB, heads, kT, kT}));
  }
  EXPECT_FALSE(g.has("probs.layer" + std::to_string(layers)));
  for (const auto& [name, shape] : params) {
    EXPECT_EQ(g.get("param." + name).shape, shape) << name;
    EXPECT_EQ(g.get("grad." + name).shape, shape) << name;
    EXPECT_EQ(g.get("param." + name).numel(), static_cast<int64_t>(g.get("param." + name).values.size()));
  }
  // input, target, output, loss, adam_losses, one probs per layer, and a param + grad per parameter.
  EXPECT_EQ(g.names().size(), 5 + static_cast<size_t>(layers) + 2 * params.size());
  EXPECT_EQ(g.names().front(), "input");
  EXPECT_EQ(g.names().back(), "adam_losses");
}

std::vector<std::pair<std::string, Shape>> attn_only_params() {
  std::vector<std::pair<std::string, Shape>> p;
  for (int l = 0; l < 2; ++l) {
    const std::string a = "blocks." + std::to_string(l) + ".attn.";
    for (const char* w : {"w_q", "w_k", "w_v"}) p.push_back({a + w + ".weight", {2 * kD, kD}});
    p.push_back({a + "w_o.weight", {kD, 2 * kD}});
  }
  return p;
}

std::vector<std::pair<std::string, Shape>> prenorm_params() {
  std::vector<std::pair<std::string, Shape>> p;
  for (int l = 0; l < 2; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    for (const char* ln : {"ln1", "ln2"}) {
      p.push_back({b + ln + ".weight", {kD}});
      p.push_back({b + ln + ".bias", {kD}});
    }
    for (const char* w : {"w_q", "w_k", "w_v", "w_o"}) {
      p.push_back({b + "attn." + w + ".weight", {kD, kD}});  // 2 heads x d_head 8 = 16
      p.push_back({b + "attn." + w + ".bias", {kD}});
    }
    p.push_back({b + "mlp.fc1.weight", {32, kD}});
    p.push_back({b + "mlp.fc1.bias", {32}});
    p.push_back({b + "mlp.fc2.weight", {kD, 32}});
    p.push_back({b + "mlp.fc2.bias", {kD}});
  }
  p.push_back({"final_norm.weight", {kD}});
  p.push_back({"final_norm.bias", {kD}});
  return p;
}

// Sanity of the stored references themselves: loss is the MSE of output vs target, Adam starts there
// and descends, probs respect the causal mask (and sum to 1 per row under softmax).
void expect_consistent(const st::GoldenFile& g, int64_t layers, int64_t heads, bool softmax) {
  const auto& out = g.get("output").values;
  const auto& target = g.get("target").values;
  double mse = 0.0;
  for (size_t i = 0; i < out.size(); ++i) mse += (double(out[i]) - target[i]) * (double(out[i]) - target[i]);
  mse /= static_cast<double>(out.size());
  const float loss = g.get("loss").values[0];
  EXPECT_NEAR(mse, loss, 1e-5 * loss);
  const auto& adam = g.get("adam_losses").values;
  EXPECT_FLOAT_EQ(adam[0], loss);
  for (size_t s = 1; s < adam.size(); ++s) EXPECT_LT(adam[s], adam[s - 1]) << "Adam step " << s;
  for (int64_t l = 0; l < layers; ++l) {
    const auto& probs = g.get("probs.layer" + std::to_string(l)).values;
    for (int64_t row = 0; row < kB * heads * kT; ++row) {
      const int64_t i = row % kT;
      double sum = 0.0;
      for (int64_t k = 0; k < kT; ++k) {
        const float a = probs[static_cast<size_t>(row * kT + k)];
        if (k > i) {
          EXPECT_EQ(a, 0.0f) << "masked key " << k << " of query " << i << " in layer " << l;
        }
        EXPECT_GE(a, 0.0f);
        sum += a;
      }
      if (softmax) {
        EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << row << " of layer " << l;
      }
    }
  }
}

TEST(GoldenFileFormat, AttnSoftmaxFixtureHasDocumentedLayout) {
  const auto g = st::GoldenFile::load(st::golden_fixture_path("attn2x2_softmax.bin"));
  expect_layout(g, 2, 2, attn_only_params());
  expect_consistent(g, 2, 2, true);
}

TEST(GoldenFileFormat, AttnReluFixtureHasDocumentedLayout) {
  const auto g = st::GoldenFile::load(st::golden_fixture_path("attn2x2_relu.bin"));
  expect_layout(g, 2, 2, attn_only_params());
  expect_consistent(g, 2, 2, false);
  // Row 0 sees only BOS and is divided by 1, so its weight is relu(s_00) itself: some must be > 0.
  const auto& probs = g.get("probs.layer0").values;
  double row0_mass = 0.0;
  for (int64_t bh = 0; bh < kB * 2; ++bh) row0_mass += probs[static_cast<size_t>(bh * kT * kT)];
  EXPECT_GT(row0_mass, 0.0);
}

TEST(GoldenFileFormat, PrenormFixtureHasDocumentedLayout) {
  const auto g = st::GoldenFile::load(st::golden_fixture_path("block_prenorm.bin"));
  expect_layout(g, 2, 2, prenorm_params());
  expect_consistent(g, 2, 2, true);
}

TEST(GoldenFileFormat, MissingNameIsNamedInTheError) {
  const std::string path = st::golden_fixture_path("attn2x2_softmax.bin");
  const auto g = st::GoldenFile::load(path);
  EXPECT_FALSE(g.has("param.blocks.9.attn.w_q.weight"));
  try {
    g.get("param.blocks.9.attn.w_q.weight");
    FAIL() << "get of a missing name should have thrown";
  } catch (const st::GoldenFileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("param.blocks.9.attn.w_q.weight"), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
  }
}

TEST(GoldenFileFormat, MissingFileOrDirectoryNamesThePath) {
  expect_load_error(st::golden_fixture_path("no_such_fixture.bin"), {"cannot open"});
  expect_load_error(std::string(SINKLAB_SOURCE_DIR) + "/tests/fixtures/golden", {"is a directory"});
}

TEST(GoldenFileFormat, TruncatedCopiesGiveClearErrors) {
  const auto bytes = read_bytes(st::golden_fixture_path("attn2x2_softmax.bin"));
  ASSERT_GT(bytes.size(), 100u);
  // Cuts inside the magic, the count, the first name length, name, rank, dims, data, and the last float.
  const std::vector<size_t> cuts = {0, 5, 8, 10, 12, 14, 17, 19, 25, 40, bytes.size() / 2, bytes.size() - 1};
  for (const size_t cut : cuts) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    const std::vector<char> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    expect_load_error(write_scratch(prefix, std::to_string(cut)), {"truncated while reading"});
  }
  const std::vector<char> whole_but_last(bytes.begin(), bytes.end() - 1);
  expect_load_error(write_scratch(whole_but_last, "last"), {"adam_losses"});
}

TEST(GoldenFileFormat, BadMagicIsReported) {
  auto bytes = read_bytes(st::golden_fixture_path("attn2x2_softmax.bin"));
  bytes[0] = 'X';
  expect_load_error(write_scratch(bytes, "magic"), {"bad magic"});
  const std::string text = "this is not a golden file at all\n";
  expect_load_error(write_scratch({text.begin(), text.end()}, "text"), {"bad magic"});
}

TEST(GoldenFileFormat, TrailingBytesAreReported) {
  auto bytes = read_bytes(st::golden_fixture_path("attn2x2_softmax.bin"));
  bytes.push_back('\0');
  expect_load_error(write_scratch(bytes, "trailing"), {"1 trailing bytes"});
}

TEST(GoldenFileFormat, HugeDimIsReportedNotAllocated) {
  auto bytes = read_bytes(st::golden_fixture_path("attn2x2_softmax.bin"));
  // First tensor is "input": magic(8) + count(4) + name length(4) + "input"(5) + rank(4) -> dims at 25.
  ASSERT_EQ(std::string(bytes.begin() + 16, bytes.begin() + 21), "input");
  for (size_t i = 25; i < 33; ++i) bytes[i] = (i == 32) ? '\x3f' : '\xff';  // dims[0] = 2^62 - 1
  expect_load_error(write_scratch(bytes, "hugedim"), {"truncated while reading data of tensor 'input'"});
}

}  // namespace
