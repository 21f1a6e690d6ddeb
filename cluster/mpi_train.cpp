#include "cluster/mpi_train.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "cluster/mpi_channel.h"
#include "cluster/mpi_shard_exchange.h"
#include "config_loading/config_loader.h"
#include "config_loading/config_writer.h"
#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "train/interrupt.h"
#include "train/trainer.h"

namespace sinklab::cluster {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxCheckpointBytes = uint64_t{1} << 40;

std::string resume_command(const std::string& program, const fs::path& dir) {
  return suggested_command(program, {"train", "--resume", dir.string(), "--mpi"});
}

TrainedRun lead(TrainRequest request, MpiShardExchange& exchange) {
  const int ranks = exchange.ranks();
  bool handed = false;
  fs::path dir;
  request.exchange = &exchange;
  request.before_training = [&](const RunConfig& config, const fs::path& run_dir, const fs::path& checkpoint) {
    dir = run_dir;
    exchange.set_signal_notice("sinklab: stop signal while waiting for another rank's gradient; if the job ends before "
                               "the run stops at a checkpoint, continue from its last one with `mpirun -np " +
                               std::to_string(ranks) + " " + resume_command(request.program, dir) + "`");
    if (config.train.batch_shards % ranks != 0)
      throw std::invalid_argument("train --mpi: train.batch_shards is " + std::to_string(config.train.batch_shards) +
                                  ", not a multiple of the " + std::to_string(ranks) +
                                  " ranks: every rank computes the same number of shards (--set train.batch_shards=" +
                                  std::to_string(ranks) + ", or a multiple of it that divides train.batch_size " +
                                  std::to_string(config.train.batch_size) + ")");
    const std::string yaml = to_yaml(config);
    const std::string bytes =
        checkpoint.empty() ? std::string() : read_regular_file(checkpoint, kMaxCheckpointBytes, "checkpoint");
    for (int r = 1; r < ranks; ++r)
      if (!send_message_within(r, Tag::train_config, yaml, kRankZeroSendMilliseconds) ||
          !send_message_within(r, Tag::train_checkpoint, bytes, kRankZeroSendMilliseconds))
        throw RankLost("rank " + std::to_string(r) + " did not take the run's config");
    handed = true;
  };
  try {
    TrainedRun run = train_in_folder(request);
    if (!handed)  // --skip-finished found it done: the other ranks wait for a config, tell them there is none
      for (int r = 1; r < ranks; ++r) send_message_within(r, Tag::stop, "", kRankZeroSendMilliseconds);
    return run;
  } catch (const RankLost& e) {
    leave_without_finalize();
    throw RankLost(std::string(e.what()) + "; the run keeps its last checkpoint: continue with `mpirun -np " +
                   std::to_string(ranks) + " " + resume_command(request.program, dir) + "`");
  } catch (...) {
    if (!handed)  // the other ranks wait for a config: tell them there is none
      for (int r = 1; r < ranks; ++r) send_message_within(r, Tag::stop, "", kRankZeroSendMilliseconds);
    throw;
  }
}

// A worker rank: the config and checkpoint from rank 0, then its shards of every step.
void follow(MpiShardExchange& exchange) {
  std::string yaml;
  for (;;) {  // rank 0 may take a while to check the config (a corpus to read); if it dies, mpirun ends this rank
    const std::optional<Message> m = poll_message(0);
    if (m && m->tag == Tag::stop) return;
    if (m && m->tag == Tag::train_config) {
      yaml = m->bytes;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::optional<std::string> checkpoint = receive_message(0, Tag::train_checkpoint, 60'000);
  if (!checkpoint) throw RankLost("rank 0 sent the run's config but not its checkpoint");
  const RunConfig config = parse_run_config(yaml, "config.yaml from rank 0", {}, registered_vocabulary(), std::nullopt);
  Trainer trainer(config);
  if (!checkpoint->empty()) {  // loaded from a file of this rank's own (rank 0's folder may be on another machine)
    const fs::path file = fs::temp_directory_path() / ("sinklab-rank" + std::to_string(exchange.rank()) + "-" +
                                                       std::to_string(::getpid()) + ".checkpoint");
    write_file_atomically(file, *checkpoint);
    try {
      trainer.resume(file);
    } catch (...) {
      fs::remove(file);
      throw;
    }
    fs::remove(file);
  }
  const InterruptScope interrupts;
  TrainOptions options;
  options.quiet = true;
  options.exchange = &exchange;
  try {
    trainer.run(options);
  } catch (const RankLost&) {
    leave_without_finalize();
    throw;
  }
}

}  // namespace

std::optional<TrainedRun> train_on_ranks(TrainRequest request, int rank, int ranks, int peer_timeout_seconds) {
  MpiShardExchange exchange(rank, ranks, peer_timeout_seconds);
  if (rank == 0) return lead(std::move(request), exchange);
  follow(exchange);
  return std::nullopt;
}

}  // namespace sinklab::cluster
