// summary.json's time_seconds: written and read back exactly, a damaged object refused by field name, and
// printed with every phase (the summary's own round trip: run_summary_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "run_files/json_fields.h"
#include "run_files/run_times.h"

namespace sinklab {
namespace {

RunTimes some_times() { return {1.25, 3.5, 20.125, 9.75, 4.0625}; }

TEST(RunTimes, ReadBackExactly) {
  const RunTimes t = some_times();
  EXPECT_EQ(parse_run_times(nlohmann::json::parse(run_times_json(t).dump()), "time_seconds"), t);
}

TEST(RunTimes, ADamagedObjectIsRefusedByFieldName) {
  const auto message_of = [](const nlohmann::json& j) {
    try {
      parse_run_times(j, "time_seconds");
    } catch (const JsonFieldError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  nlohmann::json j = run_times_json(some_times());
  j.erase("writing");
  EXPECT_NE(message_of(j).find("time_seconds.writing"), std::string::npos) << message_of(j);
  j = run_times_json(some_times());
  j["steps"] = -1.0;
  EXPECT_NE(message_of(j).find("time_seconds.steps: expected a number of seconds >= 0"), std::string::npos)
      << message_of(j);
  j["steps"] = "3 s";
  EXPECT_NE(message_of(j).find("time_seconds.steps"), std::string::npos) << message_of(j);
  j["steps"] = nullptr;  // NaN
  EXPECT_NE(message_of(j).find("time_seconds.steps"), std::string::npos) << message_of(j);
  EXPECT_NE(message_of(nlohmann::json::array()).find("time_seconds: expected an object"), std::string::npos);
}

TEST(RunTimes, ThePrintedLineNamesEveryPhaseAndTheTotal) {
  EXPECT_EQ(format_run_times(some_times()),
            "time: setup 1.25 s, steps 3.50 s, evaluations 20.1 s, analysis 9.75 s, writing 4.06 s; total 38.7 s");
}

}  // namespace
}  // namespace sinklab
