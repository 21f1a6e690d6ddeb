// `sinklab eval MODEL_DIR` writes one window's attention beside its JSON and `sinklab report` on that JSON
// writes the explorer page of the open model on the text (report/explorer/open_model_explorer.h): on the
// tiny random Llama fixture read from --tokens, the file holds the window's ids and every head's causal
// rows, the page embeds every head, and every broken input is one message with exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/token_windows.h"
#include "report/explorer/open_model_attention_file.h"
#include "tests/apps/cli_process.h"
#include "tests/apps/json_file.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::read_json;

const fs::path kLlama = fs::path(SINKLAB_SOURCE_DIR) / "tests" / "fixtures" / "open_models" / "llama";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// explorer-data.js is `window.SINKLAB_EXPLORER = <json>;`: the JSON.
nlohmann::json page_data(const fs::path& dir) {
  const std::string text = read_text(dir / "explorer-data.js");
  const std::string prefix = "window.SINKLAB_EXPLORER = ";
  EXPECT_EQ(text.rfind(prefix, 0), 0u) << text.substr(0, 80);
  const size_t end = text.rfind(';');
  return nlohmann::json::parse(text.substr(prefix.size(), end - prefix.size()));
}

class ReportOpenModel : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sinklab_report_open_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // eval of the Llama fixture on its ids: windows of 8, the attention of window `window`.
  fs::path eval(int window) {
    const fs::path out = root_ / "eval-llama.json";
    const testing::CliResult r = testing::run_sinklab(
        "eval " + kLlama.string() + " --tokens " + (kLlama / "ids.npy").string() +
        " --seq-len 8 --windows 2 --threads 1 --explore-window " + std::to_string(window) + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("eval-llama.attention.npz"), std::string::npos) << r.output;
    return out;
  }

  static void expect_user_error(const testing::CliResult& r, const std::string& says) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("sinklab: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  }

  fs::path root_;
};

TEST_F(ReportOpenModel, EvalWritesTheWindowsAttentionAndReportEmbedsEveryHead) {
  const fs::path json_path = eval(1);
  const nlohmann::json e = read_json(json_path);
  const int layers = e["layers"].get<int>(), heads = e["heads_per_layer"].get<int>(), T = e["seq_len"].get<int>();
  ASSERT_EQ(e["explorer"]["attention_file"], "eval-llama.attention.npz") << e["explorer"];
  EXPECT_EQ(e["explorer"]["window"], 1);

  // The file: window 1 of the evaluation's windows (BOS, then ids 8 .. 14), rows of causal weights.
  const WindowAttention a = read_window_attention(root_ / "eval-llama.attention.npz");
  EXPECT_EQ(a.layers, layers);
  EXPECT_EQ(a.heads, heads);
  EXPECT_EQ(a.seq_len, T);
  EXPECT_EQ(a.window, 1);
  const TokenWindows stream = read_token_windows((kLlama / "ids.npy").string(), 80, 1 << 20);
  std::vector<int32_t> window{e["bos"].get<int32_t>()};
  window.insert(window.end(), stream.ids.begin() + T, stream.ids.begin() + 2 * T - 1);
  EXPECT_EQ(a.tokens, window);
  for (int t = 0; t < T; ++t)
    EXPECT_EQ(a.token_labels[static_cast<size_t>(t)],
              std::to_string(window[static_cast<size_t>(t)]));  // no tokenizer.json
  for (int h = 0; h < layers * heads; ++h)
    for (int i = 0; i < T; ++i) {
      double row = 0.0;
      for (int j = 0; j < T; ++j) {
        const float w = a.weights[static_cast<size_t>((h * T + i) * T + j)];
        if (j > i) {
          EXPECT_EQ(w, 0.0f) << "head " << h << " row " << i << " key " << j;
        }
        row += w;
      }
      EXPECT_NEAR(row, 1.0, 1e-5) << "head " << h << " row " << i;
    }

  // The page: default folder beside the JSON, every head embedded with the JSON's alpha_0.
  const testing::CliResult r = testing::run_sinklab("report " + json_path.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path dir = root_ / "eval-llama-report";
  EXPECT_NE(r.output.find("explorer: " + (dir / "explorer.html").string()), std::string::npos) << r.output;
  for (const char* file :
       {"explorer.html", "explorer.js", "explorer.css", "open_model_explorer.js", "open_model_explorer.css"})
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  const std::string html = read_text(dir / "explorer.html");
  EXPECT_LT(html.find("open_model_explorer.js"), html.find("\"explorer.js\""))
      << html;  // registers its page kind first
  const nlohmann::json data = page_data(dir);
  EXPECT_EQ(data["kind"], "open_model");
  EXPECT_EQ(data["maps"]["layers"], layers);
  EXPECT_EQ(data["maps"]["heads"], heads);
  EXPECT_EQ(data["maps"]["seq_len"], T);
  EXPECT_EQ(data["maps"]["tokens"], nlohmann::json(window));
  ASSERT_EQ(data["maps"]["mean"].size(), 1u);
  // base64 of [L, H, T, T] float16 or float32 values.
  const size_t bytes = static_cast<size_t>(layers * heads * T * T) * (data["maps"]["dtype"]["mean"] == "f2" ? 2 : 4);
  EXPECT_EQ(data["maps"]["mean"][0].get<std::string>().size(), (bytes + 2) / 3 * 4);
  ASSERT_EQ(static_cast<int>(data["head_facts"].size()), layers * heads);
  for (int h = 0; h < layers * heads; ++h) {
    const nlohmann::json& f = data["head_facts"][static_cast<size_t>(h)];
    EXPECT_EQ(f["layer"], h / heads);
    EXPECT_EQ(f["head"], h % heads);
    EXPECT_EQ(f["alpha0"], e["unablated"]["extreme_tokens"]["eval"]["heads"][static_cast<size_t>(h)]["alpha"][0]);
    EXPECT_EQ(f["sink_score"], e["unablated"]["heads"][static_cast<size_t>(h)]["sink_score"]);
  }

  // --out DIR instead.
  const testing::CliResult elsewhere =
      testing::run_sinklab("report " + json_path.string() + " --out " + (root_ / "page").string());
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.output;
  EXPECT_TRUE(fs::exists(root_ / "page" / "explorer.html"));
}

TEST_F(ReportOpenModel, EveryBrokenInputIsOneMessageAndExitStatusTwo) {
  const fs::path json_path = eval(0);
  const fs::path npz = root_ / "eval-llama.attention.npz";
  const std::string report = "report " + json_path.string();

  const fs::path other = root_ / "other.json";
  std::ofstream(other) << R"({"eval_loss": 1.0, "heads": []})";
  expect_user_error(testing::run_sinklab("report " + other.string()), "is not the output of sinklab eval MODEL_DIR");
  std::ofstream(root_ / "broken.json") << "{\"model\": ";
  expect_user_error(testing::run_sinklab("report " + (root_ / "broken.json").string()), "is not JSON");

  const std::string bytes = read_text(npz);
  std::ofstream(npz, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  expect_user_error(testing::run_sinklab(report), "its attention file cannot be read");
  fs::remove(npz);
  expect_user_error(testing::run_sinklab(report), "no such file");

  nlohmann::json e = read_json(json_path);
  e.erase("explorer");
  std::ofstream(json_path, std::ios::trunc) << e.dump();
  expect_user_error(testing::run_sinklab(report), "names no attention file");

  expect_user_error(
      testing::run_sinklab("eval " + kLlama.string() + " --tokens " + (kLlama / "ids.npy").string() +
                           " --seq-len 8 --windows 2 --explore-window 2 --out " + (root_ / "x.json").string()),
      "--explore-window 2: the evaluation has 2 window(s)");
  expect_user_error(testing::run_sinklab("eval " + kLlama.string() + " --stream --tokens " +
                                         (kLlama / "ids.npy").string() + " --window 8 --explore-window 0"),
                    "--explore-window does not apply to --stream");
}

}  // namespace
}  // namespace sinklab
