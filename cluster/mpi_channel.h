#pragma once
// The messages of `compare --mpi` (and the set-up of `train --mpi`) between rank 0 and the other ranks, over
// MPI_COMM_WORLD. Every message is a byte string (JSON text or a packed run folder) sent as a size
// header followed by chunks of at most 1 GiB, so a run folder of any size fits MPI's int counts.
#include <optional>
#include <stdexcept>
#include <string>

namespace sinklab::cluster {

enum class Tag : int {
  ready = 1,   // worker -> 0: idle, send me a run
  run = 2,     // 0 -> worker: JSON of one run to train
  stop = 3,    // 0 -> worker: no more runs, or the sweep was interrupted: stop now
  result = 4,  // worker -> 0: JSON of how the run ended
  folder = 5,  // worker -> 0 (without a shared filesystem): the packed run folder, right after its result
  alive = 6,   // worker -> 0, every kAliveEvery while it lives: rank 0 gives up on a silent rank
  // `train --mpi` (cluster/mpi_train.h): 0 -> every other rank, once, before the first step.
  train_config = 7,      // the run's resolved config.yaml
  train_checkpoint = 8,  // right after it: the checkpoint to resume from (empty: a fresh run)
};

// How often a worker says it is alive. Rank 0 waits `--worker-timeout` seconds of silence (a dead
// rank, under a launcher that does not end the job, never answers) before giving its run to another.
inline constexpr int kAliveEveryMilliseconds = 1000;

// A `stop` message with this body: a rank was lost, so MPI_Finalize (which waits for every rank)
// must be skipped; see leave_without_finalize.
inline constexpr const char* kStopPeerLost = "peer lost";

struct Message {
  int source = 0;
  Tag tag = Tag::ready;
  std::string bytes;
};

// MPI_Init / MPI_Finalize for the lifetime of the object; errors are returned, not fatal, so a send to
// a rank that died does not abort the ranks that are stopping cleanly.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// A rank that sent a message's header but not its body: it died in the middle of sending.
class PeerSilent : public std::runtime_error {
 public:
  explicit PeerSilent(int rank)
      : std::runtime_error("rank " + std::to_string(rank) + " died in the middle of a message"), rank_(rank) {}
  int rank() const { return rank_; }

 private:
  int rank_;
};

// After a rank was lost, MpiSession's destructor skips MPI_Finalize, which would wait for it forever.
void leave_without_finalize();

// Blocking send. Returns false when MPI reports an error (the peer is gone).
bool send_message(int destination, Tag tag, const std::string& bytes);

// The same, giving up after `limit_ms`: a blocking send to a rank that died can wait forever (Open
// MPI's shared-memory transport spins on it). Rank 0 sends this way; false = not delivered in time.
bool send_message_within(int destination, Tag tag, const std::string& bytes, int limit_ms);

// How long rank 0 waits for a worker to take a message (workers poll every 20 ms).
inline constexpr int kRankZeroSendMilliseconds = 10'000;

// The next message from `source` (or any rank when source < 0) if one has arrived; receives it whole.
// Throws PeerSilent when its sender stops in the middle of it.
std::optional<Message> poll_message(int source = -1);

// Waits up to `limit_ms` for a message with `tag` from `source` and returns its bytes, or nothing.
std::optional<std::string> receive_message(int source, Tag tag, int limit_ms);

}  // namespace sinklab::cluster
