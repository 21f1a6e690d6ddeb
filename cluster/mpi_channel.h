#pragma once
// The messages of `compare --mpi` between rank 0 (the coordinator) and the worker ranks, over
// MPI_COMM_WORLD. Every message is a byte string (JSON text or a packed run folder) sent as a size
// header followed by chunks of at most 1 GiB, so a run folder of any size fits MPI's int counts.
#include <optional>
#include <string>

namespace sinklab::cluster {

enum class Tag : int {
  ready = 1,   // worker -> 0: idle, send me a run
  run = 2,     // 0 -> worker: JSON of one run to train
  stop = 3,    // 0 -> worker: no more runs, or the sweep was interrupted: stop now
  result = 4,  // worker -> 0: JSON of how the run ended
  folder = 5,  // worker -> 0 (without a shared filesystem): the packed run folder, right after its result
};

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

// Blocking send. Returns false when MPI reports an error (the peer is gone).
bool send_message(int destination, Tag tag, const std::string& bytes);

// The next message from `source` (or any rank when source < 0) if one has arrived; receives it whole.
std::optional<Message> poll_message(int source = -1);

// Blocks until a message with `tag` arrives from `source` and returns its bytes.
std::string receive_message(int source, Tag tag);

}  // namespace sinklab::cluster
