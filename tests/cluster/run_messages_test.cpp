#include "cluster/run_messages.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace sinklab::cluster {
namespace {

TEST(RunMessages, AnAssignmentRoundTrips) {
  RunAssignment a;
  a.index = 7;
  a.id = "relu_lr=3e-4_seed=2";
  a.config = "/abs/configs/paper/1x1_softmax.yaml";
  a.overrides = {{"model.attention.normalizer", "relu"}, {"seed", "2"}};
  a.dir = "/shared/runs/x/runs/relu_lr=3e-4_seed=2";
  a.sweep_key = "x-0123456789abcdef";
  const RunAssignment b = decode_assignment(encode(a));
  EXPECT_EQ(b.index, a.index);
  EXPECT_EQ(b.id, a.id);
  EXPECT_EQ(b.config, a.config);
  EXPECT_EQ(b.overrides, a.overrides);
  EXPECT_EQ(b.dir, a.dir);
  EXPECT_EQ(b.sweep_key, a.sweep_key);
}

TEST(RunMessages, AResultRoundTrips) {
  RunResult r;
  r.index = 3;
  r.signaled = true;
  r.code = 9;
  r.seconds = 12.25;
  r.resumed = true;
  r.error = "cannot create run folder '/x': Permission denied";
  r.quarantined = {
      {"checkpoint /x/checkpoint.bin: checksum mismatch (corrupt file)", "/s/quarantine/x.checkpoint.bin"}};
  const RunResult s = decode_result(encode(r));
  EXPECT_EQ(s.index, r.index);
  EXPECT_EQ(s.signaled, r.signaled);
  EXPECT_EQ(s.code, r.code);
  EXPECT_EQ(s.seconds, r.seconds);
  EXPECT_EQ(s.resumed, r.resumed);
  EXPECT_EQ(s.error, r.error);
  EXPECT_EQ(s.quarantined, r.quarantined);
}

TEST(RunMessages, MalformedBodiesNameTheField) {
  EXPECT_THROW(decode_result("not json"), std::runtime_error);
  try {
    decode_result(R"({"index": 1, "signaled": false, "code": "x", "seconds": 1, "resumed": false, "error": ""})");
    FAIL() << "a string code was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'code'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(decode_assignment(R"({"index": 1})"), std::runtime_error);
}

}  // namespace
}  // namespace sinklab::cluster
