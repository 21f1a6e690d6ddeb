#include "run_files/checkpoint_file.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include <xxhash.h>

#include "core/fnv1a.h"
#include "core/io/file_read.h"
#include "core/io/file_write.h"

namespace sinklab {
namespace {

// Floats are stored as they are in memory; the format is little-endian.
static_assert(std::endian::native == std::endian::little, "checkpoint formats 3 and 4 are little-endian");

constexpr char kMagic[8] = {'S', 'I', 'N', 'K', 'C', 'K', 'P', 'T'};
constexpr uint32_t kOldestFormat = 2;  // formats 1-2: one flat parameter block and one config hash
constexpr uint32_t kFnv1aDataFormat = 3;  // format 3: as 4, with an FNV-1a 64 data checksum (still read)
const std::string kFormatsRead = "format 3 or 4";
constexpr size_t kHeaderBytes = 60;
constexpr size_t kHashedHeaderBytes = 44;  // magic .. data bytes: what the table checksum covers
constexpr uint32_t kMaxNameBytes = 1024;
constexpr size_t kMaxProblemsListed = 8;

// The data checksum of a format, continued piece by piece: XXH3-64 (format 4), FNV-1a 64 (format 3; the
// byte-serial multiply ran at ~0.75 GB/s, seconds per GPT-2-size checkpoint).
class DataChecksum {
 public:
  explicit DataChecksum(uint32_t format) : fnv1a_(format == kFnv1aDataFormat) {
    if (fnv1a_) return;
    xxh3_.reset(XXH3_createState());
    if (!xxh3_ || XXH3_64bits_reset(xxh3_.get()) != XXH_OK) throw std::bad_alloc();
  }
  void add(std::string_view piece) {
    if (fnv1a_)
      fnv1a_sum_ = fnv1a(fnv1a_sum_, piece);
    else if (XXH3_64bits_update(xxh3_.get(), piece.data(), piece.size()) != XXH_OK)
      throw std::logic_error("checkpoint: XXH3_64bits_update failed");
  }
  uint64_t digest() const { return fnv1a_ ? fnv1a_sum_ : XXH3_64bits_digest(xxh3_.get()); }

 private:
  struct FreeState {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  bool fnv1a_;
  uint64_t fnv1a_sum_ = kFnv1aBasis;
  std::unique_ptr<XXH3_state_t, FreeState> xxh3_;
};


std::string moment_name(int k) { return "moment." + std::to_string(k); }

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void put_name(std::string& out, const std::string& name) {
  if (name.size() > kMaxNameBytes)
    throw std::logic_error("checkpoint: name longer than " + std::to_string(kMaxNameBytes) + " bytes: " + name);
  put(out, static_cast<uint32_t>(name.size()));
  out += name;
}

// Names from a file may hold any byte: messages show the unprintable ones as \xNN.
std::string printable(std::string_view s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Bounds-checked reads from a byte string; running off its end throws "<prefix>truncated".
class Cursor {
 public:
  Cursor(std::string_view bytes, std::string error_prefix) : bytes_(bytes), prefix_(std::move(error_prefix)) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof(T)).data(), sizeof(T));
    return v;
  }
  std::string_view take(size_t n) {
    if (n > bytes_.size() - pos_) throw CheckpointError(prefix_ + "truncated");
    const std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::string prefix_;
  size_t pos_ = 0;
};

// f()'s result, the file reader's refusals turned into the CheckpointError callers expect (they already
// name the file).
template <typename F>
auto converted(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const FileReadError& e) {
    throw CheckpointError(e.what());
  }
}

// A checkpoint read in pieces through core/io/file_read.h's ReadableFile (a FIFO, device or directory is
// refused without waiting): the header and table first, the data only once the table has matched the
// model. Every refusal is a CheckpointError "checkpoint <path>: ...".
class CheckpointInput {
 public:
  CheckpointInput(const std::filesystem::path& path, const std::string& name)
      : name_(name), file_(converted([&] {
          return std::make_unique<ReadableFile>(path, "checkpoint", ReadableFile::kNoSizeLimit);
        })) {}

  uint64_t size() const { return file_->size(); }
  // Bytes [offset, offset + n), which the caller has checked lie within size().
  std::string read(uint64_t offset, uint64_t n) const {
    return converted([&] { return file_->read(offset, n); });
  }
  // The same into `out`, which holds n bytes.
  void read_into(uint64_t offset, uint64_t n, char* out) const {
    converted([&] {
      file_->read_into(offset, n, out);
      return 0;
    });
  }
  // `format`'s data checksum of bytes [offset, offset + n), read in pieces: a checkpoint's data is never
  // held whole.
  uint64_t checksum(uint32_t format, uint64_t offset, uint64_t n) const {
    constexpr uint64_t kPiece = uint64_t{16} << 20;
    std::string piece;
    DataChecksum sum(format);
    for (uint64_t at = 0; at < n; at += kPiece) {
      piece.resize(std::min(kPiece, n - at));
      read_into(offset + at, piece.size(), piece.data());
      sum.add(piece);
    }
    return sum.digest();
  }
  CheckpointError error(const std::string& problem) const { return CheckpointError(prefix() + problem); }
  std::string prefix() const { return "checkpoint " + name_ + ": "; }

 private:
  std::string name_;
  std::unique_ptr<ReadableFile> file_;
};

// The most table bytes read_checked_header reads when no model bounds them (a forged header of a sparse
// multi-GB file must not make it allocate that much); a real table takes some bytes per parameter.
constexpr uint64_t kMaxUncheckedTableBytes = uint64_t{64} << 20;

// The most table bytes a checkpoint for `params` can need: its own table, with room for renamed and
// extra parameters so that such a file is still read far enough to name them.
uint64_t table_limit(const ParameterStore& params) {
  uint64_t own = 4 + 4 + 8 + static_cast<uint64_t>(kMaxCheckpointMoments) * (4 + 16);
  for (const ParameterInfo& p : params.parameters())
    own += 4 + p.name.size() + 4 + 8 * static_cast<uint64_t>(p.shape.rank);
  return 4 * own + (1 << 16);
}

struct TableEntry {
  std::string name;
  Shape shape;
};

struct Table {
  std::vector<TableEntry> parameters;
  std::vector<int> moments;  // ParameterStore moment index of each moment block, in file order
  uint64_t training_state_bytes = 0;
};

Table parse_table(std::string_view bytes, const CheckpointInput& in) {
  const std::string corrupt = "corrupt parameter table: ";
  const auto fail = [&](const std::string& problem) { return in.error(corrupt + problem); };
  Cursor c(bytes, in.prefix() + corrupt);
  Table t;
  const auto count = c.get<uint32_t>();
  for (uint32_t i = 0; i < count; ++i) {  // each entry takes >= 8 bytes: the table's size bounds the count
    const auto name_bytes = c.get<uint32_t>();
    if (name_bytes == 0 || name_bytes > kMaxNameBytes)
      throw fail("a parameter name of " + std::to_string(name_bytes) + " bytes");
    TableEntry e;
    e.name = std::string(c.take(name_bytes));
    const auto rank = c.get<uint32_t>();
    if (rank > static_cast<uint32_t>(kMaxRank))
      throw fail("parameter " + printable(e.name) + " has rank " + std::to_string(rank) + ", at most " +
                 std::to_string(kMaxRank));
    e.shape.rank = static_cast<int>(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      const auto dim = c.get<int64_t>();
      if (dim < 0) throw fail("parameter " + printable(e.name) + " has a negative dimension");
      e.shape.dims[d] = dim;
    }
    t.parameters.push_back(std::move(e));
  }
  std::unordered_map<std::string_view, size_t> seen;  // views into t.parameters, complete by now
  for (size_t i = 0; i < t.parameters.size(); ++i)
    if (!seen.emplace(t.parameters[i].name, i).second)
      throw fail("parameter " + printable(t.parameters[i].name) + " appears twice");
  const auto moments = c.get<uint32_t>();
  if (moments > static_cast<uint32_t>(kMaxCheckpointMoments))
    throw fail(std::to_string(moments) + " optimizer moment blocks, at most " + std::to_string(kMaxCheckpointMoments) +
               " exist");
  for (uint32_t m = 0; m < moments; ++m) {
    const auto name_bytes = c.get<uint32_t>();
    if (name_bytes > kMaxNameBytes) throw fail("a moment name of " + std::to_string(name_bytes) + " bytes");
    const std::string_view name = c.take(name_bytes);
    int k = 0;
    while (k < kMaxCheckpointMoments && name != moment_name(k)) ++k;
    if (k == kMaxCheckpointMoments) throw fail("unknown optimizer moment block '" + printable(name) + "'");
    if (std::find(t.moments.begin(), t.moments.end(), k) != t.moments.end())
      throw fail("moment block " + moment_name(k) + " appears twice");
    t.moments.push_back(k);
  }
  t.training_state_bytes = c.get<uint64_t>();
  if (t.training_state_bytes > kMaxTrainingStateBytes)
    throw fail("a training state of " + std::to_string(t.training_state_bytes) + " bytes, at most " +
               std::to_string(kMaxTrainingStateBytes));
  if (!c.at_end()) throw fail("trailing bytes");
  return t;
}

// Every parameter the model and the file do not agree on, by name; empty when they agree.
std::string mismatches(const Table& table, const ParameterStore& params) {
  std::vector<std::string> problems;
  std::unordered_map<std::string_view, const TableEntry*> in_file;
  for (const TableEntry& e : table.parameters) in_file.emplace(e.name, &e);
  for (const ParameterInfo& p : params.parameters()) {
    const auto it = in_file.find(p.name);
    if (it == in_file.end())
      problems.push_back("parameter " + p.name + ": the model has it, the checkpoint does not");
    else if (!(it->second->shape == p.shape))
      problems.push_back("parameter " + p.name + ": checkpoint has shape " + it->second->shape.str() + ", the model " +
                         p.shape.str());
  }
  for (const TableEntry& e : table.parameters)
    if (!params.contains(e.name))
      problems.push_back("parameter " + printable(e.name) + ": the checkpoint has it, the model does not");
  std::string text;
  for (size_t i = 0; i < problems.size() && i < kMaxProblemsListed; ++i) text += (i ? "; " : "") + problems[i];
  if (problems.size() > kMaxProblemsListed)
    text += "; and " + std::to_string(problems.size() - kMaxProblemsListed) + " more";
  return text;
}

// The header's fields and the table's bytes, checked as far as they can be without a model: magic,
// format, sizes against the file's, the table's checksum. `table_limit` bounds the table read.
struct Header {
  uint32_t format = 0;
  CheckpointHashes hashes;
  uint64_t table_bytes = 0;
  uint64_t data_bytes = 0;
  uint64_t data_sum = 0;
  std::string table_text;
};

Header read_checked_header(const CheckpointInput& in, uint64_t table_limit) {
  const uint64_t size = in.size();
  const std::string header = in.read(0, std::min<uint64_t>(size, kHeaderBytes));
  if (std::memcmp(header.data(), kMagic, std::min(header.size(), sizeof kMagic)) != 0)
    throw in.error("not a sinklab checkpoint (bad magic)");
  Cursor h(header, in.prefix());
  h.take(sizeof kMagic);
  const auto format = h.get<uint32_t>();
  if (format >= 1 && format <= kOldestFormat)
    throw in.error("format " + std::to_string(format) +
                   ", written by an older sinklab; rerun the training (this build reads " + kFormatsRead + ")");
  if (format != kFnv1aDataFormat && format != kCheckpointFormat)
    throw in.error("format " + std::to_string(format) + ", this build reads " + kFormatsRead);
  Header out;
  out.format = format;
  out.hashes.model = h.get<uint64_t>();
  out.hashes.config = h.get<uint64_t>();
  out.table_bytes = h.get<uint64_t>();
  out.data_bytes = h.get<uint64_t>();
  const auto table_sum = h.get<uint64_t>();
  out.data_sum = h.get<uint64_t>();

  if (out.table_bytes > table_limit)
    throw in.error("corrupt header: a parameter table of " + std::to_string(out.table_bytes) +
                   " bytes, more than this model can need (" + std::to_string(table_limit) + ")");
  if (size - kHeaderBytes < out.table_bytes || size - kHeaderBytes - out.table_bytes != out.data_bytes)
    throw in.error("truncated or padded (the file has " + std::to_string(size) +
                   " bytes; its header announces a table of " + std::to_string(out.table_bytes) + " and data of " +
                   std::to_string(out.data_bytes) + ")");

  out.table_text = in.read(kHeaderBytes, out.table_bytes);
  if (fnv1a(fnv1a(kFnv1aBasis, std::string_view(header).substr(0, kHashedHeaderBytes)), out.table_text) != table_sum)
    throw in.error("checksum mismatch in the header or parameter table (corrupt file)");
  return out;
}

}  // namespace

void write_checkpoint_file(const std::filesystem::path& path, const CheckpointHashes& hashes, ParameterStore& params,
                           std::string_view training_state) {
  if (!params.finalized()) throw std::logic_error("write_checkpoint_file: the parameter store is not finalized");
  if (params.moment_count() > kMaxCheckpointMoments || training_state.size() > kMaxTrainingStateBytes)
    throw std::logic_error("write_checkpoint_file: more moments or training state than the format holds");
  const auto& infos = params.parameters();
  std::string table;
  put(table, static_cast<uint32_t>(infos.size()));
  for (const ParameterInfo& p : infos) {
    put_name(table, p.name);
    put(table, static_cast<uint32_t>(p.shape.rank));
    for (int d = 0; d < p.shape.rank; ++d) put(table, p.shape[d]);
  }
  put(table, static_cast<uint32_t>(params.moment_count()));
  for (int k = 0; k < params.moment_count(); ++k) put_name(table, moment_name(k));
  put(table, static_cast<uint64_t>(training_state.size()));

  // The data: the values of each parameter without the store's alignment padding, in declaration
  // order, then each moment's the same way, then the training state. Written from the store as
  // pieces, never copied into one buffer (two copies of 1.1 GB at GPT-2 size were the run's peak).
  std::vector<std::string_view> pieces(1);  // pieces[0]: the header and the table, below
  const auto add_block = [&](std::span<const float> block) {
    for (const ParameterInfo& p : infos) {
      const std::span<const float> v = block.subspan(p.offset, static_cast<size_t>(p.shape.numel()));
      pieces.emplace_back(reinterpret_cast<const char*>(v.data()), v.size_bytes());
    }
  };
  add_block(params.values());
  for (int k = 0; k < params.moment_count(); ++k) add_block(params.moment(k));
  pieces.push_back(training_state);
  uint64_t data_bytes = 0;
  DataChecksum data_sum(kCheckpointFormat);
  for (size_t i = 1; i < pieces.size(); ++i) {
    data_bytes += pieces[i].size();
    data_sum.add(pieces[i]);
  }

  std::string head;
  head.reserve(kHeaderBytes + table.size());
  head.append(kMagic, sizeof kMagic);
  put(head, kCheckpointFormat);
  put(head, hashes.model);
  put(head, hashes.config);
  put(head, static_cast<uint64_t>(table.size()));
  put(head, data_bytes);
  put(head, fnv1a(fnv1a(kFnv1aBasis, head), table));  // head holds the 44 hashed header bytes here
  put(head, data_sum.digest());
  head += table;
  pieces[0] = head;
  write_file_atomically(path, pieces);
}

std::string read_checkpoint_file(const std::filesystem::path& path, const CheckpointHashes& expected, CheckpointUse use,
                                 ParameterStore& params) {
  if (!params.finalized()) throw std::logic_error("read_checkpoint_file: the parameter store is not finalized");
  const CheckpointInput in(path, path.string());
  const Header header = read_checked_header(in, table_limit(params));
  const CheckpointHashes& found = header.hashes;
  const uint64_t table_bytes = header.table_bytes, data_bytes = header.data_bytes, data_sum = header.data_sum;
  const std::string& table_text = header.table_text;
  if (found.model != expected.model)
    throw in.error(
        "written for a different model (the model-shaping hash differs: a model.* key, the task's widths or seq_len "
        "changed)");
  if (use == CheckpointUse::resume && found.config != expected.config)
    throw in.error("written for a different config (config hash differs); a run resumes only with its own config");
  const Table table = parse_table(table_text, in);
  if (const std::string problems = mismatches(table, params); !problems.empty())
    throw in.error("does not fit the model: " + problems);

  // Names and shapes match the model now, so the sizes below are the model's own.
  std::vector<uint64_t> offsets;  // byte offset of each table parameter within a float block
  uint64_t block_bytes = 0;
  for (const TableEntry& e : table.parameters) {
    offsets.push_back(block_bytes);
    block_bytes += static_cast<uint64_t>(e.shape.numel()) * sizeof(float);
  }
  const uint64_t needed = block_bytes * (1 + table.moments.size()) + table.training_state_bytes;
  if (needed != data_bytes)
    throw in.error("corrupt header: data of " + std::to_string(data_bytes) + " bytes, the table describes " +
                   std::to_string(needed));
  // The whole data's checksum first, read in pieces; then each parameter straight from the file into
  // the store. Holding the data whole would add the store's size times three (values and Adam's
  // moments) to the peak of every resume.
  const uint64_t data_start = kHeaderBytes + table_bytes;
  if (in.checksum(header.format, data_start, data_bytes) != data_sum)
    throw in.error("checksum mismatch (corrupt file)");
  const auto read_block = [&](uint64_t block_start, std::span<float> target) {
    for (size_t i = 0; i < table.parameters.size(); ++i) {
      const ParameterInfo& p = params.parameters()[static_cast<size_t>(params.id_of(table.parameters[i].name))];
      in.read_into(data_start + block_start + offsets[i], static_cast<uint64_t>(p.shape.numel()) * sizeof(float),
                   reinterpret_cast<char*>(target.data() + p.offset));
    }
  };
  read_block(0, params.values());
  if (use == CheckpointUse::resume)
    for (size_t m = 0; m < table.moments.size(); ++m)
      read_block(block_bytes * (1 + m), params.moment(table.moments[m]));
  const uint64_t state_start = block_bytes * (1 + table.moments.size());
  return in.read(data_start + state_start, data_bytes - state_start);
}

std::string read_checkpoint_training_state(const std::filesystem::path& path) {
  const CheckpointInput in(path, path.string());
  const Header header = read_checked_header(in, std::min(in.size(), kMaxUncheckedTableBytes));
  const Table table = parse_table(header.table_text, in);
  if (table.training_state_bytes > header.data_bytes)
    throw in.error("corrupt header: a training state of " + std::to_string(table.training_state_bytes) +
                   " bytes in data of " + std::to_string(header.data_bytes));
  return in.read(in.size() - table.training_state_bytes, table.training_state_bytes);
}

std::string checkpoint_damage(const std::filesystem::path& path) {
  try {
    const CheckpointInput in(path, path.string());
    const Header header = read_checked_header(in, std::min(in.size(), kMaxUncheckedTableBytes));
    const Table table = parse_table(header.table_text, in);
    uint64_t block_floats = 0;  // the table's shapes come from the file: add them up without overflow
    bool too_big = false;
    for (const TableEntry& e : table.parameters) {
      uint64_t numel = 1;
      for (int d = 0; d < e.shape.rank; ++d)
        too_big = too_big || __builtin_mul_overflow(numel, static_cast<uint64_t>(e.shape.dims[d]), &numel);
      too_big = too_big || __builtin_add_overflow(block_floats, numel, &block_floats);
    }
    uint64_t needed = 0;
    too_big = too_big || __builtin_mul_overflow(block_floats, sizeof(float) * (1 + table.moments.size()), &needed) ||
              __builtin_add_overflow(needed, table.training_state_bytes, &needed);
    if (too_big || needed != header.data_bytes)
      throw in.error("corrupt header: data of " + std::to_string(header.data_bytes) + " bytes, the table describes " +
                     (too_big ? std::string("more than 2^64") : std::to_string(needed)));
    if (in.checksum(header.format, kHeaderBytes + header.table_bytes, header.data_bytes) != header.data_sum)
      throw in.error("checksum mismatch (corrupt file)");
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return {};
}

}  // namespace sinklab
