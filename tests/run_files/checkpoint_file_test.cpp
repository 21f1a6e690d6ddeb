// Checkpoint format 4 (run_files/checkpoint_file.h) on hand-made parameter stores: parameters and moments
// round-trip by name bit for bit whatever the declaration order; missing, unexpected and reshaped
// parameters are named; weights need the model hash only, a resume both; every truncation and every
// flipped byte is a CheckpointError that leaves the store alone; format 2 and non-files are refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "run_files/checkpoint_file.h"
#include "tests/support/awkward_floats.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using Declarations = std::vector<std::pair<std::string, Shape>>;

const Declarations kModel = {
    {"blocks.0.attn.w_q.weight", Shape{16, 16}},
    {"blocks.0.attn.w_q.bias", Shape{16}},
    {"output_head.weight", Shape{3, 16}},
    {"pos_embedding.weight", Shape{5, 2, 3}},
};

ParameterStore store_of(const Declarations& decls) {
  ParameterStore s;
  for (const auto& [name, shape] : decls) s.declare(name, shape);
  s.finalize();
  return s;
}

ParameterStore filled_model() {
  ParameterStore s = store_of(kModel);
  testing::fill_awkward_floats(s.values(), 1.0f);
  testing::fill_awkward_floats(s.moment(0), 2.0f);
  testing::fill_awkward_floats(s.moment(1), 3.0f);
  return s;
}

std::vector<uint32_t> bits_of(std::span<const float> v) {
  std::vector<uint32_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size_bytes());
  return out;
}

std::vector<uint32_t> bits_of(ParameterStore& s, const std::string& name, int moment = -1) {
  const ParameterInfo& p = s.parameters()[static_cast<size_t>(s.id_of(name))];
  const std::span<const float> block =
      moment < 0 ? std::span<const float>(s.values()) : std::span<const float>(s.moment(moment));
  return bits_of(block.subspan(p.offset, static_cast<size_t>(p.shape.numel())));
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class CheckpointFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_checkpoint_file_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << bytes;
    return dir_ / name;
  }
  // The CheckpointError's message, or "" when reading succeeded.
  static std::string error_of(const fs::path& p, const CheckpointHashes& h, CheckpointUse use, ParameterStore& s) {
    try {
      read_checkpoint_file(p, h, use, s);
      return "";
    } catch (const CheckpointError& e) {
      return e.what();
    }
  }

  const CheckpointHashes hashes_{0x1111, 0x2222};
  fs::path dir_;
};

TEST_F(CheckpointFile, RoundTripByNameIsBitIdenticalWhateverTheDeclarationOrder) {
  ParameterStore saved = filled_model();
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "state bytes");
  // Reversed declaration order: every parameter lands at another offset of the flat block.
  Declarations reversed(kModel.rbegin(), kModel.rend());
  ParameterStore resumed = store_of(reversed);
  EXPECT_EQ(read_checkpoint_file(dir_ / "c.bin", hashes_, CheckpointUse::resume, resumed), "state bytes");
  ASSERT_EQ(resumed.moment_count(), 2);
  for (const auto& [name, shape] : kModel)
    for (int m = -1; m < 2; ++m)
      EXPECT_EQ(bits_of(resumed, name, m), bits_of(saved, name, m)) << name << " moment " << m;

  // Weights only: the values, and no moments.
  ParameterStore weights = store_of(reversed);
  read_checkpoint_file(dir_ / "c.bin", hashes_, CheckpointUse::weights, weights);
  EXPECT_EQ(weights.moment_count(), 0);
  for (const auto& [name, shape] : kModel) EXPECT_EQ(bits_of(weights, name), bits_of(saved, name)) << name;

  // Writing what was read gives the same file, byte for byte.
  ParameterStore same = store_of(kModel);
  read_checkpoint_file(dir_ / "c.bin", hashes_, CheckpointUse::resume, same);
  write_checkpoint_file(dir_ / "again.bin", hashes_, same, "state bytes");
  EXPECT_TRUE(slurp(dir_ / "c.bin") == slurp(dir_ / "again.bin"));
}

TEST_F(CheckpointFile, AStoreWithoutMomentsRoundTripsWithoutThem) {
  ParameterStore saved = store_of(kModel);
  testing::fill_awkward_floats(saved.values(), 4.0f);
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "");
  ParameterStore resumed = store_of(kModel);
  EXPECT_EQ(read_checkpoint_file(dir_ / "c.bin", hashes_, CheckpointUse::resume, resumed), "");
  EXPECT_EQ(resumed.moment_count(), 0);
  for (const auto& [name, shape] : kModel) EXPECT_EQ(bits_of(resumed, name), bits_of(saved, name)) << name;
}

TEST_F(CheckpointFile, MissingUnexpectedAndReshapedParametersAreNamed) {
  ParameterStore saved = filled_model();
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "");

  Declarations reshaped = kModel;
  reshaped[0].second = Shape{32, 16};
  ParameterStore wider = store_of(reshaped);
  const std::string shape_error = error_of(dir_ / "c.bin", hashes_, CheckpointUse::weights, wider);
  EXPECT_NE(shape_error.find("checkpoint " + (dir_ / "c.bin").string() + ": "), std::string::npos) << shape_error;
  EXPECT_NE(shape_error.find("parameter blocks.0.attn.w_q.weight: checkpoint has shape [16, 16], the model [32, 16]"),
            std::string::npos)
      << shape_error;

  Declarations renamed = kModel;
  renamed[2].first = "head.weight";
  ParameterStore other = store_of(renamed);
  const std::string name_error = error_of(dir_ / "c.bin", hashes_, CheckpointUse::resume, other);
  EXPECT_NE(name_error.find("parameter head.weight: the model has it, the checkpoint does not"), std::string::npos)
      << name_error;
  EXPECT_NE(name_error.find("parameter output_head.weight: the checkpoint has it, the model does not"),
            std::string::npos)
      << name_error;

  Declarations fewer(kModel.begin(), kModel.end() - 1);
  ParameterStore smaller = store_of(fewer);
  EXPECT_NE(error_of(dir_ / "c.bin", hashes_, CheckpointUse::weights, smaller)
                .find("parameter pos_embedding.weight: the checkpoint has it, the model does not"),
            std::string::npos);
  // Nothing was copied into the stores that did not fit.
  for (float v : other.values()) EXPECT_EQ(v, 0.0f);
}

TEST_F(CheckpointFile, WeightsNeedTheModelHashAResumeBoth) {
  ParameterStore saved = filled_model();
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "");
  ParameterStore s = store_of(kModel);
  const CheckpointHashes other_config{hashes_.model, hashes_.config + 1};
  EXPECT_EQ(error_of(dir_ / "c.bin", other_config, CheckpointUse::weights, s), "");
  EXPECT_NE(error_of(dir_ / "c.bin", other_config, CheckpointUse::resume, s).find("written for a different config"),
            std::string::npos);
  const CheckpointHashes other_model{hashes_.model + 1, hashes_.config};
  for (const CheckpointUse use : {CheckpointUse::weights, CheckpointUse::resume})
    EXPECT_NE(error_of(dir_ / "c.bin", other_model, use, s).find("written for a different model"), std::string::npos);
}

TEST_F(CheckpointFile, EveryTruncationAndEveryFlippedByteIsACheckpointErrorAndChangesNothing) {
  ParameterStore saved = store_of({{"a", Shape{3}}, {"b.weight", Shape{2, 2}}});
  testing::fill_awkward_floats(saved.values(), 1.0f);
  testing::fill_awkward_floats(saved.moment(0), 2.0f);
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "xyz");
  const std::string bytes = slurp(dir_ / "c.bin");
  ParameterStore target = store_of({{"a", Shape{3}}, {"b.weight", Shape{2, 2}}});
  const auto untouched = bits_of(target.values());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string e = error_of(write("short.bin", bytes.substr(0, n)), hashes_, CheckpointUse::resume, target);
    EXPECT_NE(e.find("checkpoint " + (dir_ / "short.bin").string() + ": "), std::string::npos) << n << " bytes: " << e;
  }
  EXPECT_NE(error_of(write("short.bin", bytes.substr(0, bytes.size() - 7)), hashes_, CheckpointUse::resume, target)
                .find("truncated"),
            std::string::npos);
  EXPECT_NE(error_of(write("long.bin", bytes + "x"), hashes_, CheckpointUse::resume, target).find("padded"),
            std::string::npos);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x10);
    EXPECT_NE(error_of(write("flipped.bin", flipped), hashes_, CheckpointUse::resume, target), "") << "byte " << i;
  }
  EXPECT_EQ(bits_of(target.values()), untouched);
  EXPECT_EQ(target.moment_count(), 0);
  // A flipped data byte is reported as corruption, as is a flipped hash (the table checksum covers it).
  std::string data_flip = bytes, hash_flip = bytes;
  data_flip[bytes.size() - 5] ^= 0x01;
  hash_flip[14] ^= 0x01;
  EXPECT_NE(error_of(write("d.bin", data_flip), hashes_, CheckpointUse::resume, target).find("checksum mismatch"),
            std::string::npos);
  EXPECT_NE(error_of(write("h.bin", hash_flip), hashes_, CheckpointUse::resume, target).find("checksum mismatch"),
            std::string::npos);
}

TEST_F(CheckpointFile, FormatTwoAndOtherFilesAreRefusedWithTheReason) {
  ParameterStore s = store_of(kModel);
  // Format 2's header: magic, u32 version 2, u64 config hash, u64 payload bytes, u64 checksum.
  std::string v2 = "SINKCKPT";
  const uint32_t two = 2;
  v2.append(reinterpret_cast<const char*>(&two), sizeof two);
  v2.append(200, '\0');
  EXPECT_NE(error_of(write("v2.bin", v2), hashes_, CheckpointUse::weights, s)
                .find("format 2, written by an older sinklab; rerun the training"),
            std::string::npos);
  std::string v9 = v2;
  v9[8] = 9;
  EXPECT_NE(error_of(write("v9.bin", v9), hashes_, CheckpointUse::weights, s)
                .find("format 9, this build reads format 3 or 4"),
            std::string::npos);
  v9[8] = 0;
  EXPECT_NE(error_of(write("v0.bin", v9), hashes_, CheckpointUse::weights, s)
                .find("format 0, this build reads format 3 or 4"),
            std::string::npos);
  EXPECT_NE(error_of(write("text.bin", "hello, not a checkpoint at all"), hashes_, CheckpointUse::weights, s)
                .find("bad magic"),
            std::string::npos);
  EXPECT_NE(error_of(write("empty.bin", ""), hashes_, CheckpointUse::weights, s).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(dir_ / "missing.bin", hashes_, CheckpointUse::weights, s).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of(dir_, hashes_, CheckpointUse::weights, s).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of("/dev/zero", hashes_, CheckpointUse::weights, s).find("is not a regular file"), std::string::npos);
}

TEST_F(CheckpointFile, AHeaderAnnouncingAHugeTableIsRefusedBeforeReadingIt) {
  ParameterStore saved = filled_model();
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "");
  std::string bytes = slurp(dir_ / "c.bin");
  const uint64_t huge = uint64_t{1} << 40;
  std::memcpy(bytes.data() + 28, &huge, sizeof huge);  // the table's size
  ParameterStore s = store_of(kModel);
  EXPECT_NE(
      error_of(write("huge.bin", bytes), hashes_, CheckpointUse::weights, s).find("more than this model can need"),
      std::string::npos);
}

// checkpoint_damage judges a file without a model: intact files of any model pass, every truncation and
// every flipped byte (a hash too: the table checksum covers it) is named with the file.
TEST_F(CheckpointFile, DamageIsFoundWithoutAModelInEveryTruncationAndFlippedByte) {
  ParameterStore saved = filled_model();
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "state");
  EXPECT_EQ(checkpoint_damage(dir_ / "c.bin"), "");
  ParameterStore bare = store_of({{"x", Shape{1}}});
  write_checkpoint_file(dir_ / "bare.bin", {}, bare, "");
  EXPECT_EQ(checkpoint_damage(dir_ / "bare.bin"), "");
  const std::string bytes = slurp(dir_ / "c.bin");
  for (size_t n = 0; n < bytes.size(); n += 7)
    EXPECT_NE(checkpoint_damage(write("short.bin", bytes.substr(0, n)))
                  .find("checkpoint " + (dir_ / "short.bin").string() + ": "),
              std::string::npos)
        << n << " bytes";
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x04);
    EXPECT_NE(checkpoint_damage(write("flipped.bin", flipped)), "") << "byte " << i;
  }
  std::string data_flip = bytes;
  data_flip[bytes.size() - 2] ^= 0x01;
  EXPECT_NE(checkpoint_damage(write("d.bin", data_flip)).find("checksum mismatch (corrupt file)"), std::string::npos);
  EXPECT_NE(checkpoint_damage(dir_ / "missing.bin").find("cannot open"), std::string::npos);
  EXPECT_NE(checkpoint_damage(dir_).find("is a directory"), std::string::npos);
}

// A FIFO planted as the checkpoint is refused at once by every reader (opening one for reading would
// wait for a writer forever), and a sparse 12 GB file whose header announces a 12 GB table is refused
// before anything of that size is allocated.
TEST_F(CheckpointFile, AFifoOrAHugeSparseFileIsRefusedWithoutWaitingOrAllocating) {
  const fs::path fifo = dir_ / "fifo.bin";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto refused_at_once = [&](auto read) {
    auto reading = std::async(std::launch::async, read);
    if (reading.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      std::ofstream unblock(fifo);  // let the blocked reader finish so the test can end
      ADD_FAILURE() << "blocked on the FIFO";
      return std::string();
    }
    return reading.get();
  };
  const auto message = [](auto f) {
    try {
      f();
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ParameterStore s = store_of(kModel);
  const std::string expected = "checkpoint " + fifo.string() + ": is not a regular file";
  EXPECT_NE(refused_at_once([&] { return error_of(fifo, hashes_, CheckpointUse::weights, s); }).find(expected),
            std::string::npos);
  EXPECT_NE(refused_at_once([&] { return message([&] { read_checkpoint_training_state(fifo); }); }).find(expected),
            std::string::npos);
  EXPECT_NE(refused_at_once([&] { return checkpoint_damage(fifo); }).find(expected), std::string::npos);

  ParameterStore saved = filled_model();
  write_checkpoint_file(dir_ / "c.bin", hashes_, saved, "state");
  std::string header = slurp(dir_ / "c.bin").substr(0, 60);
  const uint64_t size = uint64_t{12} << 30, table = size - 60, data = 0;
  std::memcpy(header.data() + 28, &table, sizeof table);
  std::memcpy(header.data() + 36, &data, sizeof data);
  const fs::path sparse = write("sparse.bin", header);
  fs::resize_file(sparse, size);  // a hole: no disk used
  EXPECT_NE(message([&] { read_checkpoint_training_state(sparse); }).find("more than this model can need"),
            std::string::npos);
  EXPECT_NE(checkpoint_damage(sparse).find("more than this model can need"), std::string::npos);
}

}  // namespace
}  // namespace sinklab
