// run.json's resumption record: a run trained in pieces names each build and kernel path that trained it.
#include "run_files/run_provenance.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_files/run_summary.h"  // RunFileError
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

class RunProvenance : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_test_dir(); }
  fs::path dir_;
};

TEST_F(RunProvenance, EachResumptionIsAppendedWithItsStepAndBuild) {
  const nlohmann::json start = provenance({"sinklab", "train", "c.yaml"}, 1, 7);
  write_provenance(dir_, start);
  const nlohmann::json later = provenance({"sinklab", "train", "--resume", "run"}, 1, 7);
  EXPECT_EQ(record_resumption(dir_, 1000, later), "");  // the same build on the same path: nothing to say
  EXPECT_EQ(record_resumption(dir_, 2500, later), "");
  const nlohmann::json info = read_provenance(dir_ / "run.json");
  EXPECT_EQ(info["git_revision"], start["git_revision"]);  // the start's record is kept as it was
  EXPECT_EQ(info["command_line"], start["command_line"]);
  ASSERT_EQ(info["resumed"].size(), 2u);
  EXPECT_EQ(info["resumed"][0]["from_step"], 1000);
  EXPECT_EQ(info["resumed"][1]["from_step"], 2500);
  EXPECT_EQ(info["resumed"][1]["git_revision"], git_revision());
  EXPECT_EQ(info["resumed"][1]["kernel_path"], later["cpu"]["kernel_path"]);
  EXPECT_EQ(info["resumed"][1]["command_line"], later["command_line"]);
  EXPECT_EQ(info["resumed"][1]["threads"], 1);
}

TEST_F(RunProvenance, ANoteNamesBothBuildsWhenTheRevisionOrKernelPathDiffers) {
  nlohmann::json start = provenance({"sinklab", "train", "c.yaml"}, 1, 7);
  start["git_revision"] = "0123456789ab";
  write_provenance(dir_, start);
  const nlohmann::json now = provenance({"sinklab", "train", "--resume", "run"}, 1, 7);
  const std::string note = record_resumption(dir_, 1231, now);
  EXPECT_NE(note.find("git 0123456789ab"), std::string::npos) << note;
  EXPECT_NE(note.find("git " + git_revision()), std::string::npos) << note;
  EXPECT_NE(note.find("step 1231"), std::string::npos) << note;

  start["git_revision"] = git_revision();
  start["cpu"]["kernel_path"] = "a path of another machine";  // no CPU's own: the test holds at every level
  write_provenance(dir_, start);
  const std::string path_note = record_resumption(dir_, 40, now);
  EXPECT_NE(path_note.find("kernel path a path of another machine"), std::string::npos) << path_note;
  EXPECT_NE(path_note.find("kernel path " + now["cpu"]["kernel_path"].get<std::string>()), std::string::npos)
      << path_note;
}

TEST_F(RunProvenance, AResumedListThatIsNoListIsRefusedAndLeftAsItWas) {
  std::ofstream(dir_ / "run.json") << R"({"git_revision": "abc", "resumed": 3})";
  try {
    record_resumption(dir_, 5, provenance({"sinklab"}, 1, 0));
    FAIL() << "expected RunFileError";
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("run.json: \"resumed\" is not a list"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_provenance(dir_ / "run.json")["resumed"], 3);
}

TEST_F(RunProvenance, AMissingRunJsonIsNamed) {
  try {
    record_resumption(dir_, 5, provenance({"sinklab"}, 1, 0));
    FAIL() << "expected RunFileError";
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "run.json").string()), std::string::npos) << e.what();
  }
}

TEST_F(RunProvenance, TheLastPieceStartsAtTheLargestResumedStep) {
  const fs::path path = dir_ / "run.json";
  EXPECT_EQ(last_piece_start(nlohmann::json{{"git_revision", "abc"}}, path), 0);  // one piece
  write_provenance(dir_, provenance({"sinklab", "train", "c.yaml"}, 1, 7));
  record_resumption(dir_, 1000, provenance({"sinklab", "train", "--resume", "run"}, 1, 7));
  record_resumption(dir_, 2500, provenance({"sinklab", "train", "--resume", "run"}, 1, 7));
  EXPECT_EQ(last_piece_start(read_provenance(path), path), 2500);
}

TEST_F(RunProvenance, AResumedEntryWithoutAStepIsNamedWhenThePiecesAreRead) {
  const fs::path path = dir_ / "run.json";
  for (const char* resumed : {R"({"resumed": 3})", R"({"resumed": [{"from_step": 10}, {"host": "vm"}]})",
                              R"({"resumed": [{"from_step": -1}]})", R"({"resumed": [{"from_step": "10"}]})"}) {
    try {
      last_piece_start(nlohmann::json::parse(resumed), path);
      ADD_FAILURE() << "expected RunFileError for " << resumed;
    } catch (const RunFileError& e) {
      EXPECT_NE(std::string(e.what()).find(path.string() + ": "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("\"resumed\""), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sinklab
