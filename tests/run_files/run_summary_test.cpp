#include "run_files/run_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::write_text;

HeadSinkStats head(int layer, int h, double bos) {
  HeadSinkStats s;
  s.layer = layer;
  s.head = h;
  s.bos_mass_nontrigger_mean = bos;
  s.bos_mass_nontrigger_min = bos - 0.01;
  s.mass_nontrigger_mean = 1.0;
  s.nonbos_mass_nontrigger_mean = 1.0 - bos;
  s.trigger_bos = 0.02;
  s.trigger_keys_mean = 1.0 / 7;
  s.trigger_keys_max_deviation = 0.003;
  s.sink_score = 0.8;
  s.sink_head = true;
  s.entropy_nontrigger = 0.125;
  return s;
}

RunSummary sample_summary() {
  RunSummary s;
  s.name = "1x2_softmax";
  s.seed = 3;
  s.steps = 912;
  s.stop_reason = "max_abs_error";
  s.reached_stop_rule = true;
  s.train_loss = 1e-7;
  s.eval_mse = 2e-7;
  s.eval_max_abs_error = 4e-3;
  s.wall_seconds = 1.9;
  s.normalizer = "softmax";
  s.layers = 1;
  s.heads_per_layer = 2;
  s.seq_len = 16;
  s.eval_trigger = 7;
  s.sink_eps = 0.3;
  s.uniform_baseline = 0.2113;
  s.sink_rate = 1.0;
  s.threads = 2;
  s.git_revision = "abc123";
  s.heads = {head(0, 0, 0.9999), head(0, 1, 0.5)};
  return s;
}

void expect_same(const HeadSinkStats& a, const HeadSinkStats& b) {
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.head, b.head);
  EXPECT_EQ(a.bos_mass_nontrigger_mean, b.bos_mass_nontrigger_mean);
  EXPECT_EQ(a.bos_mass_nontrigger_min, b.bos_mass_nontrigger_min);
  EXPECT_EQ(a.mass_nontrigger_mean, b.mass_nontrigger_mean);
  EXPECT_EQ(a.nonbos_mass_nontrigger_mean, b.nonbos_mass_nontrigger_mean);
  EXPECT_EQ(a.trigger_bos, b.trigger_bos);
  EXPECT_EQ(a.trigger_keys_mean, b.trigger_keys_mean);
  EXPECT_EQ(a.trigger_keys_max_deviation, b.trigger_keys_max_deviation);
  EXPECT_EQ(a.sink_score, b.sink_score);
  EXPECT_EQ(a.sink_head, b.sink_head);
  EXPECT_EQ(a.entropy_nontrigger, b.entropy_nontrigger);
}

TEST(RunSummary, FileRoundTripKeepsEveryField) {
  const auto dir = fresh_test_dir();
  const RunSummary s = sample_summary();
  write_run_summary(dir / "summary.json", s);
  EXPECT_FALSE(std::filesystem::exists(dir / "summary.json.tmp"));
  const RunSummary r = read_run_summary(dir / "summary.json");
  EXPECT_EQ(r.name, s.name);
  EXPECT_EQ(r.seed, s.seed);
  EXPECT_EQ(r.steps, s.steps);
  EXPECT_EQ(r.stop_reason, s.stop_reason);
  EXPECT_EQ(r.reached_stop_rule, s.reached_stop_rule);
  EXPECT_EQ(r.train_loss, s.train_loss);
  EXPECT_EQ(r.eval_mse, s.eval_mse);
  EXPECT_EQ(r.eval_max_abs_error, s.eval_max_abs_error);
  EXPECT_EQ(r.wall_seconds, s.wall_seconds);
  EXPECT_EQ(r.normalizer, s.normalizer);
  EXPECT_EQ(r.layers, s.layers);
  EXPECT_EQ(r.heads_per_layer, s.heads_per_layer);
  EXPECT_EQ(r.seq_len, s.seq_len);
  EXPECT_EQ(r.eval_trigger, s.eval_trigger);
  EXPECT_EQ(r.sink_eps, s.sink_eps);
  EXPECT_EQ(r.uniform_baseline, s.uniform_baseline);
  EXPECT_EQ(r.sink_rate, s.sink_rate);
  EXPECT_EQ(r.threads, s.threads);
  EXPECT_EQ(r.git_revision, s.git_revision);
  ASSERT_EQ(r.heads.size(), 2u);
  expect_same(r.heads[0], s.heads[0]);
  expect_same(r.heads[1], s.heads[1]);
}

// A file written before the sink-head rule read the sink mass (a relu head whose almost empty rows put
// their crumbs on BOS was "sink yes") reads back with the rule applied: the flag from the head's own
// bos_mass_by_row, and the sink rate from the flags. A head that spends its rows on BOS keeps its flag.
TEST(RunSummary, AnOlderFilesSinkVerdictsFollowTheSinkHeadRule) {
  const auto dir = fresh_test_dir();
  RunSummary s = sample_summary();
  s.heads[0].bos_mass_by_row.assign(16, 0.99);    // a softmax sink: mass 0.99 on BOS
  s.heads[1].bos_mass_by_row.assign(16, 5e-4);    // share 0.8 of rows that spend almost nothing
  s.sink_rate = 1.0;                               // as the old rule wrote it
  write_run_summary(dir / "summary.json", s);
  const RunSummary r = read_run_summary(dir / "summary.json");
  EXPECT_TRUE(r.heads[0].sink_head);
  EXPECT_FALSE(r.heads[1].sink_head);
  EXPECT_EQ(r.sink_rate, 0.5);
  // Unchanged files stay as written: no bos_mass_by_row, nothing to recompute from.
  write_run_summary(dir / "plain.json", sample_summary());
  EXPECT_EQ(read_run_summary(dir / "plain.json").sink_rate, 1.0);
}

TEST(RunSummary, JsonUsesTheContractNames) {
  const nlohmann::json j = sample_summary();
  for (const char* key : {"name", "seed", "steps", "stop_reason", "reached_stop_rule", "train_loss", "eval_mse",
                          "eval_max_abs_error", "wall_seconds", "normalizer", "layers", "heads_per_layer", "seq_len",
                          "eval_trigger", "sink_eps", "uniform_baseline", "sink_rate", "threads", "git_revision"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["heads"][1]["bos_mass_nontrigger_mean"].get<double>(), 0.5);
  EXPECT_EQ(j["heads"][1]["sink_head"].get<bool>(), true);
  // layer, head, the statistics of stats/head_statistics.h and the two onset steps (bos_mass_by_row
  // is left out when unknown, as here).
  EXPECT_EQ(j["heads"][0].size(), 2 + kHeadStatistics.size() + 2);
}

std::string error_of(const nlohmann::json& j) {
  try {
    j.get<RunSummary>();
  } catch (const JsonFieldError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RunSummary, MissingOrMistypedFieldIsNamed) {
  nlohmann::json j = sample_summary();
  j.erase("eval_mse");
  EXPECT_EQ(error_of(j), "eval_mse: missing field");

  j = sample_summary();
  j["steps"] = "many";
  EXPECT_NE(error_of(j).find("steps: expected an integer, got string"), std::string::npos) << error_of(j);

  j = sample_summary();
  j["heads"][1].erase("sink_score");
  EXPECT_EQ(error_of(j), "heads[1].sink_score: missing field");

  j = sample_summary();
  j["heads"].erase(1);
  EXPECT_NE(error_of(j).find("expected layers * heads_per_layer = 2"), std::string::npos) << error_of(j);
}

TEST(RunSummary, HeadCountCheckComputesTheProductIn64Bits) {
  nlohmann::json j = sample_summary();
  j["layers"] = 100000;
  j["heads_per_layer"] = 100000;
  EXPECT_NE(error_of(j).find("expected layers * heads_per_layer = 10000000000"), std::string::npos) << error_of(j);
}

TEST(RunSummary, ImplausibleShapesAndSequenceLengthsAreRefused) {
  nlohmann::json j = sample_summary();
  j["seq_len"] = 0;  // the report's uniform baseline needs T >= 1
  EXPECT_NE(error_of(j).find("seq_len"), std::string::npos) << error_of(j);
  j = sample_summary();
  j["seq_len"] = 2147483647;
  EXPECT_NE(error_of(j).find("seq_len"), std::string::npos) << error_of(j);
}

TEST(RunSummary, OversizedFileIsRefusedByName) {
  const auto dir = fresh_test_dir();
  {
    std::ofstream out(dir / "summary.json");
    out << "{\"name\": \"";
    out << std::string(65u << 20, 'x');  // more than any summary of a sane model
    out << "\"}";
  }
  try {
    read_run_summary(dir / "summary.json");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json"), std::string::npos) << e.what();
  }
}

TEST(RunSummary, NanBecomesNullAndReadsBack) {
  RunSummary s = sample_summary();
  s.train_loss = std::nan("");
  const nlohmann::json j = nlohmann::json::parse(nlohmann::json(s).dump());
  EXPECT_TRUE(j["train_loss"].is_null());
  EXPECT_TRUE(std::isnan(j.get<RunSummary>().train_loss));
}

TEST(RunSummary, PerRoleTokenMetricsAndTaskBaselinesRoundTrip) {
  RunSummary s = sample_summary();
  EXPECT_FALSE(nlohmann::json(s).contains("eval_active_loss")) << "a vector task has no per-role token metrics";
  EXPECT_FALSE(nlohmann::json(s).contains("task_baselines")) << "no baselines, no key";
  s.eval_loss = 0.9;
  s.eval_accuracy = 0.6;
  s.eval_active_loss = 0.01;
  s.eval_active_accuracy = 0.998;
  s.eval_no_op_loss = 1.6;
  s.eval_no_op_accuracy = std::nan("");  // no scored no-op row
  s.task_baselines = {{"markov_entropy", 1.59}};
  const nlohmann::json j = nlohmann::json::parse(nlohmann::json(s).dump());
  EXPECT_EQ(j["eval_active_loss"].get<double>(), 0.01);
  EXPECT_EQ(j["eval_no_op_loss"].get<double>(), 1.6);
  EXPECT_TRUE(j["eval_no_op_accuracy"].is_null());
  EXPECT_EQ(j["task_baselines"]["markov_entropy"].get<double>(), 1.59);
  const RunSummary r = j.get<RunSummary>();
  EXPECT_EQ(r.eval_active_loss, s.eval_active_loss);
  EXPECT_EQ(r.eval_active_accuracy, s.eval_active_accuracy);
  EXPECT_EQ(r.eval_no_op_loss, s.eval_no_op_loss);
  ASSERT_TRUE(r.eval_no_op_accuracy.has_value());
  EXPECT_TRUE(std::isnan(*r.eval_no_op_accuracy));
  EXPECT_EQ(r.task_baselines, s.task_baselines);
  nlohmann::json bad = j;
  bad["task_baselines"] = 3;
  EXPECT_THROW(bad.get<RunSummary>(), JsonFieldError);
}

TEST(RunSummary, FileErrorsNameTheFile) {
  const auto dir = fresh_test_dir();
  write_text(dir / "summary.json", "{\"name\": ");
  try {
    read_run_summary(dir / "summary.json");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json: invalid JSON"), std::string::npos) << e.what();
  }
  nlohmann::json j = sample_summary();
  j.erase("seed");
  write_text(dir / "summary.json", j.dump());
  try {
    read_run_summary(dir / "summary.json");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json: seed: missing field"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_run_summary(dir / "nope.json"), RunFileError);
}

TEST(Metrics, LinesRoundTripWithOptionalEvalFields) {
  const auto dir = fresh_test_dir();
  MetricsRecord a;
  a.step = 100;
  a.loss = 1e-3;
  a.max_abs_error = 0.2;
  a.lr = 1e-3;
  a.grad_norm = 0.5;
  a.steps_per_second = 140.0;
  a.heads = {head(0, 0, 0.7)};
  MetricsRecord b = a;
  b.step = 200;
  b.eval_mse = 2e-6;
  b.eval_max_abs_error = 0.01;
  {
    std::ofstream out(dir / "metrics.jsonl");
    write_metrics_line(out, a);
    out << "\n";  // blank lines are tolerated
    write_metrics_line(out, b);
  }
  const auto records = read_metrics(dir / "metrics.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].step, 100);
  EXPECT_FALSE(records[0].eval_mse.has_value());
  EXPECT_EQ(records[1].eval_mse.value(), 2e-6);
  EXPECT_EQ(records[1].eval_max_abs_error.value(), 0.01);
  EXPECT_EQ(records[1].steps_per_second, 140.0);
  expect_same(records[1].heads[0], a.heads[0]);
}

TEST(Metrics, BadLineIsReportedWithFileAndLineNumber) {
  const auto dir = fresh_test_dir();
  MetricsRecord a;
  a.heads = {head(0, 0, 0.7)};
  {
    std::ofstream out(dir / "metrics.jsonl");
    write_metrics_line(out, a);
    write_metrics_line(out, a);
    out << "{\"step\": 3, \"loss\": \n";
  }
  try {
    read_metrics(dir / "metrics.jsonl");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.jsonl:3: invalid JSON"), std::string::npos) << e.what();
  }
  {
    std::ofstream out(dir / "metrics.jsonl");
    out << nlohmann::json{{"step", 1}}.dump() << "\n";
  }
  try {
    read_metrics(dir / "metrics.jsonl");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.jsonl:1: loss: missing field"), std::string::npos) << e.what();
  }
}

// time_seconds (run_files/run_times.h) reads back exactly; a file written before it existed has none.
TEST(RunSummary, TimeSecondsReadBackAndAreAbsentInOlderFiles) {
  RunSummary s = sample_summary();
  s.time_seconds = RunTimes{1.25, 3.5, 20.125, 9.75, 4.0625};
  nlohmann::json j = s;
  const RunSummary back = nlohmann::json::parse(j.dump()).get<RunSummary>();
  ASSERT_TRUE(back.time_seconds.has_value());
  EXPECT_EQ(*back.time_seconds, *s.time_seconds);
  j.erase("time_seconds");
  EXPECT_FALSE(j.get<RunSummary>().time_seconds.has_value());
}

}  // namespace
}  // namespace sinklab
