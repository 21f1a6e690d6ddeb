// A hand-edited or corrupt sweep.json found by fuzzing (tests/fuzz, docs/fuzzing.md): on resume,
// compare must treat mistyped entries as changed runs, never let a json::type_error escape.
#include <gtest/gtest.h>

#include "sweep/sweep_manifest.h"

namespace sinklab::sweep {
namespace {

TEST(SweepManifestMalformed, MistypedIdOrConfigInThePreviousManifestCountsAsChanged) {
  const nlohmann::json before = nlohmann::json::parse(R"({"runs": [
      {"id": 5, "overrides": {}, "config": "x.yaml"},
      {"id": "a", "overrides": {"seed": 0}, "config": ["x.yaml"]},
      {"id": "b", "overrides": {"seed": 1}, "config": "x.yaml"}]})");
  const nlohmann::json after = nlohmann::json::parse(R"({"runs": [
      {"id": "a", "overrides": {"seed": 0}, "config": "x.yaml"},
      {"id": "b", "overrides": {"seed": 1}, "config": "x.yaml"}]})");
  EXPECT_EQ(changed_runs(before, after), (std::vector<std::string>{"a"}));
}

}  // namespace
}  // namespace sinklab::sweep
