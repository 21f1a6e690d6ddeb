#include "cluster/mpi_channel.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>
#include <stdexcept>
#include <thread>

namespace sinklab::cluster {
namespace {

bool finalize_at_exit = true;  // false once a rank was lost (leave_without_finalize)
constexpr int kChunkTag = 99;  // the body of a message follows its header under this tag
constexpr std::uint64_t kChunkBytes = std::uint64_t{1} << 30;
constexpr int kBodyWaitMilliseconds = 60'000;  // a chunk's envelope arrives at once, even over a slow network

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string("MPI ") + what + " failed: " + std::string(text, length));
  }
}

// True once a message with `tag` from `source` has arrived; false after `limit_ms` without one.
bool wait_for(int source, int tag, int limit_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  for (;;) {
    int arrived = 0;
    check(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE), "probe");
    if (arrived) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// A sender sends a body right after its header: one that does not come died mid-message. Waiting in
// MPI_Recv would wait for it forever (a launcher in recovery mode keeps the job going).
std::string receive_body(int source, std::uint64_t size) {
  std::string bytes(size, '\0');
  for (std::uint64_t at = 0; at < size;) {
    const int count = static_cast<int>(std::min(kChunkBytes, size - at));
    if (!wait_for(source, kChunkTag, kBodyWaitMilliseconds)) throw PeerSilent(source);
    check(MPI_Recv(bytes.data() + at, count, MPI_BYTE, source, kChunkTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "receive");
    at += static_cast<std::uint64_t>(count);
  }
  return bytes;
}

}  // namespace

MpiSession::MpiSession() {
  check(MPI_Init(nullptr, nullptr), "init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

void leave_without_finalize() { finalize_at_exit = false; }

MpiSession::~MpiSession() {
  if (finalize_at_exit) MPI_Finalize();
}

bool send_message(int destination, Tag tag, const std::string& bytes) {
  std::uint64_t size = bytes.size();
  if (MPI_Send(&size, 1, MPI_UINT64_T, destination, static_cast<int>(tag), MPI_COMM_WORLD) != MPI_SUCCESS)
    return false;
  for (std::uint64_t at = 0; at < size;) {
    const int count = static_cast<int>(std::min(kChunkBytes, size - at));
    if (MPI_Send(bytes.data() + at, count, MPI_BYTE, destination, kChunkTag, MPI_COMM_WORLD) != MPI_SUCCESS)
      return false;
    at += static_cast<std::uint64_t>(count);
  }
  return true;
}

bool send_message_within(int destination, Tag tag, const std::string& bytes, int limit_ms) {
  // MPI reads the buffers until the requests complete: on a timeout they are left to it, not freed.
  struct Outgoing {
    std::uint64_t size = 0;
    std::string bytes;
    std::vector<MPI_Request> requests;
  };
  auto out = std::make_unique<Outgoing>();
  out->size = bytes.size();
  out->bytes = bytes;
  out->requests.emplace_back();
  if (MPI_Isend(&out->size, 1, MPI_UINT64_T, destination, static_cast<int>(tag), MPI_COMM_WORLD,
                &out->requests.back()) != MPI_SUCCESS)
    return false;
  for (std::uint64_t at = 0; at < out->size;) {
    const int count = static_cast<int>(std::min(kChunkBytes, out->size - at));
    out->requests.emplace_back();
    if (MPI_Isend(out->bytes.data() + at, count, MPI_BYTE, destination, kChunkTag, MPI_COMM_WORLD,
                  &out->requests.back()) != MPI_SUCCESS) {
      out.release();
      return false;
    }
    at += static_cast<std::uint64_t>(count);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  for (;;) {
    int done = 0;
    if (MPI_Testall(static_cast<int>(out->requests.size()), out->requests.data(), &done, MPI_STATUSES_IGNORE) !=
        MPI_SUCCESS) {
      out.release();
      return false;
    }
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (MPI_Request& request : out->requests)
    if (request != MPI_REQUEST_NULL) {
      MPI_Cancel(&request);
      MPI_Request_free(&request);
    }
  out.release();  // a dead peer's transport may still hold the buffers
  return false;
}

std::optional<Message> poll_message(int source) {
  const int from = source < 0 ? MPI_ANY_SOURCE : source;
  // Only headers are probed: a body chunk is received right after its header, never found here.
  for (const Tag tag : {Tag::stop, Tag::result, Tag::ready, Tag::run, Tag::alive, Tag::train_config}) {
    int arrived = 0;
    MPI_Status status;
    check(MPI_Iprobe(from, static_cast<int>(tag), MPI_COMM_WORLD, &arrived, &status), "probe");
    if (!arrived) continue;
    std::uint64_t size = 0;
    check(MPI_Recv(&size, 1, MPI_UINT64_T, status.MPI_SOURCE, static_cast<int>(tag), MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "receive");
    return Message{status.MPI_SOURCE, tag, receive_body(status.MPI_SOURCE, size)};
  }
  return std::nullopt;
}

std::optional<std::string> receive_message(int source, Tag tag, int limit_ms) {
  if (!wait_for(source, static_cast<int>(tag), limit_ms)) return std::nullopt;
  std::uint64_t size = 0;
  check(MPI_Recv(&size, 1, MPI_UINT64_T, source, static_cast<int>(tag), MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "receive");
  return receive_body(source, size);
}

}  // namespace sinklab::cluster
