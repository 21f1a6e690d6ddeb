// One `compare` per sweep folder: a second one, while the first holds the folder, is refused with the
// holder's pid before it writes anything (sweep.json, run folders).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_files/run_folder_lock.h"
#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

TEST(CompareLock, ASecondCompareOnAHeldSweepFolderIsRefusedBeforeWriting) {
  const fs::path dir = fs::temp_directory_path() / ("sinklab_compare_lock_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "sweep.yaml") << "name: held\nbase: " << SINKLAB_SOURCE_DIR
                                    << "/configs/paper/1x1_softmax.yaml\ngrid:\n  seed: [0]\n";
  const fs::path out = dir / "out";
  {
    const RunFolderLock held(out, "sweep folder");  // as the first compare holds it
    const testing::CliResult r =
        testing::run_sinklab("compare " + (dir / "sweep.yaml").string() + " --out " + out.string() + " --jobs 1");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("sweep folder " + out.string() + " is in use by another sinklab process (pid " +
                            std::to_string(::getpid()) + ")"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(out / "sweep.json"));
    EXPECT_FALSE(fs::exists(out / "runs"));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
