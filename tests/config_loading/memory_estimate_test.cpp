// The memory estimate of a run and the refusal of a config that cannot fit, before anything is built.
#include "config_loading/memory_estimate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/config_loading/config_test_util.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::parse;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

TEST(MemoryEstimate, APaperRunIsSmall) {
  const RunConfig c = load_run_config(std::filesystem::path(SINKLAB_SOURCE_DIR) / "configs/paper/4x4_softmax.yaml", {},
                                      testing::test_vocab());
  const MemoryEstimate m = estimate_memory(c);
  EXPECT_GT(m.total(), 1 * kMiB);
  EXPECT_LT(m.total(), 256 * kMiB);
  EXPECT_GT(m.parameters, 0);
  EXPECT_GT(m.activations, 0);
  EXPECT_GT(m.eval_set, 0);
  EXPECT_GT(m.attention_maps, 0);
}

TEST(MemoryEstimate, EachPartGrowsWithItsKeys) {
  const RunConfig base = parse("seed: 1\n");
  const MemoryEstimate m = estimate_memory(base);
  EXPECT_GT(estimate_memory(parse("seed: 1\n", {"train.batch_size=1024"})).activations, m.activations);
  EXPECT_GT(estimate_memory(parse("seed: 1\n", {"task.seq_len=64"})).activations, m.activations);
  EXPECT_GT(estimate_memory(parse("seed: 1\n", {"model.mlp_hidden=64"})).activations, m.activations);
  EXPECT_GT(estimate_memory(parse("seed: 1\n", {"task.eval_samples=5000"})).eval_set, m.eval_set);
  const RunConfig wide =
      parse("seed: 1\n", {"model.d_model=64", "model.input_projection=true", "model.output_head=true"});
  EXPECT_GT(estimate_memory(wide).parameters, m.parameters);
  EXPECT_GT(estimate_memory(parse("seed: 1\n", {"model.heads=4"})).attention_maps, m.attention_maps);
}

TEST(MemoryEstimate, AttentionMapsStopGrowingAtTheirGrid) {
  const auto maps = [](int T) {
    return estimate_memory(parse("seed: 1\n", {"task.seq_len=" + std::to_string(T)})).attention_maps;
  };
  EXPECT_LT(maps(128), maps(256));
  EXPECT_DOUBLE_EQ(maps(256), 256.0 * 256 * 20);  // 1 layer x 1 head: two doubles and a float per cell
  EXPECT_DOUBLE_EQ(maps(1024), maps(256));         // every 4th position: still 256 x 256
  EXPECT_DOUBLE_EQ(maps(2048), maps(256));
  EXPECT_LT(maps(257), maps(256));                 // every 2nd: 129 x 129
}

TEST(MemoryEstimate, TheLargestAllowedValuesDoNotOverflow) {
  RunConfig c;
  c.model.d_model = 65536;
  c.model.layers = 1024;
  c.model.heads = 1024;
  c.model.mlp_hidden = 1 << 20;
  c.task.seq_len = 65536;
  c.task.options.set("dim", int64_t{65536});
  c.task.eval_samples = 10000000;
  c.train.batch_size = 1 << 20;
  const double total = estimate_memory(c).total();
  EXPECT_TRUE(std::isfinite(total));
  EXPECT_GT(total, 1e22);  // layers * heads * batch * T^2 alone is 4.7e21 floats
}

TEST(MemoryEstimate, AConfigAboveTheAvailableMemoryIsRefusedNamingItsKeys) {
  try {
    parse_run_config("seed: 1\n", "configs/x.yaml", {"train.batch_size=1000000"}, testing::test_vocab(), 8 * kGiB);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.source(), "--set train.batch_size=1000000");
    EXPECT_EQ(e.key(), "train.batch_size");
    EXPECT_TRUE(contains(e.detail(), "estimated memory ")) << e.what();
    EXPECT_TRUE(contains(e.detail(), " exceeds the 8.0 GiB available")) << e.what();
    EXPECT_TRUE(contains(e.detail(), "train.batch_size=1000000, task.seq_len=16")) << e.what();
  }
  // The same config fits a larger machine, and is not checked when the available memory is unknown.
  EXPECT_EQ(parse_run_config("seed: 1\n", "x.yaml", {"train.batch_size=1000000"}, testing::test_vocab(), 1e6 * kGiB)
                .train.batch_size,
            1000000);
  EXPECT_EQ(parse_run_config("seed: 1\n", "x.yaml", {"train.batch_size=1000000"}, testing::test_vocab(), std::nullopt)
                .train.batch_size,
            1000000);
}

TEST(MemoryEstimate, ALargeEvaluationSetNamesItsKeysAtTheirLine) {
  try {
    parse_run_config("seed: 1\ntask:\n  eval_samples: 9000000\n  seq_len: 4000\n", "configs/x.yaml", {},
                     testing::test_vocab(), 8 * kGiB);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.key(), "task.eval_samples");
    EXPECT_TRUE(contains(e.detail(), "task.eval_samples=9000000, task.seq_len=4000, task.dim=16")) << e.what();
  }
}

// The evaluation set runs at task.eval_seq_len: a long one is counted (its forward chunk, its inputs,
// its attention maps) and refused by name, like task.seq_len.
TEST(MemoryEstimate, TheEvaluationLengthIsCountedAndNamed) {
  const RunConfig base = parse("seed: 1\nmodel:\n  positional: none\n");
  const RunConfig longer = parse("seed: 1\nmodel:\n  positional: none\n", {"task.eval_seq_len=4096"});
  EXPECT_GT(estimate_memory(longer).activations, 10 * estimate_memory(base).activations);  // one eval chunk at T 4096
  EXPECT_GT(estimate_memory(longer).eval_set, 100 * estimate_memory(base).eval_set);
  EXPECT_GT(estimate_memory(longer).attention_maps, estimate_memory(base).attention_maps);
  try {
    parse_run_config("seed: 1\nmodel:\n  positional: none\n", "configs/x.yaml", {"task.eval_seq_len=65536"},
                     testing::test_vocab(), 8 * kGiB);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "task.eval_seq_len");
    EXPECT_TRUE(contains(e.detail(), "task.eval_seq_len=65536")) << e.what();
  }
}

// Attention snapshots are held in memory until the run ends (and thrice over while the file is written):
// snapshot_every 1 with snapshot_limit 0 (never thinned) over many steps is refused before training
// starts, naming the keys at the first the user wrote.
TEST(MemoryEstimate, SnapshotsAreCountedAndAnUnthinnedListIsRefusedByItsKeys) {
  const std::vector<std::string> every_step{"analysis.snapshot_every=1", "train.max_steps=1000000"};
  const RunConfig thinned = parse("seed: 1\n", every_step);
  EXPECT_EQ(snapshot_count(thinned), 101);  // at most snapshot_limit, and the final step's
  std::vector<std::string> never_thinned = every_step;
  never_thinned.push_back("analysis.snapshot_limit=0");
  const RunConfig unbounded = parse("seed: 1\n", never_thinned);
  EXPECT_EQ(snapshot_count(unbounded), 1000002);  // steps 0 .. 999999 and the final one
  EXPECT_EQ(snapshot_count(parse("seed: 1\n", {"analysis.snapshot_every=0"})), 0);
  EXPECT_EQ(estimate_memory(parse("seed: 1\n", {"analysis.snapshot_every=0"})).snapshots, 0);
  EXPECT_GT(estimate_memory(unbounded).snapshots, 9000 * estimate_memory(thinned).snapshots);
  EXPECT_GT(estimate_memory(unbounded).snapshots, 1000002.0 * 2 * 4 * 16 * 16);  // two float maps of T x T each
  EXPECT_GT(estimate_memory(parse("seed: 1\n", {"model.heads=4"})).snapshots,
            estimate_memory(parse("seed: 1\n")).snapshots);
  try {
    parse_run_config("seed: 1\ntrain:\n  max_steps: 100000000\nanalysis:\n  snapshot_every: 1\n  snapshot_limit: 0\n",
                     "configs/x.yaml", {}, testing::test_vocab(), 8 * kGiB);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "analysis.snapshot_limit");
    EXPECT_EQ(e.line(), 6);
    EXPECT_TRUE(contains(e.detail(), "analysis.snapshot_limit=0, analysis.snapshot_every=1, train.max_steps=100000000"))
        << e.what();
    EXPECT_TRUE(contains(e.detail(), "100000002 attention snapshots")) << e.what();
  }
  // The default thinning keeps the same run small.
  EXPECT_NO_THROW(parse_run_config("seed: 1\nanalysis:\n  snapshot_every: 1\n", "configs/x.yaml",
                                   {"train.max_steps=100000000"}, testing::test_vocab(), 8 * kGiB));
}

TEST(MemoryEstimate, TheLoaderChecksAgainstThisMachineByDefault) {
  const auto e = testing::parse_error("train:\n  batch_size: 1000000\ntask:\n  seq_len: 65536\n");
  EXPECT_EQ(e.key(), "train.batch_size");
  EXPECT_TRUE(contains(e.detail(), "estimated memory")) << e.what();
}

TEST(MemoryEstimate, AvailableMemoryIsMemAvailableOfMeminfo) {
  const auto file = sinklab::testing::test_file("meminfo");
  std::ofstream(file) << "MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:    2048 kB\n";
  EXPECT_EQ(available_memory(file), 2048.0 * 1024.0);
  std::ofstream(file) << "MemTotal:       24000000 kB\n";
  EXPECT_EQ(available_memory(file), std::nullopt);
  std::filesystem::remove(file);
  EXPECT_EQ(available_memory(file), std::nullopt);
  EXPECT_GT(available_memory().value_or(1.0), 0.0);
}

// A cgroup limit below MemAvailable is what a run may use: v2 (memory.max - memory.current) and v1's
// memory controller (limit_in_bytes - usage_in_bytes); "max" and v1's ~2^63 mean no limit.
TEST(MemoryEstimate, ACgroupLimitBelowMemAvailableIsTheAvailableMemory) {
  const auto root = std::filesystem::temp_directory_path() / ("sinklab_cgroup_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "job");
  std::filesystem::create_directories(root / "memory" / "v1job");
  const auto meminfo = root / "meminfo", self = root / "self";
  std::ofstream(meminfo) << "MemAvailable:    8388608 kB\n";  // 8 GiB
  std::ofstream(root / "job" / "memory.max") << "3221225472\n";  // 3 GiB
  std::ofstream(root / "job" / "memory.current") << "1073741824\n";  // 1 GiB used
  std::ofstream(self) << "0::/job\n";
  EXPECT_EQ(available_memory(meminfo, self, root), 2 * kGiB);
  std::ofstream(root / "job" / "memory.max") << "max\n";
  EXPECT_EQ(available_memory(meminfo, self, root), 8 * kGiB);
  std::ofstream(root / "memory" / "v1job" / "memory.limit_in_bytes") << "4294967296\n";
  std::ofstream(root / "memory" / "v1job" / "memory.usage_in_bytes") << "0\n";
  std::ofstream(self) << "5:memory:/v1job\n0::/job\n";
  EXPECT_EQ(available_memory(meminfo, self, root), 4 * kGiB);
  std::ofstream(root / "memory" / "v1job" / "memory.limit_in_bytes") << "9223372036854771712\n";
  EXPECT_EQ(cgroup_memory_headroom(self, root), std::nullopt);
  std::filesystem::remove_all(root);
}

TEST(MemoryEstimate, BytesAreShownInBinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(22.9 * kGiB), "22.9 GiB");
  EXPECT_EQ(format_bytes(812 * kGiB), "812 GiB");
  EXPECT_EQ(format_bytes(3.0 * 1024 * 1024 * kGiB), "3.0 PiB");
}

}  // namespace
}  // namespace sinklab
