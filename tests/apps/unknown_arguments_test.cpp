// A misspelled command or flag gets "did you mean" and exit status 2, as a misspelled config key does,
// for whichever subcommand it was given to; nothing runs.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

using testing::run_sinklab;

void expect_refused(const std::string& args, const std::string& message) {
  const auto r = run_sinklab(args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("sinklab: error: " + message), std::string::npos) << r.output;
}

TEST(UnknownArguments, AMisspelledCommandGetsTheNearestOneAndTheList) {
  expect_refused("trian", "unknown command 'trian'; did you mean 'train'? (commands: train, compare, report, inspect,");
  expect_refused("comapre sweep.yaml", "unknown command 'comapre'; did you mean 'compare'?");
  expect_refused("errorvssink runs/x", "unknown command 'errorvssink'; did you mean 'error-vs-sink'?");
}

TEST(UnknownArguments, AnUnlikeCommandGetsTheListOnly) {
  const auto r = run_sinklab("frobnicate");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown command 'frobnicate' (commands: train, compare,"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("did you mean"), std::string::npos) << r.output;
}

TEST(UnknownArguments, AMisspelledFlagGetsTheNearestFlagOfItsCommand) {
  expect_refused("train --thread 1 x.yaml", "unknown flag '--thread' for 'train'; did you mean '--threads'?");
  expect_refused("train x.yaml --thread=1", "unknown flag '--thread' for 'train'; did you mean '--threads'?");
  expect_refused("train x.yaml --qiuet", "unknown flag '--qiuet' for 'train'; did you mean '--quiet'?");
  expect_refused("compare sweep.yaml --job 2", "unknown flag '--job' for 'compare'; did you mean '--jobs'?");
  expect_refused("compare sweep.yaml --dryrun", "unknown flag '--dryrun' for 'compare'; did you mean '--dry-run'?");
  expect_refused("--versoin", "unknown flag '--versoin'; did you mean '--version'?");
}

TEST(UnknownArguments, AnUnlikeFlagGetsTheCommandsFlags) {
  expect_refused("train x.yaml --frobnicate", "unknown flag '--frobnicate' for 'train' (flags: --help, -h, --set,");
}

TEST(UnknownArguments, OtherUsageErrorsKeepTheirOwnMessage) {
  const auto r = run_sinklab("train --set");
  EXPECT_EQ(r.exit_code, 2) << r.output;  // not CLI11's own codes (100 and up)
  EXPECT_EQ(r.output.find("unknown"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--set"), std::string::npos) << r.output;
}

// Every usage error exits 2, as every other error the user can fix does.
TEST(UnknownArguments, EveryUsageErrorExitsTwo) {
  for (const char* args : {"construct", "eval", "export", "export runs/x --format pdf", "schedule runs/x --ranks 0",
                           "report runs/x --seed abc"}) {
    const auto r = run_sinklab(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
}

// An empty value would otherwise silently mean the default (`train --out ""` trained into runs/).
TEST(UnknownArguments, AnEmptyValueIsRefusedByName) {
  for (const char* args : {"train x.yaml --out ''", "train ''", "eval runs/x --out ''"}) {
    const auto r = run_sinklab(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("is empty"), std::string::npos) << args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace sinklab
