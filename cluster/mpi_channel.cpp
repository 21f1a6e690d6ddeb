#include "cluster/mpi_channel.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace sinklab::cluster {
namespace {

constexpr int kChunkTag = 99;  // the body of a message follows its header under this tag
constexpr std::uint64_t kChunkBytes = std::uint64_t{1} << 30;

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string("MPI ") + what + " failed: " + std::string(text, length));
  }
}

std::string receive_body(int source, std::uint64_t size) {
  std::string bytes(size, '\0');
  for (std::uint64_t at = 0; at < size;) {
    const int count = static_cast<int>(std::min(kChunkBytes, size - at));
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

MpiSession::~MpiSession() { MPI_Finalize(); }

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

std::optional<Message> poll_message(int source) {
  const int from = source < 0 ? MPI_ANY_SOURCE : source;
  // Only headers are probed: a body chunk is received right after its header, never found here.
  for (const Tag tag : {Tag::stop, Tag::result, Tag::ready, Tag::run}) {
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

std::string receive_message(int source, Tag tag) {
  std::uint64_t size = 0;
  check(MPI_Recv(&size, 1, MPI_UINT64_T, source, static_cast<int>(tag), MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "receive");
  return receive_body(source, size);
}

}  // namespace sinklab::cluster
