// scripts/get_corpus.sh writes data/corpora/kjv.txt readable by everyone (0644) whatever the umask: it
// wrote it 0600 (mktemp's mode), so another user or an MPI rank under another account could not read the
// corpus. Run on a copy of the script in a scratch checkout, so the real data/ is not touched.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

fs::perms mode_of(const fs::path& file) { return fs::status(file).permissions() & fs::perms::mask; }

TEST(GetCorpusScript, WritesTheCorpusWorldReadableWhateverTheUmask) {
  // The script installs Debian's bible-kjv-text when it is missing; tests do not reach the network.
  if (testing::run_command("command -v bible >/dev/null && dpkg-query -W bible-kjv-text >/dev/null 2>&1").exit_code !=
      0)
    GTEST_SKIP() << "needs the bible-kjv and bible-kjv-text packages (scripts/get_corpus.sh installs them)";
  const fs::path checkout = testing::fresh_test_dir();
  fs::create_directories(checkout / "scripts");
  fs::copy_file(fs::path(SINKLAB_SOURCE_DIR) / "scripts" / "get_corpus.sh", checkout / "scripts" / "get_corpus.sh");
  const fs::path corpus = checkout / "data" / "corpora" / "kjv.txt";
  const std::string run = "cd '" + checkout.string() + "' && umask 077 && bash scripts/get_corpus.sh 2>&1";
  const testing::CliResult wrote = testing::run_command(run);
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  EXPECT_EQ(mode_of(corpus), fs::perms(0644)) << wrote.output;
  // A corpus an earlier version left 0600 is made readable on the next run, which keeps its bytes.
  fs::permissions(corpus, fs::perms(0600));
  const testing::CliResult kept = testing::run_command(run);
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_EQ(mode_of(corpus), fs::perms(0644));
  EXPECT_EQ(kept.output, "") << "the file was already right: kept, not rewritten";
}

}  // namespace
}  // namespace sinklab
