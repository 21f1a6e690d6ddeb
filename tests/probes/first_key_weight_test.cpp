// P7 (probes/p7_first_key_weight.h) on hand-made rows: a head that keeps half of every row on the first
// key and spreads the rest evenly has a_0 = 1/2 and exp(H)/n = 2 sqrt(n - 1) / n in every bin; a head
// whose rows have no mass has a_0 = 0 and no share (empty cells, not 0). `--list` and probes.md show it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "probes/probe_collector.h"
#include "probes/probe_outputs.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

double expected_median(int from, int to) {  // median over n in [from, to] of 2 sqrt(n - 1) / n (n >= 2)
  std::vector<double> v;
  for (int n = from; n <= to; ++n) v.push_back(2 * std::sqrt(n - 1.0) / n);
  return median(v);
}

TEST(FirstKeyWeight, HalfOnTheSinkAndZeroMassRows) {
  ProbeSettings s;
  s.windows = 1;
  s.n_values = {1, 2};
  s.temperatures = {1};
  s.eps = {1e-3};
  const int H = 2, T = 16, D = 2;
  ProbeCollector collector(s, {T}, 1, H, RowKind{false, 1.0, NormalizerConfig{"relu", {}}});
  std::vector<float> q(H * T * D, 0.5f), k(H * T * D, 1.0f), v(H * T * D, 0.5f), x(T * 4, 1.0f), w(H * T * T, 0.0f);
  for (int t = 0; t < T; ++t) {  // head 0: a_0 = 1/2, the rest 1/(2t); head 1: all zero
    w[static_cast<std::size_t>(t * T)] = t == 0 ? 1.0f : 0.5f;
    for (int j = 1; j <= t; ++j) w[static_cast<std::size_t>(t * T + j)] = 0.5f / static_cast<float>(t);
  }
  AttentionView view{0, 1, H, T, w.data(), nullptr, AttentionBlockLayout::head_major(1, T)};
  view.queries = q.data();
  view.keys = k.data();
  view.values = v.data();
  view.inputs = x.data();
  view.head_dim = D;
  view.model_dim = 4;
  collector.begin_pass(0, 0);
  collector.on_attention(view);
  const fs::path out = fs::temp_directory_path() / ("sinklab_p7_" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::ostringstream log;
  write_probe_outputs(collector.results(), s, ProbeContext{"hand-made", {false, 1.0, {"relu", {}}}, 0.0, ""}, out,
                      "/nonexistent/gnuplot", log);

  const std::vector<std::string> csv = lines_of(out / "sink.csv");
  ASSERT_EQ(csv.size(), 1u + 2 * 5) << "2 heads x bins 1, 2, 4, 8, 16";
  EXPECT_EQ(csv[0], "layer,head,n_from,n_to,rows,median_first_key_weight,median_effective_keys_share");
  EXPECT_EQ(csv[1], "0,0,1,1,1,1,1") << "one key: all weight on it, share 1";
  EXPECT_EQ(csv[3], "0,0,4,7,4,0.5," + num(expected_median(4, 7)));
  EXPECT_EQ(csv[5], "0,0,16,16,1,0.5," + num(expected_median(16, 16)));
  EXPECT_EQ(csv[6], "0,1,1,1,1,0,") << "zero mass: a_0 = 0, no share";
  std::ifstream md(out / "probes.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("| P7 first-key weight |"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("sink.csv"), std::string::npos) << "listed among the files";
  EXPECT_TRUE(fs::exists(out / "figures" / "sink.gp"));
  fs::remove_all(out);
}

}  // namespace
}  // namespace sinklab::probes
